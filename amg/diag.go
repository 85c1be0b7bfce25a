package amg

import (
	"fmt"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// invertDiag writes the inverses of A's diagonal blocks into dinv (BlockRows
// consecutive b×b blocks), reusing the caller's storage so that Update allocates
// nothing. A missing or singular block (singular to float64 precision: an
// ill-conditioned operator) is an error wrapping bsr.ErrSingular, a
// diagonal entry that is not positive one wrapping ErrNotSPD (no symmetric positive
// definite matrix has one, and the eigenvalue estimate or CG would only fail later
// with a less telling breakdown); either names the lowest such block row, whatever the
// worker count.
func invertDiag(A *bsr.Matrix, dinv []float64, workers int) error {
	n, b := A.BlockRows, A.R
	bb := b * b
	const (
		ok = iota
		missing
		singular
		nonPositive
	)
	state := make([]uint8, n)
	par.ForWeighted(A.RowPtr, workers, int64(minChunk), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			d := dinv[i*bb : (i+1)*bb]
			k, found := A.Find(i, i)
			switch {
			case !found:
				state[i] = missing
			case !positiveDiagonal(b, A.Block(k)):
				state[i] = nonPositive
			case !bsr.InvertBlock(b, A.Block(k), d):
				state[i] = singular
			default:
				state[i] = ok
			}
		}
	})
	for i, s := range state {
		switch s {
		case missing:
			return fmt.Errorf("%w: block row %d has no diagonal block", bsr.ErrSingular, i)
		case singular:
			// InvertBlock equilibrates (and, failing that, scales symmetrically by the
			// diagonal), so no scaling of the unknowns causes this: the block is
			// singular, or ill-conditioned beyond what float64 resolves.
			return fmt.Errorf("%w: diagonal block of block row %d is singular to float64 precision even equilibrated: the operator is singular there or ill-conditioned beyond 1/ε ≈ 4.5e15 (a material contrast of that size, say)",
				bsr.ErrSingular, i)
		case nonPositive:
			blk, _ := A.Find(i, i)
			for p := 0; p < b; p++ {
				if v := A.Block(blk)[p*b+p]; !(v > 0) {
					return fmt.Errorf("%w: block row %d: diagonal entry %d is %g, not positive", ErrNotSPD, i, p, v)
				}
			}
		}
	}
	return nil
}

// positiveDiagonal reports whether the diagonal entries of the b×b block are positive.
func positiveDiagonal(b int, blk []float64) bool {
	for p := 0; p < b; p++ {
		if !(blk[p*b+p] > 0) {
			return false
		}
	}
	return true
}
