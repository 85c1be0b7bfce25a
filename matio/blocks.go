package matio

import (
	"slices"
	"sort"

	"github.com/blockamg/blockamg/bsr"
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
	// last block row that touched block column bc. Columns are sorted inside a scalar
	// row, so a block column is computed (one division) once per run of entries in the
	// same block rather than once per entry.
	//
	// Block rows that are already whole blocks (every scalar row lists the same complete
	// blocks, as in a dump of a BSR or BAIJ matrix) are recognized first and copied
	// without the bookkeeping.
	mark := make([]int32, nbc)
	for k := range mark {
		mark[k] = -1
	}
	whole := make([]bool, nbr)
	for i := 0; i < nbr; i++ {
		if n, ok := wholeBlocks(a, i, bs); ok {
			whole[i] = true
			m.RowPtr[i+1] = m.RowPtr[i] + n
			continue
		}
		n := int64(0)
		for row := i * bs; row < (i+1)*bs; row++ {
			end := int32(-1) // first column past the current block column
			for _, c := range a.ColIdx[a.RowPtr[row]:a.RowPtr[row+1]] {
				if c < end {
					continue
				}
				bc := c / b
				end = (bc + 1) * b
				if mark[bc] != int32(i) {
					mark[bc] = int32(i)
					n++
				}
			}
		}
		m.RowPtr[i+1] = m.RowPtr[i] + n
	}
	nnzb := m.RowPtr[nbr]
	nnz := a.RowPtr[a.Rows]
	// Divide rather than multiply: nnzb·bs² can overflow for absurd block sizes.
	if limit := maxFill*nnz + fillAllowance; nnzb > limit/(int64(bs)*int64(bs)) {
		return nil, fileErr(name, nil, "block size %d would store %d blocks of %d values for %d entries; the pattern is too far from %d×%d blocks",
			bs, nnzb, bs*bs, nnz, bs, bs)
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
		if whole[i] {
			copyWholeBlocks(m, a, i, lo, hi)
			continue
		}
		cols := m.ColIdx[lo:lo:hi]
		for row := i * bs; row < (i+1)*bs; row++ {
			end := int32(-1)
			for _, c := range a.ColIdx[a.RowPtr[row]:a.RowPtr[row+1]] {
				if c < end {
					continue
				}
				bc := c / b
				end = (bc + 1) * b
				if mark[bc] != int32(i) {
					mark[bc] = int32(i)
					cols = append(cols, bc)
				}
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
			var base int64 // offset of (row, first column of block bc) in m.Val
			end, c0 := int32(-1), int32(0)
			for p := a.RowPtr[row]; p < a.RowPtr[row+1]; p++ {
				c := a.ColIdx[p]
				if c >= end {
					bc := c / b
					c0, end = bc*b, (bc+1)*b
					base = where[bc]*bsq + int64(ii*bs)
				}
				m.Val[base+int64(c-c0)] = a.Val[p]
			}
		}
	}
	return m, nil
}

// wholeBlocks reports whether the scalar rows of block row i consist of complete,
// identical bs×bs blocks, and how many.
func wholeBlocks(a *bsr.CSR, i, bs int) (int64, bool) {
	r0 := i * bs
	first := a.ColIdx[a.RowPtr[r0]:a.RowPtr[r0+1]]
	if len(first)%bs != 0 {
		return 0, false
	}
	b := int32(bs)
	for p := 0; p < len(first); p += bs {
		c := first[p]
		if c%b != 0 {
			return 0, false
		}
		for jj := 1; jj < bs; jj++ {
			if first[p+jj] != c+int32(jj) {
				return 0, false
			}
		}
	}
	for row := r0 + 1; row < r0+bs; row++ {
		if !slices.Equal(a.ColIdx[a.RowPtr[row]:a.RowPtr[row+1]], first) {
			return 0, false
		}
	}
	return int64(len(first) / bs), true
}

// copyWholeBlocks fills blocks lo…hi-1 of m from block row i of a, which wholeBlocks
// accepted.
func copyWholeBlocks(m *bsr.Matrix, a *bsr.CSR, i int, lo, hi int64) {
	bs := m.R
	r0 := i * bs
	first := a.ColIdx[a.RowPtr[r0]:a.RowPtr[r0+1]]
	for k := lo; k < hi; k++ {
		m.ColIdx[k] = first[int(k-lo)*bs] / int32(bs)
	}
	bsq := int64(bs * bs)
	for ii := 0; ii < bs; ii++ {
		src := a.Val[a.RowPtr[r0+ii]:a.RowPtr[r0+ii+1]]
		for k := lo; k < hi; k++ {
			copy(m.Val[k*bsq+int64(ii*bs):][:bs], src[int(k-lo)*bs:])
		}
	}
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
