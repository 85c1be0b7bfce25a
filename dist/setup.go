package dist

import (
	"fmt"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/amg/cycle"
	"github.com/blockamg/blockamg/bsr"
)

// Setup builds a smoothed-aggregation hierarchy from this rank's rows alone: per
// level Coarsen (strength, aggregation within the rank, P_tent), InvertDiag and
// EstimateEigenvalues (the smoother's D⁻¹, λ(D⁻¹A), its Chebyshev interval and the
// prolongator's ω = ProlongDamping/λmax), SmoothProlongator, Transpose and Galerkin;
// coarsening stops as amg.Setup's does (MaxLevels, CoarseEqLimit, no aggregate or no
// reduction), and the coarsest operator is gathered on every rank and factored there
// for the redundant coarse solve. B is this rank's rows of the near-null space, k
// vectors, checked and orthonormalised as amg.CheckInput leaves it. No rank ever holds
// more than its rows of a level, except the coarsest.
//
// On one rank it is amg.Setup's hierarchy, to round-off. On more, the aggregates stop
// at rank boundaries, so the hierarchy is another one (as PETSc GAMG's on more
// processes is): CG needs about the serial iterations, not the same count.
//
// Options it does not run are refused with an error wrapping amg.ErrOptions:
// AggNSmooths other than 1, FilterTheta, smoothers other than Chebyshev and
// SmootherFloat32. Every rank must call it together, with the same opt.
func Setup(a *Matrix, B []float64, k int, opt amg.Options) (*Hierarchy, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	switch {
	case opt.AggNSmooths != 1:
		return nil, fmt.Errorf("dist: %w: AggNSmooths %d: the distributed set-up smooths P once", amg.ErrOptions, opt.AggNSmooths)
	case opt.FilterTheta > 0:
		return nil, fmt.Errorf("dist: %w: FilterTheta: the distributed set-up does not filter P", amg.ErrOptions)
	case opt.Smoother != "" && opt.Smoother != cycle.DefaultSmoother:
		return nil, fmt.Errorf("dist: %w: smoother %q: the distributed cycle runs %q only", amg.ErrOptions, opt.Smoother, cycle.DefaultSmoother)
	case opt.SmootherFloat32:
		return nil, fmt.Errorf("dist: %w: SmootherFloat32: the distributed cycle smooths in float64 only", amg.ErrOptions)
	}
	comm := a.Comm
	d := &Hierarchy{Comm: comm, Degree: opt.SmootherIts, coarse: &amg.CoarseFactor{}}
	cur, curB := a, B
	for l := 0; ; l++ {
		lv := &Level{A: cur}
		n := cur.LocalLen()
		lv.b, lv.x, lv.r, lv.d, lv.t = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		d.Levels = append(d.Levels, lv)
		rows := cur.Layout.N() * cur.Local.R
		if l+1 == opt.MaxLevels || (l > 0 && rows <= opt.CoarseEqLimit) {
			break
		}
		co, err := Coarsen(cur, curB, k, l, opt)
		if err != nil {
			return nil, err
		}
		if nc := co.Layout.N(); nc == 0 || nc*k >= rows {
			// Nothing to coarsen (amg.Setup stops the same way).
			break
		}
		if lv.Dinv, err = InvertDiag(cur); err != nil {
			return nil, fmt.Errorf("dist: level %d: %w", l, err)
		}
		eig, err := EstimateEigenvalues(cur, lv.Dinv, opt.EstEigKSPMaxIt)
		if err != nil {
			return nil, fmt.Errorf("dist: level %d: %w", l, err)
		}
		if lv.ChebMin, lv.ChebMax, err = amg.ChebyshevInterval(eig, opt.ChebyshevEstEig); err != nil {
			return nil, fmt.Errorf("dist: level %d: %w", l, err)
		}
		prows, err := SmoothProlongator(cur, co.Ptent, lv.Dinv, opt.ProlongDamping/eig.Max)
		if err != nil {
			return nil, fmt.Errorf("dist: level %d: %w", l, err)
		}
		if lv.P, err = NewRectMatrix(comm, cur.Layout, co.Layout, prows); err != nil {
			return nil, fmt.Errorf("dist: level %d prolongator: %w", l, err)
		}
		trows, err := Transpose(lv.P)
		if err != nil {
			return nil, fmt.Errorf("dist: level %d restriction: %w", l, err)
		}
		if lv.PT, err = NewRectMatrix(comm, co.Layout, cur.Layout, trows); err != nil {
			return nil, fmt.Errorf("dist: level %d restriction: %w", l, err)
		}
		acRows, err := Galerkin(cur, lv.P)
		if err != nil {
			return nil, fmt.Errorf("dist: level %d Galerkin product: %w", l, err)
		}
		next, err := NewMatrix(comm, co.Layout, acRows)
		if err != nil {
			return nil, fmt.Errorf("dist: level %d coarse operator: %w", l, err)
		}
		cur, curB = next, co.Bc
	}
	last := d.Levels[len(d.Levels)-1].A
	if n := last.Layout.N() * last.Local.R; n > amg.MaxCoarseUnknowns {
		return nil, fmt.Errorf("dist: %w: the coarsest level has %d unknowns, more than the %d a dense Cholesky factor is allowed",
			amg.ErrOptions, n, amg.MaxCoarseUnknowns)
	}
	whole, err := gatherMatrix(last)
	if err != nil {
		return nil, err
	}
	if err := d.coarse.Factor(whole); err != nil {
		return nil, fmt.Errorf("dist: coarsest level (%d unknowns): %w", whole.Rows(), err)
	}
	d.coarseGather(last.Layout, last.Local.R)
	return d, nil
}

// gatherMatrix returns the whole square matrix m on every rank: its rows' lengths,
// columns and values gathered by Allgathers, each rank's share padded to the largest.
func gatherMatrix(m *Matrix) (*bsr.Matrix, error) {
	c := m.Comm
	size := c.Size()
	n := m.Hi - m.Lo
	var cols []int64
	var vals []float64
	lens := make([]int64, 0, n)
	for i := 0; i < n; i++ {
		before := len(cols)
		cols, vals = m.appendRow(i, cols, vals)
		lens = append(lens, int64(len(cols)-before))
	}
	shares := make([]int64, 2*size)
	if err := c.AllgatherInt64([]int64{int64(n), int64(len(cols))}, shares); err != nil {
		return nil, err
	}
	var maxRows, maxNNZ int64
	for r := 0; r < size; r++ {
		maxRows, maxNNZ = max(maxRows, shares[2*r]), max(maxNNZ, shares[2*r+1])
	}
	bs := int64(m.Local.R * m.Local.C)
	pad := func(v []int64, to int64) []int64 { return append(v, make([]int64, to-int64(len(v)))...) }
	allLens, allCols := make([]int64, maxRows*int64(size)), make([]int64, maxNNZ*int64(size))
	allVals := make([]float64, maxNNZ*bs*int64(size))
	if err := c.AllgatherInt64(pad(lens, maxRows), allLens); err != nil {
		return nil, err
	}
	if err := c.AllgatherInt64(pad(cols, maxNNZ), allCols); err != nil {
		return nil, err
	}
	if err := c.AllgatherFloat64(append(vals, make([]float64, maxNNZ*bs-int64(len(vals)))...), allVals); err != nil {
		return nil, err
	}
	N := m.Layout.N()
	out := &bsr.Matrix{BlockRows: N, BlockCols: N, R: m.Local.R, C: m.Local.C, RowPtr: make([]int64, N+1)}
	row := 0
	for r := 0; r < size; r++ {
		var off int64
		for t := int64(0); t < shares[2*r]; t++ {
			ln := allLens[int64(r)*maxRows+t]
			for q := off; q < off+ln; q++ {
				out.ColIdx = append(out.ColIdx, int32(allCols[int64(r)*maxNNZ+q]))
			}
			out.Val = append(out.Val, allVals[(int64(r)*maxNNZ+off)*bs:(int64(r)*maxNNZ+off+ln)*bs]...)
			off += ln
			out.RowPtr[row+1] = out.RowPtr[row] + ln
			row++
		}
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("dist: the gathered coarsest operator: %w", err)
	}
	return out, nil
}
