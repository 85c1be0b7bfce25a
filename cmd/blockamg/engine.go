package main

import (
	"fmt"

	"blockamg/amg"
	"blockamg/amg/backendcycle"
	"blockamg/backend"
	"blockamg/krylov"
)

// engine is where solve runs CG preconditioned by the hierarchy's V-cycle: on the CPU
// hierarchy itself, or on the hierarchy uploaded to a backend (a GPU).
type engine interface {
	// solve solves A·x = b from x = 0, leaving the solution in x.
	solve(b, x []float64, opt krylov.Options) (krylov.Result, error)
	// refresh makes the engine see the hierarchy's values after amg's Update.
	refresh(step int) error
	// report adds the engine's own figures (device, transfers) to the report.
	report(r *solveReport)
	// where names the engine in error messages ("" for the CPU).
	where() string
	close()
}

// cpuEngine runs krylov.CG with the hierarchy as preconditioner.
type cpuEngine struct{ h *amg.Hierarchy }

func (e cpuEngine) solve(b, x []float64, opt krylov.Options) (krylov.Result, error) {
	clear(x)
	return krylov.CG(e.h.Operator(), e.h, b, x, opt)
}
func (cpuEngine) refresh(int) error   { return nil }
func (cpuEngine) report(*solveReport) {}
func (cpuEngine) where() string       { return "" }
func (cpuEngine) close()              {}

// backendEngine uploads the hierarchy once and runs the V-cycle and CG on a backend
// (amg/backendcycle), with every vector resident there. The right-hand side goes up
// and the solution comes back once per solve, each counted under its own phase; the
// solve phase itself moves only inner products and the coarsest vectors. After an
// Update the re-setup still happens on the host, so refresh uploads the hierarchy
// again: operator-sized traffic, reported as such, until the device re-setup lands.
type backendEngine struct {
	be     backend.Backend
	h      *amg.Hierarchy
	cyc    *backendcycle.Cycle
	b, x   backend.Vector
	upload float64 // seconds of the first upload
	devMem func() int64
}

// newBackendEngine uploads h to be. devMem, when not nil, returns the device memory
// the run holds (measured after the upload).
func newBackendEngine(be backend.Backend, h *amg.Hierarchy, devMem func() int64) (*backendEngine, error) {
	e := &backendEngine{be: be, h: h, devMem: devMem}
	n := h.Levels[0].A.Rows()
	be.SetPhase("upload")
	start := nowSeconds()
	var err error
	if e.cyc, err = backendcycle.Upload(be, h); err != nil {
		return nil, err
	}
	if e.b, err = be.NewVector(n); err != nil {
		e.close()
		return nil, err
	}
	if e.x, err = be.NewVector(n); err != nil {
		e.close()
		return nil, err
	}
	if err := be.Err(); err != nil {
		e.close()
		return nil, err
	}
	e.upload = nowSeconds() - start
	return e, nil
}

func (e *backendEngine) solve(b, x []float64, opt krylov.Options) (krylov.Result, error) {
	e.be.SetPhase("rhs upload")
	e.be.Upload(e.b, b)
	e.be.SetPhase("solve")
	res, err := backendcycle.PCG(e.be, e.cyc.Operator(), e.cyc, e.b, e.x, opt)
	if err != nil {
		return res, err
	}
	e.be.SetPhase("solution download")
	e.be.Download(x, e.x)
	return res, e.be.Err()
}

func (e *backendEngine) refresh(step int) error {
	e.be.SetPhase(fmt.Sprintf("step %d re-upload (host re-setup)", step))
	e.cyc.Free()
	var err error
	e.cyc, err = backendcycle.Upload(e.be, e.h)
	return err
}

func (e *backendEngine) report(r *solveReport) {
	r.Device = e.be.Name()
	r.UploadSeconds = e.upload
	if e.devMem != nil {
		r.DeviceMemoryBytes = e.devMem()
	}
	r.Traffic = map[string]backend.Traffic{}
	for _, ph := range e.be.Counters().Phases() {
		r.Traffic[ph] = e.be.Counters().Phase(ph)
		r.trafficOrder = append(r.trafficOrder, ph)
	}
}

func (e *backendEngine) where() string { return " (" + e.be.Name() + ")" }

func (e *backendEngine) close() {
	for _, v := range []backend.Vector{e.b, e.x} {
		if v != nil {
			v.Free()
		}
	}
	if e.cyc != nil {
		e.cyc.Free()
	}
}
