package bsr

import (
	"fmt"
	"math"

	"github.com/blockamg/blockamg/internal/par"
)

// CSR is a scalar compressed sparse row matrix (sorted columns, no duplicates). It is
// the exchange format with scalar tools and files; Rows × Cols is the scalar shape.
type CSR struct {
	Rows, Cols int       // scalar dimensions
	RowPtr     []int64   // len Rows+1: entry offsets of each row
	ColIdx     []int32   // column of each entry, strictly increasing inside a row
	Val        []float64 // value of each entry
}

// Validate checks that a is a well-formed CSR matrix with finite values. The error
// wraps ErrInvalid and names the first offending row.
func (a *CSR) Validate() error {
	if a.Rows < 0 || a.Cols < 0 {
		return fmt.Errorf("%w: CSR dimensions %d×%d", ErrInvalid, a.Rows, a.Cols)
	}
	if len(a.RowPtr) != a.Rows+1 || a.RowPtr[0] != 0 {
		return fmt.Errorf("%w: CSR row pointer length %d (want %d) or first entry not 0", ErrInvalid, len(a.RowPtr), a.Rows+1)
	}
	nnz := a.RowPtr[a.Rows]
	if int64(len(a.ColIdx)) != nnz || int64(len(a.Val)) != nnz {
		return fmt.Errorf("%w: CSR has %d column indices and %d values for %d entries", ErrInvalid, len(a.ColIdx), len(a.Val), nnz)
	}
	if err := checkRows("CSR row", a.RowPtr, a.ColIdx, a.Cols); err != nil {
		return err
	}
	for i := 0; i < a.Rows; i++ {
		for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
			if v := a.Val[k]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: CSR row %d column %d: non-finite value %v", ErrInvalid, i, a.ColIdx[k], v)
			}
		}
	}
	return nil
}

// FromCSR converts a scalar CSR matrix into R×C blocks. The scalar pattern must be
// block-conformant: every block it touches must be fully present (explicit zeros are
// fine), which is what a scalar dump of a BSR matrix looks like. A missing entry is an
// error naming the scalar row; so are dimensions that r and c do not divide. FromCSR
// copies; the result shares nothing with a.
func FromCSR(a *CSR, r, c int) (*Matrix, error) {
	if r < 1 || c < 1 {
		return nil, fmt.Errorf("%w: block shape %d×%d: both sides must be at least 1", ErrInvalid, r, c)
	}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if a.Rows%r != 0 || a.Cols%c != 0 {
		return nil, fmt.Errorf("%w: CSR is %d×%d, not a multiple of the %d×%d block shape", ErrInvalid, a.Rows, a.Cols, r, c)
	}
	nbr, nbc := a.Rows/r, a.Cols/c
	m := &Matrix{BlockRows: nbr, BlockCols: nbc, R: r, C: c, RowPtr: make([]int64, nbr+1)}
	// The first scalar row of each block row fixes the block columns; the others must
	// repeat them exactly.
	for i := 0; i < nbr; i++ {
		row := i * r
		n := a.RowPtr[row+1] - a.RowPtr[row]
		if n%int64(c) != 0 {
			return nil, fmt.Errorf("%w: CSR row %d: %d entries, not whole %d-wide blocks", ErrInvalid, row, n, c)
		}
		m.RowPtr[i+1] = m.RowPtr[i] + n/int64(c)
	}
	nnzb := m.RowPtr[nbr]
	m.ColIdx = make([]int32, nnzb)
	m.Val = make([]float64, nnzb*int64(r*c))
	for i := 0; i < nbr; i++ {
		lo, hi := m.RowPtr[i], m.RowPtr[i+1]
		for ii := 0; ii < r; ii++ {
			row := i*r + ii
			s, e := a.RowPtr[row], a.RowPtr[row+1]
			if e-s != (hi-lo)*int64(c) {
				return nil, fmt.Errorf("%w: CSR row %d: %d entries, but its block row %d touches %d blocks of width %d (pattern not block-conformant)",
					ErrInvalid, row, e-s, i, hi-lo, c)
			}
			for k := lo; k < hi; k++ {
				p := s + (k-lo)*int64(c)
				first := a.ColIdx[p]
				bj := first / int32(c)
				if first%int32(c) != 0 || (ii > 0 && bj != m.ColIdx[k]) {
					return nil, fmt.Errorf("%w: CSR row %d: column %d does not start the block expected there (pattern not block-conformant)", ErrInvalid, row, first)
				}
				// Sorted and duplicate-free, so c entries starting at a block start and
				// ending inside the same block are exactly that block's columns.
				if last := a.ColIdx[p+int64(c)-1]; last != first+int32(c)-1 {
					return nil, fmt.Errorf("%w: CSR row %d: block column %d is incomplete (pattern not block-conformant)", ErrInvalid, row, bj)
				}
				m.ColIdx[k] = bj
				copy(m.Val[k*int64(r*c)+int64(ii*c):][:c], a.Val[p:p+int64(c)])
			}
		}
	}
	return m, nil
}

// ToCSR returns the scalar CSR form of m. Every stored block entry becomes a scalar
// entry, explicit zeros included, so FromCSR(m.ToCSR(), m.R, m.C) reproduces m. It
// panics when m has more scalar columns than CSR's int32 column indices can name.
func (m *Matrix) ToCSR() *CSR {
	if int64(m.Cols()) > math.MaxInt32+1 {
		panic("bsr: ToCSR: more scalar columns than int32 column indices can name")
	}
	r, c := m.R, m.C
	rows := m.Rows()
	a := &CSR{Rows: rows, Cols: m.Cols(), RowPtr: make([]int64, rows+1)}
	nnzb := m.NNZBlocks()
	a.ColIdx = make([]int32, nnzb*int64(r*c))
	a.Val = make([]float64, nnzb*int64(r*c))
	// Row pointers are closed-form: block row i starts at RowPtr[i]*R*C and each of its
	// scalar rows holds (blocks in the row)*C entries.
	for i := 0; i < m.BlockRows; i++ {
		lo, hi := m.RowPtr[i], m.RowPtr[i+1]
		for ii := 0; ii < r; ii++ {
			a.RowPtr[i*r+ii+1] = lo*int64(r*c) + int64(ii+1)*(hi-lo)*int64(c)
		}
	}
	par.ForWeighted(m.RowPtr, 0, minChunkBlocks, func(blo, bhi int) {
		for i := blo; i < bhi; i++ {
			lo, hi := m.RowPtr[i], m.RowPtr[i+1]
			for ii := 0; ii < r; ii++ {
				p := a.RowPtr[i*r+ii]
				for k := lo; k < hi; k++ {
					col := m.ColIdx[k] * int32(c)
					src := m.Val[k*int64(r*c)+int64(ii*c):][:c]
					for jj := 0; jj < c; jj++ {
						a.ColIdx[p] = col + int32(jj)
						a.Val[p] = src[jj]
						p++
					}
				}
			}
		}
	})
	return a
}
