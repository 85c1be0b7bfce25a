package bsr

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/blockamg/blockamg/internal/par"
)

// Matrix is a block sparse row matrix with R×C blocks. See the package documentation
// for the layout and its invariants.
type Matrix struct {
	BlockRows int // number of block rows
	BlockCols int // number of block columns
	R, C      int // block shape: rows and columns of each block

	RowPtr []int64   // len BlockRows+1: block offsets of each block row
	ColIdx []int32   // len NNZBlocks(): block column of each stored block
	Val    []float64 // len NNZBlocks()*R*C: block values, row-major inside each block
}

// New returns a matrix of the given block dimensions and shape whose pattern is rowPtr
// and colIdx, with zeroed values. It validates the pattern.
func New(blockRows, blockCols, r, c int, rowPtr []int64, colIdx []int32) (*Matrix, error) {
	m := &Matrix{BlockRows: blockRows, BlockCols: blockCols, R: r, C: c, RowPtr: rowPtr, ColIdx: colIdx}
	if err := checkDims(blockRows, blockCols, r, c); err != nil {
		return nil, err
	}
	if len(rowPtr) != blockRows+1 {
		return nil, fmt.Errorf("%w: row pointer has length %d, want %d", ErrInvalid, len(rowPtr), blockRows+1)
	}
	// Check the block count before sizing Val with it.
	if nnz := rowPtr[blockRows]; nnz < 0 || int64(len(colIdx)) != nnz {
		return nil, fmt.Errorf("%w: %d column indices for %d blocks", ErrInvalid, len(colIdx), nnz)
	}
	m.Val = make([]float64, rowPtr[blockRows]*int64(r*c))
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// Zeros returns an empty (no stored blocks) matrix of the given block dimensions and shape.
func Zeros(blockRows, blockCols, r, c int) *Matrix {
	if blockRows < 0 || blockCols < 0 || r < 1 || c < 1 {
		panic("bsr: bad dimensions")
	}
	return &Matrix{BlockRows: blockRows, BlockCols: blockCols, R: r, C: c, RowPtr: make([]int64, blockRows+1)}
}

// Rows returns the number of scalar rows, BlockRows*R.
func (m *Matrix) Rows() int { return m.BlockRows * m.R }

// Cols returns the number of scalar columns, BlockCols*C.
func (m *Matrix) Cols() int { return m.BlockCols * m.C }

// BlockSize returns R*C, the number of values in one block.
func (m *Matrix) BlockSize() int { return m.R * m.C }

// NNZBlocks returns the number of stored blocks.
func (m *Matrix) NNZBlocks() int64 { return m.RowPtr[m.BlockRows] }

// Block returns the values of stored block k (row-major R×C), aliasing m.Val.
func (m *Matrix) Block(k int64) []float64 {
	bs := int64(m.R * m.C)
	return m.Val[k*bs : (k+1)*bs : (k+1)*bs]
}

// Find returns the storage index of block (i, j) and true, or -1 and false when the
// block is not stored. It uses a binary search in block row i.
func (m *Matrix) Find(i, j int) (int64, bool) {
	lo, hi := m.RowPtr[i], m.RowPtr[i+1]
	for lo < hi {
		mid := lo + (hi-lo)/2
		c := int(m.ColIdx[mid])
		switch {
		case c == j:
			return mid, true
		case c < j:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return -1, false
}

// Bytes returns the memory held by the pattern and values.
func (m *Matrix) Bytes() int64 {
	return int64(len(m.RowPtr))*8 + int64(len(m.ColIdx))*4 + int64(len(m.Val))*8
}

// ClonePattern returns a matrix with the same pattern (shared, read-only by convention)
// and freshly allocated zero values.
func (m *Matrix) ClonePattern() *Matrix {
	c := *m
	c.Val = make([]float64, len(m.Val))
	return &c
}

// Clone returns a deep copy of m.
func (m *Matrix) Clone() *Matrix {
	c := *m
	c.RowPtr = append([]int64(nil), m.RowPtr...)
	c.ColIdx = append([]int32(nil), m.ColIdx...)
	c.Val = append([]float64(nil), m.Val...)
	return &c
}

// SamePattern reports whether m and o have the same dimensions, block shape and pattern.
func (m *Matrix) SamePattern(o *Matrix) bool {
	if m.BlockRows != o.BlockRows || m.BlockCols != o.BlockCols || m.R != o.R || m.C != o.C {
		return false
	}
	if len(m.ColIdx) != len(o.ColIdx) {
		return false
	}
	for i, p := range m.RowPtr {
		if o.RowPtr[i] != p {
			return false
		}
	}
	for k, c := range m.ColIdx {
		if o.ColIdx[k] != c {
			return false
		}
	}
	return true
}

// checkRows checks the rows of a compressed pattern (len(rowPtr)-1 rows whose first
// pointer is 0 and last is len(colIdx)): pointers non-decreasing, columns in [0, cols)
// and strictly increasing in each row. Errors name the row as "what i".
func checkRows(what string, rowPtr []int64, colIdx []int32, cols int) error {
	_, err := checkRowRange(what, rowPtr, colIdx, cols, 0, len(rowPtr)-1)
	return err
}

// checkRowRange is checkRows for rows [lo, hi), returning the failing row too.
func checkRowRange(what string, rowPtr []int64, colIdx []int32, cols, lo, hi int) (int, error) {
	nnz := int64(len(colIdx))
	for i := lo; i < hi; i++ {
		a, b := rowPtr[i], rowPtr[i+1]
		if b < a || b > nnz || a < 0 {
			return i, fmt.Errorf("%w: %s %d: row pointer decreases or passes the stored count %d", ErrInvalid, what, i, nnz)
		}
		prev := int32(-1)
		for _, c := range colIdx[a:b] {
			if c < 0 || int(c) >= cols {
				return i, fmt.Errorf("%w: %s %d: column %d out of range [0,%d)", ErrInvalid, what, i, c, cols)
			}
			if c <= prev {
				return i, fmt.Errorf("%w: %s %d: columns not strictly increasing (%d after %d)", ErrInvalid, what, i, c, prev)
			}
			prev = c
		}
	}
	return 0, nil
}

// ErrInvalid is wrapped by every error Validate returns.
var ErrInvalid = errors.New("bsr: invalid matrix")

// Validate checks the invariants of the package documentation and that every value is
// finite. It returns an error wrapping ErrInvalid that names the first offending block
// row.
func (m *Matrix) Validate() error {
	if m.BlockRows < 0 || m.BlockCols < 0 || m.R < 1 || m.C < 1 || sizeOverflows(m.BlockRows, m.BlockCols, m.R, m.C) {
		return fmt.Errorf("%w: dimensions %d×%d blocks of %d×%d", ErrInvalid, m.BlockRows, m.BlockCols, m.R, m.C)
	}
	if int64(m.BlockCols) > math.MaxInt32+1 {
		return fmt.Errorf("%w: %d block columns do not fit the int32 column indices", ErrInvalid, m.BlockCols)
	}
	if len(m.RowPtr) != m.BlockRows+1 || m.RowPtr[0] != 0 {
		return fmt.Errorf("%w: row pointer length %d (want %d) or first entry not 0", ErrInvalid, len(m.RowPtr), m.BlockRows+1)
	}
	nnz := m.RowPtr[m.BlockRows]
	if int64(len(m.ColIdx)) != nnz {
		return fmt.Errorf("%w: %d column indices for %d blocks", ErrInvalid, len(m.ColIdx), nnz)
	}
	if int64(len(m.Val)) != nnz*int64(m.R*m.C) {
		return fmt.Errorf("%w: %d values for %d blocks of %d×%d", ErrInvalid, len(m.Val), nnz, m.R, m.C)
	}
	// Rows are checked in parallel chunks (an operator of 10⁸ blocks takes seconds
	// on one core): first the structure, then the values, each reporting its lowest
	// failing row, so the error is the serial check's whatever the split.
	bs := int64(m.R * m.C)
	if err := firstRowError(m.BlockRows, func(lo, hi int) (int, error) {
		return checkRowRange("block row", m.RowPtr, m.ColIdx, m.BlockCols, lo, hi)
	}); err != nil {
		return err
	}
	return firstRowError(m.BlockRows, func(lo, hi int) (int, error) {
		for k := m.RowPtr[lo] * bs; k < m.RowPtr[hi]*bs; k++ {
			if v := m.Val[k]; math.IsNaN(v) || math.IsInf(v, 0) {
				row := lo
				for row < hi && m.RowPtr[row+1]*bs <= k {
					row++
				}
				return row, fmt.Errorf("%w: block row %d: non-finite value %v", ErrInvalid, row, v)
			}
		}
		return 0, nil
	})
}

// firstRowError runs check on chunks of the rows [0, n) in parallel and returns the
// error of the lowest row any chunk reports (check returns that row with its error).
func firstRowError(n int, check func(lo, hi int) (int, error)) error {
	var mu sync.Mutex
	firstRow, firstErr := n, error(nil)
	par.For(n, 0, 1<<14, func(lo, hi int) {
		if row, err := check(lo, hi); err != nil {
			mu.Lock()
			if row < firstRow || firstErr == nil {
				firstRow, firstErr = row, err
			}
			mu.Unlock()
		}
	})
	return firstErr
}
