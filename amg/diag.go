package amg

import (
	"fmt"

	"blockamg/bsr"
	"blockamg/internal/par"
)

// invertDiag writes the inverses of A's diagonal blocks into dinv (BlockRows
// consecutive b×b blocks), reusing the caller's storage so that Update allocates
// nothing. A missing or singular block is an error wrapping bsr.ErrSingular that names
// the lowest such block row, whatever the worker count.
func invertDiag(A *bsr.Matrix, dinv []float64, workers int) error {
	n, b := A.BlockRows, A.R
	bb := b * b
	bad := make([]bool, n)
	par.ForWeighted(A.RowPtr, workers, int64(minChunk), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			d := dinv[i*bb : (i+1)*bb]
			k, ok := A.Find(i, i)
			bad[i] = !ok || !bsr.InvertBlock(b, A.Block(k), d)
		}
	})
	for i, v := range bad {
		if v {
			return fmt.Errorf("%w: diagonal block of block row %d", bsr.ErrSingular, i)
		}
	}
	return nil
}
