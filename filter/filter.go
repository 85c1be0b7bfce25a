package filter

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// Errors wrapped by what Symbolic and Numeric return, for errors.Is.
var (
	// ErrInput: P or Bc does not fit (invalid matrix, non-finite values, wrong
	// length), or theta or an option is out of range.
	ErrInput = errors.New("filter: invalid input")
	// ErrPattern: Numeric got a P or Pf whose pattern is not the one of the plan.
	ErrPattern = errors.New("filter: pattern differs from the one given to Symbolic")
)

// DefaultPivotTol is the default Options.PivotTol.
//
// A pivot ratio d_j/M_jj is the squared sine of the angle between column j of G_S and
// the span of the columns before it; the solve through M's Cholesky factor loses about
// log10(M_jj/d_j) digits. At 1e-8 a corrected row keeps P·B_c to about 1e-8 relative
// in the worst case and far better in practice, while exactly rank-deficient coarse
// blocks (a two-node aggregate misses the rotation about its own axis; its pivot ratio
// is round-off, ~1e-16) are caught. On ex56's default hierarchies the smallest pivot
// ratio of any row, for θ up to 1, is 1.2e-2 at ne = 10 and 2.8e-3 at ne = 20: it falls
// like (aggregate diameter / domain size)², the relative size of the rotations in
// B_c, so it stays far from the tolerance at any mesh size that fits in memory.
const DefaultPivotTol = 1e-8

// Options are the tuning knobs of Symbolic. The zero value means the defaults.
type Options struct {
	// PivotTol: a row whose M = Σ_{J∈S} B_cJᵀ B_cJ has a Cholesky pivot d_j ≤ PivotTol·M_jj
	// (near-dependent columns: the surviving coarse near-null blocks do not span
	// k dimensions) is left unfiltered; the column rule uses the same test on the Gram
	// matrix of a coarse column's surviving blocks. 0 means DefaultPivotTol; must be
	// in [0, 1).
	PivotTol float64
	// Workers bounds the goroutines of Symbolic (≤ 0: GOMAXPROCS). The plan does not
	// depend on it.
	Workers int
}

// LevelTheta returns the drop threshold of level l (0 = finest) for a base threshold
// theta and a per-level factor scale: θ·scale^level, capped at 1 (Symbolic accepts
// θ ∈ [0, 1]; at 1 only the strongest blocks of each row, and ties with them, survive).
func LevelTheta(theta, scale float64, level int) float64 {
	t := theta * math.Pow(scale, float64(level))
	return min(t, 1)
}

// Plan is the symbolic part of a filtering: which blocks of P survive, the pattern of
// P_f, and the Cholesky factors of M for every row that is projected. It is immutable
// after Symbolic and safe for concurrent Numeric calls on different outputs.
type Plan struct {
	theta    float64
	n, m     int // block rows (fine nodes) and block columns (coarse nodes)
	b, k     int // block shape
	identity bool

	// P's pattern at Symbolic, to check the one given to Numeric.
	pPtr []int64
	pCol []int32

	// P_f's pattern (P's own slices when identity).
	rowPtr []int64
	colIdx []int32

	// rowFac[i] is the index of row i's factor in fac, or -1 when the row is copied
	// unchanged (nothing dropped, or left unfiltered).
	rowFac []int32
	// fac holds one packed lower Cholesky factor of M per corrected row, k(k+1)/2
	// values, row-major lower triangle, with the reciprocal of each diagonal entry
	// stored in place of the entry (Numeric only multiplies).
	fac []float64

	stats Stats
}

// packed returns the length of a packed k×k lower triangle.
func packed(k int) int { return k * (k + 1) / 2 }

// minRows is the smallest chunk of block rows worth a goroutine.
const minRows = 256

// Symbolic decides which blocks of P survive and prepares the projection.
//
// P is a smoothed prolongator (n×m blocks of b×k), Bc the coarse near-null space (m
// blocks of k×k, row-major, coarse node J's block at Bc[J·k²:(J+1)·k²]) and theta the
// level's drop threshold in [0, 1]. Block (i, J) is dropped when
// ‖P_iJ‖_F < theta·max_J' ‖P_iJ'‖_F, so every row keeps its strongest block; theta = 0
// drops nothing and gives an identity plan. The column rule then keeps back the
// strongest dropped blocks of any coarse column that would otherwise lose rank, alone
// or jointly with the others (see the package documentation), so that P_f keeps the
// column rank of P and the coarse operator stays definite for every theta. A row
// whose surviving columns do not determine the projection (M singular to PivotTol)
// keeps all its blocks and is counted in Stats.RowsUnfiltered.
//
// The decision uses P's values now; the plan stays valid for any later values on the
// same pattern (Numeric does not re-decide). Errors wrap ErrInput.
func Symbolic(P *bsr.Matrix, Bc []float64, theta float64, opt Options) (*Plan, error) {
	if !(theta >= 0 && theta <= 1) {
		return nil, fmt.Errorf("%w: theta %v not in [0, 1]", ErrInput, theta)
	}
	if err := checkInput(P, Bc, &opt); err != nil {
		return nil, err
	}
	keep, restored := decide(P, theta, opt.PivotTol, opt.Workers)
	p := build(P, Bc, keep, opt)
	p.theta = theta
	p.stats.Theta = theta
	p.stats.BlocksKeptForRank = restored
	return p, nil
}

// checkInput validates P, Bc and opt, filling opt's defaults.
func checkInput(P *bsr.Matrix, Bc []float64, opt *Options) error {
	if P == nil {
		return fmt.Errorf("%w: nil prolongator", ErrInput)
	}
	if err := P.Validate(); err != nil {
		return fmt.Errorf("%w: prolongator: %w", ErrInput, err)
	}
	k := P.C
	if want := int64(P.BlockCols) * int64(k*k); int64(len(Bc)) != want {
		return fmt.Errorf("%w: coarse near-null space has %d values, want %d (%d coarse nodes × %d×%d)",
			ErrInput, len(Bc), want, P.BlockCols, k, k)
	}
	for t, v := range Bc {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: coarse near-null space: non-finite value %v in the block of coarse node %d", ErrInput, v, t/(k*k))
		}
	}
	if opt.PivotTol == 0 {
		opt.PivotTol = DefaultPivotTol
	}
	if !(opt.PivotTol > 0 && opt.PivotTol < 1) {
		return fmt.Errorf("%w: PivotTol %v not in [0, 1)", ErrInput, opt.PivotTol)
	}
	return nil
}

// decide returns, per stored block of P, whether it survives, or nil when nothing is
// dropped, and the number of blocks kept only for the rank of P_f: first the row rule
// (a block survives unless ‖P_iJ‖ < θ·max of its row), then the column rule
// (restoreRank: a coarse column whose survivors do not have rank k, alone or jointly
// with the other columns, gets its strongest dropped blocks back until they do).
func decide(P *bsr.Matrix, theta, tol float64, workers int) ([]bool, int64) {
	if theta == 0 {
		return nil, 0 // ‖·‖ < 0 never holds
	}
	keep := make([]bool, P.NNZBlocks())
	norms := make([]float64, P.NNZBlocks())
	rowScale := make([]float64, P.BlockRows)
	par.ForWeighted(P.RowPtr, workers, minRows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			mx := 0.0
			for s := P.RowPtr[i]; s < P.RowPtr[i+1]; s++ {
				norms[s] = bsr.Norm(P.Block(s))
				mx = max(mx, norms[s])
			}
			rowScale[i] = unitScale(mx)
			cut := theta * mx
			for s := P.RowPtr[i]; s < P.RowPtr[i+1]; s++ {
				keep[s] = !(norms[s] < cut)
			}
		}
	})
	if !slices.Contains(keep, false) {
		return nil, 0
	}
	restored := restoreRank(P, keep, norms, rowScale, tol, workers)
	if !slices.Contains(keep, false) {
		return nil, restored
	}
	return keep, restored
}

// restoreRank applies the column rule to keep (the row rule's survivors) and returns
// the number of blocks it turned back on. The row rule keeps the strongest block of
// every fine row but may keep none, or too few, of a coarse column J: a coarse node
// whose every block is weak in its rows (at θ ≥ 0.8 with two smoothing steps, say).
// P_f would then lack full column rank, Ac = P_fᵀ·A·P_f would be singular and the
// coarse Cholesky would call a valid SPD matrix indefinite. So for every column the
// Gram matrix Σ_{i kept} P_iJᵀ·P_iJ (k×k; each block scaled by the power of two that
// brings its row's largest block norm to unit scale, as the row rule sees it, and the
// k scalar columns of J then by powers of two to unit largest magnitude, so that
// neither the test nor the sums depend on the scale of P's rows or columns) is factored with the pivot test of Options.PivotTol; while
// that fails, the column's strongest dropped block (the lowest row on a tie) is kept
// again and the test repeated (a column that fails the test even whole is left as
// it is). A column whose survivors pass is left alone, so the rule changes nothing
// where every coarse column keeps rank. Columns are independent (each block lies in
// one), so this part does not depend on workers; restoreStructure then checks the
// columns' rank jointly.
func restoreRank(P *bsr.Matrix, keep []bool, norms, rowScale []float64, tol float64, workers int) int64 {
	n, m, b, k := P.BlockRows, P.BlockCols, P.R, P.C
	// Blocks by column, in row order.
	cPtr := make([]int64, m+1)
	for _, J := range P.ColIdx {
		cPtr[J+1]++
	}
	for J := 0; J < m; J++ {
		cPtr[J+1] += cPtr[J]
	}
	cBlk := make([]int64, len(P.ColIdx))
	row := make([]int32, len(P.ColIdx))
	next := append([]int64(nil), cPtr[:m]...)
	for i := 0; i < n; i++ {
		for s := P.RowPtr[i]; s < P.RowPtr[i+1]; s++ {
			J := P.ColIdx[s]
			cBlk[next[J]] = s
			next[J]++
			row[s] = int32(i)
		}
	}
	added := make([]int64, m)
	par.ForWeighted(cPtr, workers, minRows, func(lo, hi int) {
		G, L := make([]float64, k*k), make([]float64, packed(k))
		c := make([]float64, k)
		var off []int64
		for J := lo; J < hi; J++ {
			blks := cBlk[cPtr[J]:cPtr[J+1]]
			if !slices.ContainsFunc(blks, func(s int64) bool { return !keep[s] }) {
				continue // nothing dropped: the column has P's own rank
			}
			for q := range c {
				c[q] = 0
			}
			for _, s := range blks {
				blk, r := P.Block(s), rowScale[row[s]]
				for p := 0; p < b; p++ {
					for q := 0; q < k; q++ {
						c[q] = max(c[q], math.Abs(blk[p*k+q])*r)
					}
				}
			}
			for q := range c {
				c[q] = unitScale(c[q])
			}
			clear(G)
			off = off[:0]
			for _, s := range blks {
				if keep[s] {
					addGram(P.Block(s), rowScale[row[s]], b, k, c, G)
				} else {
					off = append(off, s)
				}
			}
			if len(off) == 0 || cholesky(k, G, L, tol) {
				continue
			}
			// Only a column that passes whole gets blocks back (a column of P
			// without rank k, from an aggregate with fewer than k rows, keeps what
			// the row rule kept).
			all := slices.Clone(G)
			for _, s := range off {
				addGram(P.Block(s), rowScale[row[s]], b, k, c, all)
			}
			if !cholesky(k, all, L, tol) {
				continue
			}
			strongestFirst(off, norms)
			for _, s := range off {
				keep[s] = true
				added[J]++
				addGram(P.Block(s), rowScale[row[s]], b, k, c, G)
				if cholesky(k, G, L, tol) {
					break
				}
			}
		}
	})
	total := int64(0)
	for _, a := range added {
		total += a
	}
	return total + restoreStructure(P, keep, norms, cPtr, cBlk, row)
}

// restoreStructure makes the surviving pattern able to carry full column rank jointly,
// which the per-column test cannot see: two coarse columns whose survivors all lie in
// one fine row (a scalar problem whose coarse nodes both peak at that row after two
// smoothing steps, say) each pass it, yet are dependent. Full structural rank means
// that every coarse column J can be given k of the scalar rows of its surviving
// blocks, no scalar row given twice (a fine node offers b rows to its surviving
// blocks): a flow problem with demand k per coarse column and capacity b per fine
// node. It is solved greedily (rows in order, each node's rows to its blocks in column
// order) and completed by augmenting paths, in coarse column order; a column no path
// can complete gets its strongest dropped blocks back (the lowest row on a tie), one
// at a time, until it is complete; a column that even whole cannot be completed is
// left as it is. SA prolongators
// complete greedily: each coarse column peaks on its own aggregate. It returns the
// number of blocks turned back on; the result does not depend on workers (serial).
func restoreStructure(P *bsr.Matrix, keep []bool, norms []float64, cPtr, cBlk []int64, row []int32) int64 {
	n, m, b, k := P.BlockRows, P.BlockCols, P.R, P.C
	f := make([]int32, len(keep)) // scalar rows of block s's node given to its column
	used := make([]int32, n)      // scalar rows of node i given away
	need := make([]int32, m)      // scalar columns of coarse column J without a row
	for J := range need {
		need[J] = int32(k)
		if cPtr[J+1] == cPtr[J] {
			need[J] = 0 // an empty column of P: nothing to keep
		}
	}
	for i := 0; i < n; i++ {
		for s := P.RowPtr[i]; s < P.RowPtr[i+1] && used[i] < int32(b); s++ {
			if J := P.ColIdx[s]; keep[s] && need[J] > 0 {
				g := min(int32(b)-used[i], need[J])
				f[s], used[i], need[J] = g, used[i]+g, need[J]-g
			}
		}
	}
	// augment finds a path from column J to a node with a free row, alternating kept
	// blocks that can take one more row (column → node) and blocks holding one
	// (node → another column), by breadth-first search, and moves one row along it.
	seenCol, seenNode := make([]int32, m), make([]int32, n)
	for J := range seenCol {
		seenCol[J] = -1
	}
	for i := range seenNode {
		seenNode[i] = -1
	}
	via := make([]int64, m)     // block by which a column was reached (−1: the start)
	viaNode := make([]int64, n) // block by which a node was reached
	var queue []int32
	stamp := int32(0)
	augment := func(J0 int32) bool {
		stamp++
		queue = append(queue[:0], J0)
		seenCol[J0], via[J0] = stamp, -1
		for h := 0; h < len(queue); h++ {
			J := queue[h]
			for _, s := range cBlk[cPtr[J]:cPtr[J+1]] {
				i := row[s]
				if !keep[s] || f[s] >= int32(b) || seenNode[i] == stamp {
					continue
				}
				seenNode[i], viaNode[i] = stamp, s
				if used[i] < int32(b) {
					// Move one row along the path back to J0.
					used[i]++
					for {
						t := viaNode[i]
						f[t]++
						c := P.ColIdx[t]
						if via[c] < 0 {
							need[c]--
							return true
						}
						u := via[c] // block of c's row in the previous node, holding a row
						f[u]--
						i = row[u]
					}
				}
				for t := P.RowPtr[i]; t < P.RowPtr[i+1]; t++ {
					if c := P.ColIdx[t]; f[t] > 0 && seenCol[c] != stamp {
						seenCol[c], via[c] = stamp, t
						queue = append(queue, c)
					}
				}
			}
		}
		return false
	}
	// fill completes column J as far as its surviving blocks allow.
	fill := func(J int32) {
		for need[J] > 0 && augment(J) {
		}
	}
	// release takes back every row given to column J.
	release := func(J int32) {
		for _, s := range cBlk[cPtr[J]:cPtr[J+1]] {
			used[row[s]] -= f[s]
			need[J] += f[s]
			f[s] = 0
		}
	}
	restored := int64(0)
	var off []int64
	for J := int32(0); J < int32(m); J++ {
		if fill(J); need[J] == 0 {
			continue
		}
		off = off[:0]
		for _, s := range cBlk[cPtr[J]:cPtr[J+1]] {
			if !keep[s] {
				off = append(off, s)
			}
		}
		// Only if the whole column completes are blocks given back: a column that P
		// itself cannot complete (more coarse than fine unknowns around it) keeps
		// what the row rule kept.
		for _, s := range off {
			keep[s] = true
		}
		fill(J)
		whole := need[J] == 0
		release(J)
		for _, s := range off {
			keep[s] = false
		}
		fill(J)
		if !whole {
			continue
		}
		strongestFirst(off, norms)
		for _, s := range off {
			if need[J] == 0 {
				break
			}
			keep[s] = true
			restored++
			fill(J)
		}
	}
	return restored
}

// strongestFirst sorts the blocks off (of one coarse column, in row order) by
// decreasing norm, equal norms staying in row order.
func strongestFirst(off []int64, norms []float64) {
	slices.SortStableFunc(off, func(x, y int64) int {
		switch {
		case norms[x] > norms[y]:
			return -1
		case norms[x] < norms[y]:
			return 1
		}
		return 0
	})
}

// addGram adds the lower triangle of (r·blk·C)ᵀ·(r·blk·C) to the k×k G (all cholesky
// reads), blk b×k row-major, C = diag(c).
func addGram(blk []float64, r float64, b, k int, c, G []float64) {
	var buf [8]float64
	x := buf[:]
	if k > len(buf) {
		x = make([]float64, k)
	}
	for p := 0; p < b; p++ {
		row := blk[p*k : (p+1)*k]
		for q := 0; q < k; q++ {
			x[q] = row[q] * r * c[q]
		}
		for q := 0; q < k; q++ {
			for t := 0; t <= q; t++ {
				G[q*k+t] += x[q] * x[t]
			}
		}
	}
}

// unitScale returns the power of two s with s·x in [0.5, 1) for a finite x > 0, and 1
// otherwise.
func unitScale(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return 1
	}
	_, e := math.Frexp(x)
	return math.Ldexp(1, -e)
}

// build makes the plan for the survivors keep (nil: all) of P's blocks. Rows whose M
// is singular keep all their blocks.
func build(P *bsr.Matrix, Bc []float64, keep []bool, opt Options) *Plan {
	n, m, b, k := P.BlockRows, P.BlockCols, P.R, P.C
	p := &Plan{n: n, m: m, b: b, k: k, pPtr: P.RowPtr, pCol: P.ColIdx}
	p.stats = Stats{
		BlockRows: n, BlockCols: m, R: b, C: k,
		NNZBlocksBefore: P.NNZBlocks(),
		BytesBefore:     P.Bytes(),
	}
	if keep == nil {
		p.identity = true
		p.rowPtr, p.colIdx = P.RowPtr, P.ColIdx
		p.stats.NNZBlocksAfter, p.stats.BytesAfter = p.stats.NNZBlocksBefore, p.stats.BytesBefore
		return p
	}
	// Pass 1: per row, the number of surviving blocks, and whether the row is
	// corrected (0), copied because nothing dropped (1) or left unfiltered (2).
	const (
		corrected = iota
		untouched
		unfiltered
	)
	cs := columnScales(Bc, m, k)
	G := grams(Bc, cs, m, k, opt.Workers)
	kind := make([]uint8, n)
	count := make([]int64, n+1)
	wouldDrop := make([]int64, n)
	pk := packed(k)
	par.ForWeighted(P.RowPtr, opt.Workers, minRows, func(lo, hi int) {
		M, L := make([]float64, k*k), make([]float64, pk)
		for i := lo; i < hi; i++ {
			s0, s1 := P.RowPtr[i], P.RowPtr[i+1]
			c := int64(0)
			for s := s0; s < s1; s++ {
				if keep[s] {
					c++
				}
			}
			switch {
			case c == s1-s0:
				kind[i], count[i+1] = untouched, c
			case factorRow(P, G, cs, keep, i, opt.PivotTol, M, L):
				kind[i], count[i+1] = corrected, c
			default:
				kind[i], count[i+1], wouldDrop[i] = unfiltered, s1-s0, s1-s0-c
			}
		}
	})
	p.rowPtr = count
	p.rowFac = make([]int32, n)
	nfac := int32(0)
	for i := 0; i < n; i++ {
		p.rowPtr[i+1] += p.rowPtr[i]
		p.rowFac[i] = -1
		switch kind[i] {
		case corrected:
			p.rowFac[i] = nfac
			nfac++
		case unfiltered:
			p.stats.RowsUnfiltered++
			p.stats.BlocksNotDropped += wouldDrop[i]
		}
	}
	p.stats.RowsCorrected = int(nfac)
	// Pass 2: the pattern of P_f and the factors.
	p.colIdx = make([]int32, p.rowPtr[n])
	p.fac = make([]float64, int64(nfac)*int64(pk))
	par.ForWeighted(P.RowPtr, opt.Workers, minRows, func(lo, hi int) {
		M := make([]float64, k*k)
		for i := lo; i < hi; i++ {
			t := p.rowPtr[i]
			for s := P.RowPtr[i]; s < P.RowPtr[i+1]; s++ {
				if kind[i] != corrected || keep[s] {
					p.colIdx[t] = P.ColIdx[s]
					t++
				}
			}
			if f := p.rowFac[i]; f >= 0 {
				off := int64(f) * int64(pk)
				factorRow(P, G, cs, keep, i, opt.PivotTol, M, p.fac[off:off+int64(pk)])
			}
		}
	})
	nnz := p.rowPtr[n]
	p.stats.NNZBlocksAfter = nnz
	p.stats.DroppedBlocks = p.stats.NNZBlocksBefore - nnz
	p.stats.BytesAfter = int64(n+1)*8 + nnz*4 + nnz*int64(b*k)*8
	if p.stats.DroppedBlocks == 0 {
		// Every row with drops was left unfiltered: P_f is P.
		unf, nd := p.stats.RowsUnfiltered, p.stats.BlocksNotDropped
		p = build(P, Bc, nil, opt)
		p.stats.RowsUnfiltered, p.stats.BlocksNotDropped = unf, nd
	}
	return p
}

// columnScales returns, for coarse near-null spaces whose columns are scaled so far
// from one that the Gram blocks and M would overflow or underflow (a near-null vector
// given in other units: ‖B_c‖ beyond 2^±250), the powers of two c_q that bring each
// such column's largest magnitude into [0.5, 1) (1 for the other columns), or nil when
// every column is in range, as for any sanely scaled B_c. The projection is invariant
// under column scaling: with C = diag(c), the factor of C·M·C is C·L, so factoring the
// scaled M and unscaling the factor (exactly, powers of two) gives M's own factor
// without forming M.
func columnScales(Bc []float64, m, k int) []float64 {
	cmax := make([]float64, k)
	for t, v := range Bc {
		cmax[t%k] = max(cmax[t%k], math.Abs(v))
	}
	var cs []float64
	for q, x := range cmax {
		if x == 0 || (x >= 0x1p-250 && x <= 0x1p250) {
			continue
		}
		if cs == nil {
			cs = make([]float64, k)
			for r := range cs {
				cs[r] = 1
			}
		}
		cs[q] = unitScale(x)
	}
	return cs
}

// grams returns B_cJᵀ·B_cJ for every coarse node J (m blocks of k×k), the terms of
// every row's M, formed once rather than once per fine row that keeps J; with column
// scales cs (non-nil), those of B_cJ·diag(cs).
func grams(Bc, cs []float64, m, k, workers int) []float64 {
	kk := int64(k * k)
	G := make([]float64, int64(m)*kk)
	par.For(m, workers, 64, func(lo, hi int) {
		var tmp []float64
		if cs != nil {
			tmp = make([]float64, kk)
		}
		for J := int64(lo); J < int64(hi); J++ {
			B := Bc[J*kk : (J+1)*kk]
			if cs != nil {
				for t, v := range B {
					tmp[t] = v * cs[t%k]
				}
				B = tmp
			}
			bsr.GemmTNAcc(k, k, k, B, B, G[J*kk:(J+1)*kk])
		}
	})
	return G
}

// factorRow forms M = Σ_{J kept in row i} B_cJᵀ·B_cJ in M (k×k, summed in column order
// from the Gram blocks G) and writes its packed Cholesky factor to L. It reports false
// when a pivot falls to tol·M_jj or below. With column scales cs (non-nil) G holds the
// scaled Gram blocks; the factor of the scaled M is then unscaled into M's own.
func factorRow(P *bsr.Matrix, G, cs []float64, keep []bool, i int, tol float64, M, L []float64) bool {
	k := P.C
	clear(M)
	kk := int64(k * k)
	for s := P.RowPtr[i]; s < P.RowPtr[i+1]; s++ {
		if keep[s] {
			J := int64(P.ColIdx[s])
			for q, g := range G[J*kk : (J+1)*kk] {
				M[q] += g
			}
		}
	}
	if !cholesky(k, M, L, tol) {
		return false
	}
	if cs != nil {
		// C·M·C = L'·L'ᵀ gives M = L·Lᵀ with L = C⁻¹·L': row j of L is row j of L'
		// divided by c_j; the stored reciprocal diagonal is multiplied by c_j.
		for j := 0; j < k; j++ {
			rj := j * (j + 1) / 2
			for l := 0; l < j; l++ {
				L[rj+l] /= cs[j]
			}
			L[rj+j] *= cs[j]
		}
	}
	return true
}

// Identity reports whether the plan drops nothing: P_f is P, and Numeric only copies
// (or does nothing when given P itself as Pf).
func (p *Plan) Identity() bool { return p.identity }

// Theta returns the threshold the plan was built with.
func (p *Plan) Theta() float64 { return p.theta }

// Stats returns the counts of the filtering (see Stats).
func (p *Plan) Stats() Stats {
	s := p.stats
	s.PlanBytes = p.PlanBytes()
	return s
}

// PlanBytes returns the memory the plan holds beyond P and P_f's values: P_f's pattern
// (when it is not P's), the row map and the Cholesky factors.
func (p *Plan) PlanBytes() int64 {
	if p.identity {
		return 0
	}
	return int64(len(p.rowPtr))*8 + int64(len(p.colIdx))*4 + int64(len(p.rowFac))*4 + int64(len(p.fac))*8
}

// NewPf returns a matrix with P_f's pattern (shared with the plan, read-only) and
// fresh zero values, the output for Numeric.
func (p *Plan) NewPf() *bsr.Matrix {
	return &bsr.Matrix{
		BlockRows: p.n, BlockCols: p.m, R: p.b, C: p.k,
		RowPtr: p.rowPtr, ColIdx: p.colIdx,
		Val: make([]float64, p.rowPtr[p.n]*int64(p.b*p.k)),
	}
}

// Numeric writes into Pf the filtered prolongator for the current values of P, which
// must have the pattern given to Symbolic (else an error wrapping ErrPattern); Pf must
// have the plan's pattern (NewPf). Bc must be the coarse near-null space given to
// Symbolic: the Cholesky factors of M were computed from it, and Numeric uses it again
// for E and the correction. The drop decision is not re-made.
//
// Rows without drops (and rows left unfiltered) are copied; every other row i gets its
// surviving blocks plus the minimum-norm correction E_i·M_i⁻¹·B_cJᵀ (see the package
// documentation), so P_f·B_c = P·B_c row by row. Each row is computed by one goroutine
// in a fixed order: the result is bitwise the same for any workers (≤ 0: GOMAXPROCS).
//
// For an identity plan, Pf may be P itself (nothing to do) or any matrix with P's
// pattern (a copy). Otherwise Pf must not share P's values (panic).
func (p *Plan) Numeric(P *bsr.Matrix, Bc []float64, Pf *bsr.Matrix, workers int) error {
	if P == nil || Pf == nil {
		panic("filter: Numeric: nil matrix")
	}
	if int64(len(Bc)) != int64(p.m)*int64(p.k*p.k) {
		panic("filter: Numeric: coarse near-null space length differs from the plan's")
	}
	if !samePattern(P, p.n, p.m, p.b, p.k, p.pPtr, p.pCol) || len(P.Val) != len(p.pCol)*p.b*p.k {
		return fmt.Errorf("%w: P (%d×%d blocks of %d×%d, %d stored)", ErrPattern, P.BlockRows, P.BlockCols, P.R, P.C, len(P.ColIdx))
	}
	if !samePattern(Pf, p.n, p.m, p.b, p.k, p.rowPtr, p.colIdx) || int64(len(Pf.Val)) != p.rowPtr[p.n]*int64(p.b*p.k) {
		return fmt.Errorf("%w: Pf does not have the filtered pattern (%d×%d blocks of %d×%d, %d stored; want %d stored)",
			ErrPattern, Pf.BlockRows, Pf.BlockCols, Pf.R, Pf.C, len(Pf.ColIdx), len(p.colIdx))
	}
	if len(P.Val) == 0 {
		return nil
	}
	if p.identity {
		if &Pf.Val[0] != &P.Val[0] {
			par.For(len(P.Val), workers, 1<<16, func(lo, hi int) { copy(Pf.Val[lo:hi], P.Val[lo:hi]) })
		}
		return nil
	}
	if &Pf.Val[0] == &P.Val[0] {
		panic("filter: Numeric: Pf is P but the plan drops blocks")
	}
	par.ForWeighted(P.RowPtr, workers, minRows, func(lo, hi int) {
		E, Y := make([]float64, p.b*p.k), make([]float64, p.b*p.k)
		for i := lo; i < hi; i++ {
			p.row(P, Bc, Pf, i, E, Y)
		}
	})
	return nil
}

// row computes row i of P_f into Pf, with E and Y b×k scratch.
func (p *Plan) row(P *bsr.Matrix, Bc []float64, Pf *bsr.Matrix, i int, E, Y []float64) {
	b, k := p.b, p.k
	bk, kk := int64(b*k), int64(k*k)
	s0, s1 := P.RowPtr[i], P.RowPtr[i+1]
	t0, t1 := Pf.RowPtr[i], Pf.RowPtr[i+1]
	f := p.rowFac[i]
	if f < 0 {
		copy(Pf.Val[t0*bk:t1*bk], P.Val[s0*bk:s1*bk])
		return
	}
	// Survivors are copied; dropped blocks add P_iJ·B_cJ to E, in column order.
	clear(E)
	t := t0
	for s := s0; s < s1; s++ {
		J := int64(P.ColIdx[s])
		if t < t1 && int64(Pf.ColIdx[t]) == J {
			copy(Pf.Val[t*bk:(t+1)*bk], P.Val[s*bk:(s+1)*bk])
			t++
			continue
		}
		bsr.GemmAcc(b, k, k, P.Val[s*bk:(s+1)*bk], Bc[J*kk:(J+1)*kk], E)
	}
	// Y = E·M⁻¹ (M symmetric: each row y of Y solves M·yᵀ = eᵀ).
	off := int64(f) * int64(packed(k))
	L := p.fac[off : off+int64(packed(k))]
	if k == 6 {
		solve6(b, L, E, Y)
		for t := t0; t < t1; t++ {
			J := int64(Pf.ColIdx[t])
			gemmNT6Acc(b, Y, Bc[J*kk:(J+1)*kk], Pf.Val[t*bk:(t+1)*bk])
		}
		return
	}
	solveRows(b, k, L, E, Y)
	// P_f,iJ = P_iJ + Y·B_cJᵀ for the survivors.
	for t := t0; t < t1; t++ {
		J := int64(Pf.ColIdx[t])
		gemmNTAcc(b, k, Y, Bc[J*kk:(J+1)*kk], Pf.Val[t*bk:(t+1)*bk])
	}
}

// samePattern reports whether A has the given shape and pattern, comparing the slices
// only when they are not the very same ones.
func samePattern(A *bsr.Matrix, n, m, r, c int, ptr []int64, col []int32) bool {
	if A.BlockRows != n || A.BlockCols != m || A.R != r || A.C != c || len(A.RowPtr) != len(ptr) || len(A.ColIdx) != len(col) {
		return false
	}
	if len(col) > 0 && &A.ColIdx[0] == &col[0] && &A.RowPtr[0] == &ptr[0] {
		return true
	}
	for i, v := range ptr {
		if A.RowPtr[i] != v {
			return false
		}
	}
	for i, v := range col {
		if A.ColIdx[i] != v {
			return false
		}
	}
	return true
}
