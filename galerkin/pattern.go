package galerkin

import (
	"fmt"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/blockamg/blockamg/internal/par"
)

// pattern is a block sparsity pattern without values: rows of sorted column indices.
type pattern struct {
	rows, cols int
	rowPtr     []int64
	colIdx     []int32
}

func (p *pattern) nnz() int64   { return p.rowPtr[p.rows] }
func (p *pattern) bytes() int64 { return int64(len(p.rowPtr))*8 + int64(len(p.colIdx))*4 }

// productPattern returns the pattern of X·Y where X has rows xRows with pattern
// (xPtr, xCol) and Y has pattern (yPtr, yCol) with yCols columns. Rows are computed in
// parallel with a per-chunk marker array and sorted, so the result does not depend on
// the worker count.
func productPattern(xRows int, xPtr []int64, xCol []int32, yPtr []int64, yCol []int32, yCols, workers int) *pattern {
	counts := make([]int64, xRows+1)
	// First pass: row lengths.
	par.ForWeighted(xPtr, workers, 4096, func(lo, hi int) {
		mark := make([]int32, yCols)
		for i := range mark {
			mark[i] = -1
		}
		for i := lo; i < hi; i++ {
			var n int64
			for p := xPtr[i]; p < xPtr[i+1]; p++ {
				j := xCol[p]
				for q := yPtr[j]; q < yPtr[j+1]; q++ {
					c := yCol[q]
					if mark[c] != int32(i) {
						mark[c] = int32(i)
						n++
					}
				}
			}
			counts[i+1] = n
		}
	})
	for i := 0; i < xRows; i++ {
		counts[i+1] += counts[i]
	}
	col := make([]int32, counts[xRows])
	// Second pass: fill and sort each row.
	par.ForWeighted(xPtr, workers, 4096, func(lo, hi int) {
		mark := make([]int32, yCols)
		for i := range mark {
			mark[i] = -1
		}
		for i := lo; i < hi; i++ {
			out := col[counts[i]:counts[i+1]]
			n := 0
			for p := xPtr[i]; p < xPtr[i+1]; p++ {
				j := xCol[p]
				for q := yPtr[j]; q < yPtr[j+1]; q++ {
					c := yCol[q]
					if mark[c] != int32(i) {
						mark[c] = int32(i)
						out[n] = c
						n++
					}
				}
			}
			slices.Sort(out)
		}
	})
	return &pattern{rows: xRows, cols: yCols, rowPtr: counts, colIdx: col}
}

// transposePattern returns the pattern of Xᵀ for X with rows rows, cols columns and
// pattern (ptr, col), together with perm: entry t of the transpose is entry perm[t] of
// X. Rows of the transpose come out sorted because X is scanned in row order.
func transposePattern(rows, cols int, ptr []int64, col []int32) (*pattern, []int64) {
	tPtr := make([]int64, cols+1)
	for _, c := range col[:ptr[rows]] {
		tPtr[c+1]++
	}
	for c := 0; c < cols; c++ {
		tPtr[c+1] += tPtr[c]
	}
	next := slices.Clone(tPtr[:cols])
	tCol := make([]int32, ptr[rows])
	perm := make([]int64, ptr[rows])
	for i := 0; i < rows; i++ {
		for p := ptr[i]; p < ptr[i+1]; p++ {
			c := col[p]
			t := next[c]
			next[c]++
			tCol[t] = int32(i)
			perm[t] = p
		}
	}
	return &pattern{rows: cols, cols: rows, rowPtr: tPtr, colIdx: tCol}, perm
}

// ProductPattern returns the block pattern of X·Y, row pointers and sorted column
// indices, for X with xRows rows and pattern (xPtr, xCol) and Y with pattern (yPtr,
// yCol) and yCols columns: row i is the union of Y's rows j over X's row i. It is the
// symbolic product every PᵀAP plan starts from (W = A·P, then Ac = Pᵀ·W), exported so
// that other implementations (the CUDA backend's device schedules) build on the same
// patterns. workers bounds the goroutines (≤ 0: GOMAXPROCS); the result does not
// depend on it.
func ProductPattern(xRows int, xPtr []int64, xCol []int32, yPtr []int64, yCol []int32, yCols, workers int) ([]int64, []int32) {
	p := productPattern(xRows, xPtr, xCol, yPtr, yCol, yCols, workers)
	return p.rowPtr, p.colIdx
}

// TransposePattern returns the pattern of Xᵀ (row pointers and column indices, rows
// sorted) for X with rows rows, cols columns and pattern (ptr, col), and perm: entry t
// of the transpose is entry perm[t] of X.
func TransposePattern(rows, cols int, ptr []int64, col []int32) ([]int64, []int32, []int64) {
	p, perm := transposePattern(rows, cols, ptr, col)
	return p.rowPtr, p.colIdx, perm
}

// MirrorPattern returns, for a square pattern (rows rows, sorted columns), the index
// of each entry's mirror: entry b = (I, J) maps to the entry (J, I). It is the map the
// symmetric half of PᵀAP copies its lower blocks by, here and in the CUDA backend's
// device schedules. An entry whose mirror is not stored is an error naming it (a
// PᵀAP pattern has none when A's pattern is symmetric).
func MirrorPattern(rows int, ptr []int64, col []int32) ([]int64, error) {
	mir := make([]int64, ptr[rows])
	var bad atomic.Int64
	bad.Store(-1)
	par.For(rows, 0, 256, func(lo, hi int) {
		for I := lo; I < hi; I++ {
			for b := ptr[I]; b < ptr[I+1]; b++ {
				J := col[b]
				q, ok := slices.BinarySearch(col[ptr[J]:ptr[J+1]], int32(I))
				if !ok {
					bad.CompareAndSwap(-1, b)
					continue
				}
				mir[b] = ptr[J] + int64(q)
			}
		}
	})
	if b := bad.Load(); b >= 0 {
		I := sort.Search(rows, func(r int) bool { return ptr[r+1] > b }) // the row holding entry b
		return nil, fmt.Errorf("block (%d, %d) has no mirror (%d, %d)", I, col[b], col[b], I)
	}
	return mir, nil
}
