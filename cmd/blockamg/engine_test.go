package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cpu"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/internal/hostcoarsen"
	"github.com/blockamg/blockamg/krylov"
)

// TestBackendEngineMatchesCPU drives the engine that solve --gpu uses through the CPU
// backend, so that the GPU path's driver logic (the device set-up on an opened
// backend, rhs/solution transfers, new values on the device and Refresh, report) is
// tested without a GPU: same iterations and residuals as the CPU engine, the
// manufactured solution recovered, transfer phases reported.
func TestBackendEngineMatchesCPU(t *testing.T) {
	want, got := runEngine(t, onCPU, true), runEngine(t, onBackend, true)
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

// Where runEngine runs solve: the CPU engine, the backend engine on a backend that
// is not a Coarsener (a host set-up uploaded), on one that is (the device set-up).
const (
	onCPU = iota
	onBackend
	onCoarsener
)

// runEngine runs solveRun on ex56 ne = 6 with two recurring steps on the engine
// where names, and returns its report (jsonOut) or its text.
func runEngine(t *testing.T, where int, jsonOut bool) solveReport {
	t.Helper()
	r, _ := runEngineText(t, where, jsonOut)
	return r
}

func runEngineText(t *testing.T, where int, jsonOut bool) (solveReport, string) {
	t.Helper()
	c := solveConfig{ne: 6, alpha: fem.Ex56(1).Alpha, kry: krylov.DefaultOptions(), amg: amg.DefaultOptions(),
		chebEig: "0,0.1,0,1.1", galerkin: "auto", mms: true, jsonOut: jsonOut, steps: 2, threads: 1}
	if err := c.finish(flag.NewFlagSet("solve", flag.ContinueOnError)); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	var setup func(*problem) (*built, error)
	var open func(*problem) (engine, error)
	switch where {
	case onCPU:
		var eng *cpuEngine
		setup, open = cpuSetup(&c, &eng), cpuOpen(&eng)
	default:
		var be backend.Resetter = newCountingCPU()
		if where == onCoarsener {
			be = &countingCoarsener{newCountingCPU()}
			c.deviceSetup = true
		}
		var eng *backendEngine
		setup = backendSetup(&c, be, &eng)
		open = backendOpen(&eng, func(e *backendEngine, p *problem) error {
			// As cudafem.Assembly.ValueBytes counts ex56's assembly: the values
			// written and one modulus per element read.
			e.floor = e.floorModel(9*8*p.box.NNZBlocks()+8*int64(p.box.Elements()), 1e10)
			return nil
		})
	}
	if err := solveRun(&c, setup, open, &out, &errb); err != nil {
		t.Fatalf("solveRun: %v (%s)", err, errb.String())
	}
	var r solveReport
	if jsonOut {
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
	}
	return r, out.String()
}

// TestBackendEngineDeviceSetup drives the engine on a Coarsener (the host one,
// counting transfers as a device): the set-up on the device reports the levels the
// host set-up does (sizes, bytes, aggregates, edges, prolongators, λ), the same
// floor, its phases in device_setup, and moves only A, B and the start vectors up;
// the solves match the host set-up's.
func TestBackendEngineDeviceSetup(t *testing.T) {
	want, got := runEngine(t, onBackend, true), runEngine(t, onCoarsener, true)
	ds := got.DeviceSetup
	if ds == nil || want.DeviceSetup != nil {
		t.Fatalf("device_setup: %v on the Coarsener, %v on the CPU backend; want it on the Coarsener only", ds != nil, want.DeviceSetup != nil)
	}
	if got.Iterations != want.Iterations || len(got.Steps) != len(want.Steps) {
		t.Fatalf("device set-up %d iterations, %d steps; host set-up %d, %d", got.Iterations, len(got.Steps), want.Iterations, len(want.Steps))
	}
	for i, s := range got.Steps {
		if s.Iterations != want.Steps[i].Iterations {
			t.Errorf("step %d: device set-up %d iterations, host set-up %d", s.Step, s.Iterations, want.Steps[i].Iterations)
		}
	}
	if len(got.Levels) != len(want.Levels) || len(ds.Levels) != len(want.Levels) {
		t.Fatalf("%d levels (%d in device_setup), host set-up %d", len(got.Levels), len(ds.Levels), len(want.Levels))
	}
	for l, w := range want.Levels {
		g := got.Levels[l]
		if g.Rows != w.Rows || g.BlockRows != w.BlockRows || g.BlockSize != w.BlockSize || g.NNZBlocks != w.NNZBlocks ||
			g.NNZ != w.NNZ || g.Bytes != w.Bytes || g.Aggregates != w.Aggregates || g.PBlockRows != w.PBlockRows ||
			g.PBlockCols != w.PBlockCols || g.PR != w.PR || g.PC != w.PC || g.PNNZBlocks != w.PNNZBlocks ||
			g.PBytes != w.PBytes || g.Edges != w.Edges {
			t.Errorf("level %d: device set-up %+v\nhost set-up %+v", l, g, w)
		}
		for _, v := range [][2]float64{{g.EigMax, w.EigMax}, {g.EigMin, w.EigMin}, {g.Omega, w.Omega}, {g.ChebMin, w.ChebMin}, {g.ChebMax, w.ChebMax}} {
			if math.Abs(v[0]-v[1]) > 1e-8*math.Abs(v[1]) {
				t.Errorf("level %d: λ estimates and interval %v, %v, %v, %v, %v; host %v, %v, %v, %v, %v", l,
					g.EigMin, g.EigMax, g.Omega, g.ChebMin, g.ChebMax, w.EigMin, w.EigMax, w.Omega, w.ChebMin, w.ChebMax)
				break
			}
		}
		if l < len(want.Levels)-1 && (ds.Levels[l].CoarsenSeconds <= 0 || ds.Levels[l].PlanSeconds <= 0 || ds.Levels[l].Galerkin <= 0 ||
			ds.Levels[l].MISRounds < 1 || ds.Levels[l].PtentNNZBlocks <= 0 || ds.Levels[l].LambdaMax != g.EigMax) {
			t.Errorf("device_setup level %d: %+v", l, ds.Levels[l])
		}
	}
	if got.GridComplexity != want.GridComplexity || math.Abs(got.OperatorComplexity-want.OperatorComplexity) > 1e-12 {
		t.Errorf("complexities %g, %g; host set-up %g, %g", got.GridComplexity, got.OperatorComplexity, want.GridComplexity, want.OperatorComplexity)
	}
	if got.SetupSeconds != ds.TotalSeconds || !(got.FirstDeviceSetupSeconds > 0 && got.FirstDeviceSetupSeconds <= got.SetupSeconds) ||
		got.UploadSeconds <= 0 || got.Phases.Total() != 0 {
		t.Errorf("set-up %g s (device_setup %g), first numeric %g, upload %g, host phases %v",
			got.SetupSeconds, ds.TotalSeconds, got.FirstDeviceSetupSeconds, got.UploadSeconds, got.Phases)
	}
	gf, wf := got.Floor, want.Floor
	if gf == nil || wf == nil || gf.AssemblyBytes != wf.AssemblyBytes || gf.ResetupBytes != wf.ResetupBytes || gf.IterationBytes != wf.IterationBytes {
		t.Errorf("floor %+v, host set-up's %+v: want the same bytes", gf, wf)
	}
	up, ok := got.Traffic["upload + device set-up"]
	if !ok {
		t.Fatalf("no traffic phase \"upload + device set-up\" (have %v)", got.Traffic)
	}
	var rows int64
	for _, l := range got.Levels {
		rows += int64(l.Rows)
	}
	fine, modes := got.Levels[0].Bytes, int64(got.Unknowns*got.NullSpace*8)
	last := got.Levels[len(got.Levels)-1]
	if up.H2DBytes < fine+modes || up.H2DBytes > fine+modes+8*rows || up.D2HBytes > last.Bytes+4096 {
		t.Errorf("set-up traffic %+v: want A (%d) and B (%d) up with at most the levels' start vectors (%d), the coarsest operator (%d) down",
			up, fine, modes, 8*rows, last.Bytes)
	}
	_, text := runEngineText(t, onCoarsener, false)
	for _, s := range []string{"set-up, re-setup, assembly of new values, V-cycle and CG on the device", "MIS rounds",
		"coarsen (strength, aggregation, P_tent, patterns)", "first set-up on the device by level (ms):",
		"upload of A and B", "last re-setup on the device by phase"} {
		if !strings.Contains(text, s) {
			t.Errorf("text report lacks %q:\n%s", s, text)
		}
	}
}

// countingCoarsener is countingCPU with package amg's symbolic set-up behind the
// backend.Coarsener interface (internal/hostcoarsen), so that the engine makes a
// device set-up on it.
type countingCoarsener struct{ *countingCPU }

func (b *countingCoarsener) Coarsen(a backend.Matrix, B backend.Vector, k int, opt backend.CoarsenOptions) (*backend.Coarsening, error) {
	return hostcoarsen.Coarsen(a, B, k, opt, 1)
}
func (b *countingCoarsener) NewGalerkinOn(a, p backend.Matrix) (backend.Galerkin, error) {
	return hostcoarsen.NewGalerkinOn(b.Backend, a, p)
}
func (b *countingCoarsener) DownloadPattern(a backend.Matrix) (*bsr.Matrix, error) {
	return hostcoarsen.DownloadPattern(a)
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
