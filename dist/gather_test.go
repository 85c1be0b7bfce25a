package dist_test

import (
	"errors"
	"math"
	"testing"

	"github.com/blockamg/blockamg/dist"
	"github.com/blockamg/blockamg/dist/internal/mpitest"
	"github.com/blockamg/blockamg/dist/mpi"
)

// TestGather checks coarse levels gathered onto fewer ranks against the same
// hierarchy split over all ranks, on ex56 ne = 15: the replicated hierarchy
// (NewHierarchy with GatheredLayout's coarse layouts) and the distributed set-up
// (Setup, then Gather), with a threshold that puts level 1 on two ranks and the
// coarser ones on one. PCG must take the same iterations and reach the same solution
// to round-off; the coarse levels' messages (the plans', summed over the ranks) must
// be fewer; and the messages a phase of V-cycles really posts must be the plans'.
func TestGather(t *testing.T) {
	mpitest.Run(t, []int{3}, func(t *testing.T, c *mpi.Comm) {
		s, rhs := reference(t, 15)
		h := s.Hierarchy()
		if len(h.Levels) < 3 {
			t.Fatalf("%d levels: the test needs a level 2 to put on one rank", len(h.Levels))
		}
		A, B, k, b := h.Levels[0].A, h.Levels[0].B, h.Levels[0].K, h.Levels[0].A.R
		fine := dist.EvenLayout(A.BlockRows, c.Size())
		lo, hi := fine.Range(c.Rank())
		rtol := s.SolveOptions().RelTol

		replicated := func(minRows int) *dist.Hierarchy {
			lays := []dist.Layout{fine}
			for _, L := range h.Levels[1:] {
				lays = append(lays, dist.GatheredLayout(L.A.BlockRows, c.Size(), minRows))
			}
			d, err := dist.NewHierarchy(c, h, lays...)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		distributed := func(minRows int) *dist.Hierarchy {
			da, err := dist.NewMatrix(c, fine, dist.Slice(A, lo, hi))
			if err != nil {
				t.Fatal(err)
			}
			d, err := dist.Setup(da, B[lo*b*k:hi*b*k], k, h.Opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Gather(minRows); err != nil {
				t.Fatal(err)
			}
			return d
		}
		for _, mk := range []struct {
			name string
			make func(int) *dist.Hierarchy
		}{{"replicated", replicated}, {"distributed", distributed}} {
			all := mk.make(0)
			n1 := all.Levels[1].A.Layout.N()
			minRows := n1 / 2
			if all.Levels[2].A.Layout.N() >= minRows {
				t.Fatalf("%s: level 1 has %d block rows, level 2 %d: not below %d", mk.name, n1, all.Levels[2].A.Layout.N(), minRows)
			}
			gath := mk.make(minRows)
			for l, L := range gath.Levels {
				active := 0
				for r := 0; r < c.Size(); r++ {
					if lo, hi := L.A.Layout.Range(r); hi > lo {
						active++
					}
				}
				want := map[int]int{0: c.Size(), 1: 2}[l]
				if l > 1 {
					want = 1
				}
				if active != want {
					t.Errorf("%s: level %d (%d block rows) on %d ranks, want %d", mk.name, l, L.A.Layout.N(), active, want)
				}
			}
			var xs [2][]float64
			var its [2]int
			for i, d := range []*dist.Hierarchy{all, gath} {
				xs[i] = make([]float64, d.Len())
				res, err := dist.CG(d.Operator(), d, rhs[lo*b:hi*b], xs[i], rtol, 1000)
				if err != nil {
					t.Fatal(err)
				}
				its[i] = res.Iterations
			}
			diff, xmax := 0.0, 0.0
			for i := range xs[0] {
				diff = math.Max(diff, math.Abs(xs[0][i]-xs[1][i]))
				xmax = math.Max(xmax, math.Abs(xs[0][i]))
			}
			rel := worldMax(t, c, diff) / worldMax(t, c, xmax)
			if its[0] != its[1] || !(rel <= 1e-12) {
				t.Errorf("%s: gathered %d iterations, over all ranks %d; solutions differ by %.3g relative", mk.name, its[1], its[0], rel)
			}
			if mk.name == "distributed" {
				// Setup's plans are for the layouts Gather left: a gathered hierarchy's
				// Update is refused, one Gather did not move is not.
				if err := gath.Update(dist.Slice(A, lo, hi)); !errors.Is(err, dist.ErrNoPlan) {
					t.Errorf("Update of a gathered hierarchy: %v, want dist.ErrNoPlan", err)
				}
				if err := all.Update(dist.Slice(A, lo, hi)); err != nil {
					t.Errorf("Update of a hierarchy Gather(0) left: %v", err)
				}
			}
			coarse := func(d *dist.Hierarchy) (msgs, colls float64) {
				for _, lt := range d.LevelTraffic()[1:] {
					msgs += float64(lt.Sends)
					colls += float64(lt.Collectives)
				}
				v := []float64{msgs, colls}
				if err := c.AllreduceFloat64(mpi.Sum, v); err != nil {
					t.Fatal(err)
				}
				return v[0], v[1]
			}
			ma, _ := coarse(all)
			mg, cg := coarse(gath)
			if !(mg < ma) || cg != 0 {
				t.Errorf("%s: coarse levels' messages per cycle %g gathered, %g over all ranks; gathered collectives %g, want 0", mk.name, mg, ma, cg)
			}
			// The plans' counts are what the cycles post.
			phase := "gather-" + mk.name
			prev := c.SetPhase(phase)
			z := make([]float64, gath.Len())
			const cycles = 3
			for i := 0; i < cycles; i++ {
				if err := gath.VCycle(rhs[lo*b:hi*b], z); err != nil {
					t.Fatal(err)
				}
			}
			c.SetPhase(prev)
			got, want := c.Traffic(phase), gath.CycleTraffic()
			if got.Sends != cycles*want.Sends || got.Recvs != cycles*want.Recvs || got.Collectives != cycles*want.Collectives {
				t.Errorf("%s: rank %d: %d cycles posted %d sends, %d receives, %d collectives; the plans say %d, %d, %d per cycle",
					mk.name, c.Rank(), cycles, got.Sends, got.Recvs, got.Collectives, want.Sends, want.Recvs, want.Collectives)
			}
			if c.Rank() == 0 {
				t.Logf("%s: levels %d, threshold %d rows per rank: %d iterations both ways, solutions within %.2g; coarse messages per cycle %g → %g",
					mk.name, len(gath.Levels), minRows, its[0], rel, ma, mg)
			}
		}
	})
}
