package galerkin

import (
	"slices"
	"time"

	"blockamg/galerkin/galerkintest"
	"blockamg/internal/par"
)

// Calibrate returns mc with the rates of the model measured on this machine for
// mc.Workers workers (<= 0: GOMAXPROCS) and mc's cache sizes: Bandwidth, the best of a few passes of a read-modify-write
// sweep y += x over arrays much larger than any cache on that many workers (counted
// as 3 × 8 bytes per element: read x, read y, write y); CacheBandwidth, the same sweep
// on one worker over arrays that fit the shared cache but not the private one; and
// FlopRate, the best rate of one worker running the numeric phase on a product small
// enough to stay in cache (a synthetic 8×8×8-node elasticity grid, 3×3·3×6 blocks).
// It takes about a second.
func Calibrate(mc Machine) Machine {
	if mc.Workers <= 0 {
		mc.Workers = par.Workers()
	}
	workers := mc.Workers
	mc.Bandwidth = measureBandwidth(workers, 1<<24) // 2 × 128 MiB
	// Shared-cache bandwidth of one worker: arrays of 4 × the private cache, well
	// inside the shared one.
	mc.CacheBandwidth = measureBandwidth(1, int(max(mc.PrivateCacheBytes/4, 1<<14)))
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
	reps := max(5, (1<<26)/n) // small arrays: enough passes to time
	for r := 0; r < reps; r++ {
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
