package bsr

import "math"

// SumSquaresTiny is the smallest plain sum of squares that SumSquares takes as it is.
// Squares under 2⁻¹⁰²² (entries under about 1.5e-154) lose bits to subnormals or
// vanish; a sum of at least 2⁻⁹⁰⁰ has lost at most 2⁻¹²² of itself per term that way,
// far below a rounding error, so it stands.
const SumSquaresTiny = 0x1p-900

// SumSquares returns s and e with Σ v_i² = s·4^e (that is, ‖v‖₂ = √s·2^e).
//
// It first forms the plain sum of squares, in order; when that is at least
// SumSquaresTiny and finite, which is the case for any data whose scale is not
// extreme, it is returned as it is with e = 0, so a caller gets the very bits of the
// plain sum. Only when the plain sum underflows (entries all under about 1e-154, or
// an exactly zero v) or overflows (an entry beyond about 1e154) is it recomputed on v
// scaled by 2⁻ᵉ, e the binary exponent of max|v|: an exact scaling, after which
// s lies in [1/4, len(v)]. A zero v gives (0, 0), an infinite entry (+Inf, 0) and a
// NaN (NaN, 0).
func SumSquares(v []float64) (s float64, e int) {
	for _, x := range v {
		s += x * x
	}
	if s >= SumSquaresTiny && !math.IsInf(s, 0) || math.IsNaN(s) {
		return s, 0
	}
	amax := 0.0
	for _, x := range v {
		if math.IsNaN(x) {
			return math.NaN(), 0
		}
		amax = math.Max(amax, math.Abs(x))
	}
	if amax == 0 || math.IsInf(amax, 0) {
		return amax, 0
	}
	_, e = math.Frexp(amax)
	s = 0
	for _, x := range v {
		x = math.Ldexp(x, -e)
		s += x * x
	}
	return s, e
}

// Norm returns the Euclidean norm of v from SumSquares: math.Sqrt of the plain sum of
// squares, bit for bit, wherever that sum neither underflows nor overflows, and the
// norm of v computed on v scaled by a power of two otherwise. The result is accurate
// for any finite v; it overflows only where the norm itself exceeds the float64 range.
func Norm(v []float64) float64 {
	s, e := SumSquares(v)
	return math.Ldexp(math.Sqrt(s), e)
}
