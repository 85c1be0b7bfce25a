package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/backend/cuda"
	"github.com/blockamg/blockamg/backend/cuda/cusparsebench"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/galerkin"
	"github.com/blockamg/blockamg/internal/cudadrv"
)

func init() {
	register("galerkin-gpu", "benchmark the device Galerkin product PᵀAP per level: GPU variants, traffic model, planner, cuSPARSE baseline", runGalerkinGPUCommand)
}

// runGalerkinGPUCommand is the galerkin-gpu subcommand: the flags of runGalerkinGPU.
func runGalerkinGPUCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("galerkin-gpu", "--ne N [flags]", stderr)
	ne := fs.Int("ne", 0, "ex56 mesh: (ne+1)³ nodes, 3 unknowns each")
	variant := fs.String("variant", "all", "all or one of "+gpuGalerkinVariantNames())
	runs := fs.Int("runs", 9, "timed runs per variant (median reported), after two warm-up runs")
	levels := fs.Int("levels", 0, "benchmark at most this many levels, finest first (0: all)")
	cusparse := fs.Bool("cusparse", true, "end with the cuSPARSE baseline on every level (needs libcusparse: BLOCKAMG_CUSPARSE names it where the loader does not find it)")
	symmetric := fs.Bool("symmetric", true, "tc-block, smem-tiles and tc-pairs compute the Ac blocks on and above the diagonal and mirror them (ex56's operators are symmetric); false: all of them")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if *levels < 0 {
		return fmt.Errorf("--levels %d: want ≥ 0", *levels)
	}
	return runGalerkinGPU(*ne, *variant, *runs, *levels, *symmetric, *cusparse, stdout, stderr)
}

// runGalerkinGPU benchmarks the device Galerkin product Ac = PᵀAP on every level of the
// ex56 smoothed-aggregation hierarchy (threshold −0.01, coarse equation limit 200, 6
// rigid-body modes): per level and variant ("all" or one of cuda.GalerkinVariants) the
// median of runs timed runs (CUDA events, after two warm-up runs) of the whole product
// and, for the variants that store W, of the A·P stage; the model's predicted DRAM
// bytes; GFLOP/s counting the block products' flops once; the ratio to the roofline
// floor measured in the same run; the relative Frobenius error against the CPU
// package; and the model's pick. After every level's variants, a last section runs
// on each level the baseline a user would otherwise pick, cuSPARSE's generic SpGEMM on
// the scalar expansion (cusparseLevel), timed the same way; it comes last so that a
// library failure cannot cost the variants' figures; cusparse false leaves it out. levels > 0 keeps the finest levels products only; symmetric sets
// cuda.Options.Symmetric (ex56's operators are). Without a driver it returns "no CUDA
// driver found".
func runGalerkinGPU(ne int, variant string, runs, levels int, symmetric, cusparse bool, stdout, stderr io.Writer) error {
	if ne < 1 {
		return fmt.Errorf("--ne %d: want at least 1", ne)
	}
	if runs < 1 {
		return fmt.Errorf("--runs %d: want at least 1", runs)
	}
	variants := cuda.GalerkinVariants
	if variant != "all" && variant != "" {
		v := cuda.GalerkinVariant(variant)
		if !slices.Contains(cuda.GalerkinVariants, v) {
			return fmt.Errorf("--variant %q: want all or one of %s", variant, gpuGalerkinVariantNames())
		}
		variants = []cuda.GalerkinVariant{v}
	}
	be, err := cuda.New(cuda.Options{Symmetric: symmetric})
	switch {
	case errors.Is(err, cudadrv.ErrNoDriver):
		return errors.New("no CUDA driver found")
	case errors.Is(err, cudadrv.ErrNoDevice):
		return errors.New("no CUDA device found")
	case err != nil:
		return err
	}
	defer be.Close()
	in := be.Info()
	mc, bw, err := be.GalerkinMachineOf()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "device: %s, %d SMs, L2 %.1f MiB\n", be.Name(), in.SMs, float64(in.L2Bytes)/(1<<20))
	fmt.Fprintf(stdout, "measured: copy bandwidth %.0f GB/s (cuMemcpyDtoD %.0f, copy kernel %.0f; 1 GiB, read+write), FP64 FMA %.2f TFLOP/s, FP64 mma.m8n8k4 %.2f TFLOP/s; L1 lines %.0f G/s (SMs × max SM clock)\n",
		mc.Bandwidth/1e9, bw.MemcpyGBs, bw.KernelGBs, mc.FMARate/1e12, mc.TCRate/1e12, mc.L1Rate/1e9)

	start := time.Now()
	A, _, B, err := fem.Ex56System(ne, 0)
	if err != nil {
		return err
	}
	opt := amg.DefaultOptions()
	opt.Threshold = -0.01
	opt.CoarseEqLimit = 200
	h, err := amg.Setup(A, &amg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, opt)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "galerkin --gpu: ex56 ne=%d assembled and set up in %.1f s\n", ne, time.Since(start).Seconds())
	fmt.Fprintf(stdout, "ex56 ne=%d, %d unknowns, %d levels; median of %d runs\n", ne, A.Rows(), len(h.Levels), runs)
	var done []gpuLevel
	for l, L := range h.Levels {
		if L.P == nil || (levels > 0 && l >= levels) {
			continue
		}
		lv, err := galerkinGPULevel(be, mc, l, L.A, L.P, variants, runs, stdout, stderr)
		if err != nil {
			return fmt.Errorf("level %d: %w", l, err)
		}
		done = append(done, lv)
	}
	if err := be.Err(); err != nil {
		return err
	}
	if !cusparse {
		fmt.Fprintln(stdout, "\ncuSPARSE baseline: left out (--cusparse=false)")
		return nil
	}
	cs, err := cusparsebench.Open(be)
	if err != nil {
		fmt.Fprintf(stdout, "\ncuSPARSE baseline: not available: %v\n", err)
		return be.Err()
	}
	defer cs.Close()
	fmt.Fprintf(stdout, "\ncuSPARSE baseline: cuSPARSE %s; A and P expanded to scalar CSR (int32 indices, float64), explicit scalar Pᵀ (host, not timed); W = A·P then Ac = Pᵀ·W by cusparseSpGEMM (CUSPARSE_SPGEMM_DEFAULT), each run the whole call sequence (work estimation, compute, size query, copy) with buffers kept from the first run; median of %d runs after 2 warm-ups, CUDA events\n", cs.Version(), runs)
	fmt.Fprintf(stdout, "  %-5s %10s %7s %10s %7s %9s %10s  %s\n", "level", "ms", "×floor", "A·P ms", "×floor", "GFLOP/s", "rel err", "result")
	for _, lv := range done {
		if err := cusparseLevel(be, cs, lv, runs, stdout, stderr); err != nil {
			return fmt.Errorf("level %d cuSPARSE: %w", lv.l, err)
		}
	}
	return be.Err()
}

// gpuLevel is what the cuSPARSE section needs of a level benchmarked by
// galerkinGPULevel: the operands, the CPU's Ac, the floors and our fastest correct
// variants.
type gpuLevel struct {
	l              int
	A, P, want     *bsr.Matrix
	st             cuda.GalerkinStats
	floor, floorAP float64 // seconds
	best, bestAP   ours
}

func galerkinGPULevel(be *cuda.Backend, mc cuda.GalerkinMachine, l int, A, P *bsr.Matrix, variants []cuda.GalerkinVariant, runs int, stdout, stderr io.Writer) (gpuLevel, error) {
	lv := gpuLevel{l: l, A: A, P: P}
	lv.best, lv.bestAP = ours{ms: math.Inf(1)}, ours{ms: math.Inf(1)}
	t0 := time.Now()
	pl, err := be.GalerkinSymbolicFor(A, P, func(cuda.GalerkinStats) ([]cuda.GalerkinVariant, error) { return variants, nil })
	if err != nil {
		return lv, err
	}
	defer pl.Free()
	sym := time.Since(t0)
	cpu, err := galerkin.Symbolic(A, P, galerkin.TwoPass)
	if err != nil {
		return lv, err
	}
	if err := cpu.Numeric(A, P, 0); err != nil {
		return lv, err
	}
	dA, err := be.UploadMatrixBSR(A, false)
	if err != nil {
		return lv, err
	}
	defer dA.Free()
	dP, err := be.UploadMatrixBSR(P, false)
	if err != nil {
		return lv, err
	}
	defer dP.Free()
	st := pl.Stats
	if slices.Contains(variants, cuda.GalerkinFused) && pl.Available(cuda.GalerkinFused) {
		// fused-recompute's predicted bytes come from replaying its loads.
		t1 := time.Now()
		if st.FusedSimBytes, err = cuda.SimulateFused(A, P, mc); err != nil {
			return lv, err
		}
		fmt.Fprintf(stderr, "galerkin --gpu: level %d: fused-recompute's loads replayed for the model in %.1f s\n", l, time.Since(t1).Seconds())
	}
	floor, floorAP := st.Floor(mc), st.FloorAP(mc)
	pick := cuda.ChooseGalerkin(st, mc)
	fmt.Fprintf(stdout, "\nlevel %d: A %d×%d blocks of %d×%d (%d), P %d blocks of %d×%d, W %d, Ac %d×%d blocks (%d); products A·P %d, Pᵀ·W %d (fused recomputes %d A·P)\n",
		l, st.N, st.N, st.R, st.R, st.NnzA, st.NnzP, st.R, st.C, st.NnzW, st.M, st.M, st.NnzAc, st.ProdAP, st.ProdPW, st.ProdAPFused)
	if st.Symmetric {
		fmt.Fprintf(stdout, "  symmetric A: tc-block, smem-tiles and tc-pairs compute the %d Ac blocks on and above the diagonal (%d of the Pᵀ·W products) and mirror them; their A·P leaves out the %d W blocks the half never reads (%d A·P products), so W is complete only where it is read\n",
			st.NnzAcUpper, st.ProdPWUpper, st.WUnread, st.ProdAPUnread)
	}
	fmt.Fprintf(stdout, "  symbolic (host) %.2f s, plan %.1f MB on the device; floor %.4f ms (%.1f MB at copy bandwidth, %.2f GFLOP at the FMA rate), A·P floor %.4f ms; pick %s\n",
		sym.Seconds(), float64(pl.Bytes())/1e6, floor*1e3, float64(st.FloorBytes())/1e6, float64(st.FloorFlops())/1e9, floorAP*1e3, pick)
	fmt.Fprintf(stdout, "  %-18s %10s %7s %10s %7s %12s %9s %9s %10s\n", "variant", "ms", "×floor", "A·P ms", "×floor", "pred MB", "pred ms", "GFLOP/s", "rel err")
	lv.want, lv.st, lv.floor, lv.floorAP = cpu.Ac, st, floor, floorAP
	for _, v := range variants {
		if !pl.Available(v) {
			fmt.Fprintf(stdout, "  %-18s not offered (%s)\n", v, pl.Unavailable(v))
			continue
		}
		if err := pl.PoisonAc(); err != nil {
			return lv, err
		}
		ms, err := be.TimeMedian(2, runs, func() { pl.Numeric(v, dA, dP) })
		if err != nil {
			return lv, fmt.Errorf("%s: %w", v, err)
		}
		got, err := pl.DownloadAc()
		if err != nil {
			return lv, err
		}
		e := relFrob(got.Val, cpu.Ac.Val)
		apMS, apRatio := "-", "-"
		if v != cuda.GalerkinFused {
			ap, err := be.TimeMedian(2, runs, func() { pl.NumericStage(v, cuda.StageAP, dA, dP) })
			if err != nil {
				return lv, fmt.Errorf("%s A·P: %w", v, err)
			}
			apMS, apRatio = fmt.Sprintf("%.4f", ap), fmt.Sprintf("%.2f", ap*1e-3/floorAP)
			if e <= cusparseTol && ap < lv.bestAP.ms {
				lv.bestAP = ours{v, ap}
			}
			pap := cuda.PredictGalerkin(st, mc, v, cuda.StageAP)
			fmt.Fprintf(stderr, "galerkin --gpu: level %d %s: A·P %.4f ms, predicted %.4f ms (%.1f MB, %.0f M lines)\n", l, v, ap, pap.Seconds*1e3, float64(pap.Bytes)/1e6, float64(pap.Lines)/1e6)
		}
		pr := cuda.PredictGalerkin(st, mc, v, cuda.StageAll)
		mark := ""
		if v == pick {
			mark = " (pick)"
		}
		fmt.Fprintf(stdout, "  %-18s %10.4f %7.2f %10s %7s %12.1f %9.4f %9.0f %10.2e%s\n", v, ms, ms*1e-3/floor, apMS, apRatio,
			float64(pr.Bytes)/1e6, pr.Seconds*1e3, float64(st.FloorFlops())/(ms*1e6), e, mark)
		if e <= cusparseTol && ms < lv.best.ms {
			lv.best = ours{v, ms}
		}
	}
	return lv, nil
}

// cusparseTol is the relative Frobenius error up to which a product counts as correct
// in the report (the variants' tests ask 1e-12; this only separates right from wrong).
const cusparseTol = 1e-10

// ours is a variant's median time, for the ratio to cuSPARSE.
type ours struct {
	v  cuda.GalerkinVariant
	ms float64
}

// cusparseLevel runs the baseline on one level: A and P expanded to scalar CSR with
// int32 indices and Pᵀ formed on the host (not timed), then W = A·P and Ac = Pᵀ·W by
// cuSPARSE's SpGEMM, each run the library's whole call sequence. Its row gives the
// median whole-product and A·P times (CUDA events on the backend's stream, two
// warm-up runs, then runs timed runs, as for the variants) with their ratios to the
// floor, GFLOP/s counting the block products' flops, the error against the CPU's Ac
// and the verdict: "ok", or "wrong: empty" when cuSPARSE returns an empty product
// without an error. A second line gives the scalar sizes, the device memory and the
// speed ratio cuSPARSE ÷ ours against the fastest correct variant. A cuSPARSE failure
// is reported and the report goes on; a level whose operands or products have more
// scalar nonzeros than int32 indices address is skipped.
func cusparseLevel(be *cuda.Backend, cs *cusparsebench.Handle, lv gpuLevel, runs int, stdout, stderr io.Writer) error {
	st := lv.st
	sizes := []struct {
		what string
		nnz  int64
	}{
		{"A", st.NnzA * int64(st.R*st.R)}, {"P", st.NnzP * int64(st.R*st.C)},
		{"W = A·P", st.NnzW * int64(st.R*st.C)}, {"Ac", st.NnzAc * int64(st.C*st.C)},
	}
	for _, z := range sizes {
		if z.nnz > math.MaxInt32 {
			fmt.Fprintf(stdout, "  %-5d skipped: %s has %d scalar nonzeros, more than int32 indices address\n", lv.l, z.what, z.nnz)
			return nil
		}
	}
	t0 := time.Now()
	g, err := cs.Galerkin(lv.A, lv.P)
	if err != nil {
		fmt.Fprintf(stdout, "  %-5d skipped: %v\n", lv.l, err)
		return nil
	}
	defer g.Free()
	fmt.Fprintf(stderr, "galerkin --gpu: level %d cuSPARSE operands expanded and uploaded in %.1f s\n", lv.l, time.Since(t0).Seconds())
	ratio := func(theirs float64, o ours) string {
		if math.IsInf(o.ms, 1) {
			return "no correct variant timed"
		}
		return fmt.Sprintf("%.1f× (%s %.4f ms)", theirs/o.ms, o.v, o.ms)
	}
	// A cuSPARSE status is not the backend's failure: it is printed, and the reuse
	// pipeline still runs. A device fault is, and ends the report.
	if what, err := cusparseFullLevel(g, lv, runs, sizes[2].nnz, ratio, stdout); err != nil {
		fmt.Fprintf(stdout, "  %-5d error (%s): %v\n", lv.l, what, err)
		if err := be.Err(); err != nil {
			return err
		}
	}
	return cusparseReuseLevel(be, g, lv, runs, ratio, stdout)
}

// cusparseFullLevel times cusparseSpGEMM's whole sequence on the level, checks its Ac
// after poisoned products and prints its lines; a failure returns the step and the
// error instead.
func cusparseFullLevel(g *cusparsebench.Galerkin, lv gpuLevel, runs int, wantW int64, ratio func(float64, ours) string, stdout io.Writer) (string, error) {
	st := lv.st
	ms, err := g.TimeMedian(2, runs, cuda.StageAll)
	if err != nil {
		return "Pᵀ·(A·P)", err
	}
	if err := g.Poison(); err != nil {
		return "poisoning the products", err
	}
	if err := g.Run(cuda.StageAll); err != nil {
		return "checked run", err
	}
	got, err := g.DownloadAc()
	if err != nil {
		return "downloading Ac", err
	}
	ck := cusparsebench.CompareCSR32(got, lv.want, cusparseTol)
	nnzW := g.NnzW()
	verdict := ck.Verdict
	if nnzW == 0 && wantW > 0 {
		verdict = "wrong: empty (A·P returned no entries)"
	}
	ap, err := g.TimeMedian(2, runs, cuda.StageAP)
	if err != nil {
		return "A·P", err
	}
	fmt.Fprintf(stdout, "  %-5d %10.4f %7.2f %10.4f %7.2f %9.0f %10.2e  %s\n", lv.l, ms, ms*1e-3/lv.floor, ap, ap*1e-3/lv.floorAP,
		float64(st.FloorFlops())/(ms*1e6), ck.RelErr, verdict)
	fmt.Fprintf(stdout, "        cuSPARSE ÷ ours (fastest correct variant): whole %s, A·P %s; scalar nonzeros A %d, P %d, W %d (want %d), Ac %d (want %d; %d outside our pattern, %d missing); device memory %.1f MB, work buffers %.1f MB\n",
		ratio(ms, lv.best), ratio(ap, lv.bestAP), g.NnzA(), g.NnzP(), nnzW, wantW, ck.Nnz, ck.WantNnz, ck.Outside, ck.Missing,
		float64(g.Bytes())/1e6, float64(g.WorkBytes())/1e6)
	return "", nil
}

// cusparseReuseLevel times cuSPARSE's reuse pipeline on the level (cusparseSpGEMMreuse:
// the patterns once, untimed; then numeric products only, as our numeric phase), checks
// its Ac after poisoned values, and prints one line under the full sequence's. It
// frees the full sequence's products and buffers first.
func cusparseReuseLevel(be *cuda.Backend, g *cusparsebench.Galerkin, lv gpuLevel, runs int, ratio func(float64, ours) string, stdout io.Writer) error {
	fail := func(what string, err error) error {
		fmt.Fprintf(stdout, "        cuSPARSE reuse (%s): %v\n", what, err)
		return be.Err()
	}
	g.ReleaseProducts()
	r, err := g.Reuse()
	if err != nil {
		return fail("symbolic", err)
	}
	defer r.Free()
	ms, err := r.TimeMedian(2, runs, cuda.StageAll)
	if err != nil {
		return fail("Pᵀ·(A·P)", err)
	}
	ap, err := r.TimeMedian(2, runs, cuda.StageAP)
	if err != nil {
		return fail("A·P", err)
	}
	if err := r.PoisonValues(); err != nil {
		return fail("poisoning the values", err)
	}
	if err := r.Run(cuda.StageAll); err != nil {
		return fail("checked run", err)
	}
	got, err := r.DownloadAc()
	if err != nil {
		return fail("downloading Ac", err)
	}
	ck := cusparsebench.CompareCSR32(got, lv.want, cusparseTol)
	fmt.Fprintf(stdout, "        cuSPARSE reuse (cusparseSpGEMMreuse: patterns once, numeric compute timed): whole %.4f ms (%.2f× floor), A·P %.4f ms (%.2f×), rel err %.2e %s; ÷ ours: whole %s, A·P %s; holds %.1f MB more\n",
		ms, ms*1e-3/lv.floor, ap, ap*1e-3/lv.floorAP, ck.RelErr, ck.Verdict, ratio(ms, lv.best), ratio(ap, lv.bestAP), float64(r.Bytes())/1e6)
	return nil
}

// relFrob returns ‖got − want‖_F / ‖want‖_F, +Inf when got holds a NaN.
func relFrob(got, want []float64) float64 {
	num, den := 0.0, 0.0
	for i := range got {
		d := got[i] - want[i]
		if d != d {
			return math.Inf(1)
		}
		num += d * d
		den += want[i] * want[i]
	}
	if den == 0 {
		return math.Sqrt(num)
	}
	return math.Sqrt(num / den)
}

// gpuGalerkinVariantNames lists the device PᵀAP variants for help texts.
func gpuGalerkinVariantNames() string {
	var s []string
	for _, v := range cuda.GalerkinVariants {
		s = append(s, string(v))
	}
	return strings.Join(s, ", ")
}
