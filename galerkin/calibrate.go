package galerkin

import (
	"slices"
	"time"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
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
//   - FlopRate: one worker running the 3×3·3×6 register kernel on blocks in its
//     first-level cache.
//   - PerProduct, PerCall: for each shape class and variant, one worker's time
//     beyond its flops at FlopRate on two products that stay in the shared cache
//     (calibrationProblems), the best of 10 runs with the variants taking turns,
//     fitted as products·PerProduct + kernel calls·PerCall.
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
	if r := measureKernel(); r > 0 {
		mc.FlopRate = r
		for c := range mc.PerProduct {
			if prod, call, ok := measureOverheads(c, r); ok {
				mc.PerProduct[c], mc.PerCall[c] = prod, call
			}
		}
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

// measureKernel returns the rate of one worker running the 3×3·3×6 block kernel on
// 16 blocks held in its first-level cache, flop/s (the best of a few timings).
func measureKernel() float64 {
	const nb = 16
	var a [9]float64
	for i := range a {
		a[i] = 0.1 * float64(i+1)
	}
	src := make([]float64, nb*18)
	out := make([]float64, nb*18)
	cols := make([]int32, nb)
	for i := range cols {
		cols[i] = int32(nb - 1 - i)
		for j := 0; j < 18; j++ {
			src[i*18+j] = 0.01 * float64(i+j)
		}
	}
	const reps = 1 << 14
	best := 0.0
	for r := 0; r < 5; r++ {
		start := time.Now()
		for t := 0; t < reps; t++ {
			kern336(&a, src, 18, 0, cols, nil, out, 18, 0)
		}
		best = max(best, float64(reps*nb*108)/time.Since(start).Seconds())
	}
	return best
}

// calibrationProblems returns the two products the per-product and per-call costs
// of shape class c are fitted on: synthetic smoothed-aggregation levels
// (stencilProduct) whose rows bracket those of an elasticity hierarchy, one with
// short P and W rows (many kernel calls per product) and one with long rows. Class 0
// has 3×3·3×6 blocks, 27-point stencils and aggregates of 3³ then 2³ nodes (P 3.4
// and 5.8 blocks a row); class 1 has 6×6 blocks, a 27-point stencil with 3³-node
// aggregates and a 125-point one (P 3.4 and 6.7 blocks a row, A 23 and 81). All stay
// in the shared cache between runs.
func calibrationProblems(c int) (A, P [2]*bsr.Matrix, err error) {
	type spec struct{ side, b, k, radius, agg int }
	specs := [2][2]spec{
		{{12, 3, 6, 1, 3}, {10, 3, 6, 1, 2}},
		{{12, 6, 6, 1, 3}, {9, 6, 6, 2, 3}},
	}
	for i, s := range specs[c] {
		if A[i], P[i], err = stencilProduct(s.side, s.b, s.k, s.radius, s.agg, uint64(i+1)); err != nil {
			return A, P, err
		}
	}
	return A, P, nil
}

// measureOverheads returns, for every variant, the seconds one worker spends per
// block product and per kernel call beyond flops/flopRate (Machine.PerProduct and
// PerCall), fitted exactly to its best time on each of the two calibration problems
// of shape class c (calibrationProblems; best of several runs, variants taking
// turns). A cost the fit makes negative (noise, when a variant's overhead is mostly of
// one kind) is set to zero and the other fitted alone. ok is false when a problem
// cannot be built.
func measureOverheads(c int, flopRate float64) (perProduct, perCall VariantCosts, ok bool) {
	As, Ps, err := calibrationProblems(c)
	if err != nil {
		return perProduct, perCall, false
	}
	var extra [2]VariantCosts // seconds beyond the flops, per problem and variant
	var products, calls [2]float64
	for k := range As {
		A, P := As[k], Ps[k]
		plans := make([]*Plan, len(Variants))
		for i, v := range Variants {
			if plans[i], err = Symbolic(A, P, v); err != nil {
				return perProduct, perCall, false
			}
		}
		st := plans[0].Stats()
		flops := float64(2 * (st.ProdAP*int64(st.B*st.B*st.K) + st.ProdPW*int64(st.B*st.K*st.K)))
		products[k], calls[k] = float64(st.ProdAP+st.ProdPW), float64(st.NnzA+st.NnzP)
		best := make([]float64, len(Variants))
		for r := 0; r < 10; r++ {
			for i, p := range plans {
				start := time.Now()
				if p.Numeric(A, P, 1) != nil {
					return perProduct, perCall, false
				}
				if t := time.Since(start).Seconds(); r == 0 || t < best[i] {
					best[i] = t
				}
			}
		}
		for i := range Variants {
			extra[k][i] = max(best[i]-flops/flopRate, 0)
		}
	}
	det := products[0]*calls[1] - products[1]*calls[0]
	for i := range Variants {
		e0, e1 := extra[0][i], extra[1][i]
		var tau, kappa float64
		if det != 0 {
			tau = (e0*calls[1] - e1*calls[0]) / det
			kappa = (products[0]*e1 - products[1]*e0) / det
		}
		switch {
		case det == 0 || (tau < 0 && kappa < 0):
			tau, kappa = (e0+e1)/(products[0]+products[1]), 0
		case tau < 0:
			tau, kappa = 0, (e0+e1)/(calls[0]+calls[1])
		case kappa < 0:
			tau, kappa = (e0+e1)/(products[0]+products[1]), 0
		}
		perProduct[i], perCall[i] = tau, kappa
	}
	return perProduct, perCall, true
}
