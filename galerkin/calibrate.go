package galerkin

import (
	"slices"
	"time"

	"blockamg/galerkin/galerkintest"
	"blockamg/internal/par"
)

// Calibrate returns mc with the parameters of the model measured on this machine for
// mc.Workers workers (<= 0: GOMAXPROCS). It takes a few seconds.
//
//   - CacheBytes: the largest footprint of a one-worker streaming sweep y += x that
//     still runs at least 1.5 times faster than from memory (the shared cache this
//     process really gets, which on a shared virtual machine can be far below the
//     nominal size), sizes doubling from 4 × PrivateCacheBytes to 256 MiB.
//   - Bandwidth: the same sweep over 256 MiB on mc.Workers workers (counted as 3 × 8
//     bytes per element: read x, read y, write y); CacheBandwidth: one worker over a
//     footprint of 4 × PrivateCacheBytes.
//   - MemoryLatency: one worker reading 1 KiB rows at random places of an array of
//     256 MiB: time per row less its bandwidth share.
//   - FlopRate: the best rate of one worker running the numeric phase on a product
//     small enough to stay in cache (a synthetic 8×8×8-node elasticity grid).
//
// PrivateCacheBytes is taken from mc.
func Calibrate(mc Machine) Machine {
	if mc.Workers <= 0 {
		mc.Workers = par.Workers()
	}
	workers := mc.Workers
	priv := max(mc.PrivateCacheBytes, 64<<10)
	mem1 := measureBandwidth(1, 1<<24)
	llc := int64(0)
	for size := 4 * priv; size <= 256<<20; size *= 2 {
		if measureBandwidth(1, int(size/16)) < 1.5*mem1 {
			break
		}
		llc = size
	}
	if llc > 0 {
		mc.CacheBytes = llc
	}
	mc.Bandwidth = mem1
	if workers > 1 {
		mc.Bandwidth = measureBandwidth(workers, 1<<24) // 2 × 128 MiB
	}
	mc.CacheBandwidth = measureBandwidth(1, int(4*priv/16))
	mc.MemoryLatency = max(measureRowFetch(256<<20)-1024/mem1, 0)
	if r := measureInCache(); r > 0 {
		mc.FlopRate = r
	}
	return mc
}

// measureRowFetch returns the time one worker takes to read a 1 KiB row starting at a
// random place of an array of the given size (one value per cache line, so that the
// sum's dependency chain does not hide the memory's latency).
func measureRowFetch(size int64) float64 {
	const row = 128 // float64s
	n := int(size / 8)
	x := make([]float64, n)
	for i := range x {
		x[i] = 1
	}
	rows := n / row
	const fetches = 1 << 15
	idx := make([]int32, fetches)
	state := uint64(0x9e3779b97f4a7c15)
	for i := range idx {
		state ^= state << 13
		state ^= state >> 7
		state ^= state << 17
		idx[i] = int32(state % uint64(rows))
	}
	best := 0.0
	var sink float64
	for r := 0; r < 3; r++ {
		start := time.Now()
		for _, q := range idx {
			s := x[int(q)*row : int(q)*row+row]
			for j := 0; j < row; j += 8 {
				sink += s[j]
			}
		}
		t := time.Since(start).Seconds() / fetches
		if r == 0 || t < best {
			best = t
		}
	}
	if sink == 0 {
		return 0
	}
	return best
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
	reps := max(3, (1<<25)/n) // small arrays: enough passes to time
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
