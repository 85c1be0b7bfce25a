package bsr

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSumSquaresPlainBits: for data of any sane scale SumSquares is the plain sum of
// squares in order and Norm its math.Sqrt, bit for bit (callers rely on it to keep
// their results unchanged).
func TestSumSquaresPlainBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, scale := range []float64{1, 1e-100, 1e100, 1e-130, 1e150} {
		for n := 1; n <= 40; n++ {
			v := make([]float64, n)
			plain := 0.0
			for i := range v {
				v[i] = (rng.Float64()*2 - 1) * scale
				plain += v[i] * v[i]
			}
			s, e := SumSquares(v)
			if e != 0 || math.Float64bits(s) != math.Float64bits(plain) {
				t.Fatalf("scale %g, n %d: SumSquares = (%v, %d), plain sum %v", scale, n, s, e, plain)
			}
			if got := Norm(v); math.Float64bits(got) != math.Float64bits(math.Sqrt(plain)) {
				t.Fatalf("scale %g, n %d: Norm %v, plain root %v", scale, n, got, math.Sqrt(plain))
			}
		}
	}
}

// TestSumSquaresExtremeScales: where the plain sum of squares underflows (entries
// below 1e-154, subnormals included) or overflows (beyond 1e154), the norm is still
// that of the vector: for a power-of-two scaling 2^p, exactly 2^p times the norm of
// the unscaled vector, and for scalings by 10^±170 to round-off.
func TestSumSquaresExtremeScales(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	v := make([]float64, 9)
	for i := range v {
		v[i] = rng.Float64()*2 - 1
	}
	ref := Norm(v)
	w := make([]float64, len(v))
	for _, p := range []int{-1060, -1000, -600, -520, 520, 600, 1000} {
		for i, x := range v {
			w[i] = math.Ldexp(x, p)
		}
		if p < -1022 { // subnormal entries and norm: a few digits are all there is
			if got, want := Norm(w), math.Ldexp(ref, p); math.Abs(got-want) > 1e-3*want {
				t.Errorf("2^%d: Norm %v, want %v", p, got, want)
			}
			continue
		}
		if got, want := Norm(w), math.Ldexp(ref, p); got != want {
			t.Errorf("2^%d: Norm %v, want exactly %v", p, got, want)
		}
		s, e := SumSquares(w)
		if got := math.Ldexp(math.Sqrt(s), e); got != math.Ldexp(ref, p) {
			t.Errorf("2^%d: √s·2^e = %v", p, got)
		}
	}
	for _, c := range []float64{1e-170, 1e170, 1e-300, 1e300} {
		for i, x := range v {
			w[i] = x * c
		}
		if got, want := Norm(w), ref*c; math.Abs(got-want) > 4e-16*want {
			t.Errorf("×%g: Norm %v, want %v", c, got, want)
		}
	}
	// Norms beyond the float64 range overflow, and only those.
	if got := Norm([]float64{math.MaxFloat64, math.MaxFloat64}); !math.IsInf(got, 1) {
		t.Errorf("Norm(max, max) = %v, want +Inf", got)
	}
	if got, want := Norm([]float64{math.MaxFloat64 / 2, math.MaxFloat64 / 2}), math.MaxFloat64/2*math.Sqrt2; math.Abs(got-want) > 1e-15*want {
		t.Errorf("Norm(max/2, max/2) = %v, want %v", got, want)
	}
}

func TestSumSquaresSpecial(t *testing.T) {
	if s, e := SumSquares(nil); s != 0 || e != 0 {
		t.Errorf("empty: (%v, %d)", s, e)
	}
	if s, e := SumSquares([]float64{0, 0, 0}); s != 0 || e != 0 {
		t.Errorf("zero: (%v, %d)", s, e)
	}
	if s, _ := SumSquares([]float64{1e-200, math.NaN()}); !math.IsNaN(s) {
		t.Errorf("NaN entry: %v", s)
	}
	if s, _ := SumSquares([]float64{1, math.Inf(-1)}); !math.IsInf(s, 1) {
		t.Errorf("Inf entry: %v", s)
	}
	if s, _ := SumSquares([]float64{1e-320, math.Inf(1)}); !math.IsInf(s, 1) {
		t.Errorf("tiny and Inf entries: %v", s)
	}
	if got := Norm([]float64{3e-200, 4e-200}); math.Abs(got-5e-200) > 1e-15*5e-200 {
		t.Errorf("Norm(3e-200, 4e-200) = %v", got)
	}
}
