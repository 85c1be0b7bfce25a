package dist_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/dist"
	"github.com/blockamg/blockamg/dist/internal/mpitest"
	"github.com/blockamg/blockamg/dist/mpi"
	"github.com/blockamg/blockamg/fem"
)

// stepValues returns ex56's operator re-assembled on the same pattern with the soft
// sphere's modulus multiplied by f, as solve's recurring steps change it.
func stepValues(t *testing.T, ne int, f float64) *bsr.Matrix {
	box, err := fem.NewBox(fem.Ex56(ne))
	if err != nil {
		t.Fatal(err)
	}
	asm, err := box.Symbolic(1)
	if err != nil {
		t.Fatal(err)
	}
	mod := box.ElementModulus()
	for e, m := range mod {
		if m != box.Problem().E {
			mod[e] = m * f
		}
	}
	A := asm.NewMatrix()
	if err := asm.Numeric(A, mod, 1); err != nil {
		t.Fatal(err)
	}
	return A
}

// sameBSR reports whether x and y have the same pattern and the same bits.
func sameBSR(x, y *bsr.Matrix) bool {
	return x.BlockRows == y.BlockRows && x.BlockCols == y.BlockCols && x.R == y.R && x.C == y.C &&
		slices.Equal(x.RowPtr, y.RowPtr) && slices.Equal(x.ColIdx, y.ColIdx) && bitsEqual(x.Val, y.Val)
}

// sameMatrix reports whether two distributed matrices hold the same rows, bit for bit.
func sameMatrix(x, y *dist.Matrix) bool {
	return slices.Equal(x.Layout.Offsets, y.Layout.Offsets) && slices.Equal(x.ColLayout.Offsets, y.ColLayout.Offsets) &&
		slices.Equal(x.GhostCols, y.GhostCols) && sameBSR(x.Local, y.Local) && sameBSR(x.Ghost, y.Ghost)
}

// compareHierarchies fails t unless d and f are the same hierarchy bit for bit: every
// level's operator, prolongator, restriction, block-diagonal inverses and Chebyshev
// interval, and a V-cycle's result (which covers the coarse factor).
func compareHierarchies(t *testing.T, c *mpi.Comm, what string, d, f *dist.Hierarchy) {
	t.Helper()
	if len(d.Levels) != len(f.Levels) {
		t.Fatalf("%s: %d levels, a fresh Setup %d", what, len(d.Levels), len(f.Levels))
	}
	for l := range d.Levels {
		x, y := d.Levels[l], f.Levels[l]
		if !sameMatrix(x.A, y.A) {
			t.Errorf("%s: level %d's operator differs from a fresh Setup's", what, l)
		}
		if l == len(d.Levels)-1 {
			break
		}
		if !sameMatrix(x.P, y.P) || !sameMatrix(x.PT, y.PT) {
			t.Errorf("%s: level %d's prolongator or restriction differs from a fresh Setup's", what, l)
		}
		if !bitsEqual(x.Dinv, y.Dinv) || !bitsEqual([]float64{x.ChebMin, x.ChebMax}, []float64{y.ChebMin, y.ChebMax}) {
			t.Errorf("%s: level %d's smoother differs from a fresh Setup's: [%v, %v] against [%v, %v]", what, l, x.ChebMin, x.ChebMax, y.ChebMin, y.ChebMax)
		}
	}
	rng := rand.New(rand.NewPCG(26, uint64(c.Rank())))
	r := make([]float64, d.Len())
	for i := range r {
		r[i] = rng.Float64()*2 - 1
	}
	zd, zf := make([]float64, d.Len()), make([]float64, f.Len())
	if err := d.VCycle(r, zd); err != nil {
		t.Fatal(err)
	}
	if err := f.VCycle(r, zf); err != nil {
		t.Fatal(err)
	}
	if !bitsEqual(zd, zf) {
		t.Errorf("%s: a V-cycle differs from a fresh Setup's", what)
	}
}

// TestSetupUpdate checks the distributed set-up's recurring step (Hierarchy.Update)
// on 1, 2 and 3 ranks: a hierarchy set up on ex56 and updated with a step's new values
// (the soft sphere's modulus changed) is bit for bit a fresh Setup on those values,
// and updated back, a fresh Setup on the first ones. Its communication is values
// only: the counters of an Update are its λ estimates' (run again apart) plus one
// message per halo neighbour of each level's operator (P's ghost rows) and two per
// coarse halo neighbour of P (the partial rows of Pᵀ and of PᵀAP), and one Allgather
// of the coarsest values, with the bytes the plans give (UpdateTraffic): no count, row
// length or column travels.
func TestSetupUpdate(t *testing.T) {
	mpitest.Run(t, []int{1, 2, 3}, func(t *testing.T, c *mpi.Comm) {
		ne := 12
		s, _ := reference(t, ne)
		h := s.Hierarchy()
		L := h.Levels[0]
		A, B, k, b := L.A, L.B, L.K, L.A.R
		A2 := stepValues(t, ne, 1.5)
		if !slices.Equal(A.RowPtr, A2.RowPtr) || !slices.Equal(A.ColIdx, A2.ColIdx) || bitsEqual(A.Val, A2.Val) {
			t.Fatal("the step's values are not new values on the same pattern")
		}
		lay := dist.EvenLayout(A.BlockRows, c.Size())
		lo, hi := lay.Range(c.Rank())
		Bl := B[lo*b*k : hi*b*k]
		setup := func(m *bsr.Matrix) *dist.Hierarchy {
			da, err := dist.NewMatrix(c, lay, dist.Slice(m, lo, hi))
			if err != nil {
				t.Fatal(err)
			}
			d, err := dist.Setup(da, Bl, k, h.Opt)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		d := setup(A)
		c.SetPhase("update")
		if err := d.Update(dist.Slice(A2, lo, hi)); err != nil {
			t.Fatal(err)
		}
		c.SetPhase("")
		compareHierarchies(t, c, "updated", d, setup(A2))

		// The counters.
		got := c.Traffic("update")
		c.SetPhase("lambda")
		for _, lv := range d.Levels[:len(d.Levels)-1] {
			if _, err := dist.EstimateEigenvalues(lv.A, lv.Dinv, h.Opt.EstEigKSPMaxIt); err != nil {
				t.Fatal(err)
			}
		}
		c.SetPhase("")
		lam := c.Traffic("lambda")
		var sends, recvs, ghostBytes int64
		for _, lv := range d.Levels[:len(d.Levels)-1] {
			ha, hp := lv.A.Halo, lv.P.Halo
			sends += int64(len(ha.Send) + 2*len(hp.Recv))
			recvs += int64(len(ha.Recv) + 2*len(hp.Send))
			bk := int64(lv.P.Local.R * lv.P.Local.C)
			for _, nb := range ha.Send {
				for _, i := range nb.Rows {
					n := lv.P.Local.RowPtr[i+1] - lv.P.Local.RowPtr[i] + lv.P.Ghost.RowPtr[i+1] - lv.P.Ghost.RowPtr[i]
					ghostBytes += n * bk * 8
				}
			}
		}
		last := d.Levels[len(d.Levels)-1].A
		nnz := []int64{last.Local.RowPtr[last.Hi-last.Lo] + last.Ghost.RowPtr[last.Hi-last.Lo]}
		if err := c.AllreduceInt64(mpi.Max, nnz); err != nil {
			t.Fatal(err)
		}
		coarseBytes := nnz[0] * int64(last.Local.R*last.Local.C) * 8
		plan := d.UpdateTraffic()
		switch {
		case got.Sends != lam.Sends+sends || got.Recvs != lam.Recvs+recvs:
			t.Errorf("Update posted %d sends and %d receives: want λ's %d and %d plus %d and %d of values",
				got.Sends, got.Recvs, lam.Sends, lam.Recvs, sends, recvs)
		case got.Collectives != lam.Collectives+1 || got.CollectiveBytes != lam.CollectiveBytes+coarseBytes:
			t.Errorf("Update ran %d collectives of %d bytes: want λ's %d of %d plus one Allgather of the coarsest values (%d bytes)",
				got.Collectives, got.CollectiveBytes, lam.Collectives, lam.CollectiveBytes, coarseBytes)
		case got.BytesSent != lam.BytesSent+plan.BytesSent || got.BytesRecv != lam.BytesRecv+plan.BytesRecv:
			t.Errorf("Update sent %d and received %d bytes: want λ's %d and %d plus the plans' %d and %d",
				got.BytesSent, got.BytesRecv, lam.BytesSent, lam.BytesRecv, plan.BytesSent, plan.BytesRecv)
		case plan.Sends != sends || plan.Recvs != recvs || plan.Collectives != 1 || plan.BytesSent < ghostBytes:
			t.Errorf("UpdateTraffic %+v: want %d sends, %d receives, one collective, at least P's ghost rows' %d bytes", plan, sends, recvs, ghostBytes)
		}
		if c.Rank() == 0 {
			t.Logf("%d ranks, %d levels: Update rank 0: %d sends (%d bytes), %d collectives; λ estimates %d sends, %d collectives; P's ghost rows %d bytes",
				c.Size(), len(d.Levels), got.Sends, got.BytesSent, got.Collectives, lam.Sends, lam.Collectives, ghostBytes)
		}

		// Back to the first values: a fresh Setup on them.
		if err := d.Update(dist.Slice(A, lo, hi)); err != nil {
			t.Fatal(err)
		}
		compareHierarchies(t, c, "updated back", d, setup(A))

		// Refusals: another pattern, a replicated hierarchy.
		other := dist.Slice(A, lo, hi)
		other.ColIdx = slices.Clone(other.ColIdx)
		if len(other.ColIdx) > 0 {
			other.ColIdx[len(other.ColIdx)-1] = int32((int(other.ColIdx[len(other.ColIdx)-1]) + 1) % A.BlockCols)
		}
		if err := d.Update(other); !errors.Is(err, amg.ErrPattern) {
			t.Errorf("another pattern: %v, want amg.ErrPattern", err)
		}
		r, err := dist.NewHierarchy(c, h, lay)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Update(dist.Slice(A, lo, hi)); !errors.Is(err, dist.ErrNoPlan) {
			t.Errorf("a replicated hierarchy: %v, want dist.ErrNoPlan", err)
		}
	})
}
