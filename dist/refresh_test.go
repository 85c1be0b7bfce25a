package dist_test

import (
	"errors"
	"math"
	"testing"

	"github.com/blockamg/blockamg"
	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/dist"
	"github.com/blockamg/blockamg/dist/internal/mpitest"
	"github.com/blockamg/blockamg/dist/mpi"
	"github.com/blockamg/blockamg/fem"
)

// TestHierarchyRefresh is the recurring step on the interim set-up: new ex56 values on
// the same pattern (the soft sphere's modulus changed), amg's Update on every rank,
// Refresh of the distributed hierarchy on its old plans. Its V-cycle must be bitwise
// that of a hierarchy distributed anew from the updated serial one, its PCG within
// one iteration and 1e-8 of the serial solve of the new system, and Refresh itself
// must send nothing. A hierarchy of another pattern is refused with amg.ErrPattern,
// and a refused Refresh leaves the cycle refusing too.
func TestHierarchyRefresh(t *testing.T) {
	mpitest.Run(t, []int{2, 3}, func(t *testing.T, c *mpi.Comm) {
		box, err := fem.NewBox(fem.Ex56(9))
		if err != nil {
			t.Fatal(err)
		}
		asm, err := box.Symbolic(1)
		if err != nil {
			t.Fatal(err)
		}
		if err := asm.Numeric(asm.Matrix, nil, 1); err != nil {
			t.Fatal(err)
		}
		modes, _, err := fem.RigidBodyModes(box.Coords(), 3, true)
		if err != nil {
			t.Fatal(err)
		}
		opt := blockamg.DefaultOptions()
		opt.Workers = 1
		s, err := blockamg.NewSolver(asm.Matrix, &blockamg.NullSpace{Rows: box.Unknowns(), Cols: 6, Data: modes}, opt)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		lay := dist.EvenLayout(asm.Matrix.BlockRows, c.Size())
		d, err := dist.NewHierarchy(c, s.Hierarchy(), lay)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := lay.Range(c.Rank())
		rhs := box.RHS()
		b := rhs[lo*3 : hi*3]

		// New values: the soft sphere 3.7 times stiffer, as a material update would.
		mod := box.ElementModulus()
		hard := box.Problem().E
		for e, m := range mod {
			if m != hard {
				mod[e] = m * 3.7
			}
		}
		if err := asm.Numeric(asm.Matrix, mod, 1); err != nil {
			t.Fatal(err)
		}
		if err := s.Update(asm.Matrix); err != nil {
			t.Fatal(err)
		}
		c.ResetCounters()
		prev := c.SetPhase("re-setup")
		err = d.Refresh(s.Hierarchy())
		c.SetPhase(prev)
		if err != nil {
			t.Fatal(err)
		}
		if tr := c.Traffic("re-setup"); tr != (mpi.Traffic{}) {
			t.Errorf("Refresh communicated: %+v, want nothing (every plan reused)", tr)
		}
		fresh, err := dist.NewHierarchy(c, s.Hierarchy(), lay)
		if err != nil {
			t.Fatal(err)
		}
		z1, z2 := make([]float64, d.Len()), make([]float64, d.Len())
		if err := d.VCycle(b, z1); err != nil {
			t.Fatal(err)
		}
		if err := fresh.VCycle(b, z2); err != nil {
			t.Fatal(err)
		}
		for i := range z1 {
			if math.Float64bits(z1[i]) != math.Float64bits(z2[i]) {
				t.Fatalf("refreshed V-cycle differs from a new hierarchy's at %d: %v vs %v", i, z1[i], z2[i])
			}
		}

		xs := make([]float64, len(rhs))
		res, err := s.Solve(rhs, xs)
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float64, d.Len())
		dr, err := dist.CG(d.Operator(), d, b, x, s.SolveOptions().RelTol, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if k := dr.Iterations - res.Iterations; k < -1 || k > 1 {
			t.Errorf("after Refresh: distributed PCG %d iterations, serial %d", dr.Iterations, res.Iterations)
		}
		if rel := relDiff(t, c, xs, x, lo*3); rel > 1e-8 {
			t.Errorf("after Refresh: solutions differ by %.3g relative", rel)
		}

		// Another pattern: ex56 of another size.
		other, _ := reference(t, 8)
		if err := d.Refresh(other.Hierarchy()); !errors.Is(err, amg.ErrPattern) {
			t.Fatalf("Refresh from another pattern: %v, want amg.ErrPattern", err)
		}
		if err := d.Operator().SetValues(dist.Slice(other.Hierarchy().Levels[0].A, 0, 1)); !errors.Is(err, amg.ErrPattern) {
			t.Errorf("SetValues of another shape: %v, want amg.ErrPattern", err)
		}
		d.Apply(b, z1)
		if !errors.Is(d.Err(), amg.ErrPattern) {
			t.Errorf("Apply after a refused Refresh: Err %v, want the refusal", d.Err())
		}
		if err := d.Refresh(s.Hierarchy()); err != nil || d.Err() != nil {
			t.Errorf("Refresh after a refusal: %v, Err %v; want both nil", err, d.Err())
		}
	})
}

// TestLevelShapes: the scaling model's shapes are the plans' figures: every level's
// rows add up over the ranks to the serial level's, the ghost counts are the halos'
// receives, and the stored blocks per row add up to the serial operator's.
func TestLevelShapes(t *testing.T) {
	mpitest.Run(t, []int{2}, func(t *testing.T, c *mpi.Comm) {
		s, _ := reference(t, 9)
		h := s.Hierarchy()
		d, err := dist.NewHierarchy(c, h, dist.EvenLayout(h.Levels[0].A.BlockRows, c.Size()))
		if err != nil {
			t.Fatal(err)
		}
		for l, sh := range d.LevelShapes() {
			L, lv := h.Levels[l], d.Levels[l]
			sums := []int64{int64(sh.Rows), int64(math.Round(sh.ANnzRow * float64(sh.Rows)))}
			if err := c.AllreduceInt64(mpi.Sum, sums); err != nil {
				t.Fatal(err)
			}
			if sums[0] != int64(L.A.BlockRows) || sums[1] != L.A.NNZBlocks() {
				t.Errorf("level %d: %d rows and %d blocks over the ranks, serial %d and %d", l, sums[0], sums[1], L.A.BlockRows, L.A.NNZBlocks())
			}
			if sh.AHalo != len(lv.A.GhostCols) || sh.Block != L.A.R {
				t.Errorf("level %d: A halo %d (ghosts %d), block %d (serial %d)", l, sh.AHalo, len(lv.A.GhostCols), sh.Block, L.A.R)
			}
			if lv.P != nil && (sh.PHalo != len(lv.P.GhostCols) || sh.RHalo != len(lv.PT.GhostCols) || sh.NextBlock != L.P.C) {
				t.Errorf("level %d: P halo %d (ghosts %d), Pᵀ halo %d (ghosts %d), next block %d (P has %d columns a block)",
					l, sh.PHalo, len(lv.P.GhostCols), sh.RHalo, len(lv.PT.GhostCols), sh.NextBlock, L.P.C)
			}
		}
	})
}
