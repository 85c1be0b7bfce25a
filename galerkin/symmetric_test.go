package galerkin

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/galerkin/galerkintest"
)

// symmetricBSR returns A + Aᵀ for a random A: symmetric pattern and values.
func symmetricBSR(t *testing.T, rng *rand.Rand, n, b int, density float64) *bsr.Matrix {
	t.Helper()
	A := randomBSR(rng, n, n, b, b, density, 0)
	var bi, bj []int32
	var v []float64
	bb := int64(b * b)
	for i := 0; i < n; i++ {
		for a := A.RowPtr[i]; a < A.RowPtr[i+1]; a++ {
			j := A.ColIdx[a]
			blk := A.Val[a*bb : (a+1)*bb]
			bi, bj = append(bi, int32(i), j), append(bj, j, int32(i))
			v = append(v, blk...)
			for x := 0; x < b; x++ {
				for y := 0; y < b; y++ {
					v = append(v, blk[y*b+x])
				}
			}
		}
	}
	S, err := bsr.FromBlockTriplets(n, n, b, b, bi, bj, v)
	if err != nil {
		t.Fatal(err)
	}
	return S
}

// TestSymmetricHalf: for a symmetric A every variant with SetSymmetric gives Ac within
// 1e-13 of the dense product, its blocks on and above the diagonal bitwise the full
// product's, those below the exact transposes of their mirrors, the same bits for
// every worker count and variant; a non-symmetric A is refused, and SetSymmetric(…,
// false) returns to the full product.
func TestSymmetricHalf(t *testing.T) {
	smallChunks(t)
	rng := rand.New(rand.NewPCG(3, 14))
	for trial := 0; trial < 24; trial++ {
		b, k := 1+trial%6, 1+(trial/6)%6
		if trial >= 12 {
			b, k = 3+3*(trial%2), 6
		}
		n, m := 5+rng.IntN(25), 1+rng.IntN(12)
		A := symmetricBSR(t, rng, n, b, 0.2)
		P := randomBSR(rng, n, m, b, k, 0.2, n/4)
		ref := denseGalerkin(A, P)
		var acRef []float64
		for _, v := range Variants {
			name := fmt.Sprintf("trial%d/b%d/k%d/%s", trial, b, k, v)
			full, err := Symbolic(A, P, v)
			if err != nil {
				t.Fatal(err)
			}
			if err := full.Numeric(A, P, 1); err != nil {
				t.Fatal(err)
			}
			plan, err := Symbolic(A, P, v)
			if err != nil {
				t.Fatal(err)
			}
			if err := plan.SetSymmetric(A, true); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, workers := range []int{1, 2, 5} {
				poison(plan.Ac.Val)
				if err := plan.Numeric(A, P, workers); err != nil {
					t.Fatal(err)
				}
				if e := relErr(dense(plan.Ac), ref); e > 1e-13 {
					t.Fatalf("%s workers %d: relative error %g against dense", name, workers, e)
				}
				if acRef == nil {
					acRef = slices.Clone(plan.Ac.Val)
				} else if !bitwiseEqual(acRef, plan.Ac.Val) {
					t.Fatalf("%s workers %d: differs bitwise from the first variant's symmetric half", name, workers)
				}
			}
			if err := galerkintest.CheckHalf(full.Ac, plan.Ac); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := plan.SetSymmetric(A, false); err != nil || plan.Symmetric() {
				t.Fatalf("%s: SetSymmetric(false): %v", name, err)
			}
			if err := plan.Numeric(A, P, 2); err != nil {
				t.Fatal(err)
			}
			if !bitwiseEqual(plan.Ac.Val, full.Ac.Val) {
				t.Fatalf("%s: back to the full product: differs from it", name)
			}
		}
	}
	// A non-symmetric A is refused.
	A := randomBSR(rng, 20, 20, 3, 3, 0.3, 0)
	P := randomBSR(rng, 20, 5, 3, 6, 0.3, 0)
	plan, err := Symbolic(A, P, TwoPass)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.SetSymmetric(A, true); err == nil || !strings.Contains(err.Error(), "not symmetric") {
		t.Errorf("non-symmetric A: error %v", err)
	}
}

// TestMirrorPattern: each entry maps to its transpose position; an entry without one
// is named (here in the last row, so the row is found from the entry's index).
func TestMirrorPattern(t *testing.T) {
	// Rows: 0: {0, 1}; 1: {0, 1, 2}; 2: {1, 2}.
	ptr, col := []int64{0, 2, 5, 7}, []int32{0, 1, 0, 1, 2, 1, 2}
	mir, err := MirrorPattern(3, ptr, col)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{0, 2, 1, 3, 5, 4, 6}; !slices.Equal(mir, want) {
		t.Fatalf("mirrors %v, want %v", mir, want)
	}
	// Row 1 without column 2: entry (2, 1) has no mirror.
	ptr, col = []int64{0, 2, 4, 6}, []int32{0, 1, 0, 1, 1, 2}
	if _, err := MirrorPattern(3, ptr, col); err == nil || err.Error() != "block (2, 1) has no mirror (1, 2)" {
		t.Errorf("missing mirror: error %v", err)
	}
}
