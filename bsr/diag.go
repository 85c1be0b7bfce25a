package bsr

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"blockamg/internal/par"
)

// ErrSingular is wrapped by the error InvertDiag returns for a singular diagonal block.
var ErrSingular = errors.New("bsr: singular block")

// checkSquareBlocked returns an error unless m has as many block rows as block columns
// and square blocks, which is what a block diagonal needs.
func (m *Matrix) checkSquareBlocked(op string) error {
	if m.BlockRows != m.BlockCols || m.R != m.C {
		return fmt.Errorf("%w: %s needs a square-blocked matrix, have %d×%d blocks of %d×%d",
			ErrInvalid, op, m.BlockRows, m.BlockCols, m.R, m.C)
	}
	return nil
}

// DiagBlocks returns the diagonal blocks of a square-blocked matrix (BlockRows ==
// BlockCols, R == C) as BlockRows consecutive row-major R×R arrays. A block row without
// a stored diagonal block gets zeros.
func (m *Matrix) DiagBlocks() ([]float64, error) {
	if err := m.checkSquareBlocked("DiagBlocks"); err != nil {
		return nil, err
	}
	bs := m.R * m.R
	d := make([]float64, m.BlockRows*bs)
	par.ForWeighted(m.RowPtr, 0, minChunkBlocks, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if k, ok := m.Find(i, i); ok {
				copy(d[i*bs:(i+1)*bs], m.Block(k))
			}
		}
	})
	return d, nil
}

// InvertDiag returns the inverses of the diagonal blocks of a square-blocked matrix,
// laid out as DiagBlocks lays out the blocks. Each block is inverted by LU with partial
// pivoting. A singular block (a missing one included) is an error wrapping ErrSingular
// that names the lowest such block row.
func (m *Matrix) InvertDiag() ([]float64, error) {
	d, err := m.DiagBlocks()
	if err != nil {
		return nil, err
	}
	n := m.R
	bs := n * n
	// Each chunk stops at its first singular row; the lowest over chunks is reported, so
	// the error does not depend on the worker count.
	var mu sync.Mutex
	first := -1
	par.ForWeighted(m.RowPtr, 0, minChunkBlocks, func(lo, hi int) {
		lu := make([]float64, bs)
		piv := make([]int, n)
		for i := lo; i < hi; i++ {
			blk := d[i*bs : (i+1)*bs]
			if !invertBlock(n, blk, blk, lu, piv) {
				mu.Lock()
				if first < 0 || i < first {
					first = i
				}
				mu.Unlock()
				return
			}
		}
	})
	if first >= 0 {
		return nil, fmt.Errorf("%w: diagonal block of block row %d", ErrSingular, first)
	}
	return d, nil
}

// InvertBlock writes the inverse of the n×n row-major block a into inv (which may be a)
// using LU with partial pivoting, and reports whether a was invertible. A block is
// treated as singular when a pivot is no larger than n·ε times its largest entry, or
// when the inverse is not finite; inv is then left in an unspecified state.
func InvertBlock(n int, a, inv []float64) bool {
	if len(a) < n*n || len(inv) < n*n {
		panic("bsr: InvertBlock: slice too short")
	}
	var luBuf [36]float64
	var pivBuf [6]int
	lu, piv := luBuf[:], pivBuf[:]
	if n > 6 {
		lu, piv = make([]float64, n*n), make([]int, n)
	}
	return invertBlock(n, a, inv, lu[:n*n], piv[:n])
}

// invertBlock is InvertBlock with caller-provided scratch lu (n*n) and piv (n).
func invertBlock(n int, a, inv, lu []float64, piv []int) bool {
	copy(lu, a[:n*n])
	amax := 0.0
	for _, v := range lu {
		amax = math.Max(amax, math.Abs(v))
	}
	tol := float64(n) * 0x1p-52 * amax
	if amax == 0 || math.IsNaN(amax) || math.IsInf(amax, 0) {
		return false
	}
	for i := range piv {
		piv[i] = i
	}
	// Doolittle LU with row pivoting: lu holds L (unit, below) and U (on and above).
	for k := 0; k < n; k++ {
		p, pv := k, math.Abs(lu[k*n+k])
		for i := k + 1; i < n; i++ {
			if v := math.Abs(lu[i*n+k]); v > pv {
				p, pv = i, v
			}
		}
		if pv <= tol {
			return false
		}
		if p != k {
			for j := 0; j < n; j++ {
				lu[k*n+j], lu[p*n+j] = lu[p*n+j], lu[k*n+j]
			}
			piv[k], piv[p] = piv[p], piv[k]
		}
		d := lu[k*n+k]
		for i := k + 1; i < n; i++ {
			l := lu[i*n+k] / d
			lu[i*n+k] = l
			for j := k + 1; j < n; j++ {
				lu[i*n+j] -= l * lu[k*n+j]
			}
		}
	}
	// Column j of the inverse solves L U x = P e_j; row i of P e_j is 1 where piv[i]==j.
	for j := 0; j < n; j++ {
		// Forward substitution, writing y into column j of inv.
		for i := 0; i < n; i++ {
			s := 0.0
			if piv[i] == j {
				s = 1
			}
			for t := 0; t < i; t++ {
				s -= lu[i*n+t] * inv[t*n+j]
			}
			inv[i*n+j] = s
		}
		for i := n - 1; i >= 0; i-- {
			s := inv[i*n+j]
			for t := i + 1; t < n; t++ {
				s -= lu[i*n+t] * inv[t*n+j]
			}
			s /= lu[i*n+i]
			if math.IsNaN(s) || math.IsInf(s, 0) {
				return false
			}
			inv[i*n+j] = s
		}
	}
	return true
}
