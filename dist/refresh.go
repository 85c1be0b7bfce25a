package dist

import (
	"fmt"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/bsr"
)

// SetValues gives m the values of rows on the pattern it was built with: rows is this
// rank's block rows with global columns, as NewMatrix and NewRectMatrix took them. The
// local and ghost parts are overwritten in place and the halo plan is kept, so nothing
// travels and no other rank takes part. A pattern that differs from the one m was
// built with (another block shape, row count, or any column) is an error wrapping
// amg.ErrPattern, found before any value is written, so m is then unchanged.
func (m *Matrix) SetValues(rows *bsr.Matrix) error {
	n := m.Hi - m.Lo
	if rows.R != m.Local.R || rows.C != m.Local.C || rows.BlockRows != n || rows.BlockCols != m.ColLayout.N() ||
		len(rows.RowPtr) != n+1 || rows.RowPtr[n]-rows.RowPtr[0] != m.Local.RowPtr[n]+m.Ghost.RowPtr[n] {
		return fmt.Errorf("dist: %w: rank %d was built with %d×%d blocks of %d×%d (%d stored), given %d×%d blocks of %d×%d",
			amg.ErrPattern, m.Comm.Rank(), n, m.ColLayout.N(), m.Local.R, m.Local.C, m.Local.RowPtr[n]+m.Ghost.RowPtr[n],
			rows.BlockRows, rows.BlockCols, rows.R, rows.C)
	}
	if err := m.walk(rows, nil); err != nil {
		return err
	}
	return m.walk(rows, rows.Val)
}

// walk visits rows' blocks in the order NewRectMatrix split them, checking each
// column against the local or ghost part's; with val it also copies each block's
// values into its place.
func (m *Matrix) walk(rows *bsr.Matrix, val []float64) error {
	bs := int64(rows.R * rows.C)
	clo, chi := int32(m.ColLo), int32(m.ColHi)
	base := rows.RowPtr[0]
	for i := 0; i < m.Hi-m.Lo; i++ {
		kl, kg := m.Local.RowPtr[i], m.Ghost.RowPtr[i]
		for k := rows.RowPtr[i] - base; k < rows.RowPtr[i+1]-base; k++ {
			j := rows.ColIdx[k]
			var dst []float64
			if j >= clo && j < chi {
				if kl >= m.Local.RowPtr[i+1] || m.Local.ColIdx[kl] != j-clo {
					return m.patternError(i, j)
				}
				dst = m.Local.Val[kl*bs : (kl+1)*bs]
				kl++
			} else {
				if kg >= m.Ghost.RowPtr[i+1] || m.GhostCols[m.Ghost.ColIdx[kg]] != j {
					return m.patternError(i, j)
				}
				dst = m.Ghost.Val[kg*bs : (kg+1)*bs]
				kg++
			}
			if val != nil {
				copy(dst, val[(k+base)*bs:(k+base+1)*bs])
			}
		}
		if kl != m.Local.RowPtr[i+1] || kg != m.Ghost.RowPtr[i+1] {
			return fmt.Errorf("dist: %w: block row %d has other columns than at construction", amg.ErrPattern, m.Lo+i)
		}
	}
	return nil
}

func (m *Matrix) patternError(i int, j int32) error {
	return fmt.Errorf("dist: %w: block (%d, %d) was not stored at construction", amg.ErrPattern, m.Lo+i, j)
}

// rowsOf is block rows [lo, hi) of a, sharing a's columns and values (only the row
// pointers are new): SetValues reads it once, so Slice's copy would be wasted.
func rowsOf(a *bsr.Matrix, lo, hi int) *bsr.Matrix {
	if lo < 0 || hi < lo || hi > a.BlockRows {
		panic("dist: rowsOf: row range outside the matrix")
	}
	bs := int64(a.R * a.C)
	p0, p1 := a.RowPtr[lo], a.RowPtr[hi]
	rp := make([]int64, hi-lo+1)
	for i := range rp {
		rp[i] = a.RowPtr[lo+i] - p0
	}
	return &bsr.Matrix{BlockRows: hi - lo, BlockCols: a.BlockCols, R: a.R, C: a.C, RowPtr: rp,
		ColIdx: a.ColIdx[p0:p1], Val: a.Val[p0*bs : p1*bs]}
}

// Refresh takes the new values of h, the hierarchy d was made from (NewHierarchy)
// after an amg.Hierarchy.Update on every rank: each level's operator, prolongator and
// restriction get their new values on the patterns and halo plans they have
// (SetValues), and the smoother's block-diagonal inverses, its Chebyshev intervals
// and the coarse factor are h's new ones. No plan is agreed again and nothing
// travels: it is the recurring step of the interim, replicated set-up, whose
// communication is the solve's alone. Every rank must call it with its own copy of
// the same h.
//
// A hierarchy of other levels or patterns than d's is an error wrapping
// amg.ErrPattern; one whose last Update failed, one wrapping amg.ErrBroken. After an
// error d must not be used until a Refresh succeeds.
func (d *Hierarchy) Refresh(h *amg.Hierarchy) error {
	if err := d.refresh(h); err != nil {
		// Some levels may hold new values and others old ones: no cycle may run.
		d.err = err
		return err
	}
	d.err = nil
	return nil
}

func (d *Hierarchy) refresh(h *amg.Hierarchy) error {
	if h.Broken() {
		return fmt.Errorf("dist: %w: the hierarchy's last Update failed", amg.ErrBroken)
	}
	if len(h.Levels) != len(d.Levels) {
		return fmt.Errorf("dist: %w: %d levels, the distributed hierarchy has %d", amg.ErrPattern, len(h.Levels), len(d.Levels))
	}
	for l, L := range h.Levels {
		lv := d.Levels[l]
		lo, hi := lv.A.Lo, lv.A.Hi
		if L.A.BlockRows != lv.A.Layout.N() {
			return fmt.Errorf("dist: %w: level %d has %d block rows, the distributed level %d", amg.ErrPattern, l, L.A.BlockRows, lv.A.Layout.N())
		}
		rows := rowsOf
		if l == 0 && d.part != nil {
			rows = d.part.SliceSym
		}
		if err := lv.A.SetValues(rows(L.A, lo, hi)); err != nil {
			return fmt.Errorf("dist: level %d operator: %w", l, err)
		}
		if l == len(h.Levels)-1 {
			break
		}
		if L.P == nil || lv.P == nil || L.P.BlockRows != lv.P.Layout.N() || L.P.BlockCols != lv.P.ColLayout.N() {
			return fmt.Errorf("dist: %w: level %d's prolongator is not of the distributed level's shape", amg.ErrPattern, l)
		}
		prows, ptrows := rowsOf, rowsOf
		if l == 0 && d.part != nil {
			prows, ptrows = d.part.SliceRows, d.part.SliceCols
		}
		if err := lv.P.SetValues(prows(L.P, lo, hi)); err != nil {
			return fmt.Errorf("dist: level %d prolongator: %w", l, err)
		}
		// The restriction's rows are P's columns: the global transpose, as NewHierarchy
		// made it (every rank holds P whole in the interim set-up).
		if err := lv.PT.SetValues(ptrows(L.P.Transpose(), lv.PT.Lo, lv.PT.Hi)); err != nil {
			return fmt.Errorf("dist: level %d restriction: %w", l, err)
		}
		bs := L.A.R * L.A.R
		if len(L.Dinv) != L.A.BlockRows*bs {
			return fmt.Errorf("dist: %w: level %d has %d block-diagonal inverse values for %d blocks", amg.ErrInput, l, len(L.Dinv), L.A.BlockRows)
		}
		if !(L.ChebMax > L.ChebMin && L.ChebMin > 0) {
			return fmt.Errorf("dist: %w: level %d smoother interval [%g, %g] is not a positive interval", amg.ErrInput, l, L.ChebMin, L.ChebMax)
		}
		lv.Dinv = d.sliceDinv(l, L.Dinv, bs, lo, hi)
		lv.ChebMin, lv.ChebMax = L.ChebMin, L.ChebMax
	}
	if c := h.Coarse(); c.Size() != len(d.cb) {
		return fmt.Errorf("dist: %w: the coarse factor has %d unknowns, the coarsest level %d", amg.ErrInput, c.Size(), len(d.cb))
	}
	d.coarse = h.Coarse()
	return nil
}
