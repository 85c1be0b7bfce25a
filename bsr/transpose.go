package bsr

import "github.com/blockamg/blockamg/internal/par"

// Transpose returns Aᵀ as a new matrix with C×R blocks, BlockCols block rows and
// BlockRows block columns, on par.Workers() goroutines. The result does not depend on
// the worker count.
func (m *Matrix) Transpose() *Matrix { return m.TransposeWorkers(0) }

// TransposeWorkers is Transpose on at most workers goroutines (workers <= 0 means
// par.Workers()).
//
// A serial pass counts blocks per column to fix the row pointer of Aᵀ. Then each
// goroutine owns a range of rows of Aᵀ (columns of A), balanced by their block counts,
// and walks all rows of A in order, so each row of Aᵀ receives its blocks in increasing
// column order without sorting and without sharing any output.
func (m *Matrix) TransposeWorkers(workers int) *Matrix {
	r, c := m.R, m.C
	t := &Matrix{BlockRows: m.BlockCols, BlockCols: m.BlockRows, R: c, C: r, RowPtr: make([]int64, m.BlockCols+1)}
	for _, j := range m.ColIdx {
		t.RowPtr[j+1]++
	}
	for j := 0; j < m.BlockCols; j++ {
		t.RowPtr[j+1] += t.RowPtr[j]
	}
	nnz := m.NNZBlocks()
	t.ColIdx = make([]int32, nnz)
	t.Val = make([]float64, nnz*int64(r*c))
	bs := int64(r * c)
	par.ForWeighted(t.RowPtr, workers, minChunkBlocks, func(lo, hi int) {
		clo, chi := int32(lo), int32(hi)
		next := append([]int64(nil), t.RowPtr[lo:hi]...)
		for i := 0; i < m.BlockRows; i++ {
			s, e := m.RowPtr[i], m.RowPtr[i+1]
			if s == e || m.ColIdx[s] >= chi || m.ColIdx[e-1] < clo {
				continue
			}
			k := s
			if m.ColIdx[s] < clo {
				k = searchCol(m.ColIdx, s, e, clo)
			}
			for ; k < e && m.ColIdx[k] < chi; k++ {
				j := m.ColIdx[k]
				p := next[j-clo]
				next[j-clo]++
				t.ColIdx[p] = int32(i)
				src := m.Val[k*bs : (k+1)*bs]
				dst := t.Val[p*bs : (p+1)*bs]
				for ii := 0; ii < r; ii++ {
					for jj := 0; jj < c; jj++ {
						dst[jj*r+ii] = src[ii*c+jj]
					}
				}
			}
		}
	})
	return t
}
