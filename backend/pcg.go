package backend

import (
	"fmt"
	"math"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/krylov"
)

// NewBlockJacobi inverts the diagonal blocks of the square-blocked matrix a on the host
// (bsr.InvertDiag) and uploads them: the block-Jacobi preconditioner for PCG (wrap it
// in Jacobi).
func NewBlockJacobi(be Backend, a *bsr.Matrix) (BlockDiag, error) {
	inv, err := a.InvertDiag()
	if err != nil {
		return nil, fmt.Errorf("backend: block Jacobi: %w", err)
	}
	return be.UploadBlockDiag(a.BlockRows, a.R, inv)
}

// Jacobi is a block-diagonal operator as a Preconditioner: z = D·r.
type Jacobi struct {
	Be Backend
	D  BlockDiag
}

// Apply computes z = D·r.
func (j Jacobi) Apply(r, z Vector) { j.Be.BlockDiagApply(j.D, r, z) }

// Preconditioner applies z = M⁻¹·r on a backend: amg/cycle's *Cycle (a V-cycle),
// or Jacobi (block Jacobi).
type Preconditioner interface {
	// Apply overwrites z with M⁻¹·r and leaves r unchanged.
	Apply(r, z Vector)
}

// Checker is implemented by preconditioners that can be unusable (a V-cycle after a
// failed re-setup): PCG calls Ready before it starts and returns its error.
type Checker interface {
	Ready() error
}

// PCG solves A·x = b by preconditioned conjugate gradients on be, starting from x = 0
// (x's contents are overwritten), with krylov.CG's semantics: convergence is measured
// on the unpreconditioned residual against max(RelTol·‖b‖, AbsTol), and a recursive
// residual that claims convergence is confirmed on the true residual b − A·x. Errors
// are krylov's *NotConvergedError and *BreakdownError, so callers handle CPU and
// backend solves alike. Only scalars (the inner products) come back from the backend;
// on a CGStepper only ‖r‖ and a breakdown flag, once per iteration.
func PCG(be Backend, A Matrix, M Preconditioner, b, x Vector, opt krylov.Options) (krylov.Result, error) {
	var w PCGWork
	defer w.Free()
	return w.Solve(be, A, M, b, x, opt)
}

// PCGWork holds PCG's four work vectors between solves, so that a sequence of
// solves of one size (the recurring steps of a simulation) allocates them once: on a
// GPU an allocation or a release can cost more than an iteration's vector work. The
// zero value is ready to use; Free releases the vectors.
type PCGWork struct {
	be         Backend
	r, z, p, q Vector
}

// Free releases the work vectors (a no-op when there are none).
func (w *PCGWork) Free() {
	for _, v := range []Vector{w.r, w.z, w.p, w.q} {
		if v != nil {
			v.Free()
		}
	}
	*w = PCGWork{}
}

// Solve is PCG with w's work vectors, (re)allocated when the backend or the size
// changes.
func (w *PCGWork) Solve(be Backend, A Matrix, M Preconditioner, b, x Vector, opt krylov.Options) (krylov.Result, error) {
	n := b.Len()
	if x.Len() != n {
		panic("backend: PCG: len(x) != len(b)")
	}
	var res krylov.Result
	if err := opt.Validate(); err != nil {
		return res, err
	}
	if ck, ok := M.(Checker); ok {
		if err := ck.Ready(); err != nil {
			return res, err
		}
	}
	if w.be != be || w.r == nil || w.r.Len() != n {
		w.Free()
		w.be = be
		for _, v := range []*Vector{&w.r, &w.z, &w.p, &w.q} {
			var err error
			if *v, err = be.NewVector(n); err != nil {
				w.Free()
				return res, err
			}
		}
	}
	r, z, p, q := w.r, w.z, w.p, w.q
	be.Zero(x)
	be.Copy(r, b)
	rnorm := be.Norm(r)
	if err := res.Begin(rnorm, opt); err != nil {
		return res, err
	}
	if rnorm <= res.Target {
		return res, be.Err()
	}
	if cs, ok := be.(CGStepper); ok {
		return pcgStepper(be, cs, A, M, b, x, r, z, p, q, opt, &res)
	}
	restart := func(it int) (float64, error) {
		M.Apply(r, z)
		rz := be.Dot(r, z)
		if !(rz > 0) || math.IsInf(rz, 0) {
			return rz, &krylov.BreakdownError{Iteration: it, Quantity: "rᵀz", Value: rz}
		}
		be.Copy(p, z)
		return rz, nil
	}
	rz, err := restart(0)
	if err != nil {
		return res, err
	}
	for it := 1; it <= opt.MaxIter; it++ {
		be.SpMV(1, A, p, 0, q)
		pq := be.Dot(p, q)
		if !(pq > 0) || math.IsInf(pq, 0) {
			res.Iterations = it - 1
			return res, stagnated(be, A, b, x, r, &res, &krylov.BreakdownError{Iteration: it, Quantity: "pᵀAp", Value: pq})
		}
		alpha := rz / pq
		be.Axpby(alpha, p, 1, x)
		be.Axpby(-alpha, q, 1, r)
		rnorm = be.Norm(r)
		if err := res.Step(it, rnorm, opt); err != nil {
			return res, err
		}
		if rnorm <= res.Target {
			// Confirm on the true residual.
			tn := trueResidual(be, A, b, x, r)
			res.Residual = tn
			if tn <= res.Target {
				return res, be.Err()
			}
			if rz, err = restart(it); err != nil {
				return res, err
			}
			continue
		}
		M.Apply(r, z)
		rzNew := be.Dot(r, z)
		if !(rzNew > 0) || math.IsInf(rzNew, 0) {
			return res, stagnated(be, A, b, x, r, &res, &krylov.BreakdownError{Iteration: it, Quantity: "rᵀz", Value: rzNew})
		}
		be.Axpby(1, z, rzNew/rz, p)
		rz = rzNew
	}
	if err := be.Err(); err != nil {
		return res, err
	}
	return res, notConverged(be, A, b, x, r, &res)
}

// notConverged is the error at the iteration limit, on the true residual (computed
// into r and recorded in res): the recursive one may have drifted far below it.
// A true residual below stagnationReduction times the initial one means the solve
// stagnated at rounding level (Stagnated).
func notConverged(be Backend, A Matrix, b, x, r Vector, res *krylov.Result) error {
	tn := trueResidual(be, A, b, x, r)
	res.Residual = tn
	return &krylov.NotConvergedError{Iterations: res.Iterations, Residual: tn, Target: res.Target,
		Stagnated: res.Iterations > 0 && tn <= stagnationReduction*res.InitialResidual}
}

// pcgStepper is PCG's iteration on a CGStepper: the same recurrence, with α, β and
// rᵀz in the backend's memory and one wait per iteration (CGRead, for ‖r‖). A
// breakdown of rᵀz shows at the next CGRead, where the generic path would have
// stopped right away; the results are the same, since the steps between change
// nothing. res is PCG's, which each step records into.
func pcgStepper(be Backend, cs CGStepper, A Matrix, M Preconditioner, b, x, r, z, p, q Vector, opt krylov.Options,
	res *krylov.Result) (krylov.Result, error) {
	restart := func(it int) {
		M.Apply(r, z)
		cs.CGStart(it, r, z)
		be.Copy(p, z)
	}
	restart(0)
	for it := 1; it <= opt.MaxIter; it++ {
		be.SpMV(1, A, p, 0, q)
		cs.CGUpdate(it, p, q, x, r)
		s, err := cs.CGRead()
		if err != nil {
			return *res, err
		}
		if s.Break {
			if s.BreakQuantity == "pᵀAp" {
				res.Iterations = it - 1
			}
			return *res, stagnated(be, A, b, x, r, res, &krylov.BreakdownError{Iteration: s.BreakIteration, Quantity: s.BreakQuantity, Value: s.BreakValue})
		}
		rnorm := math.Sqrt(s.RR)
		if !(s.RR >= 0x1p-900) || math.IsInf(s.RR, 0) {
			// The plain sum of squares may have under- or overflowed: the backend's
			// Norm guards against both.
			rnorm = be.Norm(r)
		}
		if err := res.Step(it, rnorm, opt); err != nil {
			return *res, err
		}
		if rnorm <= res.Target {
			// Confirm on the true residual.
			tn := trueResidual(be, A, b, x, r)
			res.Residual = tn
			if tn <= res.Target {
				return *res, be.Err()
			}
			restart(it)
			continue
		}
		M.Apply(r, z)
		cs.CGDirection(it, r, z, p)
	}
	if s, err := cs.CGRead(); err != nil {
		return *res, err
	} else if s.Break {
		return *res, stagnated(be, A, b, x, r, res, &krylov.BreakdownError{Iteration: s.BreakIteration, Quantity: s.BreakQuantity, Value: s.BreakValue})
	}
	return *res, notConverged(be, A, b, x, r, res)
}

// stagnationReduction is the reduction of the true residual below which a breakdown
// is taken for rounding: CG on an SPD system whose residual has fallen this far has
// reached the accuracy its floating-point arithmetic allows, and the loss of
// positive definiteness of pᵀAp or rᵀz is the rounding of vectors at that level, not
// an indefinite operator.
const stagnationReduction = 1e-6

// stagnated tells a breakdown after progress from one at the start: when the true
// residual b − A·x (computed into r) is below stagnationReduction times the initial
// one, the solve stagnated at rounding level — the tolerance is unattainable — and
// the error is a *krylov.NotConvergedError with Stagnated set, the true residual in
// res; otherwise brk itself.
func stagnated(be Backend, A Matrix, b, x, r Vector, res *krylov.Result, brk *krylov.BreakdownError) error {
	if brk.Iteration == 0 || !(res.InitialResidual > 0) {
		return brk
	}
	tn := trueResidual(be, A, b, x, r)
	if !(tn <= stagnationReduction*res.InitialResidual) {
		return brk
	}
	res.Residual = tn
	return &krylov.NotConvergedError{Iterations: res.Iterations, Residual: tn, Target: res.Target, Stagnated: true, Cause: brk}
}

// trueResidual overwrites r with b − A·x and returns its norm: the check both PCG
// paths make before they report convergence.
func trueResidual(be Backend, A Matrix, b, x, r Vector) float64 {
	be.Copy(r, b)
	be.SpMV(-1, A, x, 1, r)
	return be.Norm(r)
}
