package amg

import (
	"errors"
	"math"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// TestChebyshevPolynomial checks the smoother against its closed form: for A diagonal
// with D = A's diagonal blocks scaled so that D⁻¹A = diag(λ), b = 0 and x = e_i, the
// iterate after k steps is p_k(λ_i)·e_i with p_k(λ) = T_k((θ−λ)/δ) / T_k(θ/δ).
func TestChebyshevPolynomial(t *testing.T) {
	lams := []float64{0.05, 0.3, 0.9, 1.5, 1.98, 2.2}
	n := len(lams)
	var bi, bj []int32
	var vals []float64
	for i := range lams {
		bi, bj = append(bi, int32(i)), append(bj, int32(i))
		vals = append(vals, 2+float64(i)) // A_ii
	}
	A, err := bsr.FromBlockTriplets(n, n, 1, 1, bi, bj, vals)
	if err != nil {
		t.Fatal(err)
	}
	// D⁻¹ chosen so that D⁻¹A_ii = λ_i.
	dinv := make([]float64, n)
	for i, l := range lams {
		dinv[i] = l / vals[i]
	}
	emin, emax := 0.2, 2.1
	theta, delta := (emax+emin)/2, (emax-emin)/2
	cheb := func(k int, x float64) float64 { // T_k(x), any real x
		if math.Abs(x) <= 1 {
			return math.Cos(float64(k) * math.Acos(x))
		}
		return math.Pow(math.Copysign(1, x), float64(k)) * math.Cosh(float64(k)*math.Acosh(math.Abs(x)))
	}
	for deg := 1; deg <= 4; deg++ {
		c := chebyshev{emin: emin, emax: emax, degree: deg}
		for i, l := range lams {
			x := make([]float64, n)
			x[i] = 1
			b := make([]float64, n)
			d := make([]float64, n)
			c.apply(cycleOp{A: A}, dinv, b, x, d, false, 1)
			want := cheb(deg, (theta-l)/delta) / cheb(deg, theta/delta)
			if math.Abs(x[i]-want) > 1e-13 {
				t.Errorf("degree %d, λ=%g: factor %g, want %g", deg, l, x[i], want)
			}
			for j := range x {
				if j != i && x[j] != 0 {
					t.Errorf("degree %d: mixing into component %d", deg, j)
				}
			}
		}
	}
	// The zero-guess shortcut (no first product with A) must equal starting from an
	// explicit zero vector, whatever x holds on entry.
	c := chebyshev{emin: emin, emax: emax, degree: 3}
	b := []float64{1, -2, 3, 0.5, 4, -1}
	x1, x2 := make([]float64, n), make([]float64, n)
	for i := range x2 {
		x2[i] = math.NaN() // zeroGuess must ignore what x holds
	}
	d := make([]float64, n)
	c.apply(cycleOp{A: A}, dinv, b, x1, d, false, 1)
	c.apply(cycleOp{A: A}, dinv, b, x2, d, true, 1)
	if maxDiff(x1, x2) > 1e-15 {
		t.Errorf("zero-guess path %v differs from explicit zero start %v", x2, x1)
	}
}

func TestCholesky(t *testing.T) {
	A := gridMatrix(t, 5, 4, 3, true, 0.2, 8)
	c, err := factorCholesky(A)
	if err != nil {
		t.Fatal(err)
	}
	xs := randomVec(A.Rows(), 3)
	b := make([]float64, A.Rows())
	A.MulVec(1, xs, 0, b)
	x := make([]float64, len(b))
	c.solve(b, x)
	if d := maxDiff(x, xs); d > 1e-10 {
		t.Fatalf("Cholesky solve error %g", d)
	}
	// Indefinite: flip the sign of one diagonal block.
	k, _ := A.Find(7, 7)
	for p := range A.Block(k) {
		A.Block(k)[p] = -A.Block(k)[p]
	}
	if _, err := factorCholesky(A); !errors.Is(err, ErrNotSPD) {
		t.Fatalf("indefinite matrix: got %v", err)
	}
}
