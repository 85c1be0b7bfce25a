package galerkintest

import (
	"math"
	"testing"
)

func TestGrid(t *testing.T) {
	p, err := Grid(7, 6, 5, 27, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.A.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := p.P.Validate(); err != nil {
		t.Fatal(err)
	}
	// 7,6,5 nodes → 2×2×1 aggregates.
	if p.P.BlockCols != 4 || p.P.BlockRows != 210 {
		t.Fatalf("P is %d×%d blocks, want 210×4", p.P.BlockRows, p.P.BlockCols)
	}
	// A symmetric.
	for i := 0; i < p.A.BlockRows; i++ {
		for q := p.A.RowPtr[i]; q < p.A.RowPtr[i+1]; q++ {
			j := int(p.A.ColIdx[q])
			qt, ok := p.A.Find(j, i)
			if !ok {
				t.Fatalf("A pattern not symmetric at (%d,%d)", i, j)
			}
			b, bt := p.A.Block(q), p.A.Block(qt)
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					if b[r*3+c] != bt[c*3+r] {
						t.Fatalf("A(%d,%d) ≠ A(%d,%d)ᵀ", i, j, j, i)
					}
				}
			}
		}
	}
	// Interior node of a 27-point stencil has 27 blocks; P rows reach every aggregate
	// of the node's neighbours and nothing else.
	if id := 1 + 7*(1+6*1); p.A.RowPtr[id+1]-p.A.RowPtr[id] != 27 {
		got := p.A.RowPtr[id+1] - p.A.RowPtr[id]
		t.Errorf("interior row has %d blocks, want 27", got)
	}
	for i := 0; i < p.P.BlockRows; i++ {
		want := map[int32]bool{}
		for q := p.A.RowPtr[i]; q < p.A.RowPtr[i+1]; q++ {
			want[p.Aggregate[p.A.ColIdx[q]]] = true
		}
		if int(p.P.RowPtr[i+1]-p.P.RowPtr[i]) != len(want) {
			t.Fatalf("P row %d has %d blocks, want %d", i, p.P.RowPtr[i+1]-p.P.RowPtr[i], len(want))
		}
		for q := p.P.RowPtr[i]; q < p.P.RowPtr[i+1]; q++ {
			if !want[p.P.ColIdx[q]] {
				t.Fatalf("P row %d has unexpected column %d", i, p.P.ColIdx[q])
			}
		}
	}
	// Smoothing keeps constants: a row of P summed over its blocks, translation part,
	// equals T − ω D⁻¹ A·1-ish; at least check the values are finite and nonzero.
	var s float64
	for _, v := range p.P.Val {
		s += math.Abs(v)
	}
	if s == 0 {
		t.Fatal("P is zero")
	}
	if _, err := Grid(0, 1, 1, 27, 1); err == nil {
		t.Error("empty grid accepted")
	}
	if _, err := Grid(3, 3, 3, 9, 1); err == nil {
		t.Error("stencil 9 accepted")
	}
}
