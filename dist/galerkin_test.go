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

// mapToBSR turns blocks keyed by (row, column) into a BSR matrix of rows×cols blocks.
func mapToBSR(m map[[2]int][]float64, rows, cols, r, c int) *bsr.Matrix {
	keys := make([][2]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	out := &bsr.Matrix{BlockRows: rows, BlockCols: cols, R: r, C: c, RowPtr: make([]int64, rows+1)}
	for _, k := range keys {
		out.RowPtr[k[0]+1]++
		out.ColIdx = append(out.ColIdx, int32(k[1]))
		out.Val = append(out.Val, m[k]...)
	}
	for i := 0; i < rows; i++ {
		out.RowPtr[i+1] += out.RowPtr[i]
	}
	return out
}

// ptapRef is Pᵀ·A·P of whole serial matrices, by blocks.
func ptapRef(A, P *bsr.Matrix) map[[2]int][]float64 {
	b, k := A.R, P.C
	out := map[[2]int][]float64{}
	for i := 0; i < A.BlockRows; i++ {
		w := map[int][]float64{}
		for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
			j := int(A.ColIdx[q])
			for t := P.RowPtr[j]; t < P.RowPtr[j+1]; t++ {
				c := int(P.ColIdx[t])
				if w[c] == nil {
					w[c] = make([]float64, b*k)
				}
				bsr.GemmAcc(b, b, k, A.Block(q), P.Block(t), w[c])
			}
		}
		for t := P.RowPtr[i]; t < P.RowPtr[i+1]; t++ {
			I := int(P.ColIdx[t])
			for J, wj := range w {
				key := [2]int{I, J}
				if out[key] == nil {
					out[key] = make([]float64, k*k)
				}
				bsr.GemmTNAcc(k, b, k, P.Block(t), wj, out[key])
			}
		}
	}
	return out
}

// TestGalerkin builds a coarse level the distributed way (Coarsen, InvertDiag,
// EstimateEigenvalues, SmoothProlongator) and checks its Galerkin product against
// Pᵀ·A·P of the whole serial matrices (the reference P from the serial functions on the
// strength graph less its cross-rank edges), and on one rank against the serial set-up's
// own coarse operator; and the distributed transpose against the serial one, bit for
// bit. The coarse operator and the restriction then distribute (NewMatrix, NewRectMatrix).
func TestGalerkin(t *testing.T) {
	mpitest.Run(t, []int{1, 2, 3}, func(t *testing.T, c *mpi.Comm) {
		f := smoothedFine(t, c)
		h, A, k, b, lay := f.h, f.A, f.k, f.b, f.lay
		L := h.Levels[0]
		B := L.B
		da, co, omega, rows := f.da, f.co, f.omega, f.rows
		p, err := dist.NewRectMatrix(c, lay, co.Layout, rows)
		if err != nil {
			t.Fatal(err)
		}
		acRows, err := dist.Galerkin(da, p)
		if err != nil {
			t.Fatal(err)
		}
		ptRows, err := dist.Transpose(p)
		if err != nil {
			t.Fatal(err)
		}

		g, err := amg.Strength(A, h.Opt.Threshold, 1)
		if err != nil {
			t.Fatal(err)
		}
		ragg := amg.Aggregate(withoutCrossEdges(g, lay), 0 < h.Opt.AggressiveLevels, (k+b-1)/b)
		rpt, _ := amg.Tentative(ragg, B, b, k, 1)
		rp := mapToBSR(smoothRef(A, rpt, L.Dinv, omega), A.BlockRows, ragg.Count, b, k)
		nc := ragg.Count
		ref := dist.Slice(mapToBSR(ptapRef(A, rp), nc, nc, k, k), co.Layout.Offsets[c.Rank()], co.Layout.Offsets[c.Rank()+1])
		if !slices.Equal(acRows.RowPtr, ref.RowPtr) || !slices.Equal(acRows.ColIdx, ref.ColIdx) {
			t.Fatal("the coarse operator's pattern differs from the reference's")
		}
		scale, worst := 0.0, 0.0
		for q, v := range acRows.Val {
			scale = math.Max(scale, math.Abs(ref.Val[q]))
			worst = math.Max(worst, math.Abs(v-ref.Val[q]))
		}
		if worst > 1e-12*scale {
			t.Errorf("the coarse operator differs from the reference by %.3g (scale %.3g)", worst, scale)
		}
		if c.Size() == 1 {
			ac := h.Levels[1].A
			if !slices.Equal(acRows.RowPtr, ac.RowPtr) || !slices.Equal(acRows.ColIdx, ac.ColIdx) {
				t.Fatal("one rank: not the serial set-up's coarse pattern")
			}
			d := 0.0
			for q, v := range acRows.Val {
				d = math.Max(d, math.Abs(v-ac.Val[q]))
			}
			if d > 1e-12*scale {
				t.Errorf("one rank: the coarse operator differs from the serial set-up's by %.3g", d)
			}
		}
		rt := dist.Slice(rp.Transpose(), co.Layout.Offsets[c.Rank()], co.Layout.Offsets[c.Rank()+1])
		if !slices.Equal(ptRows.RowPtr, rt.RowPtr) || !slices.Equal(ptRows.ColIdx, rt.ColIdx) || !bitsEqual(ptRows.Val, rt.Val) {
			t.Errorf("the distributed transpose differs from the serial one: pattern %v %v, values %v; %d×%d blocks of %d×%d against %d×%d of %d×%d",
				slices.Equal(ptRows.RowPtr, rt.RowPtr), slices.Equal(ptRows.ColIdx, rt.ColIdx), bitsEqual(ptRows.Val, rt.Val),
				ptRows.BlockRows, ptRows.BlockCols, ptRows.R, ptRows.C, rt.BlockRows, rt.BlockCols, rt.R, rt.C)
		}
		dac, err := dist.NewMatrix(c, co.Layout, acRows)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dist.NewRectMatrix(c, co.Layout, lay, ptRows); err != nil {
			t.Fatal(err)
		}
		if c.Rank() == 0 {
			t.Logf("%d ranks: Ac has %d coarse rows on rank 0 (%d ghost columns), within %.2g of the reference (scale %.2g)",
				c.Size(), acRows.BlockRows, len(dac.GhostCols), worst, scale)
		}
	})
}
