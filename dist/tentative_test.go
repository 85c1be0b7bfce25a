package dist_test

import (
	"math"
	"slices"
	"testing"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/dist"
	"github.com/blockamg/blockamg/dist/internal/mpitest"
	"github.com/blockamg/blockamg/dist/mpi"
)

// withoutCrossEdges returns g without its edges between nodes of different ranks of
// lay.
func withoutCrossEdges(g *amg.Graph, lay dist.Layout) *amg.Graph {
	out := &amg.Graph{Nodes: g.Nodes, RowPtr: make([]int64, g.Nodes+1), DiagExp: g.DiagExp}
	for i := 0; i < g.Nodes; i++ {
		for _, j := range g.Neighbors(i) {
			if lay.Owner(i) == lay.Owner(int(j)) {
				out.Adj = append(out.Adj, j)
			}
		}
		out.RowPtr[i+1] = int64(len(out.Adj))
	}
	return out
}

// TestCoarsen checks aggregation within each rank against the serial functions run
// on the serial strength graph less its edges between ranks: the same aggregates
// (numbered rank after rank), the same tentative prolongator rows bit for bit, with
// no ghost column, and the same coarse near-null space. On one rank that is the
// serial set-up's own first level, which is checked too. Also on a coarse level
// (level 1 of the serial hierarchy, distributed evenly).
func TestCoarsen(t *testing.T) {
	mpitest.Run(t, []int{1, 2, 3}, func(t *testing.T, c *mpi.Comm) {
		s, _ := reference(t, 9)
		h := s.Hierarchy()
		opt := h.Opt
		for l := 0; l < 2; l++ {
			L := h.Levels[l]
			A, B, k := L.A, L.B, L.K
			b := A.R
			lay := dist.EvenLayout(A.BlockRows, c.Size())
			lo, hi := lay.Range(c.Rank())
			da, err := dist.NewMatrix(c, lay, dist.Slice(A, lo, hi))
			if err != nil {
				t.Fatal(err)
			}
			co, err := dist.Coarsen(da, B[lo*b*k:hi*b*k], k, l, opt)
			if err != nil {
				t.Fatal(err)
			}
			// The reference: the serial functions on the graph without cross-rank edges.
			g, err := amg.Strength(A, opt.Threshold, 1)
			if err != nil {
				t.Fatal(err)
			}
			ragg := amg.Aggregate(withoutCrossEdges(g, lay), l < opt.AggressiveLevels, (k+b-1)/b)
			rp, rbc := amg.Tentative(ragg, B, b, k, 1)
			if co.Layout.N() != ragg.Count {
				t.Fatalf("level %d: %d aggregates over the ranks, the reference %d", l, co.Layout.N(), ragg.Count)
			}
			clo, chi := co.Layout.Range(c.Rank())
			for i := lo; i < hi; i++ {
				want := ragg.Of[i]
				got := co.Agg.Of[i-lo]
				if got >= 0 {
					got += int32(clo)
				}
				if got != want {
					t.Fatalf("level %d: node %d in aggregate %d, the reference's %d", l, i, got, want)
				}
			}
			if co.Ptent.Ghost.NNZBlocks() != 0 || len(co.Ptent.GhostCols) != 0 {
				t.Errorf("level %d: the tentative prolongator has %d ghost blocks, want none", l, co.Ptent.Ghost.NNZBlocks())
			}
			ref := dist.Slice(rp, lo, hi)
			loc := co.Ptent.Local
			if !slices.Equal(loc.RowPtr, ref.RowPtr) || len(loc.ColIdx) != len(ref.ColIdx) {
				t.Fatalf("level %d: the tentative prolongator's pattern differs from the reference's", l)
			}
			for q, j := range loc.ColIdx {
				if j+int32(clo) != ref.ColIdx[q] {
					t.Fatalf("level %d: block %d in column %d, the reference's %d", l, q, j+int32(clo), ref.ColIdx[q])
				}
			}
			if !bitsEqual(loc.Val, ref.Val) || !bitsEqual(co.Bc, rbc[clo*k*k:chi*k*k]) {
				t.Errorf("level %d: tentative prolongator or coarse near-null space differ from the reference's", l)
			}
			if c.Size() == 1 {
				if !bitsEqual(loc.Val, L.Ptent.Val) || !slices.Equal(loc.ColIdx, L.Ptent.ColIdx) || !bitsEqual(co.Bc, h.Levels[l+1].B) {
					t.Errorf("level %d on one rank: not the serial set-up's tentative prolongator and coarse near-null space", l)
				}
			}
			if c.Rank() == 0 {
				t.Logf("level %d on %d ranks: %d aggregates (serial %d), rank 0 %d", l, c.Size(), co.Layout.N(), L.Agg.Count, co.Agg.Count)
			}
			checkTentativeIdentity(t, l, co.Ptent.Local, co.Bc, B[lo*b*k:hi*b*k], co.Agg, b, k)
		}
	})
}

// checkTentativeIdentity checks P_tent·B_c = B on every aggregated row, to round-off.
func checkTentativeIdentity(t *testing.T, l int, p *bsr.Matrix, bc, B []float64, agg *amg.Aggregates, b, k int) {
	t.Helper()
	worst := 0.0
	for i := 0; i < p.BlockRows; i++ {
		if agg.Of[i] < 0 {
			continue
		}
		for q := p.RowPtr[i]; q < p.RowPtr[i+1]; q++ {
			blk, j := p.Val[q*int64(b*k):(q+1)*int64(b*k)], int(p.ColIdx[q])
			for r := 0; r < b; r++ {
				for col := 0; col < k; col++ {
					v := 0.0
					for m := 0; m < k; m++ {
						v += blk[r*k+m] * bc[(j*k+m)*k+col]
					}
					worst = math.Max(worst, math.Abs(v-B[(i*b+r)*k+col]))
				}
			}
		}
	}
	if worst > 1e-12 {
		t.Errorf("level %d: P_tent·B_c differs from B by %.3g", l, worst)
	}
}

func bitsEqual(x, y []float64) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}
