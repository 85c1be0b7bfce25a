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
	d := &Hierarchy{Comm: comm, Degree: opt.SmootherIts, coarse: &amg.CoarseFactor{}, opt: &opt}
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
		pl := &levelPlan{}
		if pl.smooth, err = newSmoothPlan(cur, co.Ptent); err != nil {
			return nil, fmt.Errorf("dist: level %d: %w", l, err)
		}
		lv.plan = pl
		if err := d.smoothLevel(l); err != nil {
			return nil, err
		}
		if lv.P, err = NewRectMatrix(comm, cur.Layout, co.Layout, pl.smooth.out); err != nil {
			return nil, fmt.Errorf("dist: level %d prolongator: %w", l, err)
		}
		if pl.trans, err = newTransposePlan(lv.P); err == nil {
			err = pl.trans.numeric()
		}
		if err != nil {
			return nil, fmt.Errorf("dist: level %d restriction: %w", l, err)
		}
		if lv.PT, err = NewRectMatrix(comm, co.Layout, cur.Layout, pl.trans.asm.out); err != nil {
			return nil, fmt.Errorf("dist: level %d restriction: %w", l, err)
		}
		if pl.gal, err = newGalerkinPlan(cur, lv.P); err == nil {
			err = pl.gal.numeric()
		}
		if err != nil {
			return nil, fmt.Errorf("dist: level %d Galerkin product: %w", l, err)
		}
		next, err := NewMatrix(comm, co.Layout, pl.gal.asm.out)
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
	var err error
	if d.gather, err = newMatrixGather(last); err != nil {
		return nil, err
	}
	if err := d.factorCoarsest(); err != nil {
		return nil, err
	}
	d.coarseGather(last.Layout, last.Local.R)
	return d, nil
}

// levelPlan is what Setup keeps of a level for Update: the patterns and messages of
// its products.
type levelPlan struct {
	smooth *smoothPlan    // P = (I − ω·D⁻¹A)·P_tent, P_tent's ghost rows fetched once
	trans  *transposePlan // the restriction Pᵀ
	gal    *galerkinPlan  // the next level's operator PᵀAP
}

// smoothLevel computes level l's smoother set-up from its operator's present values
// (D⁻¹, λ(D⁻¹A), the Chebyshev interval) and the values of its prolongator's rows
// (lv.plan.smooth.out).
func (d *Hierarchy) smoothLevel(l int) error {
	lv, opt := d.Levels[l], d.opt
	var err error
	if lv.Dinv, err = InvertDiag(lv.A); err != nil {
		return fmt.Errorf("dist: level %d: %w", l, err)
	}
	eig, err := EstimateEigenvalues(lv.A, lv.Dinv, opt.EstEigKSPMaxIt)
	if err != nil {
		return fmt.Errorf("dist: level %d: %w", l, err)
	}
	if lv.ChebMin, lv.ChebMax, err = amg.ChebyshevInterval(eig, opt.ChebyshevEstEig); err != nil {
		return fmt.Errorf("dist: level %d: %w", l, err)
	}
	lv.plan.smooth.numeric(lv.Dinv, opt.ProlongDamping/eig.Max)
	return nil
}

// factorCoarsest gathers the coarsest operator's present values on every rank and
// factors it.
func (d *Hierarchy) factorCoarsest() error {
	whole, err := d.gather.numeric()
	if err != nil {
		return err
	}
	if err := d.coarse.Factor(whole); err != nil {
		return fmt.Errorf("dist: coarsest level (%d unknowns): %w", whole.Rows(), err)
	}
	return nil
}

// matrixGather gathers a square distributed matrix whole on every rank, its pattern
// once (newMatrixGather) and its values by one Allgather each time (numeric).
type matrixGather struct {
	m      *Matrix
	refs   []int64     // this rank's blocks in row order (appendRefs)
	nnz    []int64     // every rank's stored blocks
	maxNNZ int64       // the largest of them: each rank's share is padded to it
	send   []float64   // this rank's values, padded
	recv   []float64   // every rank's, padded
	whole  *bsr.Matrix // the whole matrix: pattern, and values after numeric
}

// newMatrixGather gathers m's pattern on every rank: its rows' lengths and columns by
// Allgathers, each rank's share padded to the largest. Every rank must call it
// together.
func newMatrixGather(m *Matrix) (*matrixGather, error) {
	c := m.Comm
	size := c.Size()
	n := m.Hi - m.Lo
	g := &matrixGather{m: m, nnz: make([]int64, size)}
	var cols []int64
	lens := make([]int64, 0, n)
	for i := 0; i < n; i++ {
		before := len(cols)
		cols, g.refs = m.appendRefs(i, cols, g.refs)
		lens = append(lens, int64(len(cols)-before))
	}
	shares := make([]int64, 2*size)
	if err := c.AllgatherInt64([]int64{int64(n), int64(len(cols))}, shares); err != nil {
		return nil, err
	}
	var maxRows int64
	for r := 0; r < size; r++ {
		maxRows, g.maxNNZ = max(maxRows, shares[2*r]), max(g.maxNNZ, shares[2*r+1])
		g.nnz[r] = shares[2*r+1]
	}
	bs := int64(m.Local.R * m.Local.C)
	pad := func(v []int64, to int64) []int64 { return append(v, make([]int64, to-int64(len(v)))...) }
	allLens, allCols := make([]int64, maxRows*int64(size)), make([]int64, g.maxNNZ*int64(size))
	if err := c.AllgatherInt64(pad(lens, maxRows), allLens); err != nil {
		return nil, err
	}
	if err := c.AllgatherInt64(pad(cols, g.maxNNZ), allCols); err != nil {
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
				out.ColIdx = append(out.ColIdx, int32(allCols[int64(r)*g.maxNNZ+q]))
			}
			off += ln
			out.RowPtr[row+1] = out.RowPtr[row] + ln
			row++
		}
	}
	out.Val = make([]float64, int64(len(out.ColIdx))*bs)
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("dist: the gathered coarsest operator: %w", err)
	}
	g.whole = out
	g.send, g.recv = make([]float64, g.maxNNZ*bs), make([]float64, g.maxNNZ*bs*int64(size))
	return g, nil
}

// numeric gathers m's present values into the whole matrix, which it returns. Every
// rank must call it together.
func (g *matrixGather) numeric() (*bsr.Matrix, error) {
	m := g.m
	bs := int64(m.Local.R * m.Local.C)
	clear(g.send)
	m.gatherRefs(g.refs, g.send)
	if err := m.Comm.AllgatherFloat64(g.send, g.recv); err != nil {
		return nil, err
	}
	var off int64
	for r, n := range g.nnz {
		copy(g.whole.Val[off*bs:(off+n)*bs], g.recv[int64(r)*g.maxNNZ*bs:(int64(r)*g.maxNNZ+n)*bs])
		off += n
	}
	return g.whole, nil
}
