package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/blockamg/blockamg"
	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/amg/cycle"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/krylov"
)

// engine is where solve runs CG preconditioned by the hierarchy's V-cycle: on the CPU
// hierarchy itself, or on the hierarchy uploaded to a backend (a GPU).
type engine interface {
	// solve solves A·x = b from x = 0, leaving the solution in x.
	solve(b, x []float64, opt krylov.Options) (krylov.Result, error)
	// step gives the problem the values of recurring step k (a Newton or time step on
	// the same pattern) and redoes the numeric set-up for them, filling sr's assembly
	// and set-up figures. b is the right-hand side the step's solve will get: an
	// engine may start moving it while it sets up (the caller leaves it unchanged).
	step(k int, p *problem, b []float64, threads int, sr *stepResult) error
	// report adds the engine's own figures (device, transfers) to the report.
	report(r *solveReport)
	// hostVector returns a zero host vector of n entries in the memory the engine
	// transfers from fastest (the engine releases it at close).
	hostVector(n int) []float64
	// where names the engine in error messages ("" for the CPU).
	where() string
	close()
}

// cpuEngine is the library's front door on the CPU backend: a blockamg.Solver, which
// runs backend.PCG preconditioned by the V-cycle (amg/cycle) over the host hierarchy's
// own matrices.
type cpuEngine struct {
	s *blockamg.Solver
}

// solverOptions maps the flags onto the front door's options: the host set-up, or
// with device (an opened backend) a set-up on it: the device set-up where the
// backend can make one, unless --host-setup.
func (c *solveConfig) solverOptions(device backend.Resetter) blockamg.Options {
	opt := blockamg.Options{AMG: c.amg, Solve: c.kry, Backend: blockamg.CPU, Workers: c.threads,
		FullGalerkin: !c.amg.Symmetric, AssumeSymmetric: c.amg.Symmetric}
	if device != nil {
		opt.Backend, opt.Device, opt.HostSetup = blockamg.CUDA, device, c.hostSetup
	}
	return opt
}

// built is what a set-up gives solveRun to report.
type built struct {
	h   *amg.Hierarchy     // the hierarchy set up on the host; nil after a device set-up
	dev *cycle.DeviceSetup // the device set-up's report; nil after a host set-up
	// eig holds the device set-up's estimates of λ(D⁻¹A), per level but the coarsest.
	eig []krylov.EigenEstimate
	// upload is the time of the set-up call that is not the set-up's (reported apart):
	// after a host set-up on a device, the upload of its patterns and plans and the
	// first numeric set-up there; after a device set-up, the upload of A and B.
	upload time.Duration
	// fallback is why the device did not set up and the host did (nil when no device
	// set-up was refused).
	fallback error
}

// builtBy returns what solveRun reports of s's set-up.
func builtBy(s *blockamg.Solver) *built {
	b := &built{h: s.Hierarchy(), dev: s.DeviceSetup(), upload: s.UploadTime(), fallback: s.SetupFallback()}
	if b.dev != nil {
		b.eig = s.Cycle().Eigen()
	}
	return b
}

// cpuSetup returns solveRun's set-up for the CPU: NewSolver on the problem with the
// flags' options, the engine that solves with it kept in *eng. All of its time is the
// set-up's.
func cpuSetup(c *solveConfig, eng **cpuEngine) func(p *problem) (*built, error) {
	return func(p *problem) (*built, error) {
		s, err := blockamg.NewSolver(p.A, p.ns, c.solverOptions(nil))
		if err != nil {
			return nil, err
		}
		*eng = &cpuEngine{s: s}
		return &built{h: s.Hierarchy()}, nil
	}
}

// cpuOpen hands solveRun the engine cpuSetup made.
func cpuOpen(eng **cpuEngine) func(*problem) (engine, error) {
	return func(*problem) (engine, error) { return *eng, nil }
}

func (e *cpuEngine) solve(b, x []float64, opt krylov.Options) (krylov.Result, error) {
	if opt != e.s.SolveOptions() {
		return krylov.Result{}, fmt.Errorf("internal error: CG options %+v differ from the solver's %+v", opt, e.s.SolveOptions())
	}
	return e.s.Solve(b, x)
}
func (e *cpuEngine) step(k int, p *problem, _ []float64, threads int, sr *stepResult) error {
	// The new material is the caller's input: computed before the clock starts.
	var mod, E []float64
	switch {
	case p.asm != nil:
		mod = stepModulus(p, k)
	case p.mesh != nil:
		E = p.mesh.stepMaterials(k)
		p.mesh.lastE = E
	}
	t := time.Now()
	switch {
	case p.asm != nil:
		if err := p.asm.Numeric(p.A, mod, threads); err != nil {
			return err
		}
	case p.mesh != nil:
		if err := p.mesh.el.Numeric(p.A, E, p.mesh.nu, threads); err != nil {
			return err
		}
	default:
		p.A.Scale(stepFactor(k))
	}
	sr.AssemblySeconds = time.Since(t).Seconds()
	t = time.Now()
	if err := e.s.Update(p.A); err != nil {
		return err
	}
	sr.SetupSeconds = time.Since(t).Seconds()
	h := e.s.Hierarchy()
	sr.GalerkinSeconds = h.Times().Galerkin.Seconds()
	sr.FineGalerkin = h.Levels[0].Times.Galerkin.Seconds()
	for _, L := range h.Levels[:len(h.Levels)-1] {
		sr.GalerkinLevels = append(sr.GalerkinLevels, L.Times.Galerkin.Seconds())
	}
	return nil
}
func (*cpuEngine) report(*solveReport)        {}
func (*cpuEngine) hostVector(n int) []float64 { return make([]float64, n) }
func (*cpuEngine) where() string              { return "" }
func (e *cpuEngine) close()                   { e.s.Close() }

// backendEngine is the front door with its set-up on an opened backend (a
// blockamg.Solver with Options.Device): the device set-up where the backend is a
// backend.Coarsener (the hierarchy built there, nothing but A and B uploaded), or
// the host's, whose patterns and plans are uploaded once and whose first numeric
// set-up runs on the device; every re-setup (Solver.Refresh), the V-cycle and CG run
// on the device. New values reach the device by
// device assembly where the engine has it (assemble), by scaling on the device for a
// matrix from a file, and otherwise by an upload of the host's values, counted as
// such. The right-hand side goes up and the solution comes back once per solve,
// each counted under its own phase.
// stepAssembly is a recurring step's device assembly: materials sets step k's
// materials on the host (the caller's input, so not timed), assemble writes the fine
// operator's values from them on the device.
type stepAssembly struct {
	materials func(k int)
	assemble  func() error
}

type backendEngine struct {
	s      *blockamg.Solver
	be     backend.Resetter
	amgOpt amg.Options    // the set-up's options
	b, x   backend.Vector // the right-hand side and the solution on the device
	upload float64        // seconds of the uploads before the first solve (built.upload and b, x)
	devMem func() int64
	// stepAsm, when set, is the device assembly of a recurring step's fine values
	// (ex56's or a mesh's) into the device's fine operator.
	stepAsm *stepAssembly
	floor   *floorModel // bytes each phase must move at least, and the copy bandwidth
	steps   []cycle.UpdateTimes
	pcg     []float64 // seconds of each PCG on the device, transfers of b and x excluded
	// hostAlloc and hostFree, when set, give page-locked host memory (the CUDA
	// backend's HostAlloc): the right-hand side, the solution and the element moduli
	// live there, so their transfers run at the link's speed.
	hostAlloc func(n int) ([]float64, error)
	hostFree  func([]float64)
	// startUpload, when set, queues an upload that overlaps the device's work (the
	// CUDA backend's StartUpload); wait makes later work wait for it. step starts the
	// right-hand side's upload with it, and solve waits for it before PCG.
	startUpload func(dst backend.Vector, src []float64) (wait func())
	rhsWait     func()      // the pending upload of rhsSrc into b
	rhsSrc      []float64   // what rhsWait uploads
	host        [][]float64 // what hostAlloc gave, for close
	mod         []float64   // the element moduli of a step, in host memory from hostVector
}

// backendSetup returns solveRun's set-up for a run on the opened backend be:
// NewSolver with its set-up on be, the engine around it kept in *eng.
func backendSetup(c *solveConfig, be backend.Resetter, eng **backendEngine) func(p *problem) (*built, error) {
	return func(p *problem) (*built, error) {
		// Set before NewSolver: a host set-up moves nothing, so the phase counts the
		// uploads and the set-up's traffic on the device alone.
		if c.deviceSetup {
			be.SetPhase("upload + device set-up")
		} else {
			be.SetPhase("upload + first device set-up")
		}
		s, err := blockamg.NewSolver(p.A, p.ns, c.solverOptions(be))
		if err != nil {
			return nil, err
		}
		*eng = &backendEngine{s: s, be: be, amgOpt: c.amg, upload: s.UploadTime().Seconds()}
		return builtBy(s), nil
	}
}

// backendOpen hands solveRun the engine backendSetup made, with its device vectors;
// more, when not nil, adds what the backend offers beyond backend.Resetter (device
// assembly, page-locked memory, device memory, the floor model). On an error the
// engine is closed.
func backendOpen(eng **backendEngine, more func(e *backendEngine, p *problem) error) func(*problem) (engine, error) {
	return func(p *problem) (engine, error) {
		e := *eng
		err := e.vectors()
		if err == nil && more != nil {
			err = more(e, p)
		}
		if err != nil {
			e.close()
			return nil, err
		}
		return e, nil
	}
}

// vectors allocates b and x on the device, timed with the upload.
func (e *backendEngine) vectors() error {
	start := nowSeconds()
	n := e.rows()
	var err error
	if e.b, err = e.be.NewVector(n); err != nil {
		return err
	}
	if e.x, err = e.be.NewVector(n); err != nil {
		return err
	}
	if err := e.be.Err(); err != nil {
		return err
	}
	e.upload += nowSeconds() - start
	return nil
}

// rows returns the fine operator's rows.
func (e *backendEngine) rows() int {
	nb, _, r, _ := e.s.FineOperator().Dims()
	return nb * r
}

// floorModel returns the floor model of the solver's hierarchy, set up on the device
// or on the host (assembly and bw as newFloorModel's).
func (e *backendEngine) floorModel(assembly int64, bw float64) *floorModel {
	if ds := e.s.DeviceSetup(); ds != nil {
		return newDeviceFloorModel(ds, e.amgOpt, assembly, bw)
	}
	return newFloorModel(e.s.Hierarchy(), assembly, bw)
}

func (e *backendEngine) solve(b, x []float64, opt krylov.Options) (krylov.Result, error) {
	if opt != e.s.SolveOptions() {
		return krylov.Result{}, fmt.Errorf("internal error: CG options %+v differ from the solver's %+v", opt, e.s.SolveOptions())
	}
	switch {
	case e.rhsWait != nil && len(b) > 0 && len(e.rhsSrc) == len(b) && &e.rhsSrc[0] == &b[0]:
		e.rhsWait() // started by step, overlapping its assembly and re-setup
	case e.rhsWait != nil:
		// Another vector: the started copy must land first, then this one over it.
		e.rhsWait()
		e.be.SetPhase("rhs upload")
		e.be.Upload(e.b, b)
	default:
		e.be.SetPhase("rhs upload")
		e.be.Upload(e.b, b)
	}
	e.rhsWait, e.rhsSrc = nil, nil
	e.be.SetPhase("solve")
	t := time.Now()
	res, err := e.s.SolveVectors(e.b, e.x)
	e.pcg = append(e.pcg, time.Since(t).Seconds())
	if err != nil {
		return res, err
	}
	e.be.SetPhase("solution download")
	e.be.Download(x, e.x)
	return res, e.be.Err()
}

func (e *backendEngine) step(k int, p *problem, rhs []float64, threads int, sr *stepResult) error {
	be := e.be
	fine := e.s.FineOperator()
	// The new material is the caller's input: computed before the clock starts.
	if e.stepAsm != nil {
		e.stepAsm.materials(k)
	}
	t := time.Now()
	switch {
	case e.stepAsm != nil:
		be.SetPhase(fmt.Sprintf("step %d assembly (device)", k))
		if err := e.stepAsm.assemble(); err != nil {
			return err
		}
	case p.box == nil && p.mesh == nil:
		be.SetPhase(fmt.Sprintf("step %d new values (device scaling)", k))
		be.ScaleValues(fine, stepFactor(k))
	default:
		// No device assembly on this backend: assemble on the host and upload the
		// values (operator-sized traffic, reported under its own phase).
		if p.A == nil {
			return errors.New("internal error: the host matrix was released, and this backend has no device assembly")
		}
		if err := newValues(p, k, threads); err != nil {
			return err
		}
		be.SetPhase(fmt.Sprintf("step %d assembly (host) + value upload", k))
		if err := be.UploadValues(fine, p.A.Val); err != nil {
			return err
		}
	}
	if err := be.Err(); err != nil {
		return err
	}
	sr.AssemblySeconds = time.Since(t).Seconds()
	if e.startUpload != nil && len(rhs) == e.b.Len() {
		// After the assembly, whose moduli would otherwise share the link with it.
		be.SetPhase("rhs upload")
		e.rhsWait, e.rhsSrc = e.startUpload(e.b, rhs), rhs
	}
	be.SetPhase(fmt.Sprintf("step %d re-setup (device)", k))
	if err := e.s.Refresh(); err != nil {
		return err
	}
	_, ut := e.s.DeviceSetupTimes()
	e.steps = append(e.steps, ut)
	sr.SetupSeconds = ut.Total.Seconds()
	for _, lt := range ut.Levels {
		sr.GalerkinSeconds += lt.Galerkin.Seconds()
		sr.GalerkinLevels = append(sr.GalerkinLevels, lt.Galerkin.Seconds())
		sr.GalerkinVariants = append(sr.GalerkinVariants, lt.Variant)
	}
	if len(ut.Levels) > 0 {
		sr.FineGalerkin = ut.Levels[0].Galerkin.Seconds()
	}
	return nil
}

func (e *backendEngine) report(r *solveReport) {
	r.Device = e.be.Name()
	r.UploadSeconds = e.upload
	first, _ := e.s.DeviceSetupTimes()
	r.FirstDeviceSetupSeconds = first.Total.Seconds()
	if e.devMem != nil {
		r.DeviceMemoryBytes = e.devMem()
	}
	r.Traffic = map[string]backend.Traffic{}
	for _, ph := range e.be.Counters().Phases() {
		r.Traffic[ph] = e.be.Counters().Phase(ph)
		r.trafficOrder = append(r.trafficOrder, ph)
	}
	for i, ut := range e.steps {
		if i < len(r.Steps) {
			r.Steps[i].SetupPhases = setupPhases(ut)
			for _, lt := range ut.Levels {
				r.Steps[i].SetupLevels = append(r.Steps[i].SetupLevels, levelSetup{Diag: lt.Diag.Seconds(),
					Eig: lt.Eig.Seconds(), Smooth: lt.Smooth.Seconds(), Filter: lt.Filter.Seconds(),
					Transpose: lt.Transpose.Seconds(), Galerkin: lt.Galerkin.Seconds(), LambdaMax: lt.LambdaMax})
			}
		}
	}
	if len(e.pcg) > 0 {
		r.PCGSeconds = e.pcg[0]
	}
	for i := range r.Steps {
		if i+1 < len(e.pcg) {
			r.Steps[i].PCGSeconds = e.pcg[i+1]
		}
	}
	if e.floor != nil {
		r.Floor = e.floor.report(r)
	}
}

// setupPhases sums a device re-setup's phase times over the levels.
func setupPhases(ut cycle.UpdateTimes) map[string]float64 {
	m := map[string]float64{"coarse": ut.Coarse.Seconds()}
	for _, lt := range ut.Levels {
		m["block-diagonal inverse"] += lt.Diag.Seconds()
		m["eigenvalue estimate"] += lt.Eig.Seconds()
		m["P smoothing"] += lt.Smooth.Seconds()
		m["P filtering"] += lt.Filter.Seconds()
		m["Pᵀ refresh"] += lt.Transpose.Seconds()
		m["PᵀAP"] += lt.Galerkin.Seconds()
	}
	return m
}

func (e *backendEngine) where() string { return " (" + e.be.Name() + ")" }

func (e *backendEngine) hostVector(n int) []float64 {
	if e.hostAlloc != nil {
		if v, err := e.hostAlloc(n); err == nil {
			e.host = append(e.host, v)
			return v
		}
	}
	return make([]float64, n)
}

func (e *backendEngine) close() {
	for _, v := range []backend.Vector{e.b, e.x} {
		if v != nil {
			v.Free()
		}
	}
	e.s.Close()
	if e.hostFree != nil {
		for _, v := range e.host {
			e.hostFree(v)
		}
	}
	e.host = nil
}
