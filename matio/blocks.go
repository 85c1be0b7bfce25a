package matio

import (
	"slices"
	"sort"

	"blockamg/bsr"
)

// maxFill bounds how many stored values per file entry grouping into blocks may create
// beyond a fixed allowance: completing partial blocks multiplies storage by at most
// bs², which for a sparse file and a large block size is a memory bomb rather than a
// matrix anyone wants.
const (
	maxFill       = 16
	fillAllowance = 1 << 24
)

// blockCSR groups a sorted, duplicate-free scalar CSR matrix into bs×bs blocks,
// completing partly filled blocks with explicit zeros. bs must divide both dimensions.
// For bs == 1 the result shares a's arrays.
func blockCSR(name string, a *bsr.CSR, bs int) (*bsr.Matrix, error) {
	if bs == 1 {
		return &bsr.Matrix{BlockRows: a.Rows, BlockCols: a.Cols, R: 1, C: 1, RowPtr: a.RowPtr, ColIdx: a.ColIdx, Val: a.Val}, nil
	}
	nbr, nbc := a.Rows/bs, a.Cols/bs
	b := int32(bs)
	m := &bsr.Matrix{BlockRows: nbr, BlockCols: nbc, R: bs, C: bs, RowPtr: make([]int64, nbr+1)}

	// Pass 1: count the distinct block columns of each block row. mark[bc] holds the
	// last block row that touched block column bc.
	mark := make([]int32, nbc)
	for k := range mark {
		mark[k] = -1
	}
	for i := 0; i < nbr; i++ {
		n := int64(0)
		for p := a.RowPtr[i*bs]; p < a.RowPtr[(i+1)*bs]; p++ {
			if bc := a.ColIdx[p] / b; mark[bc] != int32(i) {
				mark[bc] = int32(i)
				n++
			}
		}
		m.RowPtr[i+1] = m.RowPtr[i] + n
	}
	nnzb := m.RowPtr[nbr]
	nnz := a.RowPtr[a.Rows]
	if vals := nnzb * int64(bs*bs); vals > maxFill*nnz+fillAllowance {
		return nil, fileErr(name, nil, "block size %d would store %d values for %d entries; the pattern is too far from %d×%d blocks",
			bs, vals, nnz, bs, bs)
	}
	m.ColIdx = make([]int32, nnzb)
	m.Val = make([]float64, nnzb*int64(bs*bs))

	// Pass 2: list and sort each block row's block columns, then scatter the values.
	// where[bc] is the storage index of block column bc in the current block row.
	for k := range mark {
		mark[k] = -1
	}
	where := make([]int64, nbc)
	bsq := int64(bs * bs)
	for i := 0; i < nbr; i++ {
		lo, hi := m.RowPtr[i], m.RowPtr[i+1]
		cols := m.ColIdx[lo:lo:hi]
		for p := a.RowPtr[i*bs]; p < a.RowPtr[(i+1)*bs]; p++ {
			if bc := a.ColIdx[p] / b; mark[bc] != int32(i) {
				mark[bc] = int32(i)
				cols = append(cols, bc)
			}
		}
		if !slices.IsSorted(cols) {
			slices.Sort(cols)
		}
		for k, bc := range cols {
			where[bc] = lo + int64(k)
		}
		for ii := 0; ii < bs; ii++ {
			row := i*bs + ii
			for p := a.RowPtr[row]; p < a.RowPtr[row+1]; p++ {
				c := a.ColIdx[p]
				m.Val[where[c/b]*bsq+int64(ii*bs)+int64(c%b)] = a.Val[p]
			}
		}
	}
	return m, nil
}

// pairs sorts columns and their values together.
type pairs struct {
	col []int32
	val []float64
}

func (p pairs) Len() int           { return len(p.col) }
func (p pairs) Less(x, y int) bool { return p.col[x] < p.col[y] }
func (p pairs) Swap(x, y int) {
	p.col[x], p.col[y] = p.col[y], p.col[x]
	p.val[x], p.val[y] = p.val[y], p.val[x]
}

func sortPairs(col []int32, val []float64) { sort.Sort(pairs{col, val}) }
