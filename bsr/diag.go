package bsr

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/blockamg/blockamg/internal/par"
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
		scale := make([]float64, 2*n)
		for i := lo; i < hi; i++ {
			blk := d[i*bs : (i+1)*bs]
			if !invertBlock(n, blk, blk, lu, piv, scale) {
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
// and reports whether a was invertible.
//
// The block is first equilibrated, S = R·A·C with R and C diagonal powers of two that
// bring every row's and then every column's largest magnitude into [0.5, 1) (exact
// scalings), then S is factored by LU with partial pivoting and A⁻¹ = C·S⁻¹·R. A
// block is treated as singular when a row or column is zero, when a pivot of S is no
// larger than n·ε times S's largest entry, or when the inverse is not finite; inv is
// then left in an unspecified state. Equilibration makes the test blind to the units
// of the unknowns: D·A·D with D = diag(10⁶, 1, 10⁻⁶) inverts like A, where a test
// relative to A's largest entry would call it singular. A block whose positive
// diagonal entries spread by more than 2²⁰, or that this test calls singular, is
// (also) inverted after a symmetric scaling by the powers of two nearest 1/√|a_pp|,
// which row-then-column equilibration does not always find: D·A·D of an SPD A with D
// spanning 10²⁰ or more inside the block can have rows dominated by off-diagonal
// entries. Other blocks get the same bits as without it.
func InvertBlock(n int, a, inv []float64) bool {
	if len(a) < n*n || len(inv) < n*n {
		panic("bsr: InvertBlock: slice too short")
	}
	var luBuf [36]float64
	var pivBuf [6]int
	var scaleBuf [12]float64
	lu, piv, scale := luBuf[:], pivBuf[:], scaleBuf[:]
	if n > 6 {
		lu, piv, scale = make([]float64, n*n), make([]int, n), make([]float64, 2*n)
	}
	return invertBlock(n, a, inv, lu[:n*n], piv[:n], scale[:2*n])
}

// unitScale returns the power of two s that puts s·m in [0.5, 1), for a finite m > 0:
// with m in [2^(E−1023), 2^(E−1022)), E its biased exponent, s = 2^(1022−E), whose
// biased exponent is 2045−E. E is capped at 2044 so that s stays normal (m ≥ 2¹⁰²²
// is then scaled into [1, 4)); a subnormal m (E = 0) gets s = 2¹⁰²², not fully scaled.
func unitScale(m float64) float64 {
	e := min(math.Float64bits(m)>>52&0x7ff, 2044)
	return math.Float64frombits((2045 - e) << 52)
}

// invertBlock is InvertBlock with caller-provided scratch lu (n*n), piv (n) and
// scale (2n: the row scales, then the column scales).
//
// Row-then-column equilibration finds the scaling of a D·A·D only when the entries
// of each row are dominated by the diagonal's scale: an SPD block of a system scaled
// with D spanning many orders inside one node can have rows dominated by off-diagonal
// entries, and then two rows of S come out nearly parallel, so that S is called
// singular, or, worse, passes the pivot test with a condition near 1/ε and gives an
// inverse wrong in every digit (hypre_beam_tet_459's node blocks under
// D = diag(10²⁰, 1, 10⁻²⁰) per node: errors of 200 times the inverse's largest
// entry). The symmetric scaling E·A·E, E the diagonal of powers of two nearest
// 1/√|a_pp| (1 where a_pp = 0), restores the well-conditioned block, and
// A⁻¹ = E·(E·A·E)⁻¹·E. It is applied first when the block's positive diagonal
// entries spread by more than 2²⁰ (real operators' blocks stay under 2⁴: nodes' unknowns
// and coarse nodes' modes have comparable scales), and as a second attempt when the
// plain one calls a block singular; a block with a tame diagonal that inverts the
// first time gets the same bits as without either.
func invertBlock(n int, a, inv, lu []float64, piv []int, scale []float64) bool {
	lo, hi := math.Inf(1), 0.0
	for p := 0; p < n; p++ {
		if d := a[p*n+p]; d > 0 && !math.IsInf(d, 0) {
			lo, hi = math.Min(lo, d), math.Max(hi, d)
		}
	}
	symFirst := hi > 0x1p20*lo
	attempt := func(sym bool, a []float64) bool {
		if sym {
			return invertSymScaled(n, a, inv, lu, piv, scale)
		}
		return invertEquilibrated(n, a, inv, lu, piv, scale)
	}
	if len(inv) > 0 && &inv[0] == &a[0] {
		// The first attempt writes inv before its last check: keep a for the second.
		var buf [36]float64
		orig := buf[:]
		if n*n > len(buf) {
			orig = make([]float64, n*n)
		}
		orig = orig[:n*n]
		copy(orig, a[:n*n])
		if attempt(symFirst, a) {
			return true
		}
		a = orig
	} else if attempt(symFirst, a) {
		return true
	}
	return attempt(!symFirst, a)
}

// invertSymScaled inverts a as E·(E·a·E)⁻¹·E (see invertBlock); inv may alias a. It
// reports false when E is the identity (nothing to try beyond invertEquilibrated) or
// the scaled block is singular.
func invertSymScaled(n int, a, inv, lu []float64, piv []int, scale []float64) bool {
	es := make([]float64, n*n+n)
	ea, e := es[:n*n], es[n*n:]
	same := true
	for p := 0; p < n; p++ {
		e[p] = 1
		if d := math.Abs(a[p*n+p]); d > 0 && !math.IsInf(d, 0) {
			_, x := math.Frexp(d)
			e[p] = math.Ldexp(1, -x/2)
		}
		same = same && e[p] == 1
	}
	if same {
		return false
	}
	for p := 0; p < n; p++ {
		for q := 0; q < n; q++ {
			ea[p*n+q] = a[p*n+q] * e[p] * e[q]
		}
	}
	if !invertEquilibrated(n, ea, inv, lu, piv, scale) {
		return false
	}
	for p := 0; p < n; p++ {
		for q := 0; q < n; q++ {
			v := inv[p*n+q] * e[p] * e[q]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
			inv[p*n+q] = v
		}
	}
	return true
}

// invertEquilibrated inverts a after equilibrating it (see InvertBlock).
func invertEquilibrated(n int, a, inv, lu []float64, piv []int, scale []float64) bool {
	copy(lu, a[:n*n])
	rs, cs := scale[:n], scale[n:2*n]
	for i := 0; i < n; i++ {
		m := 0.0
		for _, v := range lu[i*n : (i+1)*n] {
			m = math.Max(m, math.Abs(v))
		}
		if m == 0 || math.IsNaN(m) || math.IsInf(m, 0) {
			return false
		}
		rs[i] = unitScale(m)
		for j := i * n; j < (i+1)*n; j++ {
			lu[j] *= rs[i]
		}
	}
	for j := 0; j < n; j++ {
		m := 0.0
		for i := 0; i < n; i++ {
			m = math.Max(m, math.Abs(lu[i*n+j]))
		}
		if m == 0 {
			return false
		}
		cs[j] = unitScale(m)
		for i := 0; i < n; i++ {
			lu[i*n+j] *= cs[j]
		}
	}
	amax := 0.0
	for _, v := range lu {
		amax = math.Max(amax, math.Abs(v))
	}
	tol := float64(n) * 0x1p-52 * amax
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
			inv[i*n+j] = s
		}
	}
	// A⁻¹ = C·S⁻¹·R: entry (i, j) of S⁻¹ times cs[i]·rs[j].
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := inv[i*n+j] * rs[j] * cs[i]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
			inv[i*n+j] = v
		}
	}
	return true
}
