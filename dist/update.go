package dist

import (
	"fmt"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/dist/mpi"
)

// Update is the recurring step of a hierarchy that Setup made: rows is this rank's
// block rows of the new fine operator with global columns, on the pattern Setup was
// given (as Matrix.SetValues takes them). Every level is set up again on its kept
// patterns and plans, on each rank's own rows: the fine values written in place, then
// per level the block-diagonal inverses, the λ(D⁻¹A) estimate and Chebyshev
// interval, P's values (P_tent and its fetched ghost rows are kept: they depend on the
// near-null space alone), the restriction's and the next operator's, and last the
// coarsest operator gathered and factored. Only values travel: the ghost rows of P
// once per level, one message of partial rows per pair of ranks that share coarse
// rows for Pᵀ and for PᵀAP, one Allgather of the coarsest values, and the λ
// estimates' products and dots (UpdateTraffic gives all but the last). Aggregates
// are kept, as amg.Hierarchy.Update keeps them, so an updated hierarchy is bitwise
// the one Setup would make from the new values wherever those give Setup the same
// aggregates.
//
// A hierarchy that NewHierarchy made, or whose levels Gather moved, is refused with an
// error wrapping ErrNoPlan; a
// pattern other than Setup's with one wrapping amg.ErrPattern, before any value is
// written. A data error (a singular block, an operator not positive definite) is
// returned as Setup returns it; after any error d must not be used until an Update
// succeeds. Every rank must call it together.
func (d *Hierarchy) Update(rows *bsr.Matrix) error {
	if d.gather == nil {
		return fmt.Errorf("dist: Update: %w: a hierarchy NewHierarchy made is refreshed by Refresh, and one whose levels Gather moved is set up again", ErrNoPlan)
	}
	if err := d.Levels[0].A.SetValues(rows); err != nil {
		return fmt.Errorf("dist: Update: fine operator: %w", err)
	}
	if err := d.update(); err != nil {
		// Some levels may hold new values and others old ones: no cycle may run.
		d.err = err
		return err
	}
	d.err = nil
	return nil
}

func (d *Hierarchy) update() error {
	for l, lv := range d.Levels[:len(d.Levels)-1] {
		pl := lv.plan
		if err := d.smoothLevel(l); err != nil {
			return err
		}
		// The plans' rows have their matrices' patterns by construction, so each is
		// checked while it is copied (walk) rather than in a pass of its own.
		if err := lv.P.walk(pl.smooth.out, pl.smooth.out.Val); err != nil {
			return fmt.Errorf("dist: level %d prolongator: %w", l, err)
		}
		if err := pl.trans.numeric(); err != nil {
			return fmt.Errorf("dist: level %d restriction: %w", l, err)
		}
		if err := lv.PT.walk(pl.trans.asm.out, pl.trans.asm.out.Val); err != nil {
			return fmt.Errorf("dist: level %d restriction: %w", l, err)
		}
		if err := pl.gal.numeric(); err != nil {
			return fmt.Errorf("dist: level %d Galerkin product: %w", l, err)
		}
		if err := d.Levels[l+1].A.walk(pl.gal.asm.out, pl.gal.asm.out.Val); err != nil {
			return fmt.Errorf("dist: level %d coarse operator: %w", l, err)
		}
	}
	return d.factorCoarsest()
}

// UpdateTraffic returns what one Update sends and receives on this rank apart from
// its λ estimates (whose products and dots depend on how many CG–Lanczos steps each
// takes), from the kept plans: per level the ghost rows of P, the partial rows of
// the restriction and of PᵀAP, and the coarsest values' Allgather. Time is zero. A
// hierarchy that NewHierarchy made gives zero.
func (d *Hierarchy) UpdateTraffic() mpi.Traffic {
	var t mpi.Traffic
	if d.gather == nil {
		return t
	}
	for _, lv := range d.Levels[:len(d.Levels)-1] {
		pl := lv.plan
		t = t.Add(pl.gal.p.g.traffic()).Add(pl.gal.asm.traffic()).Add(pl.trans.asm.traffic())
	}
	t.Collectives++
	t.CollectiveBytes += int64(len(d.gather.send)) * 8
	return t
}
