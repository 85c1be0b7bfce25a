package bsr

import (
	"fmt"
	"sort"
	"sync"

	"github.com/blockamg/blockamg/internal/bsrkern"
	"github.com/blockamg/blockamg/internal/par"
)

// Upper is a symmetric matrix kept by its blocks on and above the diagonal, for
// products that stream about half the bytes of the whole matrix: each stored block
// A_ik serves row i and, transposed, row k. A solve's time on the CPU is mostly such
// products with the level operators, bound by the memory's bandwidth.
//
// Each row stores its diagonal block first (a zero block where the matrix has none),
// then its blocks right of the diagonal in rising column order. Products are formed
// row range by row range as MulVec's are, and every row's bits are the same for any
// worker count: row k's terms from the rows above it are summed in the order of
// those rows whatever the split (bsrkern.SymRows).
//
// An Upper runs only where the vector kernels do (UpperSupported); it is not safe to
// change its values (Refresh) while a product runs.
type Upper struct {
	B      int     // block size (b×b blocks)
	RowPtr []int64 // len Rows()+1
	ColIdx []int32
	Val    []float64
	// reach[i] is the largest block column stored in rows 0 … i: the rows before a
	// range that reach into it are those from the first whose reach is inside.
	reach []int32
	// src[i] is the position in the matrix it was made from of row i's first block
	// on or right of the diagonal, and diag[i] whether that block is the diagonal:
	// what Refresh copies.
	src  []int64
	diag []bool
	work sync.Pool // *upperWork: a range's accumulators and row sums
}

// upperWork is the scratch of one Range call, pooled: the range's accumulators and a
// chunk's row sums.
type upperWork struct{ acc, s []float64 }

// UpperSupported reports whether NewUpper runs b×b blocks here: 3×3 and 6×6 blocks
// where the vector kernels run (package bsrkern).
func UpperSupported(b int) bool { return bsrkern.HasSym(b) }

// NewUpper returns the blocks of m on and above its diagonal as an Upper. m must be
// square-blocked (an error wrapping ErrInvalid otherwise) with a block size
// UpperSupported reports (panics otherwise: callers check), and symmetric: the blocks
// below the diagonal are not read, so a matrix symmetric to rounding is multiplied as
// the exact symmetrization of its upper part.
func NewUpper(m *Matrix) (*Upper, error) {
	if err := m.checkSquareBlocked("NewUpper"); err != nil {
		return nil, err
	}
	if !UpperSupported(m.R) {
		panic(fmt.Sprintf("bsr: NewUpper: no symmetric kernel for %d×%d blocks here", m.R, m.R))
	}
	n := m.BlockRows
	u := &Upper{B: m.R, RowPtr: make([]int64, n+1), reach: make([]int32, n), src: make([]int64, n), diag: make([]bool, n)}
	var reach int32
	for i := 0; i < n; i++ {
		row := m.ColIdx[m.RowPtr[i]:m.RowPtr[i+1]]
		p := sort.Search(len(row), func(q int) bool { return row[q] >= int32(i) })
		u.src[i] = m.RowPtr[i] + int64(p)
		u.diag[i] = p < len(row) && row[p] == int32(i)
		cnt := int64(len(row) - p)
		if !u.diag[i] {
			cnt++
		}
		u.RowPtr[i+1] = u.RowPtr[i] + cnt
		if len(row) > 0 {
			reach = max(reach, row[len(row)-1])
		}
		u.reach[i] = max(reach, int32(i))
	}
	nnz := u.RowPtr[n]
	u.ColIdx = make([]int32, nnz)
	u.Val = make([]float64, nnz*int64(m.R*m.R))
	for i := 0; i < n; i++ {
		k := u.RowPtr[i]
		u.ColIdx[k] = int32(i)
		rest := m.ColIdx[u.src[i]:m.RowPtr[i+1]]
		if u.diag[i] {
			rest = rest[1:]
		}
		copy(u.ColIdx[k+1:], rest)
	}
	u.Refresh(m)
	return u, nil
}

// Rows returns the block rows.
func (u *Upper) Rows() int { return len(u.RowPtr) - 1 }

// Refresh copies m's current values into u, which NewUpper made from m (the same
// pattern; not checked beyond the lengths).
func (u *Upper) Refresh(m *Matrix) {
	bs := int64(u.B * u.B)
	if m.BlockRows != u.Rows() || m.R != u.B || int64(len(m.Val)) != m.RowPtr[m.BlockRows]*bs {
		panic("bsr: Upper.Refresh: matrix of another shape")
	}
	par.ForWeighted(u.RowPtr, 0, minChunkBlocks, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst := u.Val[u.RowPtr[i]*bs : u.RowPtr[i+1]*bs]
			if !u.diag[i] {
				clear(dst[:bs])
				dst = dst[bs:]
			}
			copy(dst, m.Val[u.src[i]*bs:m.RowPtr[i+1]*bs])
		}
	})
}

// UpperChunk is the block rows Upper.Range hands its callback at a time.
const UpperChunk = 32

// Range forms y_i = (A·x)_i for the block rows lo ≤ i < hi, UpperChunk rows at a
// time: emit(c, e, s) receives rows c … e−1 in s (b values a row), in increasing
// order, each row's value complete (s is reused after emit returns). It reads x
// only, so emit may write anything but x; ranges that do not overlap may run
// concurrently. Rows before lo whose blocks reach into the range are read again for
// their part of its rows.
func (u *Upper) Range(lo, hi int, x []float64, emit func(c, e int, s []float64)) {
	if lo >= hi {
		return
	}
	b := u.B
	st := bsrkern.AccStride(b)
	need := (hi - lo) * st
	w, _ := u.work.Get().(*upperWork)
	if w == nil {
		w = &upperWork{s: make([]float64, b*UpperChunk)}
	}
	if cap(w.acc) < need {
		w.acc = make([]float64, need)
	}
	acc, s := w.acc[:need], w.s
	var lanes [bsrkern.ScratchMax * UpperChunk]float64
	// Accumulators are cleared just ahead of the rows that first write them (the
	// furthest column the chunk's rows reach), so that they stay in cache.
	zeroed := lo
	ready := func(e int) {
		if z := min(int(u.reach[e-1])+1, hi); z > zeroed {
			clear(acc[(zeroed-lo)*st : (z-lo)*st])
			zeroed = z
		}
	}
	first := sort.Search(lo, func(j int) bool { return int(u.reach[j]) >= lo })
	for c := first; c < lo; c += UpperChunk {
		e := min(c+UpperChunk, lo)
		ready(e)
		bsrkern.SymRows(b, u.RowPtr, u.ColIdx, u.Val, c, e, x, s, lanes[:], acc, lo, hi)
	}
	for c := lo; c < hi; c += UpperChunk {
		e := min(c+UpperChunk, hi)
		ready(e)
		sc := s[:(e-c)*b]
		bsrkern.SymRows(b, u.RowPtr, u.ColIdx, u.Val, c, e, x, sc, lanes[:], acc, lo, hi)
		for i := c; i < e; i++ {
			a := acc[(i-lo)*st:][:b]
			r := sc[(i-c)*b:][:b]
			for p := range r {
				r[p] += a[p]
			}
		}
		emit(c, e, sc)
	}
	u.work.Put(w)
}

// MulVecWorkers computes y = alpha·A·x + beta·y on at most workers goroutines
// (workers <= 0: par.Workers()), as Matrix.MulVecWorkers does (beta 0 overwrites y;
// alpha 0 reads neither A nor x); y must not alias x. The bits do not depend on
// workers.
func (u *Upper) MulVecWorkers(workers int, alpha float64, x []float64, beta float64, y []float64) {
	n := u.Rows() * u.B
	if len(x) != n || len(y) != n {
		panic("bsr: Upper.MulVec: vector length mismatch")
	}
	if alpha == 0 {
		scaleVec(beta, y)
		return
	}
	par.ForWeighted(u.RowPtr, workers, minChunkBlocks, func(lo, hi int) {
		u.Range(lo, hi, x, func(c, e int, s []float64) { store(alpha, s, beta, y[c*u.B:]) })
	})
}
