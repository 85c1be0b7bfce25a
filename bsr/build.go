package bsr

import (
	"fmt"
	"math"
)

// minChunkBlocks is the least number of stored blocks (plus one per row) that a parallel
// chunk gets, so that small matrices run on one goroutine. Tests lower it to exercise
// the parallel paths on small matrices; it never changes results, only the split.
var minChunkBlocks int64 = 8192

// FromBlockTriplets assembles a matrix from block triplets: block k sits at block
// position (bi[k], bj[k]) and its R×C values are vals[k*r*c:(k+1)*r*c], row-major.
// Duplicate positions are summed in input order, so the result is deterministic;
// columns come out sorted. Out-of-range indices, non-finite values and bad dimensions
// are errors wrapping ErrInvalid; slices of inconsistent lengths panic.
func FromBlockTriplets(blockRows, blockCols, r, c int, bi, bj []int32, vals []float64) (*Matrix, error) {
	bs := r * c
	if len(bj) != len(bi) || (r >= 1 && c >= 1 && len(vals) != len(bi)*bs) {
		panic("bsr: FromBlockTriplets: slice lengths disagree")
	}
	if err := checkDims(blockRows, blockCols, r, c); err != nil {
		return nil, err
	}
	for k := range bi {
		if bi[k] < 0 || int(bi[k]) >= blockRows || bj[k] < 0 || int(bj[k]) >= blockCols {
			return nil, fmt.Errorf("%w: block triplet %d: position (%d,%d) outside %d×%d blocks", ErrInvalid, k, bi[k], bj[k], blockRows, blockCols)
		}
	}
	for p, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			k := p / bs
			return nil, fmt.Errorf("%w: block triplet %d at (%d,%d): non-finite value %v", ErrInvalid, k, bi[k], bj[k], v)
		}
	}
	return assemble(blockRows, blockCols, r, c, bi, bj, func(k int, dst []float64) {
		src := vals[k*bs : (k+1)*bs]
		for t, v := range src {
			dst[t] += v
		}
	})
}

// FromScalarTriplets assembles an R×C-blocked matrix from scalar triplets (i[k], j[k],
// v[k]) of a rows × cols matrix. rows and cols must be multiples of r and c. Duplicates
// are summed in input order; every block touched by some triplet is stored whole, with
// explicit zeros where no triplet landed. Errors wrap ErrInvalid; slices of
// inconsistent lengths panic.
func FromScalarTriplets(rows, cols, r, c int, i, j []int32, v []float64) (*Matrix, error) {
	if len(j) != len(i) || len(v) != len(i) {
		panic("bsr: FromScalarTriplets: slice lengths disagree")
	}
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("%w: dimensions %d×%d", ErrInvalid, rows, cols)
	}
	if r < 1 || c < 1 {
		return nil, fmt.Errorf("%w: block shape %d×%d: both sides must be at least 1", ErrInvalid, r, c)
	}
	if rows%r != 0 || cols%c != 0 {
		return nil, fmt.Errorf("%w: %d×%d matrix is not a whole number of %d×%d blocks", ErrInvalid, rows, cols, r, c)
	}
	if err := checkDims(rows/r, cols/c, r, c); err != nil {
		return nil, err
	}
	bi := make([]int32, len(i))
	bj := make([]int32, len(j))
	for k := range i {
		if i[k] < 0 || int(i[k]) >= rows || j[k] < 0 || int(j[k]) >= cols {
			return nil, fmt.Errorf("%w: triplet %d: position (%d,%d) outside %d×%d", ErrInvalid, k, i[k], j[k], rows, cols)
		}
		if x := v[k]; math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: triplet %d at (%d,%d): non-finite value %v", ErrInvalid, k, i[k], j[k], x)
		}
		bi[k] = int32(int(i[k]) / r) // in int: r need not fit an int32
		bj[k] = int32(int(j[k]) / c)
	}
	return assemble(rows/r, cols/c, r, c, bi, bj, func(k int, dst []float64) {
		dst[int(i[k])%r*c+int(j[k])%c] += v[k]
	})
}

func checkDims(blockRows, blockCols, r, c int) error {
	if blockRows < 0 || blockCols < 0 {
		return fmt.Errorf("%w: block dimensions %d×%d", ErrInvalid, blockRows, blockCols)
	}
	if r < 1 || c < 1 {
		return fmt.Errorf("%w: block shape %d×%d: both sides must be at least 1", ErrInvalid, r, c)
	}
	if sizeOverflows(blockRows, blockCols, r, c) {
		return fmt.Errorf("%w: %d×%d blocks of %d×%d: scalar size or block size overflows", ErrInvalid, blockRows, blockCols, r, c)
	}
	return nil
}

// sizeOverflows reports whether R·C, BlockRows·R or BlockCols·C overflows an int, the
// products every offset computation starts from (all arguments non-negative, r, c ≥ 1).
func sizeOverflows(blockRows, blockCols, r, c int) bool {
	return r > math.MaxInt/c || blockRows > math.MaxInt/r || blockCols > math.MaxInt/c
}

// assemble builds the matrix whose blocks are at the (already checked) positions
// (bi[k], bj[k]); add(k, dst) accumulates contribution k into its block. Finite
// duplicates can still sum past the float64 range, which is reported as an error.
//
// Two stable counting sorts, first by column and then by row, leave every row's
// entries ordered by column and, within equal columns, by input index. That gives
// sorted rows in O(n + blockRows + blockCols) without comparisons, and a fixed
// summation order for duplicates.
func assemble(blockRows, blockCols, r, c int, bi, bj []int32, add func(k int, dst []float64)) (*Matrix, error) {
	n := len(bi)
	byCol := make([]int, n)
	{
		start := make([]int, blockCols+1)
		for _, j := range bj {
			start[j+1]++
		}
		for j := 0; j < blockCols; j++ {
			start[j+1] += start[j]
		}
		for k, j := range bj {
			byCol[start[j]] = k
			start[j]++
		}
	}
	rowStart := make([]int, blockRows+1)
	for _, i := range bi {
		rowStart[i+1]++
	}
	for i := 0; i < blockRows; i++ {
		rowStart[i+1] += rowStart[i]
	}
	order := make([]int, n)
	{
		next := append([]int(nil), rowStart[:blockRows]...)
		for _, k := range byCol {
			i := bi[k]
			order[next[i]] = k
			next[i]++
		}
	}
	// Count distinct columns per row to size the result exactly.
	m := &Matrix{BlockRows: blockRows, BlockCols: blockCols, R: r, C: c, RowPtr: make([]int64, blockRows+1)}
	for i := 0; i < blockRows; i++ {
		distinct := int64(0)
		for p := rowStart[i]; p < rowStart[i+1]; p++ {
			if p == rowStart[i] || bj[order[p]] != bj[order[p-1]] {
				distinct++
			}
		}
		m.RowPtr[i+1] = m.RowPtr[i] + distinct
	}
	bs := int64(r * c)
	m.ColIdx = make([]int32, m.RowPtr[blockRows])
	m.Val = make([]float64, m.RowPtr[blockRows]*bs)
	for i := 0; i < blockRows; i++ {
		out := m.RowPtr[i] - 1
		for p := rowStart[i]; p < rowStart[i+1]; p++ {
			k := order[p]
			if p == rowStart[i] || bj[k] != bj[order[p-1]] {
				out++
				m.ColIdx[out] = bj[k]
			}
			add(k, m.Val[out*bs:(out+1)*bs])
		}
	}
	for i := 0; i < blockRows; i++ {
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			for _, v := range m.Val[k*bs : (k+1)*bs] {
				if math.IsInf(v, 0) {
					return nil, fmt.Errorf("%w: block (%d,%d): duplicates sum past the float64 range", ErrInvalid, i, m.ColIdx[k])
				}
			}
		}
	}
	return m, nil
}
