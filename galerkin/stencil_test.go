package galerkin

import (
	"slices"
	"testing"
)

func TestStencilProduct(t *testing.T) {
	// 4³ nodes, 27-point stencil, aggregates of 2³ nodes: per axis the stencil keeps
	// 2+3+3+2 = 10 neighbours, so A has 10³ blocks; the aggregates a node's
	// neighbours fall in number 1, 2, 2, 1 per axis, so P has 6³ blocks.
	A, P, err := stencilProduct(4, 3, 6, 1, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := A.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := P.Validate(); err != nil {
		t.Fatal(err)
	}
	if A.BlockRows != 64 || A.R != 3 || A.C != 3 || A.NNZBlocks() != 1000 {
		t.Errorf("A: %d rows of %d×%d blocks, %d blocks; want 64, 3×3, 1000", A.BlockRows, A.R, A.C, A.NNZBlocks())
	}
	if P.BlockCols != 8 || P.R != 3 || P.C != 6 || P.NNZBlocks() != 216 {
		t.Errorf("P: %d columns of %d×%d blocks, %d blocks; want 8, 3×6, 216", P.BlockCols, P.R, P.C, P.NNZBlocks())
	}
	// P has the pattern of A·T: the aggregates of the columns of each A row.
	agg := func(j int) int32 {
		x, y, z := j%4, (j/4)%4, j/16
		return int32(x/2 + 2*(y/2+2*(z/2)))
	}
	for i := 0; i < A.BlockRows; i++ {
		var want []int32
		for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
			if a := agg(int(A.ColIdx[q])); !slices.Contains(want, a) {
				want = append(want, a)
			}
		}
		slices.Sort(want)
		if got := P.ColIdx[P.RowPtr[i]:P.RowPtr[i+1]]; !slices.Equal(got, want) {
			t.Fatalf("P row %d: columns %v, want %v", i, got, want)
		}
	}
	if _, _, err := stencilProduct(0, 3, 6, 1, 2, 1); err == nil {
		t.Error("side 0 accepted")
	}
}
