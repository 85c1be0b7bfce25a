package krylov

import (
	"math"

	"github.com/blockamg/blockamg/internal/par"
)

// chunk is the fixed length of the pieces inner products are split into. Partial sums
// are per chunk and added in chunk order, so the bits never depend on the worker count.
const chunk = 4096

// dot returns xᵀy.
func dot(x, y []float64, workers int) float64 {
	if len(x) != len(y) {
		panic("krylov: dot: length mismatch")
	}
	return reduce(len(x), workers, func(lo, hi int) float64 {
		s := 0.0
		for i := lo; i < hi; i++ {
			s += x[i] * y[i]
		}
		return s
	})
}

// reduce sums part(lo, hi) over the fixed chunks of [0, n) in chunk order.
func reduce(n, workers int, part func(lo, hi int) float64) float64 {
	nc := (n + chunk - 1) / chunk
	if nc <= 1 {
		if n == 0 {
			return 0
		}
		return part(0, n)
	}
	partial := make([]float64, nc)
	par.For(nc, workers, 1, func(clo, chi int) {
		for c := clo; c < chi; c++ {
			partial[c] = part(c*chunk, min((c+1)*chunk, n))
		}
	})
	s := 0.0
	for _, v := range partial {
		s += v
	}
	return s
}

// forEach runs body over [0, n) in parallel; body writes only indices in its range.
func forEach(n, workers int, body func(lo, hi int)) {
	par.For(n, workers, chunk, body)
}

// safeNorm returns ‖v‖₂ given ss, the plain sum of squares of v. That sum overflows
// for entries beyond about 1e154 and underflows (to subnormals or zero) below about
// 1e-154, which would turn a valid residual into Inf (a false breakdown) or 0 (a false
// convergence) for a badly scaled system; only then is the norm recomputed on v scaled
// by a power of two (exact), in the same fixed chunk order. NaN stays NaN.
func safeNorm(v []float64, ss float64, workers int) float64 {
	const tiny = 0x1p-900 // well above the subnormals, far below any sane squared norm
	if ss >= tiny && !math.IsInf(ss, 0) || math.IsNaN(ss) {
		return math.Sqrt(ss)
	}
	amax := 0.0
	for _, x := range v {
		amax = math.Max(amax, math.Abs(x))
	}
	if amax == 0 || math.IsInf(amax, 0) || math.IsNaN(amax) {
		return amax
	}
	_, e := math.Frexp(amax)
	s := math.Ldexp(1, -e)
	ss = reduce(len(v), workers, func(lo, hi int) float64 {
		t := 0.0
		for _, x := range v[lo:hi] {
			x *= s
			t += x * x
		}
		return t
	})
	return math.Sqrt(ss) / s
}
