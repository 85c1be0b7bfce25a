package krylov

import (
	"errors"
	"fmt"
	"math"
)

// Operator applies a linear operator: y = A·x. It must overwrite y entirely.
type Operator interface {
	Apply(x, y []float64) // y = A·x
}

// Preconditioner applies an approximate inverse: z = M⁻¹·r. It must overwrite z
// entirely and must not modify r.
type Preconditioner interface {
	Apply(r, z []float64) // z = M⁻¹·r
}

// Identity is the preconditioner z = r.
type Identity struct{}

// Apply copies r into z.
func (Identity) Apply(r, z []float64) { copy(z, r) }

// Options controls CG. The zero value is not useful; start from DefaultOptions.
type Options struct {
	// RelTol is the relative tolerance on ‖b − A·x‖₂ / ‖b − A·x₀‖₂ (PETSc -ksp_rtol).
	// Default 1e-8.
	RelTol float64
	// AbsTol is the absolute tolerance on ‖b − A·x‖₂ (PETSc -ksp_atol). Default 1e-50.
	AbsTol float64
	// MaxIter is the iteration limit (PETSc -ksp_max_it). Default 10000.
	MaxIter int
	// History records the residual norm of every iteration in Result.History.
	History bool
	// Workers bounds the goroutines of the vector operations (<= 0: GOMAXPROCS).
	// The operator and preconditioner choose their own.
	Workers int
}

// DefaultOptions returns PETSc's KSP defaults: rtol 1e-8, atol 1e-50, 10000 iterations.
func DefaultOptions() Options {
	return Options{RelTol: 1e-8, AbsTol: 1e-50, MaxIter: 10000}
}

// Result describes a CG run.
type Result struct {
	Iterations      int       // iterations performed
	InitialResidual float64   // ‖b − A·x₀‖₂
	Residual        float64   // final ‖b − A·x‖₂ (the true residual when converged)
	Target          float64   // max(RelTol·InitialResidual, AbsTol)
	History         []float64 // residual norms, History[0] the initial one (when asked)
}

// Begin starts the record of a solve from its initial residual norm: InitialResidual,
// Residual, Target and History[0] (when opt.History); a *BreakdownError when the norm
// is not finite. With Step it is CG's bookkeeping, which solvers outside this package
// (a backend's PCG) share.
func (r *Result) Begin(rnorm float64, opt Options) error {
	r.InitialResidual = rnorm
	r.Target = max(opt.RelTol*rnorm, opt.AbsTol)
	return r.Step(0, rnorm, opt)
}

// Step records iteration it's (recursive) residual norm: Iterations, Residual and
// History (when opt.History); a *BreakdownError when the norm is not finite.
func (r *Result) Step(it int, rnorm float64, opt Options) error {
	r.Iterations, r.Residual = it, rnorm
	if opt.History {
		r.History = append(r.History, rnorm)
	}
	if !finite(rnorm) {
		return &BreakdownError{Iteration: it, Quantity: "‖r‖", Value: rnorm}
	}
	return nil
}

// ErrTolerance is wrapped by the error CG returns for invalid options.
var ErrTolerance = errors.New("krylov: invalid options")

// Validate names the first option out of range (an error wrapping ErrTolerance). An
// infinite tolerance would declare any iterate converged, so tolerances must be finite
// as well as non-negative. Solvers outside this package (a backend's PCG) use it to
// accept exactly what CG accepts.
func (o Options) Validate() error { return o.validate() }

func (o *Options) validate() error {
	switch {
	case !(o.RelTol >= 0) || math.IsInf(o.RelTol, 0):
		return fmt.Errorf("%w: RelTol %g, want finite and ≥ 0", ErrTolerance, o.RelTol)
	case !(o.AbsTol >= 0) || math.IsInf(o.AbsTol, 0):
		return fmt.Errorf("%w: AbsTol %g, want finite and ≥ 0", ErrTolerance, o.AbsTol)
	case o.MaxIter < 0:
		return fmt.Errorf("%w: MaxIter %d, want ≥ 0", ErrTolerance, o.MaxIter)
	}
	return nil
}

// CG solves A·x = b by preconditioned conjugate gradients, starting from the x it is
// given, and leaves the final iterate in x. A must be symmetric positive definite and M
// symmetric positive definite (nil means no preconditioner). It returns
// *NotConvergedError when MaxIter is reached and *BreakdownError when pᵀAp or rᵀz is not
// positive and finite; Result is filled in every case. Slices of the wrong length panic.
func CG(A Operator, M Preconditioner, b, x []float64, opt Options) (Result, error) {
	n := len(b)
	if len(x) != n {
		panic("krylov: CG: len(x) != len(b)")
	}
	var res Result
	if err := opt.validate(); err != nil {
		return res, err
	}
	if M == nil {
		M = Identity{}
	}
	w := opt.Workers
	r := make([]float64, n)
	z := make([]float64, n)
	p := make([]float64, n)
	q := make([]float64, n)

	// r = b − A·x, skipping the product when x is zero (the usual x₀).
	trueResidual := func() float64 {
		A.Apply(x, q)
		return safeNorm(r, reduce(n, w, func(lo, hi int) float64 {
			s := 0.0
			for i := lo; i < hi; i++ {
				r[i] = b[i] - q[i]
				s += r[i] * r[i]
			}
			return s
		}), w)
	}
	var rnorm float64
	if isZero(x) {
		copy(r, b)
		rnorm = safeNorm(r, dot(r, r, w), w)
	} else {
		rnorm = trueResidual()
	}
	if err := res.Begin(rnorm, opt); err != nil {
		return res, err
	}
	if rnorm <= res.Target {
		return res, nil
	}

	// restart sets p = z = M⁻¹r and returns rᵀz.
	restart := func(it int) (float64, error) {
		M.Apply(r, z)
		rz := dot(r, z, w)
		if !(rz > 0) || math.IsInf(rz, 0) {
			return rz, &BreakdownError{Iteration: it, Quantity: "rᵀz", Value: rz}
		}
		copy(p, z)
		return rz, nil
	}
	rz, err := restart(0)
	if err != nil {
		return res, err
	}
	for it := 1; it <= opt.MaxIter; it++ {
		A.Apply(p, q)
		pq := dot(p, q, w)
		if !(pq > 0) || math.IsInf(pq, 0) {
			res.Iterations = it - 1
			return res, &BreakdownError{Iteration: it, Quantity: "pᵀAp", Value: pq}
		}
		alpha := rz / pq
		rr := reduce(n, w, func(lo, hi int) float64 {
			s := 0.0
			for i := lo; i < hi; i++ {
				x[i] += alpha * p[i]
				ri := r[i] - alpha*q[i]
				r[i] = ri
				s += ri * ri
			}
			return s
		})
		rnorm = safeNorm(r, rr, w)
		if err := res.Step(it, rnorm, opt); err != nil {
			return res, err
		}
		if rnorm <= res.Target {
			// Confirm on the true residual; if rounding made the recursion drift,
			// continue from the true residual with a fresh search direction.
			tn := trueResidual()
			res.Residual = tn
			if tn <= res.Target {
				return res, nil
			}
			if rz, err = restart(it); err != nil {
				return res, err
			}
			continue
		}
		M.Apply(r, z)
		rzNew := dot(r, z, w)
		if !(rzNew > 0) || math.IsInf(rzNew, 0) {
			return res, &BreakdownError{Iteration: it, Quantity: "rᵀz", Value: rzNew}
		}
		beta := rzNew / rz
		rz = rzNew
		forEach(n, w, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				p[i] = z[i] + beta*p[i]
			}
		})
	}
	return res, &NotConvergedError{Iterations: res.Iterations, Residual: res.Residual, Target: res.Target}
}

func isZero(x []float64) bool {
	for _, v := range x {
		if v != 0 {
			return false
		}
	}
	return true
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
