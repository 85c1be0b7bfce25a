package galerkin

import (
	"slices"
	"time"

	"blockamg/internal/par"
)

// Calibrate measures the two rates of the model on this machine for the given worker
// count (<= 0: GOMAXPROCS): the streaming bandwidth, as the best of a few passes of a
// read-modify-write sweep y += x over arrays much larger than any cache (counted as
// 3 × 8 bytes per element: read x, read y, write y), and the flop rate of the 3×3·3×6
// block kernel on cache-resident data. CacheBytes is left at DefaultMachine's. It takes
// about a second.
func Calibrate(workers int) Machine {
	if workers <= 0 {
		workers = par.Workers()
	}
	mc := DefaultMachine()
	mc.Workers = workers
	mc.Bandwidth = measureBandwidth(workers, 1<<24) // 2 × 128 MiB
	mc.FlopRate = measureKernel()
	return mc
}

func measureBandwidth(workers, n int) float64 {
	x := make([]float64, n)
	y := make([]float64, n)
	par.For(n, workers, 1<<16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x[i], y[i] = 1, 0
		}
	})
	var times []float64
	for r := 0; r < 5; r++ {
		start := time.Now()
		par.For(n, workers, 1<<16, func(lo, hi int) {
			xs, ys := x[lo:hi], y[lo:hi]
			for i := range ys {
				ys[i] += xs[i]
			}
		})
		times = append(times, time.Since(start).Seconds())
	}
	return float64(3*8*n) / slices.Min(times)
}

// measureKernel returns the single-thread flop rate of kern336 on blocks that stay in
// the L1 cache.
func measureKernel() float64 {
	const nb = 16
	var a [9]float64
	for i := range a {
		a[i] = 0.1 * float64(i)
	}
	src := make([]float64, nb*18)
	out := make([]float64, nb*18)
	slots := make([]int32, nb)
	for i := range slots {
		slots[i] = int32(nb - 1 - i)
	}
	for i := range src {
		src[i] = 1e-3 * float64(i)
	}
	const reps = 20000
	best := 0.0
	for r := 0; r < 5; r++ {
		start := time.Now()
		for k := 0; k < reps; k++ {
			kern336(&a, src, 18, 0, slots, nil, out, 18, 0)
		}
		rate := float64(reps*nb*2*54) / time.Since(start).Seconds()
		best = max(best, rate)
	}
	return best
}
