package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/galerkin"
	"github.com/blockamg/blockamg/galerkin/galerkintest"
	"github.com/blockamg/blockamg/internal/par"
	"github.com/blockamg/blockamg/matio"
)

func init() {
	register("galerkin", "benchmark the Galerkin product PᵀAP per level on the CPU: variants, traffic model, planner (--gpu: galerkin-gpu)", runGalerkin)
}

// galerkinLevel is one product to benchmark.
type galerkinLevel struct {
	A, P *bsr.Matrix
	sym  bool // the plans compute the symmetric half (--symmetric and a symmetric A)
}

func runGalerkin(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("galerkin", "--ne N [--source amg|synthetic] | --matrix A.mtx --prolongator P.mtx [flags]", stderr)
	ne := fs.Int("ne", 0, "ex56 mesh: (ne+1)³ nodes, 3 unknowns each")
	source := fs.String("source", "amg", "with --ne: amg (fem ex56 matrix, amg smoothed-aggregation hierarchy with 6 rigid-body modes) or synthetic (random 27-point 3×3 blocks, 3×3×3 node-cube aggregates smoothed once, per level)")
	matrix := fs.String("matrix", "", "fine matrix file (Matrix Market or PETSc binary), instead of --ne")
	prolong := fs.String("prolongator", "", "prolongator file (Matrix Market or PETSc binary), with --matrix")
	bs := fs.Int("block-size", 3, "with --matrix: block size b of A (P's blocks are b × coarse-block)")
	cb := fs.Int("coarse-block", 6, "with --matrix: columns k of P's blocks")
	levels := fs.Int("levels", 0, "benchmark at most this many levels, finest first (0: all)")
	variant := fs.String("variant", "all", "all or one of "+galerkin.VariantNames()+"; with --gpu, all or one of "+gpuGalerkinVariantNames())
	runs := fs.Int("runs", 9, "least timed runs per variant (median reported), after one warm-up run")
	maxRuns := fs.Int("max-runs", 401, "most timed runs per variant (short levels get more runs, up to this and --level-seconds)")
	levelSeconds := fs.Float64("level-seconds", 20, "seconds of timed rounds, flushes included, beyond which a level gets no more runs than --runs")
	minTime := fs.Float64("min-time", 0.25, "seconds of timed runs the fastest variant gets at least, runs permitting (--runs … --max-runs)")
	threads := fs.String("threads", "1,2", "comma-separated worker counts")
	calibrate := fs.Bool("calibrate", true, "measure bandwidth and kernel flop rate for the model (else DefaultMachine)")
	cacheMB := fs.Float64("cache-mb", 0, "model shared cache size in MiB (0: DefaultMachine's)")
	l2KB := fs.Float64("l2-kb", 0, "model private cache size per thread in KiB (0: DefaultMachine's)")
	simulate := fs.Bool("simulate", false, "also replay each variant's accesses (one thread) through a software LRU cache at the model's cache sizes and compare the predicted bytes (slow: ~100× a run)")
	gpu := fs.Bool("gpu", false, "run the GPU variants on an NVIDIA GPU instead, as galerkin-gpu does (ex56 --ne only; an error without one)")
	symmetric := fs.Bool("symmetric", true, "for a symmetric A (checked), every variant computes the Ac blocks on and above the diagonal and mirrors them (on the GPU tc-block, smem-tiles and tc-pairs); false: all of them")
	am := amg.DefaultOptions()
	fs.Float64Var(&am.Threshold, "threshold", am.Threshold, "with --ne: strength threshold of the hierarchy (-pc_gamg_threshold)")
	fs.IntVar(&am.AggressiveLevels, "aggressive-levels", am.AggressiveLevels, "with --ne: levels coarsened with distance-2 MIS")
	fs.Float64Var(&am.FilterTheta, "filter", 0, "with --ne: also build the hierarchy with prolongator filtering θ and compare PᵀAP before/after")
	fs.Float64Var(&am.FilterScale, "filter-scale", 1, "per-level factor s of the filter threshold: θ_l = θ·s^l")
	flushMB := fs.Float64("flush-mb", 640, "MiB written between timed runs to evict the previous run's data (twice the largest last-level cache in sight; 0: no flush)")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if *runs < 1 || *maxRuns < *runs {
		return fmt.Errorf("--runs %d, --max-runs %d: want 1 ≤ runs ≤ max-runs", *runs, *maxRuns)
	}
	if !(*minTime >= 0) || !(*levelSeconds >= 0) {
		return fmt.Errorf("--min-time %g, --level-seconds %g: want non-negative numbers of seconds", *minTime, *levelSeconds)
	}
	tc := timing{minRuns: *runs, maxRuns: *maxRuns, minTime: *minTime, levelSeconds: *levelSeconds}
	if err := am.Validate(); err != nil {
		return err
	}
	switch {
	case *bs < 1 || *cb < 1:
		return fmt.Errorf("--block-size %d, --coarse-block %d: want at least 1", *bs, *cb)
	case *levels < 0:
		return fmt.Errorf("--levels %d: want ≥ 0", *levels)
	case !(*cacheMB >= 0) || !(*l2KB >= 0) || !(*flushMB >= 0):
		return fmt.Errorf("--cache-mb %g, --l2-kb %g, --flush-mb %g: want non-negative numbers", *cacheMB, *l2KB, *flushMB)
	}
	if *gpu {
		if *matrix != "" || *source != "amg" || am.FilterTheta != 0 {
			return errors.New("--gpu runs on the ex56 hierarchy (--ne) only, without --filter for now")
		}
		return runGalerkinGPU(*ne, *variant, *runs, *levels, *symmetric, true, stdout, stderr)
	}
	var variants []galerkin.Variant
	if *variant == "all" {
		variants = galerkin.Variants
	} else {
		v := galerkin.Variant(*variant)
		if !v.Valid() || v == "" {
			return fmt.Errorf("--variant %q: want all or one of %s", *variant, galerkin.VariantNames())
		}
		variants = []galerkin.Variant{v}
	}
	var workers []int
	for _, f := range strings.Split(*threads, ",") {
		w, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || w < 1 {
			return fmt.Errorf("--threads %q: want positive integers separated by commas", *threads)
		}
		workers = append(workers, w)
	}

	theta := am.FilterTheta
	am.FilterTheta = 0
	lv, what, err := galerkinProblem(*ne, *source, *matrix, *prolong, *bs, *cb, am, stderr)
	if err != nil {
		return err
	}
	var filtered []galerkinLevel
	if theta > 0 {
		if *matrix != "" || *source != "amg" {
			return errors.New("--filter needs the amg hierarchy of --ne")
		}
		am.FilterTheta = theta
		if filtered, _, err = galerkinProblem(*ne, *source, "", "", *bs, *cb, am, stderr); err != nil {
			return err
		}
	}
	if *levels > 0 && len(lv) > *levels {
		lv = lv[:*levels]
	}
	if *levels > 0 && len(filtered) > *levels {
		filtered = filtered[:*levels]
	}
	half := "all of each Ac"
	if *symmetric && len(lv) > 0 {
		if err := lv[0].A.CheckSymmetric(); err != nil {
			fmt.Fprintf(stderr, "galerkin: A is %v; the products compute all of each Ac\n", err)
		} else {
			half = "the symmetric half of each Ac (--symmetric=false: all of it)"
			for _, l := range []([]galerkinLevel){lv, filtered} {
				for i := range l {
					l[i].sym = true
				}
			}
		}
	}
	fmt.Fprintf(stdout, "galerkin: %s, %d level(s); the products compute %s\n", what, len(lv), half)
	// The model's machine for each thread count, calibrated once.
	machines := make([]galerkin.Machine, len(workers))
	for i, w := range workers {
		mc := galerkin.DefaultMachine()
		mc.Workers = w
		if *cacheMB > 0 {
			mc.CacheBytes = int64(*cacheMB * (1 << 20))
		}
		if *l2KB > 0 {
			mc.PrivateCacheBytes = int64(*l2KB * (1 << 10))
		}
		if *calibrate {
			mc = galerkin.Calibrate(mc)
		}
		machines[i] = mc
	}
	// One flush buffer for every timed run: allocating it per level and thread count
	// would page in fresh memory each time.
	flush := make([]float64, int64(*flushMB*(1<<20))/8)
	best, err := benchLevels(stdout, lv, variants, workers, machines, tc, flush)
	if err != nil {
		return err
	}
	if *simulate {
		if err := simulateLevels(stdout, lv, variants, machines[0]); err != nil {
			return err
		}
	}
	if len(filtered) == 0 {
		return nil
	}
	fmt.Fprintf(stdout, "\n=== with prolongator filtering θ = %g (scale %g per level) ===\n", theta, am.FilterScale)
	bestF, err := benchLevels(stdout, filtered, variants, workers, machines, tc, flush)
	if err != nil {
		return err
	}
	printFilterComparison(stdout, lv, filtered, best, bestF, workers)
	return nil
}

// benchLevels times every variant on every level for every worker count and prints
// the per-level tables; it returns the fastest median per level and worker count.
func benchLevels(stdout io.Writer, lv []galerkinLevel, variants []galerkin.Variant, workers []int, machines []galerkin.Machine, tc timing, flush []float64) ([][]float64, error) {
	best := make([][]float64, len(lv))
	var summary []string
	defer func() {
		if len(summary) > 0 {
			fmt.Fprintf(stdout, "\nplanner summary (pick's median against the fastest median):\n  %5s %7s %8s %-16s %-16s %10s %8s\n",
				"level", "threads", "rows", "pick", "fastest", "fastest ms", "pick +")
			for _, line := range summary {
				fmt.Fprintln(stdout, line)
			}
		}
	}()
	for l, L := range lv {
		best[l] = make([]float64, len(workers))
		st := galerkin.ComputeStats(L.A, L.P)
		fmt.Fprintf(stdout, "\nlevel %d: A %d×%d blocks of %d×%d (%.1f/row), P %d×%d blocks of %d×%d (%.2f/row), W %.2f/row, Ac %.1f/row; %.2f GFLOP\n",
			l, st.N, st.N, st.B, st.B, ratio(st.NnzA, st.N), st.N, st.M, st.B, st.K, ratio(st.NnzP, st.N),
			ratio(st.NnzW, st.N), ratio(st.NnzAc, st.M), float64(galerkin.Predict(st, galerkin.DefaultMachine(), galerkin.TwoPass).Flops)/1e9)
		for wi, w := range workers {
			mc := machines[wi]
			pick := galerkin.Choose(st, mc)
			fmt.Fprintf(stdout, "  threads %d (model: memory %.1f GB/s, %.0f ns per random row; shared cache %d MiB, %.1f GB/s; private %d KiB; %.2f GFLOP/s per thread)\n",
				w, mc.Bandwidth/1e9, mc.MemoryLatency*1e9, mc.CacheBytes>>20, mc.CacheBandwidth/1e9,
				mc.PrivateCacheBytes>>10, mc.FlopRate/1e9)
			times, err := timeVariants(L, variants, w, tc, flush)
			if err != nil {
				return nil, fmt.Errorf("level %d: %w", l, err)
			}
			for i, t := range times {
				if i == 0 || t.median < best[l][wi] {
					best[l][wi] = t.median
				}
			}
			fmt.Fprintf(stdout, "    %d timed runs per variant (rounds, order rotated), median; ±: half the interquartile range\n", times[0].runs)
			fmt.Fprintf(stdout, "    %-16s %8s %9s %9s %9s %10s %6s %9s %7s %8s %9s\n", "variant", "plan MB", "pred MB", "cache MB", "pred ms", "median ms", "±%", "min ms", "GB/s", "GFLOP/s", "pred/meas")
			for _, t := range times {
				pr := galerkin.Predict(st, mc, t.variant)
				name := string(t.asked)
				if t.asked == galerkin.Auto {
					name = "auto→" + string(t.variant)
				}
				fmt.Fprintf(stdout, "    %-16s %8.1f %9.1f %9.1f %9.3f %10.3f %6.1f %9.3f %7.2f %8.2f %9.2f\n", name,
					float64(t.planBytes)/1e6, float64(pr.Bytes)/1e6, float64(pr.CacheBytes)/1e6, pr.Seconds*1e3, t.median*1e3,
					100*t.spread(), t.min*1e3,
					float64(pr.Bytes)/t.median/1e9, float64(pr.Flops)/t.median/1e9, pr.Seconds/t.median)
			}
			if len(times) > 1 {
				fastest, ft := galerkin.Variant(""), 0.0
				byVariant := map[galerkin.Variant]float64{}
				for _, t := range times {
					byVariant[t.variant] = t.median
					if fastest == "" || t.median < ft {
						fastest, ft = t.variant, t.median
					}
				}
				verdict := "not measured"
				if t, ok := byVariant[pick]; ok {
					verdict = fmt.Sprintf("%.1f%% slower than the fastest", 100*(t/ft-1))
					if pick == fastest {
						verdict = "the fastest"
					}
				}
				fmt.Fprintf(stdout, "    planner picks %s: %s (fastest %s, %.3f ms)\n", pick, verdict, fastest, ft*1e3)
				if t, ok := byVariant[pick]; ok {
					summary = append(summary, fmt.Sprintf("  %5d %7d %8d %-16s %-16s %10.3f %+7.1f%%", l, w, st.N, pick, fastest, ft*1e3, 100*(t/ft-1)))
				}
				trafficCheck(stdout, st, mc, byVariant)
			}
		}
	}
	return best, nil
}

// simulateLevels compares the model's predicted bytes with a software cache
// simulation of each variant's address stream (Plan.SimulateTraffic: one worker, a
// fully associative LRU cache of 64-byte lines, cold at the start) at the model's two
// cache sizes: the shared cache (memory bytes, Prediction.Bytes) and the private cache
// (Bytes + CacheBytes, what passes the private cache).
func simulateLevels(stdout io.Writer, lv []galerkinLevel, variants []galerkin.Variant, mc galerkin.Machine) error {
	mc.Workers = 1
	fmt.Fprintf(stdout, "\ncache simulation (one worker, fully associative LRU, 64-byte lines, cold start) against the model's predicted bytes:\n")
	fmt.Fprintf(stdout, "  %5s %-16s %10s %10s %7s %10s %10s %7s %8s\n", "level", "variant",
		fmt.Sprintf("pred %dM", mc.CacheBytes>>20), "sim MB", "error", fmt.Sprintf("pred %dK", mc.PrivateCacheBytes>>10), "sim MB", "error", "sim s")
	for l, L := range lv {
		st := galerkin.ComputeStats(L.A, L.P)
		for _, v := range variants {
			p, err := galerkin.Symbolic(L.A, L.P, v)
			if err != nil {
				return err
			}
			if err := p.Numeric(L.A, L.P, 1); err != nil {
				return err
			}
			pr := galerkin.Predict(st, mc, p.Variant())
			start := time.Now()
			big, err := p.SimulateTraffic(L.A, L.P, mc.CacheBytes)
			if err != nil {
				return err
			}
			small, err := p.SimulateTraffic(L.A, L.P, mc.PrivateCacheBytes)
			if err != nil {
				return err
			}
			errPct := func(pred, sim int64) float64 { return 100 * (float64(pred)/float64(max(sim, 1)) - 1) }
			fmt.Fprintf(stdout, "  %5d %-16s %10.2f %10.2f %+6.1f%% %10.2f %10.2f %+6.1f%% %8.1f\n", l, p.Variant(),
				float64(pr.Bytes)/1e6, float64(big.Bytes())/1e6, errPct(pr.Bytes, big.Bytes()),
				float64(pr.Bytes+pr.CacheBytes)/1e6, float64(small.Bytes())/1e6, errPct(pr.Bytes+pr.CacheBytes, small.Bytes()),
				time.Since(start).Seconds())
		}
	}
	return nil
}

// printFilterComparison prints, per level, what filtering changed: P, W = A·P and Ac
// blocks, the memory of P and Ac, and the fastest PᵀAP time per thread count.
func printFilterComparison(w io.Writer, lv, filtered []galerkinLevel, best, bestF [][]float64, workers []int) {
	fmt.Fprintln(w, "\nfiltering, before → after:")
	for l := 0; l < len(lv) && l < len(filtered); l++ {
		a, b := galerkin.ComputeStats(lv[l].A, lv[l].P), galerkin.ComputeStats(filtered[l].A, filtered[l].P)
		fmt.Fprintf(w, "  level %d: P blocks %d → %d (%d dropped), W blocks %d → %d, Ac blocks %d → %d, P+Ac MB %.1f → %.1f",
			l, a.NnzP, b.NnzP, a.NnzP-b.NnzP, a.NnzW, b.NnzW, a.NnzAc, b.NnzAc,
			float64(lv[l].P.Bytes()+int64(a.NnzAc)*int64(a.K*a.K*8))/1e6,
			float64(filtered[l].P.Bytes()+int64(b.NnzAc)*int64(b.K*b.K*8))/1e6)
		for wi, n := range workers {
			fmt.Fprintf(w, "; PᵀAP %d thread(s) %.2f → %.2f ms (%.2f×)", n, best[l][wi]*1e3, bestF[l][wi]*1e3, best[l][wi]/bestF[l][wi])
		}
		fmt.Fprintln(w)
	}
}

// trafficCheck compares the model with the measurement where only data movement
// differs: two-pass and fused-row do the same arithmetic, so the difference of their
// times is the cost of the data two-pass moves in addition (W written and read back)
// or saves (Ac updated in place). It prints the predicted differences and the time
// they predict next to the measured difference, and the bytes that amounts to at the
// calibrated memory bandwidth.
func trafficCheck(w io.Writer, st galerkin.Stats, mc galerkin.Machine, t map[galerkin.Variant]float64) {
	t2, ok2 := t[galerkin.TwoPass]
	tf, okf := t[galerkin.FusedRow]
	if !ok2 || !okf {
		return
	}
	p2, pf := galerkin.Predict(st, mc, galerkin.TwoPass), galerkin.Predict(st, mc, galerkin.FusedRow)
	dMem, dCache := p2.Bytes-pf.Bytes, p2.CacheBytes-pf.CacheBytes
	dPred := p2.Seconds - pf.Seconds
	dMeas := t2 - tf
	fmt.Fprintf(w, "    traffic check, two-pass − fused-row: predicted %+.1f MB memory, %+.1f MB shared cache, %+d row fetches → %+.2f ms; measured %+.2f ms (≈ %+.1f MB at %.1f GB/s)\n",
		float64(dMem)/1e6, float64(dCache)/1e6, p2.Fetches-pf.Fetches, dPred*1e3, dMeas*1e3, dMeas*mc.Bandwidth/1e6, mc.Bandwidth/1e9)
}

// variantTime is the measurement of one variant.
type variantTime struct {
	asked, variant galerkin.Variant
	planBytes      int64
	runs           int
	median         float64 // seconds
	p25, p75, min  float64 // seconds: quartiles and best of the timed runs
}

// spread returns half the interquartile range relative to the median.
func (t variantTime) spread() float64 {
	if t.median <= 0 {
		return 0
	}
	return (t.p75 - t.p25) / 2 / t.median
}

// timing says how many timed runs a level gets: at least minRuns, more while the
// fastest variant's total timed time stays under minTime (short coarse levels, whose
// medians are otherwise at the mercy of a few disturbed runs), at most maxRuns and
// as many rounds as fit in levelSeconds.
type timing struct {
	minRuns, maxRuns int
	minTime          float64 // seconds
	levelSeconds     float64 // seconds
}

// runsFor returns the number of timed runs for a level whose fastest warm-up took
// fastest seconds and a round (every variant and its flush) round seconds.
func (c timing) runsFor(fastest, round float64) int {
	r := c.minRuns
	if fastest > 0 && c.minTime > 0 {
		r = max(r, int(math.Ceil(c.minTime/fastest)))
	}
	if round > 0 && c.levelSeconds > 0 {
		r = min(r, int(c.levelSeconds/round))
	}
	return max(min(r, c.maxRuns), c.minRuns)
}

// timeVariants sets up every variant, runs each once to warm up, then times rounds in
// which every variant runs once, in turn, the order rotated by one each round (so
// that no variant always runs first after the flush, or next to a given other): a
// machine whose speed drifts or is disturbed for a while (a shared VM) then slows
// every variant alike. Caches are flushed before every run, as a re-setup finds them
// after the smoother set-up. Every variant gets the same runs, flushes and rounds.
// It returns the median, quartiles and minimum of each.
func timeVariants(L galerkinLevel, variants []galerkin.Variant, workers int, tc timing, flush []float64) ([]variantTime, error) {
	plans := make([]*galerkin.Plan, len(variants))
	fastest, round := 0.0, 0.0
	doFlush := func() {
		par.For(len(flush), 0, 1<<16, func(lo, hi int) {
			for j := lo; j < hi; j++ {
				flush[j]++
			}
		})
	}
	for i, v := range variants {
		p, err := galerkin.Symbolic(L.A, L.P, v)
		if err != nil {
			return nil, err
		}
		if err := p.SetSymmetric(L.A, L.sym); err != nil {
			return nil, err
		}
		start := time.Now()
		doFlush()
		mid := time.Now()
		if err := p.Numeric(L.A, L.P, workers); err != nil {
			return nil, err
		}
		if t := time.Since(mid).Seconds(); i == 0 || t < fastest {
			fastest = t
		}
		round += time.Since(start).Seconds()
		plans[i] = p
	}
	runtime.GC()
	runs := tc.runsFor(fastest, round)
	ts := make([][]float64, len(variants))
	for r := 0; r < runs; r++ {
		for k := range plans {
			i := (k + r) % len(plans)
			doFlush()
			start := time.Now()
			if err := plans[i].Numeric(L.A, L.P, workers); err != nil {
				return nil, err
			}
			ts[i] = append(ts[i], time.Since(start).Seconds())
		}
	}
	out := make([]variantTime, len(variants))
	for i, p := range plans {
		t := ts[i]
		slices.Sort(t)
		out[i] = variantTime{asked: variants[i], variant: p.Variant(), planBytes: p.PlanBytes(), runs: runs,
			median: quantile(t, 0.5), p25: quantile(t, 0.25), p75: quantile(t, 0.75), min: t[0]}
	}
	return out, nil
}

// quantile returns the q-quantile of sorted x, interpolating between neighbours.
func quantile(x []float64, q float64) float64 {
	if len(x) == 0 {
		return 0
	}
	f := q * float64(len(x)-1)
	i := int(f)
	if i+1 >= len(x) {
		return x[len(x)-1]
	}
	return x[i] + (f-float64(i))*(x[i+1]-x[i])
}

func ratio(a int64, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// galerkinProblem returns the products to benchmark and a description of where they
// come from.
func galerkinProblem(ne int, source, matrix, prolong string, b, k int, am amg.Options, stderr io.Writer) ([]galerkinLevel, string, error) {
	switch {
	case matrix != "" || prolong != "":
		if matrix == "" || prolong == "" || ne != 0 {
			return nil, "", errors.New("--matrix and --prolongator go together, without --ne")
		}
		A, err := matio.ReadMatrix(matrix, b)
		if err != nil {
			return nil, "", err
		}
		Ps, err := matio.ReadMatrix(prolong, 1)
		if err != nil {
			return nil, "", err
		}
		if Ps.Rows()%b != 0 || Ps.Cols()%k != 0 {
			return nil, "", fmt.Errorf("%s: %d×%d is not made of %d×%d blocks", prolong, Ps.Rows(), Ps.Cols(), b, k)
		}
		P, err := bsr.FromCSR(Ps.ToCSR(), b, k)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", prolong, err)
		}
		if A.Rows() != A.Cols() || A.Rows() != P.Rows() {
			return nil, "", fmt.Errorf("%s is %d×%d and %s %d×%d: want A square with as many rows as P",
				matrix, A.Rows(), A.Cols(), prolong, P.Rows(), P.Cols())
		}
		return []galerkinLevel{{A: A, P: P}}, fmt.Sprintf("files %s and %s", matrix, prolong), nil
	case ne < 1:
		return nil, "", errors.New("--ne N (N ≥ 1) or --matrix and --prolongator are required")
	}
	switch source {
	case "amg":
		A, _, B, err := fem.Ex56System(ne, 0)
		if err != nil {
			return nil, "", err
		}
		start := time.Now()
		h, err := amg.Setup(A, &amg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, am)
		if err != nil {
			return nil, "", err
		}
		fmt.Fprintf(stderr, "galerkin: amg setup %.2f s\n", time.Since(start).Seconds())
		var lv []galerkinLevel
		for _, L := range h.Levels {
			if L.P != nil {
				lv = append(lv, galerkinLevel{A: L.A, P: L.P})
			}
		}
		return lv, fmt.Sprintf("ex56 ne=%d (%d unknowns), amg smoothed-aggregation hierarchy (GAMG defaults, 6 rigid-body modes)", ne, A.Rows()), nil
	case "synthetic":
		pr, err := galerkintest.Grid(ne+1, ne+1, ne+1, 27, 1)
		if err != nil {
			return nil, "", err
		}
		lv := []galerkinLevel{{A: pr.A, P: pr.P}}
		A, P, coarse := pr.A, pr.P, pr.Coarse
		for P.BlockCols > 1 && coarse[0]*coarse[1]*coarse[2] > 1 {
			plan, err := galerkin.Symbolic(A, P, galerkin.TwoPass)
			if err != nil {
				return nil, "", err
			}
			if err := plan.Numeric(A, P, 0); err != nil {
				return nil, "", err
			}
			A = plan.Ac
			P, coarse, err = galerkintest.NextProlongator(A, coarse, 2)
			if err != nil {
				return nil, "", err
			}
			if P.BlockCols >= A.BlockRows {
				break
			}
			lv = append(lv, galerkinLevel{A: A, P: P})
		}
		return lv, fmt.Sprintf("synthetic %d³-node 27-point grid (%d unknowns), 3×3×3 node-cube aggregates smoothed once", ne+1, pr.A.Rows()), nil
	}
	return nil, "", fmt.Errorf("--source %q: want amg or synthetic", source)
}
