package dist

import (
	"slices"

	"github.com/blockamg/blockamg/bsr"
)

// tagRows tags the messages of GhostRows.
const tagRows = 26003

// GhostRows returns the rows of x that the ghost columns of a name, in ghost order,
// with x's global block columns: the rows another rank owns that a product a·x reads
// (x's rows are distributed as a's columns). It runs on a's halo plan: each rank sends
// each neighbour the rows of x whose blocks of a vector that neighbour's halo fetches,
// first their lengths, then their columns, then their values. Every rank must call it
// together.
func GhostRows(a, x *Matrix) (*bsr.Matrix, error) {
	g, err := fetchGhostRows(a, x)
	if err != nil {
		return nil, err
	}
	return g.rows, nil
}

// rowLen returns the stored blocks of local row i, both parts.
func (m *Matrix) rowLen(i int) int64 {
	return m.Local.RowPtr[i+1] - m.Local.RowPtr[i] + m.Ghost.RowPtr[i+1] - m.Ghost.RowPtr[i]
}

// appendRow appends local row i's global columns, ascending (the local and ghost parts
// merged, appendRefs' order), and their blocks.
func (m *Matrix) appendRow(i int, cols []int64, vals []float64) ([]int64, []float64) {
	bs := int64(m.Local.R * m.Local.C)
	cols, refs := m.appendRefs(i, cols, nil)
	for _, r := range refs {
		if r >= 0 {
			vals = append(vals, m.Local.Val[r*bs:(r+1)*bs]...)
		} else {
			q := -1 - r
			vals = append(vals, m.Ghost.Val[q*bs:(q+1)*bs]...)
		}
	}
	return cols, vals
}

// SmoothProlongator returns this rank's rows of the smoothed prolongator
// P = (I − ω·D⁻¹A)·X with global columns (X's column layout), ready for
// NewRectMatrix: one Jacobi step on X, as amg smooths the tentative prolongator
// (AggNSmooths = 1, ω = ProlongDamping/λmax). dinv holds this rank's rows of D⁻¹
// (InvertDiag). The rows of X that a's ghost columns name come from their owners
// (GhostRows); the rest is this rank's own arithmetic, each row's terms summed in a's
// column order (local part, then ghost part), so the result is the same bits on every
// run with the same layout. Every rank must call it together.
func SmoothProlongator(a, x *Matrix, dinv []float64, omega float64) (*bsr.Matrix, error) {
	sp, err := newSmoothPlan(a, x)
	if err != nil {
		return nil, err
	}
	sp.numeric(dinv, omega)
	return sp.out, nil
}

// smoothPlan is SmoothProlongator's pattern kept: X's rows (fetched once: the
// tentative prolongator's values do not change with the operator's) and P's pattern,
// so that new values of a give P's values on this rank alone.
type smoothPlan struct {
	a    *Matrix
	x    *operand
	cols []int32     // per block of P: its dense column (x.cols), ascending in each row
	xq   []int64     // per block of P: the block of X's row holding its column, or −1
	out  *bsr.Matrix // P's rows with global columns; numeric writes the values
	slot []int32     // per dense column: its place in the row being computed
	acc  []float64   // W_i = Σ_j A_ij X_j, by place in the row
}

// newSmoothPlan fetches X's ghost rows and forms P's pattern: each row holds X's row's
// columns and those of the rows of X that a's row names.
func newSmoothPlan(a, x *Matrix) (*smoothPlan, error) {
	if !slices.Equal(x.Layout.Offsets, a.Layout.Offsets) || !slices.Equal(a.Layout.Offsets, a.ColLayout.Offsets) {
		panic("dist: SmoothProlongator: X's rows are not distributed as the square operator's")
	}
	b, k := a.Local.R, x.Local.C
	if x.Local.R != b {
		panic("dist: SmoothProlongator: X's block rows do not match the operator's blocks")
	}
	op, err := newOperand(a, x)
	if err != nil {
		return nil, err
	}
	n := a.Hi - a.Lo
	nc := len(op.cols)
	sp := &smoothPlan{a: a, x: op, slot: make([]int32, nc)}
	out := &bsr.Matrix{BlockRows: n, BlockCols: x.ColLayout.N(), R: b, C: k, RowPtr: make([]int64, n+1)}
	for t := range sp.slot {
		sp.slot[t] = -1
	}
	var row []int32
	longest := 0
	for i := 0; i < n; i++ {
		row = op.rowUnion(a, i, true, sp.slot, row)
		q, qe := op.own.RowPtr[i], op.own.RowPtr[i+1]
		for _, c := range row {
			sp.cols = append(sp.cols, c)
			out.ColIdx = append(out.ColIdx, int32(op.cols[c]))
			if q < qe && op.own.ColIdx[q] == c {
				sp.xq = append(sp.xq, q)
				q++
			} else {
				sp.xq = append(sp.xq, -1)
			}
		}
		out.RowPtr[i+1] = int64(len(out.ColIdx))
		longest = max(longest, len(row))
	}
	out.Val = make([]float64, len(out.ColIdx)*b*k)
	sp.out = out
	sp.acc = make([]float64, longest*b*k)
	return sp, nil
}

// numeric computes P's values from a's present values: each row's W_i = Σ_j A_ij X_j
// (local part, then ghost part, in column order), then P_i = X_i − ω·D⁻¹W_i.
func (sp *smoothPlan) numeric(dinv []float64, omega float64) {
	a, op, out := sp.a, sp.x, sp.out
	b, k := a.Local.R, out.C
	bb, bk := int64(b*b), int64(b*k)
	dw := make([]float64, bk)
	gemm := bsr.GemmFunc(b, b, k)
	for i := 0; i < a.Hi-a.Lo; i++ {
		p0, p1 := out.RowPtr[i], out.RowPtr[i+1]
		for t := p0; t < p1; t++ {
			sp.slot[sp.cols[t]] = int32(t - p0)
		}
		clear(sp.acc[:(p1-p0)*bk])
		// acc_s += A_ij · X_jq (b×b times b×k), the local part's columns first.
		own, gh := op.own, op.ghost
		for q := a.Local.RowPtr[i]; q < a.Local.RowPtr[i+1]; q++ {
			blk, j := a.Local.Val[q*bb:(q+1)*bb], a.Local.ColIdx[q]
			for e := own.RowPtr[j]; e < own.RowPtr[j+1]; e++ {
				s := int64(sp.slot[own.ColIdx[e]])
				gemm(blk, op.ownBlock(e), sp.acc[s*bk:(s+1)*bk])
			}
		}
		for q := a.Ghost.RowPtr[i]; q < a.Ghost.RowPtr[i+1]; q++ {
			blk, j := a.Ghost.Val[q*bb:(q+1)*bb], a.Ghost.ColIdx[q]
			for e := gh.RowPtr[j]; e < gh.RowPtr[j+1]; e++ {
				s := int64(sp.slot[gh.ColIdx[e]])
				gemm(blk, gh.Val[e*bk:(e+1)*bk], sp.acc[s*bk:(s+1)*bk])
			}
		}
		d := dinv[i*b*b : (i+1)*b*b]
		for t := p0; t < p1; t++ {
			clear(dw)
			gemm(d, sp.acc[(t-p0)*bk:(t-p0+1)*bk], dw)
			blk := out.Val[t*bk : (t+1)*bk]
			if q := sp.xq[t]; q >= 0 {
				copy(blk, op.ownBlock(q))
			} else {
				clear(blk)
			}
			for e := range blk {
				blk[e] -= omega * dw[e]
			}
		}
	}
}
