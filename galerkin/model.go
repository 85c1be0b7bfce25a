package galerkin

import (
	"math"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// Stats are the pattern statistics of one Galerkin product that the traffic model
// needs. They depend on the patterns and block shapes only (not on values, nor on the
// machine); see the package documentation for how Predict uses them.
type Stats struct {
	N, M int // fine and coarse block rows
	B, K int // fine (A) and coarse (Ac) block sizes; P blocks are B×K

	NnzA, NnzP, NnzW, NnzAc int64 // stored blocks of A, P, W = A·P, Ac

	ProdAP int64 // block products B×B·B×K forming W: Σ over A blocks (i,j) of |P row j|
	ProdPW int64 // block products (B×K)ᵀ·B×K forming Ac: Σ over fine rows i of |P row i|·|W row i|

	MaxRowP, MaxRowW, MaxRowAc int // longest block rows of P, W and Ac

	// Live data, in bytes, averaged over the sweep that reuses it: the reuse distances
	// that decide whether a cache of a given size keeps the data between two uses.
	//   LiveP:  P rows (values and indices) between their first and last use by the
	//           A·P sweep over fine rows;
	//   LiveW:  W rows between their first and last use by the Pᵀ·W sweep over coarse
	//           rows (two-pass, inspector);
	//   LiveAc: Ac rows between their first and last update by the fused sweep over
	//           fine rows (fused-row, fused-recompute).
	LiveP, LiveW, LiveAc int64

	// AcVisits is the number of times the fused variants (one worker) bring an Ac row
	// in: they scatter a batch of fine rows at a time (fusedBatch), Ac row by Ac row,
	// so an Ac row is visited once per batch that touches it. Σ over batches of the
	// distinct Ac rows of the batch's P rows.
	AcVisits int64

	// Parallel overheads for a split into two chunks (Predict scales them by
	// workers−1): W blocks of the fine rows fused-row defers to its second pass, and
	// block products (W rows' A·P) that fused-recompute computes twice.
	DeferredW2    int64 // W blocks of the fine rows fused-row defers to its second pass
	RecomputeAP2  int64 // block products fused-recompute computes twice
	RecomputeRow2 int64 // fine rows computed twice by fused-recompute
	// FusedRowExcess2 is the flops on fused-row's critical path with two workers
	// beyond half of all: its longer first-pass chunk plus half its second pass
	// (the deferred contributions), less half the total.
	FusedRowExcess2 int64
}

// ComputeStats returns the statistics of PᵀAP for the patterns of A and P (which must
// have compatible shapes, see Symbolic). It costs about as much as a Symbolic call.
// Shapes that Symbolic would reject panic here: ComputeStats is for operators already
// known to fit.
func ComputeStats(A, P *bsr.Matrix) Stats {
	if err := checkShapes(A, P); err != nil {
		panic(err.Error())
	}
	w := productPattern(A.BlockRows, A.RowPtr, A.ColIdx, P.RowPtr, P.ColIdx, P.BlockCols, par.Workers())
	pt, _ := transposePattern(P.BlockRows, P.BlockCols, P.RowPtr, P.ColIdx)
	ac := productPattern(P.BlockCols, pt.rowPtr, pt.colIdx, w.rowPtr, w.colIdx, P.BlockCols, par.Workers())
	s, _, _ := analyse(A, P, w, pt, ac)
	return s
}

// analyse computes the statistics and the load-balancing weights of the plan: work,
// the prefix sum over fine rows of the multiply-adds of each W row and its Ac scatter,
// and coarseWork, the prefix sum over coarse rows of those of the fine rows each needs.
func analyse(A, P *bsr.Matrix, w, pt, ac *pattern) (s Stats, work, coarseWork []int64) {
	n, m := A.BlockRows, P.BlockCols
	b, k := int64(A.R), int64(P.C)
	s = Stats{
		N: n, M: m, B: A.R, K: P.C,
		NnzA: A.NNZBlocks(), NnzP: P.NNZBlocks(), NnzW: w.nnz(), NnzAc: ac.nnz(),
	}
	bbk, bkk := b*b*k, b*k*k
	prodAP := make([]int64, n) // block products of W row i
	work = make([]int64, n+1)
	for i := 0; i < n; i++ {
		for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
			j := A.ColIdx[q]
			prodAP[i] += P.RowPtr[j+1] - P.RowPtr[j]
		}
		np, nw := P.RowPtr[i+1]-P.RowPtr[i], w.rowPtr[i+1]-w.rowPtr[i]
		s.ProdAP += prodAP[i]
		s.ProdPW += np * nw
		s.MaxRowP = max(s.MaxRowP, int(np))
		s.MaxRowW = max(s.MaxRowW, int(nw))
		work[i+1] = work[i] + prodAP[i]*bbk + np*nw*bkk
	}
	coarseWork = make([]int64, m+1)
	for I := 0; I < m; I++ {
		s.MaxRowAc = max(s.MaxRowAc, int(ac.rowPtr[I+1]-ac.rowPtr[I]))
		var c int64
		for t := pt.rowPtr[I]; t < pt.rowPtr[I+1]; t++ {
			i := pt.colIdx[t]
			c += prodAP[i]*bbk + (w.rowPtr[i+1]-w.rowPtr[i])*bkk
		}
		coarseWork[I+1] = coarseWork[I] + c
	}

	// Live bytes: each row is live from its first to its last use; a difference array
	// over the sweep gives the bytes live at every step.
	live := func(steps int, rows int, first, last func(r int) int, bytes func(r int) int64) int64 {
		if steps == 0 {
			return 0
		}
		d := make([]int64, steps+1)
		for r := 0; r < rows; r++ {
			f := first(r)
			if f < 0 {
				continue
			}
			l := last(r)
			d[f] += bytes(r)
			d[l+1] -= bytes(r)
		}
		var cur, sum int64
		for t := 0; t < steps; t++ {
			cur += d[t]
			sum += cur
		}
		return sum / int64(steps)
	}
	// P row j is used by the fine rows i of A's column j.
	pFirst, pLast := make([]int32, n), make([]int32, n)
	for j := range pFirst {
		pFirst[j], pLast[j] = -1, -1
	}
	for i := 0; i < n; i++ {
		for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
			j := A.ColIdx[q]
			if pFirst[j] < 0 {
				pFirst[j] = int32(i)
			}
			pLast[j] = int32(i)
		}
	}
	pRowBytes := func(r int) int64 { return (P.RowPtr[r+1]-P.RowPtr[r])*(8*b*k+4) + 8 }
	s.LiveP = live(n, n, func(r int) int { return int(pFirst[r]) }, func(r int) int { return int(pLast[r]) }, pRowBytes)
	// W row i is used by the coarse rows of P row i.
	s.LiveW = live(m, n, func(r int) int {
		if P.RowPtr[r] == P.RowPtr[r+1] {
			return -1
		}
		return int(P.ColIdx[P.RowPtr[r]])
	}, func(r int) int { return int(P.ColIdx[P.RowPtr[r+1]-1]) },
		func(r int) int64 { return (w.rowPtr[r+1]-w.rowPtr[r])*(8*b*k+4) + 8 })
	// Ac row I is updated by the fine rows of Pᵀ row I.
	s.LiveAc = live(n, m, func(r int) int {
		if pt.rowPtr[r] == pt.rowPtr[r+1] {
			return -1
		}
		return int(pt.colIdx[pt.rowPtr[r]])
	}, func(r int) int { return int(pt.colIdx[pt.rowPtr[r+1]-1]) },
		func(r int) int64 { return (ac.rowPtr[r+1]-ac.rowPtr[r])*(8*k*k+4) + 8 })

	// Batches of fused-row on one worker: fine rows whose W rows fill the batch
	// buffer (at least one row).
	capBlocks := max(int64(s.MaxRowW), fusedBatchBytes/(8*b*k))
	seen := make([]int32, m)
	for I := range seen {
		seen[I] = -1
	}
	for i0, batch := 0, int32(0); i0 < n; batch++ {
		i1, used := i0, int64(0)
		for i1 < n {
			nw := w.rowPtr[i1+1] - w.rowPtr[i1]
			if i1 > i0 && used+nw > capBlocks {
				break
			}
			used += nw
			for q := P.RowPtr[i1]; q < P.RowPtr[i1+1]; q++ {
				if I := P.ColIdx[q]; seen[I] != batch {
					seen[I] = batch
					s.AcVisits++
				}
			}
			i1++
		}
		i0 = i1
	}

	// Two-chunk splits, as the variants make them.
	if n > 0 && m > 0 {
		bounds, chunkOf, first, pass1Max, pass2 := fusedSplit(work, P.RowPtr, P.ColIdx, pt, w, A.R, P.C, 2, 1)
		for i := 0; i < n; i++ {
			for q := P.RowPtr[i]; q < P.RowPtr[i+1]; q++ {
				if first[P.ColIdx[q]] != chunkOf[i] {
					s.DeferredW2 += w.rowPtr[i+1] - w.rowPtr[i]
					break
				}
			}
		}
		if len(bounds) > 2 {
			// Critical path: the longer first-pass chunk, then half the second pass.
			s.FusedRowExcess2 = 2 * max(pass1Max+(pass2+1)/2-(work[n]+1)/2, 0)
		}
		cb := chunkBounds(coarseWork, 2, 1)
		if len(cb) > 2 {
			// A fine row is computed twice when its P row has coarse columns on both
			// sides of the split.
			for i := 0; i < n; i++ {
				r0, r1 := P.RowPtr[i], P.RowPtr[i+1]
				if r0 < r1 && int(P.ColIdx[r0]) < cb[1] && int(P.ColIdx[r1-1]) >= cb[1] {
					s.RecomputeAP2 += prodAP[i]
					s.RecomputeRow2++
				}
			}
		}
	}
	return s, work, coarseWork
}

// Machine holds the parameters of the traffic model: a private cache per worker in
// front of a shared cache in front of memory, and the rates of each. The same model
// serves other processors (a GPU: shared memory / L2 / HBM) with other parameters.
type Machine struct {
	// CacheBytes is the shared last-level cache. Workers split it: each sweep is
	// assumed to get CacheBytes/Workers.
	CacheBytes int64
	// PrivateCacheBytes is the cache private to one worker (L2).
	PrivateCacheBytes int64
	// Bandwidth is the sustained memory bandwidth of Workers workers together, bytes
	// per second.
	Bandwidth float64
	// CacheBandwidth is the rate at which one worker moves data between the shared
	// and its private cache, bytes per second.
	CacheBandwidth float64
	// MemoryLatency is the effective cost, in seconds, of one worker starting to read a
	// row at a random place in memory (latency that prefetching cannot hide), beyond
	// the bandwidth term.
	MemoryLatency float64
	// FlopRate is the rate of one worker running the block kernels alone on operands in
	// its first-level cache, flop/s: the arithmetic ceiling.
	FlopRate float64
	// PerProduct and PerCall are the time one worker spends, with the operands in
	// cache, per block product and per kernel call (one per A block for W, one per P
	// block for Ac; a call sweeps a P or W row) on top of the flops at FlopRate: index
	// work (column lookups or slot lists), kernel set-up, row set-up (column maps,
	// clearing), and the private-cache traffic of where each variant puts its output.
	// PerProduct[c][v] is for kernel shape class c (shapeClass) and Variants[v].
	PerProduct, PerCall [2]VariantCosts
	// Workers is the number of workers the prediction is for.
	Workers int
}

// VariantCosts holds one cost in seconds for each concrete variant, in the order of
// Variants.
type VariantCosts [4]float64

// shapeClass returns the PerProduct class of a product with b×b blocks of A and b×k
// blocks of P: 0 when b < k (the fine level of elasticity, 3×3 and 3×6), 1 otherwise
// (the coarse levels, 6×6; and any square P blocks).
func shapeClass(b, k int) int {
	if b < k {
		return 0
	}
	return 1
}

func variantIndex(v Variant) int {
	for i, u := range Variants {
		if u == v {
			return i
		}
	}
	return -1
}

// DefaultMachine returns the parameters Calibrate measured on the 2-core development
// VM this package was tuned on (AMD EPYC Zen 5, 1 MiB L2 per core, an effective 32
// MiB of shared L3; AVX2 kernel; typical values over four calibrations), with
// Workers = GOMAXPROCS.
func DefaultMachine() Machine {
	w := par.Workers()
	bw := 45e9
	if w > 1 {
		bw = 70e9
	}
	return Machine{
		CacheBytes: 32 << 20, PrivateCacheBytes: 1 << 20,
		Bandwidth: bw, CacheBandwidth: 77e9,
		MemoryLatency: 65e-9,
		FlopRate:      40e9,
		PerProduct: [2]VariantCosts{
			{1.6e-9, 1.4e-9, 1.5e-9, 1.2e-9},
			{0, 0, 0, 0},
		},
		PerCall: [2]VariantCosts{
			{9.5e-9, 10.5e-9, 10.5e-9, 10.5e-9},
			{69e-9, 58e-9, 60e-9, 67e-9},
		},
		Workers: w,
	}
}

// Prediction is the model's estimate for one variant.
type Prediction struct {
	Bytes      int64 // bytes read and written from memory (misses in the shared cache)
	CacheBytes int64 // bytes moved between the shared and the private caches
	Flops      int64 // floating-point operations
	Fetches    int64 // rows read from a random place in memory
	// Seconds = max(compute, Bytes/Bandwidth + CacheBytes/(CacheBandwidth·W))
	//         + Fetches·MemoryLatency/W, compute as in the package documentation.
	Seconds float64
}

// reuse returns how many times data used `uses` times is fetched when `live` bytes
// are live between two uses and `cache` bytes of cache are available: once when it
// fits, every time when none of it fits, in proportion in between.
func reuse(live, cache int64, uses float64) float64 {
	if uses <= 1 || live <= cache || live == 0 {
		return 1
	}
	return 1 + (uses-1)*float64(live-cache)/float64(live)
}

// Predict returns the model's estimate of the numeric phase of variant v (the formulas
// are in the package documentation).
func Predict(s Stats, mc Machine, v Variant) Prediction {
	w := int64(max(mc.Workers, 1))
	b, k := int64(s.B), int64(s.K)
	flops := 2 * (s.ProdAP*b*b*k + s.ProdPW*b*k*k)
	switch v {
	case FusedRecompute:
		flops += (w - 1) * 2 * s.RecomputeAP2 * b * b * k
	}
	mem := traffic(s, v, mc.CacheBytes/w, w)
	llc := max(traffic(s, v, mc.PrivateCacheBytes, w)-mem, 0)
	fm := fetches(s, v, mc.CacheBytes/w, w)
	fw := float64(w)
	var stream float64
	if mc.Bandwidth > 0 {
		stream += float64(mem) / mc.Bandwidth
	}
	if mc.CacheBandwidth > 0 {
		stream += float64(llc) / (mc.CacheBandwidth * fw)
	}
	// Compute: the flops on the critical path at FlopRate plus the per-product costs.
	crit := float64(flops)
	products, calls := float64(s.ProdAP+s.ProdPW), float64(s.NnzA+s.NnzP)
	switch v {
	case FusedRow:
		crit += float64((w-1)*s.FusedRowExcess2) * fw
	case FusedRecompute:
		products += float64((w - 1) * s.RecomputeAP2)
		if s.N > 0 {
			calls += float64((w-1)*s.RecomputeRow2) * float64(s.NnzA) / float64(s.N)
		}
	}
	var compute float64
	if mc.FlopRate > 0 {
		compute = crit / (mc.FlopRate * fw)
	}
	if i := variantIndex(v); i >= 0 {
		c := shapeClass(s.B, s.K)
		compute += (products*mc.PerProduct[c][i] + calls*mc.PerCall[c][i]) / fw
	}
	sec := max(compute, stream) + float64(fm)*mc.MemoryLatency/fw
	return Prediction{Bytes: mem, CacheBytes: llc, Fetches: fm, Flops: flops, Seconds: sec}
}

// miss returns the fraction of reuses that miss a cache of the given size when live
// bytes are live between two uses.
func miss(live, cache int64) float64 {
	if live <= cache || live == 0 {
		return 0
	}
	return float64(live-cache) / float64(live)
}

// fetches returns the number of rows variant v starts reading at a place of memory
// that neither the cache of the given size nor a prefetcher following a sweep holds.
// The A·P sweep reads A, P and the W pattern in streams; the rows that break them are
// those the Pᵀ·W sweep of the stored-W variants visits in coarse order (each W row's
// first use, each P block, and W reuses the cache misses) and the Ac rows the fused
// sweep updates (first visit, and later batch visits the cache misses).
func fetches(s Stats, v Variant, cache, w int64) int64 {
	b, k := int64(s.B), int64(s.K)
	wBytes := s.NnzW*(8*b*k+4) + 8*int64(s.N)
	pBytes := s.NnzP*(8*b*k+4) + 8*int64(s.N)
	acBytes := s.NnzAc*(8*k*k+4) + 8*int64(s.M)
	var f float64
	switch v {
	case TwoPass, Inspector:
		f = float64(s.N)*miss(wBytes, cache) + float64(s.NnzP-int64(s.N))*miss(s.LiveW, cache) +
			float64(s.NnzP)*miss(pBytes, cache)
	case FusedRow, FusedRecompute:
		f = float64(s.M)*miss(acBytes, cache) + float64(max(s.AcVisits-int64(s.M), 0))*miss(s.LiveAc, cache)
	}
	return int64(max(f, 0))
}

// writtenMiss returns the fraction of the W rows of the stored-W variants that a
// cache of the given size has evicted between writing them (A·P sweep) and reading
// them back (Pᵀ·W sweep). For the row at fraction x of the sweeps (fine and coarse
// rows advance together), the data touched in between is about
//
//	D(x) = both + (1−x)·first + x·second
//
// with both the data both sweeps touch (W and P), first what only the rest of the A·P
// sweep touches (A) and second what only the start of the Pᵀ·W sweep does (Ac); the
// row misses when D(x) > cache. The result is the fraction of x ∈ [0, 1] for which it
// does: 0 when everything fits, 1 when even the smaller end does not.
func writtenMiss(both, first, second, cache int64) float64 {
	d0, d1 := float64(both+first), float64(both+second) // D(0), D(1)
	c := float64(cache)
	switch {
	case d0 <= c && d1 <= c:
		return 0
	case d0 > c && d1 > c:
		return 1
	}
	return math.Abs(max(d0, d1)-c) / math.Abs(d0-d1)
}

// traffic returns the bytes variant v moves past a cache of the given size when run
// on w workers.
func traffic(s Stats, v Variant, cache, w int64) int64 {
	b, k := int64(s.B), int64(s.K)
	n, m := int64(s.N), int64(s.M)
	vA, vP, vW, vAc := 8*b*b, 8*b*k, 8*b*k, 8*k*k // bytes of one block's values
	per := func(x, y int64) float64 {
		if y == 0 {
			return 0
		}
		return float64(x) / float64(y)
	}
	scale := func(x int64, f float64) int64 { return int64(float64(x) * f) }

	// Common to all: A once; P once plus its re-reads by the A·P sweep (each P row is
	// used by the |A column| fine rows next to it); Ac written once (read for
	// ownership, then written back) with its pattern.
	readA := s.NnzA*(vA+4) + 8*(n+1)
	readP := scale(s.NnzP*(vP+4)+8*(n+1), reuse(s.LiveP, cache, per(s.NnzA, n)))
	writeAc := s.NnzAc*(2*vAc+4) + 8*(m+1)
	wPattern := s.NnzW*4 + 8*(n+1)
	switch v {
	case TwoPass, Inspector:
		// W written (with read for ownership) and read back by coarse rows through Pᵀ,
		// each W row once per coarse row of its P row unless the cache keeps it.
		// The first read of a W row comes from memory only when the data touched since
		// it was written pushed it out: the rest of the A·P sweep and the start of the
		// Pᵀ·W sweep (writtenMiss). Its later reads by other coarse rows hit while the
		// live W rows fit (reuse − 1).
		wBytes := s.NnzW*(vW+4) + 8*(n+1)
		var s1, s2 int64 // slot lists streamed by each sweep
		if v == Inspector {
			s1, s2 = 4*s.ProdAP, 4*s.ProdPW
		}
		first := writtenMiss(wBytes+s.NnzP*(vP+4), s.NnzA*(vA+4)+s1, s.NnzAc*(vAc+4)+s2, cache)
		readW := scale(wBytes, first+reuse(s.LiveW, cache, per(s.NnzP, n))-1)
		pt := s.NnzP*(4+8+vP) + 8*(m+1) // Pᵀ indices, permutation, P values again
		t := readA + readP + 2*s.NnzW*vW + readW + pt + writeAc
		if v == TwoPass {
			return t + wPattern
		}
		return t + 4*(s.ProdAP+s.ProdPW) + 8*(n+m+2) // slot lists instead of lookups
	case FusedRow, FusedRecompute:
		// Each update of an Ac block by a fine row hits the cache while the live Ac rows
		// fit, else it is a read and a write-back; likewise the Ac row's pattern, read
		// once per (fine row, coarse row) pair.
		// An Ac row is used once per batch that touches it (AcVisits); the batch's
		// W buffer is written and read in the cache, but comes in once (read for
		// ownership) and is written back once.
		acUse := reuse(s.LiveAc, cache, per(s.AcVisits, m))
		buf := 2 * min(s.NnzW*vW, fusedBatchBytes)
		t := readA + readP + wPattern + scale(s.NnzAc*(2*vAc+4), acUse) + 8*(m+1) + buf
		if v == FusedRow {
			return t + (w-1)*s.DeferredW2*2*vW // deferred W rows written and read
		}
		return t + scale((w-1)*(readA+readP+wPattern), per(s.RecomputeRow2, n))
	}
	return 0
}

// chooseTie is the relative difference of predicted times below which Choose treats
// two variants as equally fast: about the spread of the calibrated per-call costs
// between calibrations on a quiet machine.
const chooseTie = 0.02

// Choose returns the variant with the smallest predicted time. Predictions within
// chooseTie of the best are decided by the data moved (memory and shared-cache bytes),
// then by the order of Variants: when the model cannot tell variants apart, the one
// that leans least on the memory system is the safer bet on a shared machine.
func Choose(s Stats, mc Machine) Variant {
	pred := make([]Prediction, len(Variants))
	best := 0
	for i, v := range Variants {
		pred[i] = Predict(s, mc, v)
		if pred[i].Seconds < pred[best].Seconds {
			best = i
		}
	}
	pick := -1
	for i := range Variants {
		if pred[i].Seconds > pred[best].Seconds*(1+chooseTie) {
			continue
		}
		if pick < 0 || pred[i].Bytes+pred[i].CacheBytes < pred[pick].Bytes+pred[pick].CacheBytes {
			pick = i
		}
	}
	return Variants[pick]
}
