package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/backend/cuda"
)

func runSolveJSON(t *testing.T, args ...string) solveReport {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"solve", "--json"}, args...), &out, &errb); code != 0 {
		t.Fatalf("solve %v: exit %d: %s", args, code, errb.String())
	}
	var r solveReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("solve %v: bad JSON: %v\n%s", args, err, out.String())
	}
	return r
}

func TestSolveDefaultProblem(t *testing.T) {
	r := runSolveJSON(t, "--ne", "8")
	if r.Iterations < 1 || r.Iterations > 20 {
		t.Errorf("iterations = %d, want 1…20 for SA with rigid-body modes on ex56 ne=8", r.Iterations)
	}
	if r.RelativeResidual > 1e-8 {
		t.Errorf("relative residual %g > rtol 1e-8", r.RelativeResidual)
	}
	if r.Unknowns != 3*9*9*9 || r.BlockSize != 3 || r.NullSpace != 6 {
		t.Errorf("problem: %d unknowns, block %d, %d modes; want 2187, 3, 6", r.Unknowns, r.BlockSize, r.NullSpace)
	}
	if len(r.Levels) < 2 || r.Levels[0].Rows != r.Unknowns || r.Levels[1].BlockSize != 6 {
		t.Errorf("levels %+v: want ≥ 2 levels, fine rows = unknowns, 6×6 coarse blocks", r.Levels)
	}
	if r.PeakRSSBytes <= 0 || r.SetupSeconds <= 0 || r.SolveSeconds <= 0 {
		t.Errorf("missing measurements: rss %d, setup %g, solve %g", r.PeakRSSBytes, r.SetupSeconds, r.SolveSeconds)
	}
	if len(r.History) != r.Iterations+1 {
		t.Errorf("history has %d entries for %d iterations", len(r.History), r.Iterations)
	}
}

func TestSolveManufacturedAndDeterministic(t *testing.T) {
	r1 := runSolveJSON(t, "--ne", "6", "--manufactured", "--threads", "1", "--rtol", "1e-10")
	r2 := runSolveJSON(t, "--ne", "6", "--manufactured", "--threads", "2", "--rtol", "1e-10")
	// κ(A) of this small problem is far below 1e4, so rtol 1e-10 recovers x* well below 1e-6.
	if r1.SolutionError > 1e-6 || r1.SolutionError == 0 {
		t.Errorf("manufactured solution error %g, want (0, 1e-6]", r1.SolutionError)
	}
	if len(r1.History) != len(r2.History) {
		t.Fatalf("1 thread: %d iterations, 2 threads: %d", r1.Iterations, r2.Iterations)
	}
	for i := range r1.History {
		if r1.History[i] != r2.History[i] {
			t.Fatalf("residual %d differs between 1 and 2 threads: %v vs %v", i, r1.History[i], r2.History[i])
		}
	}
}

func TestSolveSteps(t *testing.T) {
	r := runSolveJSON(t, "--ne", "6", "--steps", "2")
	if len(r.Steps) != 2 || r.ResetupSeconds <= 0 {
		t.Fatalf("steps %+v, resetup %g: want 2 steps and a re-setup time", r.Steps, r.ResetupSeconds)
	}
	for _, s := range r.Steps {
		if s.RelativeResidual > 1e-8 || s.Iterations < 1 {
			t.Errorf("step %d: %d iterations, residual %g", s.Step, s.Iterations, s.RelativeResidual)
		}
	}
}

func TestSolveMatrixFile(t *testing.T) {
	dir := "../../../shared/data/hypre_beam_hex_459"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/data absent: skipping the hypre beam solve")
	}
	r := runSolveJSON(t, "--matrix", filepath.Join(dir, "A.mtx"), "--block-size", "3",
		"--coords", filepath.Join(dir, "coords.mtx"), "--rhs", filepath.Join(dir, "b.mtx"), "--threshold", "0")
	// ../shared/data/README.md: PETSc GAMG with the rigid-body modes needs 28.
	if r.Iterations > 28 || r.RelativeResidual > 1e-8 {
		t.Errorf("hypre beam hex: %d iterations (PETSc 28), residual %g", r.Iterations, r.RelativeResidual)
	}
}

// TestMissingInput checks that a missing or unreadable input is refused before any
// work, on one line naming its flag, with no progress line started before it (the
// error line after an open progress line is internal/cli's TestRunErrorLine).
func TestMissingInput(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.mtx")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--matrix", missing}, "blockamg solve: --matrix: open " + missing + ": no such file or directory\n"},
		{[]string{"--mesh", missing, "--fix", "a"}, "blockamg solve: --mesh: open " + missing + ": no such file or directory\n"},
		{[]string{"--matrix", dir}, "blockamg solve: --matrix: " + dir + " is a folder, want a file\n"},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"solve"}, c.args...), &out, &errb); code != exitBadInput || errb.String() != c.want {
			t.Errorf("solve %q: exit %d, stderr %q; want %d, %q", c.args, code, errb.String(), exitBadInput, c.want)
		}
	}
}

func TestSolveErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.mtx")
	os.WriteFile(bad, []byte("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n"), 0o644)
	rhs := filepath.Join(dir, "b.mtx")
	os.WriteFile(rhs, []byte("%%MatrixMarket matrix array real general\n2 1\n1\n2\n"), 0o644)
	good := filepath.Join(dir, "good.mtx")
	os.WriteFile(good, []byte("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 2\n2 2 2\n3 3 2\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--ne", "0"}, "--ne"},
		{[]string{"--matrix", bad}, "bad.mtx"},
		{[]string{"--matrix", good, "--rhs", rhs}, "b.mtx"},
		{[]string{"--ne", "8", "--maxit", "2"}, "iteration"},
		{[]string{"--cheb-esteig", "1,2"}, "cheb-esteig"},
		{[]string{"--galerkin", "nope"}, "galerkin"},
		{[]string{"--coords", "x.mtx"}, "--matrix"},
		{[]string{"stray"}, "stray"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(append([]string{"solve"}, c.args...), &out, &errb)
		if code == 0 {
			t.Errorf("solve %v: exit 0, want failure", c.args)
			continue
		}
		if !strings.Contains(errb.String(), c.want) {
			t.Errorf("solve %v: stderr %q does not mention %q", c.args, errb.String(), c.want)
		}
		if strings.Contains(errb.String(), "panic") || strings.Contains(errb.String(), "goroutine 1 [") {
			t.Errorf("solve %v: stack trace on stderr", c.args)
		}
	}
}

func TestSolvePlot(t *testing.T) {
	png := filepath.Join(t.TempDir(), "res.png")
	runSolveJSON(t, "--ne", "4", "--plot", png)
	data, err := os.ReadFile(png)
	if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Fatalf("--plot did not write a PNG: %v", err)
	}
}

func TestSolveGPUWithoutDriver(t *testing.T) {
	if _, err := os.Stat("/dev/nvidiactl"); err == nil {
		t.Skip("an NVIDIA device is present: the no-driver path cannot be tested here")
	}
	var out, errb bytes.Buffer
	code := run([]string{"solve", "--gpu", "--ne", "4"}, &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "no CUDA driver found") {
		t.Fatalf("solve --gpu without a driver: exit %d, stderr %q; want exit ≠ 0 and \"no CUDA driver found\"", code, errb.String())
	}
}

func TestSolveFilter(t *testing.T) {
	plain := runSolveJSON(t, "--ne", "8", "--aggressive-levels", "0", "--w-stats")
	r := runSolveJSON(t, "--ne", "8", "--aggressive-levels", "0", "--w-stats", "--filter", "0.1")
	f := r.Levels[0].Filter
	if f == nil || f.DroppedBlocks == 0 || f.NNZBlocksAfter != r.Levels[0].PNNZBlocks {
		t.Fatalf("--filter 0.1: level 0 filter stats %+v, P blocks %d: want dropped blocks and P_f's count", f, r.Levels[0].PNNZBlocks)
	}
	if len(r.WBlocks) == 0 || r.WBlocks[0] >= plain.WBlocks[0] {
		t.Errorf("W blocks filtered %v, unfiltered %v: want fewer", r.WBlocks, plain.WBlocks)
	}
	if r.Iterations > plain.Iterations+1 {
		t.Errorf("filtered %d iterations, unfiltered %d", r.Iterations, plain.Iterations)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"solve", "--filter", "2"}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "FilterTheta") {
		t.Errorf("--filter 2: exit %d, stderr %q", code, errb.String())
	}
}

func TestSolveFloat32Smoother(t *testing.T) {
	r64 := runSolveJSON(t, "--ne", "8")
	r32 := runSolveJSON(t, "--ne", "8", "--smoother-f32")
	if r32.RelativeResidual > 1e-8 || r32.Iterations > r64.Iterations+1 {
		t.Errorf("--smoother-f32: %d iterations, residual %g; float64 smoother %d iterations", r32.Iterations, r32.RelativeResidual, r64.Iterations)
	}
	if r32.Levels[0].Bytes32 == 0 {
		t.Errorf("--smoother-f32 kept no float32 copy of the fine operator")
	}
}

// TestSolveHostSetupFlags: --host-setup needs --gpu, and --w-stats (W counted on the
// host hierarchy) needs --host-setup with --gpu; both refused before any work.
func TestSolveHostSetupFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--host-setup"}, "--host-setup needs --gpu"},
		{[]string{"--gpu", "--w-stats"}, "add --host-setup"},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"solve", "--ne", "4"}, tc.args...), &out, &errb); code == 0 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("solve %v: exit %d, stderr %q; want an error saying %q", tc.args, code, errb.String(), tc.want)
		}
	}
}

// needGPU skips the test, with the reason, where no CUDA driver or device is found:
// the command's --gpu runs open the device themselves.
func needGPU(t *testing.T) {
	t.Helper()
	be, err := cuda.New(cuda.Options{})
	if errors.Is(err, cuda.ErrNoDriver) || errors.Is(err, cuda.ErrNoDevice) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	be.Close()
}

// TestSolveGPUDeviceSetup: on a GPU (skipped without one) solve --gpu sets the
// hierarchy up on the device — device_setup in the JSON, setup_seconds its total, the
// levels and iterations of --host-setup — and falls back to the host set-up, saying
// why, for --agg-nsmooths 2; the text report prints the device set-up's tables.
func TestSolveGPUDeviceSetup(t *testing.T) {
	needGPU(t)
	dev := runSolveJSON(t, "--gpu", "--ne", "8", "--steps", "1", "-q")
	host := runSolveJSON(t, "--gpu", "--ne", "8", "--steps", "1", "-q", "--host-setup")
	ds := dev.DeviceSetup
	if ds == nil || host.DeviceSetup != nil || dev.HostSetupReason != "" {
		t.Fatalf("device_setup: %v by default, %v with --host-setup (host set-up reason %q)", ds != nil, host.DeviceSetup != nil, dev.HostSetupReason)
	}
	if len(ds.Levels) != len(host.Levels) || len(dev.Levels) != len(host.Levels) || dev.SetupSeconds != ds.TotalSeconds {
		t.Fatalf("device set-up: %d levels (%d reported), setup_seconds %g, total %g; host set-up %d levels",
			len(ds.Levels), len(dev.Levels), dev.SetupSeconds, ds.TotalSeconds, len(host.Levels))
	}
	for l, h := range host.Levels {
		if d := dev.Levels[l]; d.Rows != h.Rows || d.NNZBlocks != h.NNZBlocks || d.Aggregates != h.Aggregates || d.PNNZBlocks != h.PNNZBlocks {
			t.Errorf("level %d: device set-up %+v, host %+v", l, d, h)
		}
	}
	if dev.Iterations != host.Iterations || dev.Steps[0].Iterations != host.Steps[0].Iterations || dev.RelativeResidual > 1e-8 {
		t.Errorf("device set-up %d, %d iterations (residual %g); host set-up %d, %d", dev.Iterations, dev.Steps[0].Iterations,
			dev.RelativeResidual, host.Iterations, host.Steps[0].Iterations)
	}
	if _, ok := dev.Traffic["upload + device set-up"]; !ok || dev.Floor == nil || dev.PeakRSSBytes <= 0 {
		t.Errorf("device set-up: traffic phases %v, floor %v, peak RSS %d", dev.Traffic, dev.Floor, dev.PeakRSSBytes)
	}
	fb := runSolveJSON(t, "--gpu", "--ne", "6", "--agg-nsmooths", "2", "-q")
	if fb.DeviceSetup != nil || !strings.Contains(fb.HostSetupReason, "AggNSmooths") || fb.RelativeResidual > 1e-8 {
		t.Errorf("--agg-nsmooths 2: device_setup %v, host set-up reason %q, residual %g", fb.DeviceSetup != nil, fb.HostSetupReason, fb.RelativeResidual)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"solve", "--gpu", "--ne", "6", "--steps", "1"}, &out, &errb); code != 0 {
		t.Fatalf("solve --gpu: exit %d: %s", code, errb.String())
	}
	for _, s := range []string{"first set-up on the device by level (ms):", "coarsen (strength, aggregation, P_tent, patterns)", "A assembled on the device; upload of B"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("solve --gpu text lacks %q:\n%s", s, out.String())
		}
	}
}
