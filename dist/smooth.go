package dist

import (
	"fmt"
	"slices"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/dist/mpi"
)

// tagRows tags the messages of GhostRows.
const tagRows = 26003

// GhostRows returns the rows of x that the ghost columns of a name, in ghost order,
// with x's global block columns: the rows another rank owns that a product a·x reads
// (x's rows are distributed as a's columns). It runs on a's halo plan: each rank sends
// each neighbour the rows of x whose blocks of a vector that neighbour's halo fetches,
// first their lengths, then their columns and values. Every rank must call it
// together.
func GhostRows(a, x *Matrix) (*bsr.Matrix, error) {
	if !slices.Equal(x.Layout.Offsets, a.ColLayout.Offsets) {
		panic("dist: GhostRows: x's rows are not distributed as a's columns")
	}
	c := a.Comm
	R, C := x.Local.R, x.Local.C
	bs := R * C
	h := a.Halo
	// Round 1: the row lengths.
	sendLen := make([][]int64, len(h.Send))
	for k, nb := range h.Send {
		sendLen[k] = make([]int64, len(nb.Rows))
		for t, r := range nb.Rows {
			sendLen[k][t] = x.rowLen(int(r))
		}
	}
	ng := len(a.GhostCols)
	recvLen := make([]int64, ng)
	var reqs []*mpi.Request
	post := func(q *mpi.Request, err error) error {
		if err == nil {
			reqs = append(reqs, q)
		}
		return err
	}
	for _, nb := range h.Recv {
		if err := post(mpi.Irecv(c, recvLen[nb.Lo:nb.Hi], nb.Rank, tagRows)); err != nil {
			return nil, err
		}
	}
	for k, nb := range h.Send {
		if err := post(mpi.Isend(c, sendLen[k], nb.Rank, tagRows)); err != nil {
			return nil, err
		}
	}
	if err := c.Waitall(reqs); err != nil {
		return nil, err
	}
	reqs = reqs[:0]
	// Round 2: columns (global) and values, one message of each per neighbour.
	out := &bsr.Matrix{BlockRows: ng, BlockCols: x.ColLayout.N(), R: R, C: C, RowPtr: make([]int64, ng+1)}
	for g, n := range recvLen {
		if n < 0 {
			return nil, fmt.Errorf("%w: a neighbour sent a row of %d blocks", ErrLayout, n)
		}
		out.RowPtr[g+1] = out.RowPtr[g] + n
	}
	nnz := out.RowPtr[ng]
	cols := make([]int64, nnz)
	out.Val = make([]float64, nnz*int64(bs))
	for _, nb := range h.Recv {
		p0, p1 := out.RowPtr[nb.Lo], out.RowPtr[nb.Hi]
		if err := post(mpi.Irecv(c, cols[p0:p1], nb.Rank, tagRows)); err != nil {
			return nil, err
		}
		if err := post(mpi.Irecv(c, out.Val[p0*int64(bs):p1*int64(bs)], nb.Rank, tagRows)); err != nil {
			return nil, err
		}
	}
	for _, nb := range h.Send {
		var sc []int64
		var sv []float64
		for _, r := range nb.Rows {
			sc, sv = x.appendRow(int(r), sc, sv)
		}
		if err := post(mpi.Isend(c, sc, nb.Rank, tagRows)); err != nil {
			return nil, err
		}
		if err := post(mpi.Isend(c, sv, nb.Rank, tagRows)); err != nil {
			return nil, err
		}
	}
	if err := c.Waitall(reqs); err != nil {
		return nil, err
	}
	out.ColIdx = make([]int32, nnz)
	for q, j := range cols {
		if j < 0 || j >= int64(out.BlockCols) {
			return nil, fmt.Errorf("%w: a neighbour sent column %d of %d", ErrLayout, j, out.BlockCols)
		}
		out.ColIdx[q] = int32(j)
	}
	return out, nil
}

// rowLen returns the stored blocks of local row i, both parts.
func (m *Matrix) rowLen(i int) int64 {
	return m.Local.RowPtr[i+1] - m.Local.RowPtr[i] + m.Ghost.RowPtr[i+1] - m.Ghost.RowPtr[i]
}

// appendRow appends local row i's global columns, ascending (the local and ghost parts
// merged), and their blocks.
func (m *Matrix) appendRow(i int, cols []int64, vals []float64) ([]int64, []float64) {
	bs := int64(m.Local.R * m.Local.C)
	kl, kg := m.Local.RowPtr[i], m.Ghost.RowPtr[i]
	el, eg := m.Local.RowPtr[i+1], m.Ghost.RowPtr[i+1]
	for kl < el || kg < eg {
		var gl, gg int64 = 1 << 62, 1 << 62
		if kl < el {
			gl = int64(m.Local.ColIdx[kl]) + int64(m.ColLo)
		}
		if kg < eg {
			gg = int64(m.GhostCols[m.Ghost.ColIdx[kg]])
		}
		if gl < gg {
			cols, vals = append(cols, gl), append(vals, m.Local.Val[kl*bs:(kl+1)*bs]...)
			kl++
		} else {
			cols, vals = append(cols, gg), append(vals, m.Ghost.Val[kg*bs:(kg+1)*bs]...)
			kg++
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
	if !slices.Equal(x.Layout.Offsets, a.Layout.Offsets) || !slices.Equal(a.Layout.Offsets, a.ColLayout.Offsets) {
		panic("dist: SmoothProlongator: X's rows are not distributed as the square operator's")
	}
	b, k := a.Local.R, x.Local.C
	if x.Local.R != b {
		panic("dist: SmoothProlongator: X's block rows do not match the operator's blocks")
	}
	ghost, err := GhostRows(a, x)
	if err != nil {
		return nil, err
	}
	n := a.Hi - a.Lo
	bk := b * k
	// X's own rows with global columns, as the ghost rows hold them.
	own := &bsr.Matrix{BlockRows: n, BlockCols: x.ColLayout.N(), R: b, C: k, RowPtr: make([]int64, n+1)}
	var oc []int64
	for i := 0; i < n; i++ {
		oc, own.Val = x.appendRow(i, oc, own.Val)
		own.RowPtr[i+1] = int64(len(oc))
	}
	out := &bsr.Matrix{BlockRows: n, BlockCols: x.ColLayout.N(), R: b, C: k, RowPtr: make([]int64, n+1)}
	slot := map[int64]int{} // column → position in the row being built
	var rowCols []int64
	var acc []float64 // W_i = Σ_j A_ij X_j, by slot
	dw := make([]float64, bk)
	addRow := func(blk []float64, xr *bsr.Matrix, xcols func(q int64) int64, row int) {
		for q := xr.RowPtr[row]; q < xr.RowPtr[row+1]; q++ {
			j := xcols(q)
			s, ok := slot[j]
			if !ok {
				s = len(rowCols)
				slot[j] = s
				rowCols = append(rowCols, j)
				acc = append(acc, make([]float64, bk)...)
			}
			// acc_s += A_ij · X_jq (b×b times b×k).
			bsr.GemmAcc(b, b, k, blk, xr.Val[q*int64(bk):(q+1)*int64(bk)], acc[s*bk:(s+1)*bk])
		}
	}
	ownCol := func(q int64) int64 { return oc[q] }
	ghostCol := func(q int64) int64 { return int64(ghost.ColIdx[q]) }
	for i := 0; i < n; i++ {
		clear(slot)
		rowCols, acc = rowCols[:0], acc[:0]
		// X_i's own columns first, so that P's pattern holds X's.
		for q := own.RowPtr[i]; q < own.RowPtr[i+1]; q++ {
			slot[oc[q]] = len(rowCols)
			rowCols = append(rowCols, oc[q])
			acc = append(acc, make([]float64, bk)...)
		}
		for q := a.Local.RowPtr[i]; q < a.Local.RowPtr[i+1]; q++ {
			addRow(a.Local.Val[q*int64(b*b):(q+1)*int64(b*b)], own, ownCol, int(a.Local.ColIdx[q]))
		}
		for q := a.Ghost.RowPtr[i]; q < a.Ghost.RowPtr[i+1]; q++ {
			addRow(a.Ghost.Val[q*int64(b*b):(q+1)*int64(b*b)], ghost, ghostCol, int(a.Ghost.ColIdx[q]))
		}
		order := make([]int, len(rowCols))
		for t := range order {
			order[t] = t
		}
		slices.SortFunc(order, func(p, q int) int { return int(rowCols[p] - rowCols[q]) })
		d := dinv[i*b*b : (i+1)*b*b]
		for _, s := range order {
			clear(dw)
			bsr.GemmAcc(b, b, k, d, acc[s*bk:(s+1)*bk], dw)
			blk := make([]float64, bk)
			if q, ok := findCol(own, i, oc, rowCols[s]); ok {
				copy(blk, own.Val[q*int64(bk):(q+1)*int64(bk)])
			}
			for t := range blk {
				blk[t] -= omega * dw[t]
			}
			out.ColIdx = append(out.ColIdx, int32(rowCols[s]))
			out.Val = append(out.Val, blk...)
		}
		out.RowPtr[i+1] = int64(len(out.ColIdx))
	}
	return out, nil
}

// findCol finds column j in row i of m whose global columns are cols.
func findCol(m *bsr.Matrix, i int, cols []int64, j int64) (int64, bool) {
	lo, hi := m.RowPtr[i], m.RowPtr[i+1]
	q, ok := slices.BinarySearch(cols[lo:hi], j)
	return lo + int64(q), ok
}
