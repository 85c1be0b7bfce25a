package dist

import (
	"fmt"
	"slices"
	"sort"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/dist/mpi"
)

// Matrix is one rank's share of a row-distributed BSR matrix: its block rows, split
// into the columns it owns and the ghost columns other ranks own. y is distributed by
// the row layout and x by the column layout; a rank owns the columns whose x blocks it
// holds. For a square operator (NewMatrix) both layouts are the same; a prolongator
// has its rows on the fine layout and its columns on the coarse one (NewRectMatrix).
// Its fields are read-only after construction; values may be changed in place
// (Local.Val, Ghost.Val) on the same pattern.
type Matrix struct {
	Comm   *mpi.Comm
	Layout Layout // of the block rows (and of y)
	Lo, Hi int    // this rank's block rows [Lo, Hi)

	ColLayout    Layout // of the block columns (and of x): Layout for a square operator
	ColLo, ColHi int    // this rank's block columns [ColLo, ColHi)

	Local     *bsr.Matrix // (Hi-Lo)×(ColHi-ColLo) blocks: columns in [ColLo, ColHi), numbered from ColLo
	Ghost     *bsr.Matrix // (Hi-Lo)×len(GhostCols) blocks: the other columns, by ghost index
	GhostCols []int32     // global block column of each ghost index, ascending
	Halo      *Halo       // the exchange that fills the ghost vector

	ghostX []float64 // the ghost blocks of x, filled by each MulVec
}

// NewMatrix distributes this rank's block rows: rows holds block rows [Lo, Hi) of the
// global matrix, numbered from 0, with global block column indices (rows.BlockCols
// is the global count). It splits them into the local and ghost parts and agrees the
// halo plan with the other ranks, so every rank of comm must call it together. rows
// is not kept. Dimensions that do not match the layout are an error wrapping
// ErrLayout.
func NewMatrix(comm *mpi.Comm, layout Layout, rows *bsr.Matrix) (*Matrix, error) {
	if rows.R != rows.C {
		return nil, fmt.Errorf("%w: a square operator of %d×%d blocks (NewRectMatrix takes others)", ErrLayout, rows.R, rows.C)
	}
	return NewRectMatrix(comm, layout, layout, rows)
}

// NewRectMatrix is NewMatrix for a matrix whose columns are distributed by their own
// layout: rows holds this rank's block rows of rowLayout with global block columns of
// colLayout (rows.BlockCols == colLayout.N()), blocks of any R×C. The columns a rank
// owns are those of its range in colLayout; the halo brings the others' x blocks.
func NewRectMatrix(comm *mpi.Comm, rowLayout, colLayout Layout, rows *bsr.Matrix) (*Matrix, error) {
	me := comm.Rank()
	if rowLayout.Size() != comm.Size() || colLayout.Size() != comm.Size() {
		return nil, fmt.Errorf("%w: layouts for %d and %d ranks in a world of %d", ErrLayout, rowLayout.Size(), colLayout.Size(), comm.Size())
	}
	lo, hi := rowLayout.Range(me)
	clo, chi := colLayout.Range(me)
	if rows.BlockRows != hi-lo || rows.BlockCols != colLayout.N() {
		return nil, fmt.Errorf("%w: rank %d owns block rows [%d,%d) of %d and columns of %d, given %d×%d blocks of %d×%d",
			ErrLayout, me, lo, hi, rowLayout.N(), colLayout.N(), rows.BlockRows, rows.BlockCols, rows.R, rows.C)
	}
	if err := rows.Validate(); err != nil {
		return nil, err
	}
	n, nc := hi-lo, chi-clo
	bs := int64(rows.R * rows.C)
	// Ghost columns: every column outside [clo, chi), once, ascending.
	var ghosts []int32
	for _, j := range rows.ColIdx {
		if int(j) < clo || int(j) >= chi {
			ghosts = append(ghosts, j)
		}
	}
	slices.Sort(ghosts)
	ghosts = slices.Compact(ghosts)

	lp, gp := make([]int64, n+1), make([]int64, n+1)
	for i := 0; i < n; i++ {
		lp[i+1], gp[i+1] = lp[i], gp[i]
		for _, j := range rows.ColIdx[rows.RowPtr[i]:rows.RowPtr[i+1]] {
			if int(j) >= clo && int(j) < chi {
				lp[i+1]++
			} else {
				gp[i+1]++
			}
		}
	}
	local := &bsr.Matrix{BlockRows: n, BlockCols: nc, R: rows.R, C: rows.C, RowPtr: lp,
		ColIdx: make([]int32, lp[n]), Val: make([]float64, lp[n]*bs)}
	ghost := &bsr.Matrix{BlockRows: n, BlockCols: len(ghosts), R: rows.R, C: rows.C, RowPtr: gp,
		ColIdx: make([]int32, gp[n]), Val: make([]float64, gp[n]*bs)}
	// Columns are ascending in each row, and both renumberings keep their order, so
	// both parts stay valid BSR.
	for i := 0; i < n; i++ {
		kl, kg := lp[i], gp[i]
		for k := rows.RowPtr[i]; k < rows.RowPtr[i+1]; k++ {
			j := rows.ColIdx[k]
			src := rows.Val[k*bs : (k+1)*bs]
			if int(j) >= clo && int(j) < chi {
				local.ColIdx[kl] = j - int32(clo)
				copy(local.Val[kl*bs:(kl+1)*bs], src)
				kl++
			} else {
				ghost.ColIdx[kg] = int32(sort.Search(len(ghosts), func(t int) bool { return ghosts[t] >= j }))
				copy(ghost.Val[kg*bs:(kg+1)*bs], src)
				kg++
			}
		}
	}
	halo, err := buildHalo(comm, colLayout, ghosts, rows.C)
	if err != nil {
		return nil, err
	}
	return &Matrix{Comm: comm, Layout: rowLayout, Lo: lo, Hi: hi, ColLayout: colLayout, ColLo: clo, ColHi: chi,
		Local: local, Ghost: ghost,
		GhostCols: ghosts, Halo: halo, ghostX: make([]float64, len(ghosts)*rows.C)}, nil
}

// Slice returns block rows [lo, hi) of a global matrix, numbered from 0 and keeping
// global column indices: the rows argument of NewMatrix for a rank that holds the
// whole matrix (a test, or a matrix read on every rank). The pattern and values are
// copied.
func Slice(a *bsr.Matrix, lo, hi int) *bsr.Matrix {
	if lo < 0 || hi < lo || hi > a.BlockRows {
		panic("dist: Slice: row range outside the matrix")
	}
	bs := int64(a.R * a.C)
	p0, p1 := a.RowPtr[lo], a.RowPtr[hi]
	rp := make([]int64, hi-lo+1)
	for i := range rp {
		rp[i] = a.RowPtr[lo+i] - p0
	}
	return &bsr.Matrix{BlockRows: hi - lo, BlockCols: a.BlockCols, R: a.R, C: a.C, RowPtr: rp,
		ColIdx: slices.Clone(a.ColIdx[p0:p1]), Val: slices.Clone(a.Val[p0*bs : p1*bs])}
}

// LocalLen returns the length of this rank's part of y (of the row layout): of any
// distributed vector, for a square operator.
func (m *Matrix) LocalLen() int { return (m.Hi - m.Lo) * m.Local.R }

// ColLen returns the length of this rank's part of x (of the column layout).
func (m *Matrix) ColLen() int { return (m.ColHi - m.ColLo) * m.Local.C }

// MulVec computes this rank's part of y = A·x, x and y being this rank's parts of
// distributed vectors (ColLen and LocalLen values). Every rank must call it together. It
// starts the halo exchange, multiplies the local part while the messages travel,
// waits, and adds the ghost part. Each y block is the local part's sum followed by the
// ghost part's, in column order within each, so the result is bitwise the same on every
// run with the same layout, whatever the order messages arrive in. Calls on one Matrix
// must not overlap.
func (m *Matrix) MulVec(x, y []float64) error {
	if len(x) != m.ColLen() || len(y) != m.LocalLen() {
		panic("dist: MulVec: vector lengths are not ColLen and LocalLen")
	}
	e, err := m.Halo.start(m.Comm, x, m.ghostX)
	if err != nil {
		return err
	}
	m.Local.MulVec(1, x, 0, y)
	if err := e.finish(m.Comm); err != nil {
		return err
	}
	if m.Ghost.BlockCols > 0 {
		m.Ghost.MulVec(1, m.ghostX, 1, y)
	}
	return nil
}
