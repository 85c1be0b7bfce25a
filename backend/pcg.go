package backend

import (
	"errors"
	"fmt"
	"math"

	"blockamg/bsr"
)

// ErrNotConverged is wrapped by PCG's error when MaxIter iterations did not reach the
// tolerance.
var ErrNotConverged = errors.New("backend: PCG did not converge")

// ErrBreakdown is wrapped by PCG's error when pᵀAp or rᵀz is not positive, which
// means A or the preconditioner is not positive definite.
var ErrBreakdown = errors.New("backend: PCG breakdown")

// PCGOptions controls PCG. The zero value is not usable; start from DefaultPCGOptions.
type PCGOptions struct {
	Tol     float64 // stop when ‖b − A·x‖₂ ≤ Tol·‖b‖₂ (recursive residual), default 1e-8
	MaxIter int     // iteration limit, default 1000
}

// DefaultPCGOptions returns Tol 1e-8 and MaxIter 1000.
func DefaultPCGOptions() PCGOptions { return PCGOptions{Tol: 1e-8, MaxIter: 1000} }

// PCGResult reports a PCG solve.
type PCGResult struct {
	Iterations  int     // iterations done
	RelResidual float64 // final ‖r‖₂/‖b‖₂ of the recursively updated residual
}

// PCG solves A·x = rhs by conjugate gradients preconditioned with the block-diagonal
// operator m (z = m·r, typically inverted diagonal blocks: block Jacobi), entirely
// with the primitives of be: on a GPU backend every vector stays on the device and
// only the three inner products of each iteration come back. x holds the initial
// guess and receives the solution. A is square; its transpose is not needed.
func PCG(be Backend, a Matrix, m BlockDiag, rhs, x Vector, opt PCGOptions) (PCGResult, error) {
	n := rhs.Len()
	br, bc, r, c := a.Dims()
	if br*r != n || bc*c != n || x.Len() != n {
		panic("backend: PCG: dimension mismatch")
	}
	// NaN compares false with everything: test for what is valid, not for what is not.
	if !(opt.Tol > 0) || math.IsInf(opt.Tol, 0) || opt.MaxIter < 0 {
		return PCGResult{}, fmt.Errorf("backend: PCG options: Tol %g must be positive and finite, MaxIter %d non-negative", opt.Tol, opt.MaxIter)
	}
	var res PCGResult
	vecs := make([]Vector, 0, 4)
	defer func() {
		for _, v := range vecs {
			v.Free()
		}
	}()
	alloc := func() (Vector, error) {
		v, err := be.NewVector(n)
		if err == nil {
			vecs = append(vecs, v)
		}
		return v, err
	}
	rv, err := alloc()
	if err != nil {
		return res, err
	}
	z, err := alloc()
	if err != nil {
		return res, err
	}
	p, err := alloc()
	if err != nil {
		return res, err
	}
	q, err := alloc()
	if err != nil {
		return res, err
	}

	bnorm := be.Norm(rhs)
	if bnorm == 0 {
		be.Zero(x)
		return res, be.Err()
	}
	be.Copy(rv, rhs)
	be.SpMV(-1, a, x, 1, rv)
	res.RelResidual = be.Norm(rv) / bnorm
	if err := be.Err(); err != nil {
		return res, err
	}
	if res.RelResidual <= opt.Tol {
		return res, nil
	}
	be.BlockDiagApply(m, rv, z)
	rho := be.Dot(rv, z)
	if !(rho > 0) || math.IsInf(rho, 0) {
		return res, fmt.Errorf("%w: rᵀz = %g at iteration 0 (preconditioner not positive definite?)", ErrBreakdown, rho)
	}
	be.Copy(p, z)
	for res.Iterations < opt.MaxIter {
		be.SpMV(1, a, p, 0, q)
		pq := be.Dot(p, q)
		if !(pq > 0) || math.IsInf(pq, 0) {
			if err := be.Err(); err != nil {
				return res, err
			}
			return res, fmt.Errorf("%w: pᵀAp = %g at iteration %d (matrix not positive definite?)", ErrBreakdown, pq, res.Iterations)
		}
		alpha := rho / pq
		be.Axpby(alpha, p, 1, x)
		be.Axpby(-alpha, q, 1, rv)
		res.Iterations++
		res.RelResidual = be.Norm(rv) / bnorm
		if res.RelResidual <= opt.Tol {
			return res, be.Err()
		}
		be.BlockDiagApply(m, rv, z)
		rhoNew := be.Dot(rv, z)
		if !(rhoNew > 0) || math.IsInf(rhoNew, 0) {
			if err := be.Err(); err != nil {
				return res, err
			}
			return res, fmt.Errorf("%w: rᵀz = %g at iteration %d (preconditioner not positive definite?)", ErrBreakdown, rhoNew, res.Iterations)
		}
		be.Axpby(1, z, rhoNew/rho, p)
		rho = rhoNew
	}
	if err := be.Err(); err != nil {
		return res, err
	}
	return res, fmt.Errorf("%w: %d iterations, relative residual %.3g > %.3g", ErrNotConverged, res.Iterations, res.RelResidual, opt.Tol)
}

// NewBlockJacobi inverts the diagonal blocks of the square-blocked matrix a on the host
// (bsr.InvertDiag) and uploads them: the block-Jacobi preconditioner for PCG.
func NewBlockJacobi(be Backend, a *bsr.Matrix) (BlockDiag, error) {
	inv, err := a.InvertDiag()
	if err != nil {
		return nil, fmt.Errorf("backend: block Jacobi: %w", err)
	}
	return be.UploadBlockDiag(a.BlockRows, a.R, inv)
}
