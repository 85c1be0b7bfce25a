package bsr

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/blockamg/blockamg/internal/par"
)

// CheckSymmetric returns nil when m is square-blocked with a symmetric pattern and,
// when it has values, symmetric values: block (j, i) = block (i, j)ᵀ to 1e-12 of m's
// largest entry (an assembled operator may differ in its last bits); otherwise an
// error naming the first block found that is not. The Galerkin products' symmetric
// half (galerkin.Plan.SetSymmetric, cuda.Options.Symmetric) requires it.
func (m *Matrix) CheckSymmetric() error {
	if err := m.checkSquareBlocked("CheckSymmetric"); err != nil {
		return err
	}
	r := m.R
	bs := int64(r * r)
	// The largest |entry|, by chunks in parallel (a maximum: the same in any order).
	var mu sync.Mutex
	scale := 0.0
	par.For(len(m.Val), 0, 1<<20, func(lo, hi int) {
		s := 0.0
		for _, v := range m.Val[lo:hi] {
			s = max(s, math.Abs(v))
		}
		mu.Lock()
		scale = max(scale, s)
		mu.Unlock()
	})
	tol := 1e-12 * scale
	var first atomic.Pointer[error]
	par.For(m.BlockRows, 0, 1024, func(lo, hi int) {
		for i := lo; i < hi && first.Load() == nil; i++ {
			for a := m.RowPtr[i]; a < m.RowPtr[i+1]; a++ {
				j := m.ColIdx[a]
				q, ok := slices.BinarySearch(m.ColIdx[m.RowPtr[j]:m.RowPtr[j+1]], int32(i))
				if !ok {
					err := fmt.Errorf("not symmetric: block (%d, %d) is stored, (%d, %d) is not", i, j, j, i)
					first.CompareAndSwap(nil, &err)
					return
				}
				if m.Val == nil {
					continue
				}
				x, y := m.Val[a*bs:(a+1)*bs], m.Val[(m.RowPtr[j]+int64(q))*bs:]
				for u := 0; u < r; u++ {
					for v := 0; v < r; v++ {
						if d := math.Abs(x[u*r+v] - y[v*r+u]); !(d <= tol) {
							err := fmt.Errorf("not symmetric: block (%d, %d) entry (%d, %d) is %g, block (%d, %d) entry (%d, %d) is %g",
								i, j, u, v, x[u*r+v], j, i, v, u, y[v*r+u])
							first.CompareAndSwap(nil, &err)
							return
						}
					}
				}
			}
		}
	})
	if e := first.Load(); e != nil {
		return *e
	}
	return nil
}
