package dist_test

import (
	"errors"
	"testing"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/dist"
	"github.com/blockamg/blockamg/dist/internal/mpitest"
	"github.com/blockamg/blockamg/dist/mpi"
)

// TestSetup checks the set-up made from each rank's rows (dist.Setup). On one rank its
// V-cycle is the serial set-up's to round-off. On two and three ranks, where the
// aggregates stop at the rank boundaries, PCG on ex56 converges to the serial
// solution (the same system: within κ·rtol) in at most two iterations more than the
// serial solve, and a second set-up and solve give the same bits.
func TestSetup(t *testing.T) {
	mpitest.Run(t, []int{1, 2, 3}, func(t *testing.T, c *mpi.Comm) {
		for _, ne := range []int{9, 15} {
			s, rhs := reference(t, ne)
			h := s.Hierarchy()
			L := h.Levels[0]
			A, B, k, b := L.A, L.B, L.K, L.A.R
			lay := dist.EvenLayout(A.BlockRows, c.Size())
			lo, hi := lay.Range(c.Rank())
			da, err := dist.NewMatrix(c, lay, dist.Slice(A, lo, hi))
			if err != nil {
				t.Fatal(err)
			}
			var first []float64
			for run := 0; run < 2; run++ {
				d, err := dist.Setup(da, B[lo*b*k:hi*b*k], k, h.Opt)
				if err != nil {
					t.Fatal(err)
				}
				if c.Size() == 1 && run == 0 {
					if len(d.Levels) != len(h.Levels) {
						t.Fatalf("ne=%d, one rank: %d levels, serial %d", ne, len(d.Levels), len(h.Levels))
					}
					r, zs := serialCycle(t, s)
					n := len(r)
					z := make([]float64, n)
					if err := d.VCycle(r, z); err != nil {
						t.Fatal(err)
					}
					if rel := relDiff(t, c, zs, z, 0); rel > 1e-10 {
						t.Errorf("ne=%d, one rank: the V-cycle differs from the serial one by %.3g relative", ne, rel)
					}
				}
				xs := make([]float64, len(rhs))
				res, err := s.Solve(rhs, xs)
				if err != nil {
					t.Fatal(err)
				}
				x := make([]float64, d.Len())
				dr, err := dist.CG(d.Operator(), d, rhs[lo*b:hi*b], x, s.SolveOptions().RelTol, 1000)
				if err != nil {
					t.Fatal(err)
				}
				if run == 1 {
					if !bitsEqual(x, first) {
						t.Errorf("ne=%d: a second set-up and solve differ", ne)
					}
					continue
				}
				first = x
				if dr.Iterations > res.Iterations+2 || dr.Iterations < res.Iterations-2 {
					t.Errorf("ne=%d on %d ranks: %d iterations, serial %d", ne, c.Size(), dr.Iterations, res.Iterations)
				}
				if rel := relDiff(t, c, xs, x, lo*b); rel > 1e-6 {
					t.Errorf("ne=%d on %d ranks: solution differs from the serial one by %.3g", ne, c.Size(), rel)
				}
				if c.Rank() == 0 {
					t.Logf("ne=%d on %d ranks: distributed set-up, %d levels (serial %d), %d iterations (serial %d)",
						ne, c.Size(), len(d.Levels), len(h.Levels), dr.Iterations, res.Iterations)
				}
			}
		}
		// Options it does not run.
		s, _ := reference(t, 4)
		h := s.Hierarchy()
		lay := dist.EvenLayout(h.Levels[0].A.BlockRows, c.Size())
		lo, hi := lay.Range(c.Rank())
		da, err := dist.NewMatrix(c, lay, dist.Slice(h.Levels[0].A, lo, hi))
		if err != nil {
			t.Fatal(err)
		}
		opt := h.Opt
		opt.AggNSmooths = 2
		if _, err := dist.Setup(da, h.Levels[0].B[lo*18:hi*18], 6, opt); !errors.Is(err, amg.ErrOptions) {
			t.Errorf("AggNSmooths 2: %v, want amg.ErrOptions", err)
		}
	})
}
