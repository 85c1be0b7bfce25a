package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"testing"
	"time"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cpu"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/krylov"
)

// TestBackendEngineMatchesCPU drives the engine that solve --gpu uses through the CPU
// backend, so that the GPU path's driver logic (the device set-up on an opened
// backend, rhs/solution transfers, new values on the device and Refresh, report) is
// tested without a GPU: same iterations and residuals as the CPU engine, the
// manufactured solution recovered, transfer phases reported.
func TestBackendEngineMatchesCPU(t *testing.T) {
	run := func(device bool) solveReport {
		t.Helper()
		c := solveConfig{ne: 6, alpha: fem.Ex56(1).Alpha, kry: krylov.DefaultOptions(), amg: amg.DefaultOptions(),
			chebEig: "0,0.1,0,1.1", galerkin: "auto", mms: true, jsonOut: true, steps: 2, threads: 1}
		if err := c.finish(flag.NewFlagSet("solve", flag.ContinueOnError)); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		var setup func(*problem) (*amg.Hierarchy, time.Duration, error)
		var open func(*amg.Hierarchy, *problem) (engine, error)
		if device {
			var eng *backendEngine
			setup = backendSetup(&c, newCountingCPU(), &eng)
			open = backendOpen(&eng, func(e *backendEngine, p *problem) error {
				e.floor = newFloorModel(e.s.Hierarchy(), p.box.Elements(), 1e10)
				return nil
			})
		} else {
			var eng *cpuEngine
			setup, open = cpuSetup(&c, &eng), cpuOpen(&eng)
		}
		if err := solveRun(&c, setup, open, &out, &errb); err != nil {
			t.Fatalf("solveRun: %v (%s)", err, errb.String())
		}
		var r solveReport
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	want, got := run(false), run(true)
	if got.Iterations != want.Iterations || len(got.Steps) != 2 {
		t.Fatalf("backend engine: %d iterations, %d steps; CPU engine %d iterations", got.Iterations, len(got.Steps), want.Iterations)
	}
	for i, s := range got.Steps {
		if s.Iterations != want.Steps[i].Iterations || s.RelativeResidual > 1e-8 {
			t.Errorf("step %d: backend %d iterations (residual %g), CPU %d", s.Step, s.Iterations, s.RelativeResidual, want.Steps[i].Iterations)
		}
	}
	if got.SolutionError == 0 || got.SolutionError > 1e-6 {
		t.Errorf("backend engine: manufactured solution error %g, want (0, 1e-6]", got.SolutionError)
	}
	if got.Device == "" || len(got.Traffic) == 0 {
		t.Errorf("backend engine: device %q, %d traffic phases; want both reported", got.Device, len(got.Traffic))
	}
	// The host set-up, the upload with the first device set-up, and that set-up's
	// numeric part within the upload, each reported.
	if !(got.SetupSeconds > 0 && got.FirstDeviceSetupSeconds > 0 && got.UploadSeconds >= got.FirstDeviceSetupSeconds) {
		t.Errorf("backend engine: set-up %g s, upload %g s, first device set-up %g s; want all > 0, the last within the upload",
			got.SetupSeconds, got.UploadSeconds, got.FirstDeviceSetupSeconds)
	}
	for _, ph := range []string{"upload + first device set-up", "rhs upload", "solution download",
		"step 1 assembly (host) + value upload", "step 1 re-setup (device)"} {
		if _, ok := got.Traffic[ph]; !ok {
			t.Errorf("traffic phase %q missing (have %v)", ph, got.Traffic)
		}
	}
	n := int64(got.Unknowns) * 8
	coarse := int64(got.Levels[len(got.Levels)-1].Rows) * 8
	if tr := got.Traffic["rhs upload"]; tr.H2DBytes != 3*n { // first solve and two steps
		t.Errorf("rhs upload moved %d bytes, want 3 right-hand sides (%d)", tr.H2DBytes, 3*n)
	}
	if tr := got.Traffic["solve"]; tr.H2DBytes+tr.D2HBytes > 2*coarse*int64(got.Iterations+got.Steps[0].Iterations+got.Steps[1].Iterations+3) {
		t.Errorf("solve phase moved %d bytes: more than the coarsest vectors per cycle", tr.H2DBytes+tr.D2HBytes)
	}
	if tr := got.Traffic["step 1 assembly (host) + value upload"]; tr.H2DBytes != got.Levels[0].NNZBlocks*9*8 {
		t.Errorf("value upload moved %d bytes, want the fine values (%d)", tr.H2DBytes, got.Levels[0].NNZBlocks*9*8)
	}
	// Re-setup on the backend: scalars and the coarsest operator, never a fine or
	// intermediate operator.
	last := got.Levels[len(got.Levels)-1]
	// (and, when small, the coarsest operator's dense inverse going up)
	inv := int64(last.Rows) * int64(last.Rows) * 8
	if tr := got.Traffic["step 2 re-setup (device)"]; tr.H2DBytes+tr.D2HBytes > last.Bytes+inv+4096 {
		t.Errorf("re-setup moved %d bytes, more than the coarsest operator (%d), its inverse (%d) and scalars", tr.H2DBytes+tr.D2HBytes, last.Bytes, inv)
	}
	if len(got.Steps[0].GalerkinLevels) != len(got.Levels)-1 || got.Steps[0].SetupPhases["PᵀAP"] <= 0 {
		t.Errorf("step 1: PᵀAP per level %v, phases %v", got.Steps[0].GalerkinLevels, got.Steps[0].SetupPhases)
	}
	if f := got.Floor; f == nil || f.ResetupBytes <= 0 || f.IterationBytes <= 0 || !(f.StepRatio > 0) {
		t.Errorf("floor report %+v", f)
	}
}

// countingCPU is the CPU backend with a device's bookkeeping: every Upload, Download
// and matrix upload is counted under the current phase, as the CUDA backend does, so
// that the engine's phase labels can be checked without a GPU.
type countingCPU struct {
	*cpu.Backend
	phase    string
	counters backend.Counters
}

func newCountingCPU() *countingCPU { return &countingCPU{Backend: cpu.New(1)} }

func (b *countingCPU) SetPhase(name string) string {
	prev := b.phase
	b.phase = name
	return prev
}
func (b *countingCPU) Counters() *backend.Counters { return &b.counters }
func (b *countingCPU) Upload(dst backend.Vector, src []float64) {
	b.counters.AddH2D(b.phase, int64(len(src))*8)
	b.Backend.Upload(dst, src)
}
func (b *countingCPU) Download(dst []float64, src backend.Vector) {
	b.counters.AddD2H(b.phase, int64(len(dst))*8)
	b.Backend.Download(dst, src)
}
func (b *countingCPU) UploadValues(a backend.Matrix, src []float64) error {
	b.counters.AddH2D(b.phase, int64(len(src))*8)
	return b.Backend.UploadValues(a, src)
}
func (b *countingCPU) DownloadValues(dst []float64, a backend.Matrix) error {
	b.counters.AddD2H(b.phase, int64(len(dst))*8)
	return b.Backend.DownloadValues(dst, a)
}
func (b *countingCPU) UploadMatrix(m *bsr.Matrix, withTranspose bool) (backend.Matrix, error) {
	b.counters.AddH2D(b.phase, m.Bytes())
	return b.Backend.UploadMatrix(m, withTranspose)
}
