package main

import (
	"bytes"
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/internal/cudadrv"
)

// TestGalerkinGPUNoDriver: without a driver the report says so and does nothing else.
func TestGalerkinGPUNoDriver(t *testing.T) {
	if err := cudadrv.Load(); err == nil {
		t.Skip("a CUDA driver is present")
	}
	var out, errb bytes.Buffer
	err := runGalerkinGPU(4, "all", 3, 0, true, true, &out, &errb)
	if err == nil || err.Error() != "no CUDA driver found" {
		t.Fatalf("got error %v, want \"no CUDA driver found\"", err)
	}
	if out.Len() != 0 {
		t.Errorf("printed %q without a driver", out.String())
	}
}

// TestGalerkinGPUArgs: bad arguments are errors, before any device work.
func TestGalerkinGPUArgs(t *testing.T) {
	var out bytes.Buffer
	for _, tc := range []struct {
		ne, runs int
		v        string
	}{{0, 3, "all"}, {4, 0, "all"}, {4, 3, "nope"}} {
		if err := runGalerkinGPU(tc.ne, tc.v, tc.runs, 0, true, true, &out, &out); err == nil {
			t.Errorf("ne=%d runs=%d variant=%q: no error", tc.ne, tc.runs, tc.v)
		}
	}
}

// TestGalerkinGPULevels: --levels 1 benchmarks the fine level alone, not every level.
// Needs a GPU.
func TestGalerkinGPULevels(t *testing.T) {
	if err := cudadrv.Load(); err != nil {
		t.Skip(err)
	}
	var out, errb bytes.Buffer
	if err := runGalerkinGPU(6, "tc-block", 2, 1, true, false, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "\nlevel 0:") || strings.Contains(s, "\nlevel 1:") {
		t.Errorf("--levels 1: want level 0 alone, got\n%s", s)
	}
}

// TestGalerkinGPUCusparse: with cuSPARSE the report checks both of its baselines on
// every level, the whole cusparseSpGEMM sequence and the reuse pipeline's numeric
// step, and finds both correct (ex56 ne = 6). Needs a GPU and cuSPARSE.
func TestGalerkinGPUCusparse(t *testing.T) {
	if err := cudadrv.Load(); err != nil {
		t.Skip(err)
	}
	if _, err := cudadrv.LoadCusparse(); err != nil {
		t.Skip(err)
	}
	var out, errb bytes.Buffer
	if err := runGalerkinGPU(6, "tc-block", 2, 0, true, true, &out, &errb); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	levels := strings.Count(s, "\nlevel ")
	full := strings.Count(s, "cuSPARSE ÷ ours")
	reuse := strings.Count(s, "cuSPARSE reuse (cusparseSpGEMMreuse")
	okReuse := 0
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, "cuSPARSE reuse (cusparseSpGEMMreuse") && strings.Contains(line, " ok; ") {
			okReuse++
		}
	}
	if levels == 0 || full != levels || reuse != levels || okReuse != levels {
		t.Errorf("%d levels: %d full-sequence lines, %d reuse lines (%d correct), want one correct each:\n%s", levels, full, reuse, okReuse, s)
	}
}

// The report test's sizes and runs: test flags, e.g.
// blockamg-bench.test -test.run GalerkinGPUReport -galerkin-gpu.ne 39,64.
var (
	flagReportNE   = flag.String("galerkin-gpu.ne", "", "ex56 sizes of TestGalerkinGPUReport, comma-separated (empty: skipped)")
	flagReportRuns = flag.Int("galerkin-gpu.runs", 10, "timed runs per variant of TestGalerkinGPUReport")
)

// TestGalerkinGPUReport runs the report for the sizes of -galerkin-gpu.ne (skipped
// without) with -galerkin-gpu.runs runs, printing it, and checks that a variant is
// marked as the pick.
func TestGalerkinGPUReport(t *testing.T) {
	list := *flagReportNE
	if list == "" {
		t.Skip("-galerkin-gpu.ne N,... runs the GPU Galerkin report")
	}
	runs := *flagReportRuns
	for _, f := range strings.Split(list, ",") {
		ne, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := runGalerkinGPU(ne, "all", runs, 0, true, true, &out, os.Stderr); err != nil {
			t.Fatal(err)
		}
		os.Stdout.Write(out.Bytes())
		if !strings.Contains(out.String(), "(pick)") {
			t.Errorf("ne=%d: no variant marked as the pick", ne)
		}
	}
}
