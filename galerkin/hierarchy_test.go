package galerkin

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/galerkin/galerkintest"
)

// TestHierarchy runs every variant on a two-level synthetic smoothed-aggregation
// hierarchy (3×3·3×6, then 6×6·6×6) and checks that all variants and worker counts agree
// bitwise, that they match the dense product, and that the parallel schedules really
// deferred and recomputed rows.
func TestHierarchy(t *testing.T) {
	smallChunks(t)
	pr, err := galerkintest.Grid(19, 18, 18, 27, 7)
	if err != nil {
		t.Fatal(err)
	}
	A, P, coarse := pr.A, pr.P, pr.Coarse
	for level := 0; level < 2; level++ {
		ref := tripleProduct(A, P)
		var acRef []float64
		var next *bsr.Matrix
		for _, v := range Variants {
			plan, err := Symbolic(A, P, v)
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{1, 2, 3} {
				name := fmt.Sprintf("level %d %s workers %d", level, v, workers)
				poison(plan.Ac.Val)
				if err := plan.Numeric(A, P, workers); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if e := relErr(plan.Ac.Val, ref(plan.Ac)); e > 1e-13 {
					t.Fatalf("%s: relative error %g against the triple product", name, e)
				}
				if acRef == nil {
					acRef = slices.Clone(plan.Ac.Val)
					next = plan.Ac
				} else if !bitwiseEqual(acRef, plan.Ac.Val) {
					t.Fatalf("%s: differs bitwise from two-pass, workers 1", name)
				}
				if workers == 3 && level == 0 {
					switch v {
					case FusedRow:
						if s := plan.fusedSchedule(P, 3); len(s.defRow) == 0 {
							t.Errorf("%s: no deferred rows: the test does not exercise the second pass", name)
						}
					case FusedRecompute:
						if s := plan.recomputeSchedule(3); len(s.rows) <= plan.n {
							t.Errorf("%s: no recomputed rows", name)
						}
					}
				}
			}
		}
		if level == 0 {
			P, coarse, err = galerkintest.NextProlongator(next, coarse, 3)
			if err != nil {
				t.Fatal(err)
			}
			A = next
		}
	}
}

// tripleProduct is an independent sparse reference: it sums P(i,I)ᵀ·(A(i,j)·P(j,J)) over
// every A block and pair of P blocks, without forming W. It returns a function that
// lays the result out in the pattern of a given Ac (and fails the match if a product
// lands outside it, by returning NaN values).
func tripleProduct(A, P *bsr.Matrix) func(*bsr.Matrix) []float64 {
	b, k := A.R, P.C
	sums := map[[2]int32][]float64{}
	tmp := make([]float64, b*k)
	for i := 0; i < A.BlockRows; i++ {
		for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
			j := A.ColIdx[q]
			for r := P.RowPtr[j]; r < P.RowPtr[j+1]; r++ {
				clear(tmp)
				gemmAcc(b, b, k, A.Block(q), P.Block(r), tmp)
				for s := P.RowPtr[i]; s < P.RowPtr[i+1]; s++ {
					key := [2]int32{P.ColIdx[s], P.ColIdx[r]}
					blk := sums[key]
					if blk == nil {
						blk = make([]float64, k*k)
						sums[key] = blk
					}
					gemmTNAcc(k, b, k, P.Block(s), tmp, blk)
				}
			}
		}
	}
	return func(ac *bsr.Matrix) []float64 {
		out := make([]float64, len(ac.Val))
		found := 0
		for I := 0; I < ac.BlockRows; I++ {
			for q := ac.RowPtr[I]; q < ac.RowPtr[I+1]; q++ {
				if blk, ok := sums[[2]int32{int32(I), ac.ColIdx[q]}]; ok {
					copy(out[q*int64(k*k):], blk)
					found++
				}
			}
		}
		if found != len(sums) {
			for i := range out {
				out[i] = math.NaN()
			}
		}
		return out
	}
}
