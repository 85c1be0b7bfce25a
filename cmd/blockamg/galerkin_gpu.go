package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"blockamg/amg"
	"blockamg/backend/cuda"
	"blockamg/bsr"
	"blockamg/fem"
	"blockamg/galerkin"
	"blockamg/internal/cudadrv"
)

// runGalerkinGPU benchmarks the device Galerkin product Ac = PᵀAP on every level of the
// ex56 smoothed-aggregation hierarchy (threshold −0.01, coarse equation limit 200, 6
// rigid-body modes): per level and variant ("all" or one of cuda.GalerkinVariants) the
// median of runs timed runs (CUDA events, after two warm-up runs) of the whole product
// and, for the variants that store W, of the A·P stage; the model's predicted DRAM
// bytes; GFLOP/s counting the block products' flops once; the ratio to the roofline
// floor measured in the same run; the relative Frobenius error against the CPU
// package; and the model's pick. Without a driver it returns "no CUDA driver found".
func runGalerkinGPU(ne int, variant string, runs int, stdout, stderr io.Writer) error {
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
			return fmt.Errorf("--variant %q: want all or one of %v", variant, cuda.GalerkinVariants)
		}
		variants = []cuda.GalerkinVariant{v}
	}
	be, err := cuda.New(cuda.Options{})
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
	for l, L := range h.Levels {
		if L.P == nil {
			continue
		}
		if err := galerkinGPULevel(be, mc, l, L.A, L.P, variants, runs, stdout, stderr); err != nil {
			return fmt.Errorf("level %d: %w", l, err)
		}
	}
	return be.Err()
}

func galerkinGPULevel(be *cuda.Backend, mc cuda.GalerkinMachine, l int, A, P *bsr.Matrix, variants []cuda.GalerkinVariant, runs int, stdout, stderr io.Writer) error {
	t0 := time.Now()
	pl, err := be.GalerkinSymbolic(A, P)
	if err != nil {
		return err
	}
	defer pl.Free()
	sym := time.Since(t0)
	cpu, err := galerkin.Symbolic(A, P, galerkin.TwoPass)
	if err != nil {
		return err
	}
	if err := cpu.Numeric(A, P, 0); err != nil {
		return err
	}
	dA, err := be.UploadMatrixBSR(A, false)
	if err != nil {
		return err
	}
	defer dA.Free()
	dP, err := be.UploadMatrixBSR(P, false)
	if err != nil {
		return err
	}
	defer dP.Free()
	st := pl.Stats
	floor, floorAP := st.Floor(mc), st.FloorAP(mc)
	pick := cuda.ChooseGalerkin(st, mc)
	fmt.Fprintf(stdout, "\nlevel %d: A %d×%d blocks of %d×%d (%d), P %d blocks of %d×%d, W %d, Ac %d×%d blocks (%d); products A·P %d, Pᵀ·W %d (fused recomputes %d A·P)\n",
		l, st.N, st.N, st.R, st.R, st.NnzA, st.NnzP, st.R, st.C, st.NnzW, st.M, st.M, st.NnzAc, st.ProdAP, st.ProdPW, st.ProdAPFused)
	fmt.Fprintf(stdout, "  symbolic (host) %.2f s, plan %.1f MB on the device; floor %.4f ms (%.1f MB at copy bandwidth, %.2f GFLOP at the FMA rate), A·P floor %.4f ms; pick %s\n",
		sym.Seconds(), float64(pl.Bytes())/1e6, floor*1e3, float64(st.FloorBytes())/1e6, float64(st.FloorFlops())/1e9, floorAP*1e3, pick)
	fmt.Fprintf(stdout, "  %-18s %10s %7s %10s %7s %12s %9s %9s %10s\n", "variant", "ms", "×floor", "A·P ms", "×floor", "pred MB", "pred ms", "GFLOP/s", "rel err")
	for _, v := range variants {
		if !pl.Available(v) {
			fmt.Fprintf(stdout, "  %-18s not offered (a W or Ac row longer than 256 blocks)\n", v)
			continue
		}
		if err := pl.PoisonAc(); err != nil {
			return err
		}
		ms, err := be.TimeMedian(2, runs, func() { pl.Numeric(v, dA, dP) })
		if err != nil {
			return fmt.Errorf("%s: %w", v, err)
		}
		got, err := pl.DownloadAc()
		if err != nil {
			return err
		}
		e := relFrob(got.Val, cpu.Ac.Val)
		apMS, apRatio := "-", "-"
		if v != cuda.GalerkinFused {
			ap, err := be.TimeMedian(2, runs, func() { pl.NumericStage(v, cuda.StageAP, dA, dP) })
			if err != nil {
				return fmt.Errorf("%s A·P: %w", v, err)
			}
			apMS, apRatio = fmt.Sprintf("%.4f", ap), fmt.Sprintf("%.2f", ap*1e-3/floorAP)
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
	}
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
