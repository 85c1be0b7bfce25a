package amg

import (
	"errors"
	"math"
	"testing"
)

func TestCholesky(t *testing.T) {
	A := gridMatrix(t, 5, 4, 3, true, 0.2, 8)
	var c CoarseFactor
	if err := c.Factor(A); err != nil {
		t.Fatal(err)
	}
	xs := randomVec(A.Rows(), 3)
	b := make([]float64, A.Rows())
	A.MulVec(1, xs, 0, b)
	x := make([]float64, len(b))
	c.Solve(b, x)
	if d := maxDiff(x, xs); d > 1e-10 {
		t.Fatalf("Cholesky solve error %g", d)
	}
	// The inverse against the dense product: A·A⁻¹ = I.
	n := A.Rows()
	inv := make([]float64, n*n)
	c.Inverse(inv)
	dense := A.ToDense()
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += dense[i*n+k] * inv[k*n+j]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(s-want) > 1e-10 {
				t.Fatalf("(A·A⁻¹)[%d,%d] = %g, want %g", i, j, s, want)
			}
			if inv[i*n+j] != inv[j*n+i] {
				t.Fatalf("A⁻¹ not exactly symmetric at %d,%d", i, j)
			}
		}
	}
	// Indefinite: flip the sign of one diagonal block.
	k, _ := A.Find(7, 7)
	for p := range A.Block(k) {
		A.Block(k)[p] = -A.Block(k)[p]
	}
	var c2 CoarseFactor
	if err := c2.Factor(A); !errors.Is(err, ErrNotSPD) {
		t.Fatalf("indefinite matrix: got %v", err)
	}
}
