package galerkin

import (
	"slices"
	"time"

	"blockamg/galerkin/galerkintest"
	"blockamg/internal/par"
)

// Calibrate measures the rates of the model on this machine for the given worker
// count (<= 0: GOMAXPROCS): Bandwidth, the best of a few passes of a read-modify-write
// sweep y += x over arrays much larger than any cache on that many workers (counted
// as 3 × 8 bytes per element: read x, read y, write y), and FlopRate, the best rate of
// one worker running the numeric phase on a product small enough to stay in cache (a
// synthetic 8×8×8-node elasticity grid, 3×3·3×6 blocks). CacheBytes is left at
// DefaultMachine's. It takes about a second.
func Calibrate(workers int) Machine {
	if workers <= 0 {
		workers = par.Workers()
	}
	mc := DefaultMachine()
	mc.Workers = workers
	mc.Bandwidth = measureBandwidth(workers, 1<<24) // 2 × 128 MiB
	if r := measureInCache(); r > 0 {
		mc.FlopRate = r
	}
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

// measureInCache returns the best single-worker flop rate of the fused row-wise
// numeric phase on a cache-resident synthetic product, or 0 if it cannot be built.
func measureInCache() float64 {
	pr, err := galerkintest.Grid(8, 8, 8, 27, 1)
	if err != nil {
		return 0
	}
	plan, err := Symbolic(pr.A, pr.P, FusedRow)
	if err != nil {
		return 0
	}
	flops := float64(Predict(plan.Stats(), DefaultMachine(), FusedRow).Flops)
	best := 0.0
	for r := 0; r < 20; r++ {
		start := time.Now()
		if plan.Numeric(pr.A, pr.P, 1) != nil {
			return 0
		}
		best = max(best, flops/time.Since(start).Seconds())
	}
	return best
}
