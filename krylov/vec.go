package krylov

import "blockamg/internal/par"

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
