package dist

import (
	"fmt"
	"slices"

	"github.com/blockamg/blockamg/amg"
)

// Coarsening is one level's coarsening computed on each rank from its own rows: the
// first step of the distributed SA set-up, aggregation within each rank as PETSc GAMG
// and AMGX do.
type Coarsening struct {
	// Agg holds this rank's aggregates, over its block rows numbered from 0; no
	// aggregate crosses a rank boundary.
	Agg *amg.Aggregates
	// Edges is the number of edges (both directions) of this rank's strength graph.
	Edges int64
	// Layout is the coarse level's: rank r owns the block rows of its own aggregates,
	// numbered after those of the ranks before it.
	Layout Layout
	// Ptent is the tentative prolongator: rows on the fine layout, columns on Layout.
	// Its columns are all this rank's (it has no ghost part), so it multiplies
	// without a message.
	Ptent *Matrix
	// Bc is this rank's rows of the coarse near-null space (Agg.Count·k rows of k).
	Bc []float64
}

// Coarsen runs strength, aggregation and the tentative prolongator of amg on this
// rank's rows of a: amg.Strength on the local part (the couplings to columns this rank
// owns; the ghost part is not read), amg.Aggregate on that graph, amg.Tentative on the
// aggregates and this rank's rows of the near-null space B (a.LocalLen() rows of k,
// node-blocked row-major, as amg takes it; the caller's B, already checked and
// orthonormalised as amg.CheckInput does). Every rank must call it together: the coarse
// layout takes one Allgather of the aggregate counts. opt gives Threshold, Workers and,
// for level, whether the aggregation is distance-2 (level < AggressiveLevels).
//
// On one rank it is amg.Setup's level exactly. On more, each rank aggregates as the
// serial set-up would if the couplings between ranks were weak: the serial strength
// graph without its edges between ranks, aggregate for aggregate.
func Coarsen(a *Matrix, B []float64, k, level int, opt amg.Options) (*Coarsening, error) {
	if !slices.Equal(a.Layout.Offsets, a.ColLayout.Offsets) {
		panic("dist: Coarsen: the operator's columns are not distributed as its rows")
	}
	b := a.Local.R
	if len(B) != a.LocalLen()*k {
		return nil, fmt.Errorf("dist: %w: level %d: rank %d holds %d near-null values for %d rows of %d vectors",
			amg.ErrInput, level, a.Comm.Rank(), len(B), a.LocalLen(), k)
	}
	g, err := amg.Strength(a.Local, opt.Threshold, opt.Workers)
	if err != nil {
		return nil, fmt.Errorf("dist: level %d, rank %d (local block rows): %w", level, a.Comm.Rank(), err)
	}
	agg := amg.Aggregate(g, level < opt.AggressiveLevels, (k+b-1)/b)
	counts := make([]int64, a.Comm.Size())
	if err := a.Comm.AllgatherInt64([]int64{int64(agg.Count)}, counts); err != nil {
		return nil, err
	}
	offsets := make([]int, len(counts)+1)
	for r, c := range counts {
		offsets[r+1] = offsets[r] + int(c)
	}
	lay, err := NewLayout(offsets)
	if err != nil {
		return nil, err
	}
	pt, bc := amg.Tentative(agg, B, b, k, opt.Workers)
	// amg numbers the columns from 0 on each rank: the global columns are this
	// rank's range of the coarse layout.
	lo, _ := lay.Range(a.Comm.Rank())
	for i := range pt.ColIdx {
		pt.ColIdx[i] += int32(lo)
	}
	pt.BlockCols = lay.N()
	P, err := NewRectMatrix(a.Comm, a.Layout, lay, pt)
	if err != nil {
		return nil, fmt.Errorf("dist: level %d tentative prolongator: %w", level, err)
	}
	return &Coarsening{Agg: agg, Edges: int64(len(g.Adj)), Layout: lay, Ptent: P, Bc: bc}, nil
}
