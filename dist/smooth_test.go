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

// smoothRef is P = (I − ω·D⁻¹A)·X on whole serial matrices, by rows and a map: the
// reference for the distributed smoothing.
func smoothRef(A, X *bsr.Matrix, dinv []float64, omega float64) map[[2]int][]float64 {
	b, k := A.R, X.C
	out := map[[2]int][]float64{}
	get := func(i, j int) []float64 {
		v, ok := out[[2]int{i, j}]
		if !ok {
			v = make([]float64, b*k)
			out[[2]int{i, j}] = v
		}
		return v
	}
	for i := 0; i < A.BlockRows; i++ {
		w := map[int][]float64{}
		for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
			j := int(A.ColIdx[q])
			for p := X.RowPtr[j]; p < X.RowPtr[j+1]; p++ {
				c := int(X.ColIdx[p])
				if w[c] == nil {
					w[c] = make([]float64, b*k)
				}
				bsr.GemmAcc(b, b, k, A.Block(q), X.Val[p*int64(b*k):(p+1)*int64(b*k)], w[c])
			}
		}
		for p := X.RowPtr[i]; p < X.RowPtr[i+1]; p++ {
			copy(get(i, int(X.ColIdx[p])), X.Val[p*int64(b*k):(p+1)*int64(b*k)])
		}
		for c, wc := range w {
			dw := make([]float64, b*k)
			bsr.GemmAcc(b, b, k, dinv[i*b*b:(i+1)*b*b], wc, dw)
			blk := get(i, c)
			for t := range blk {
				blk[t] -= omega * dw[t]
			}
		}
	}
	return out
}

// smoothedFineLevel is the fine level of ex56 ne = 9 taken the distributed way up to
// its smoothed prolongator's rows, on this rank: the serial hierarchy (h, its fine
// operator A of k near-null vectors and b×b blocks), the even layout and this rank's
// rows [lo, hi), the distributed operator, its coarsening, D⁻¹, the damping and the
// smoothed rows.
type smoothedFineLevel struct {
	h      *amg.Hierarchy
	A      *bsr.Matrix
	k, b   int
	lay    dist.Layout
	lo, hi int
	da     *dist.Matrix
	co     *dist.Coarsening
	dinv   []float64
	omega  float64
	rows   *bsr.Matrix
}

// smoothedFine builds smoothedFineLevel: Coarsen, InvertDiag, EstimateEigenvalues and
// SmoothProlongator on this rank's rows.
func smoothedFine(t *testing.T, c *mpi.Comm) *smoothedFineLevel {
	t.Helper()
	s, _ := reference(t, 9)
	f := &smoothedFineLevel{h: s.Hierarchy()}
	L := f.h.Levels[0]
	var B []float64
	f.A, B, f.k, f.b = L.A, L.B, L.K, L.A.R
	f.lay = dist.EvenLayout(f.A.BlockRows, c.Size())
	f.lo, f.hi = f.lay.Range(c.Rank())
	var err error
	if f.da, err = dist.NewMatrix(c, f.lay, dist.Slice(f.A, f.lo, f.hi)); err != nil {
		t.Fatal(err)
	}
	bk := f.b * f.k
	if f.co, err = dist.Coarsen(f.da, B[f.lo*bk:f.hi*bk], f.k, 0, f.h.Opt); err != nil {
		t.Fatal(err)
	}
	if f.dinv, err = dist.InvertDiag(f.da); err != nil {
		t.Fatal(err)
	}
	e, err := dist.EstimateEigenvalues(f.da, f.dinv, f.h.Opt.EstEigKSPMaxIt)
	if err != nil {
		t.Fatal(err)
	}
	f.omega = f.h.Opt.ProlongDamping / e.Max
	if f.rows, err = dist.SmoothProlongator(f.da, f.co.Ptent, f.dinv, f.omega); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSmoothProlongator checks the distributed smoothing of the tentative prolongator
// (Coarsen, InvertDiag, EstimateEigenvalues, then SmoothProlongator, whose ghost rows
// come from GhostRows) against the product of the whole serial matrices: the same
// pattern and the values to round-off; on one rank against the serial set-up's own P.
// The result distributes (NewRectMatrix) with a halo of coarse columns.
func TestSmoothProlongator(t *testing.T) {
	mpitest.Run(t, []int{1, 2, 3}, func(t *testing.T, c *mpi.Comm) {
		f := smoothedFine(t, c)
		h, A, k, b, lay, lo, hi := f.h, f.A, f.k, f.b, f.lay, f.lo, f.hi
		L := h.Levels[0]
		B := L.B
		co, omega, rows := f.co, f.omega, f.rows
		if err := rows.Validate(); err != nil {
			t.Fatalf("the smoothed rows are not valid BSR: %v", err)
		}

		g, err := amg.Strength(A, h.Opt.Threshold, 1)
		if err != nil {
			t.Fatal(err)
		}
		ragg := amg.Aggregate(withoutCrossEdges(g, lay), 0 < h.Opt.AggressiveLevels, (k+b-1)/b)
		rp, _ := amg.Tentative(ragg, B, b, k, 1)
		ref := smoothRef(A, rp, L.Dinv, omega)
		n, scale, worst := 0, 0.0, 0.0
		for i := 0; i < hi-lo; i++ {
			for q := rows.RowPtr[i]; q < rows.RowPtr[i+1]; q++ {
				want, ok := ref[[2]int{lo + i, int(rows.ColIdx[q])}]
				if !ok {
					var rc []int
					for key := range ref {
						if key[0] == lo+i {
							rc = append(rc, key[1])
						}
					}
					slices.Sort(rc)
					t.Fatalf("block (%d, %d) is not in the reference's pattern: ours %v, reference %v, serial P %v, A cols %v", lo+i, rows.ColIdx[q],
						rows.ColIdx[rows.RowPtr[i]:rows.RowPtr[i+1]], rc, L.P.ColIdx[L.P.RowPtr[lo+i]:L.P.RowPtr[lo+i+1]], A.ColIdx[A.RowPtr[lo+i]:A.RowPtr[lo+i+1]])
				}
				n++
				for t, v := range rows.Block(q) {
					scale = math.Max(scale, math.Abs(want[t]))
					worst = math.Max(worst, math.Abs(v-want[t]))
				}
			}
		}
		refRows := 0
		for key := range ref {
			if key[0] >= lo && key[0] < hi {
				refRows++
			}
		}
		if n != refRows {
			t.Errorf("%d blocks, the reference %d on this rank's rows", n, refRows)
		}
		if worst > 1e-13*scale {
			t.Errorf("the smoothed prolongator differs from the reference by %.3g (scale %.3g)", worst, scale)
		}
		if c.Size() == 1 {
			if !slices.Equal(rows.RowPtr, L.P.RowPtr) || !slices.Equal(rows.ColIdx, L.P.ColIdx) {
				t.Fatal("one rank: not the serial set-up's pattern of P")
			}
			d := 0.0
			for i, v := range rows.Val {
				d = math.Max(d, math.Abs(v-L.P.Val[i]))
			}
			if d > 1e-12*scale {
				t.Errorf("one rank: P differs from the serial set-up's by %.3g", d)
			}
		}
		p, err := dist.NewRectMatrix(c, lay, co.Layout, rows)
		if err != nil {
			t.Fatal(err)
		}
		if c.Rank() == 0 {
			t.Logf("%d ranks: P has %d blocks on rank 0, %d ghost coarse columns; max difference %.2g of %.2g", c.Size(), n, len(p.GhostCols), worst, scale)
		}
	})
}

// TestGhostRows fetches, over a distributed operator's halo, the operator's own rows
// that its ghost columns name, and checks them against those rows of the whole serial
// matrix: the same global columns and values, in ghost order, on 1–3 ranks.
func TestGhostRows(t *testing.T) {
	mpitest.Run(t, []int{1, 2, 3}, func(t *testing.T, c *mpi.Comm) {
		s, _ := reference(t, 6)
		A := s.Hierarchy().Levels[0].A
		lay := dist.EvenLayout(A.BlockRows, c.Size())
		lo, hi := lay.Range(c.Rank())
		a, err := dist.NewMatrix(c, lay, dist.Slice(A, lo, hi))
		if err != nil {
			t.Fatal(err)
		}
		g, err := dist.GhostRows(a, a)
		if err != nil {
			t.Fatal(err)
		}
		if g.BlockRows != len(a.GhostCols) {
			t.Fatalf("%d ghost rows for %d ghost columns", g.BlockRows, len(a.GhostCols))
		}
		bs := int64(A.R * A.C)
		for i, j := range a.GhostCols {
			want0, want1 := A.RowPtr[j], A.RowPtr[j+1]
			got0, got1 := g.RowPtr[i], g.RowPtr[i+1]
			if !slices.Equal(g.ColIdx[got0:got1], A.ColIdx[want0:want1]) || !slices.Equal(g.Val[got0*bs:got1*bs], A.Val[want0*bs:want1*bs]) {
				t.Fatalf("ghost row %d (global row %d) differs from the serial matrix's", i, j)
			}
		}
		if c.Size() == 1 && g.BlockRows != 0 {
			t.Errorf("one rank: %d ghost rows, want none", g.BlockRows)
		}
	})
}
