package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"blockamg/amg"
	"blockamg/bsr"
	"blockamg/fem"
	"blockamg/galerkin"
	"blockamg/galerkin/galerkintest"
	"blockamg/internal/par"
	"blockamg/matio"
)

func init() {
	register("galerkin", "benchmark the Galerkin product PᵀAP per level: variants, traffic model, planner", runGalerkin)
}

// galerkinLevel is one product to benchmark.
type galerkinLevel struct {
	A, P *bsr.Matrix
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
	variant := fs.String("variant", "all", "all or one of "+galerkinVariantNames())
	runs := fs.Int("runs", 5, "timed runs per variant (median reported), after one warm-up run")
	threads := fs.String("threads", "1,2", "comma-separated worker counts")
	calibrate := fs.Bool("calibrate", true, "measure bandwidth and kernel flop rate for the model (else DefaultMachine)")
	cacheMB := fs.Float64("cache-mb", 0, "model shared cache size in MiB (0: DefaultMachine's)")
	l2KB := fs.Float64("l2-kb", 0, "model private cache size per thread in KiB (0: DefaultMachine's)")
	gpu := fs.Bool("gpu", false, "run the GPU variants on an NVIDIA GPU (ex56 --ne only; an error without one)")
	am := amg.DefaultOptions()
	fs.Float64Var(&am.Threshold, "threshold", am.Threshold, "with --ne: strength threshold of the hierarchy (-pc_gamg_threshold)")
	fs.IntVar(&am.AggressiveLevels, "aggressive-levels", am.AggressiveLevels, "with --ne: levels coarsened with distance-2 MIS")
	fs.Float64Var(&am.FilterTheta, "filter", 0, "with --ne: also build the hierarchy with prolongator filtering θ and compare PᵀAP before/after")
	fs.Float64Var(&am.FilterScale, "filter-scale", 1, "per-level factor s of the filter threshold: θ_l = θ·s^l")
	flushMB := fs.Float64("flush-mb", 640, "MiB written between timed runs to evict the previous run's data (twice the largest last-level cache in sight; 0: no flush)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected argument %q", pos[0])
	}
	if *runs < 1 {
		return fmt.Errorf("--runs %d: want at least 1", *runs)
	}
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
		return runGalerkinGPU(*ne, *variant, *runs, stdout, stderr)
	}
	var variants []galerkin.Variant
	if *variant == "all" {
		variants = galerkin.Variants
	} else {
		v := galerkin.Variant(*variant)
		if !slices.Contains(galerkin.Variants, v) && v != galerkin.Auto {
			return fmt.Errorf("--variant %q: want all or one of %s", *variant, galerkinVariantNames())
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
	fmt.Fprintf(stdout, "galerkin: %s, %d level(s)\n", what, len(lv))
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
	best, err := benchLevels(stdout, lv, variants, workers, machines, *runs, flush)
	if err != nil || len(filtered) == 0 {
		return err
	}
	fmt.Fprintf(stdout, "\n=== with prolongator filtering θ = %g (scale %g per level) ===\n", theta, am.FilterScale)
	bestF, err := benchLevels(stdout, filtered, variants, workers, machines, *runs, flush)
	if err != nil {
		return err
	}
	printFilterComparison(stdout, lv, filtered, best, bestF, workers)
	return nil
}

// benchLevels times every variant on every level for every worker count and prints
// the per-level tables; it returns the fastest median per level and worker count.
func benchLevels(stdout io.Writer, lv []galerkinLevel, variants []galerkin.Variant, workers []int, machines []galerkin.Machine, runs int, flush []float64) ([][]float64, error) {
	best := make([][]float64, len(lv))
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
			times, err := timeVariants(L, variants, w, runs, flush)
			if err != nil {
				return nil, fmt.Errorf("level %d: %w", l, err)
			}
			for i, t := range times {
				if i == 0 || t.median < best[l][wi] {
					best[l][wi] = t.median
				}
			}
			fmt.Fprintf(stdout, "    %-16s %8s %9s %9s %8s %10s %7s %8s %9s\n", "variant", "plan MB", "pred MB", "cache MB", "pred ms", "median ms", "GB/s", "GFLOP/s", "pred/meas")
			for _, t := range times {
				pr := galerkin.Predict(st, mc, t.variant)
				name := string(t.asked)
				if t.asked == galerkin.Auto {
					name = "auto→" + string(t.variant)
				}
				fmt.Fprintf(stdout, "    %-16s %8.1f %9.1f %9.1f %8.2f %10.2f %7.2f %8.2f %9.2f\n", name,
					float64(t.planBytes)/1e6, float64(pr.Bytes)/1e6, float64(pr.CacheBytes)/1e6, pr.Seconds*1e3, t.median*1e3,
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
				fmt.Fprintf(stdout, "    planner picks %s: %s (fastest %s, %.2f ms)\n", pick, verdict, fastest, ft*1e3)
				trafficCheck(stdout, st, mc, byVariant)
			}
		}
	}
	return best, nil
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
	median         float64 // seconds
}

// timeVariants sets up every variant, runs each once to warm up, then times runs
// rounds in which every variant runs once, in turn: a machine whose speed drifts (a
// shared VM) then slows every variant alike. Caches are flushed before every run, as
// a re-setup finds them after the smoother set-up. It returns the median of each.
func timeVariants(L galerkinLevel, variants []galerkin.Variant, workers, runs int, flush []float64) ([]variantTime, error) {
	plans := make([]*galerkin.Plan, len(variants))
	for i, v := range variants {
		p, err := galerkin.Symbolic(L.A, L.P, v)
		if err != nil {
			return nil, err
		}
		if err := p.Numeric(L.A, L.P, workers); err != nil {
			return nil, err
		}
		plans[i] = p
	}
	runtime.GC()
	ts := make([][]float64, len(variants))
	for r := 0; r < runs; r++ {
		for i, p := range plans {
			par.For(len(flush), 0, 1<<16, func(lo, hi int) {
				for j := lo; j < hi; j++ {
					flush[j]++
				}
			})
			start := time.Now()
			if err := p.Numeric(L.A, L.P, workers); err != nil {
				return nil, err
			}
			ts[i] = append(ts[i], time.Since(start).Seconds())
		}
	}
	out := make([]variantTime, len(variants))
	for i, p := range plans {
		slices.Sort(ts[i])
		out[i] = variantTime{asked: variants[i], variant: p.Variant(), planBytes: p.PlanBytes(), median: ts[i][len(ts[i])/2]}
	}
	return out, nil
}

func ratio(a int64, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func galerkinVariantNames() string {
	var s []string
	for _, v := range galerkin.Variants {
		s = append(s, string(v))
	}
	return strings.Join(append(s, string(galerkin.Auto)), ", ")
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
		return []galerkinLevel{{A, P}}, fmt.Sprintf("files %s and %s", matrix, prolong), nil
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
				lv = append(lv, galerkinLevel{L.A, L.P})
			}
		}
		return lv, fmt.Sprintf("ex56 ne=%d (%d unknowns), amg smoothed-aggregation hierarchy (GAMG defaults, 6 rigid-body modes)", ne, A.Rows()), nil
	case "synthetic":
		pr, err := galerkintest.Grid(ne+1, ne+1, ne+1, 27, 1)
		if err != nil {
			return nil, "", err
		}
		lv := []galerkinLevel{{pr.A, pr.P}}
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
			lv = append(lv, galerkinLevel{A, P})
		}
		return lv, fmt.Sprintf("synthetic %d³-node 27-point grid (%d unknowns), 3×3×3 node-cube aggregates smoothed once", ne+1, pr.A.Rows()), nil
	}
	return nil, "", fmt.Errorf("--source %q: want amg or synthetic", source)
}
