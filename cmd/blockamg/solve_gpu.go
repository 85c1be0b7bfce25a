package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"text/tabwriter"
	"time"

	"blockamg/amg"
	"blockamg/amg/backendcycle"
	"blockamg/backend"
	"blockamg/backend/cuda"
	"blockamg/internal/cudadrv"
)

func runtimeWorkers() int { return runtime.GOMAXPROCS(0) }

// openGPU opens the CUDA backend, turning a missing driver or device into the one-line
// error users see; --gpu never falls back to the CPU.
func openGPU() (*cuda.Backend, error) {
	be, err := cuda.New(cuda.Options{})
	switch {
	case errors.Is(err, cudadrv.ErrNoDriver):
		return nil, errors.New("--gpu: no CUDA driver found (libcuda.so.1); nothing was solved")
	case errors.Is(err, cudadrv.ErrNoDevice):
		return nil, errors.New("--gpu: no CUDA device found; nothing was solved")
	case err != nil:
		return nil, fmt.Errorf("--gpu: %w", err)
	}
	return be, nil
}

// solveGPU sets the hierarchy up on the host, uploads it once, and runs the V-cycle
// and PCG on the GPU with every vector resident there. With --steps, the re-setup
// (Update) still runs on the host and the new operators are uploaded again: that
// traffic is operator-sized and reported as such, until the device re-setup lands.
func solveGPU(c *solveConfig, stdout, stderr io.Writer) error {
	be, err := openGPU()
	if err != nil {
		return err
	}
	defer be.Close()
	pr := progress{w: stderr, on: !c.quiet && !c.jsonOut}
	p, err := loadProblem(c, pr)
	if err != nil {
		return err
	}
	n := p.A.Rows()
	t := time.Now()
	h, err := amg.Setup(p.A, p.ns, c.amg)
	if err != nil {
		return err
	}
	setup := time.Since(t)

	be.SetPhase("upload")
	t = time.Now()
	cyc, err := backendcycle.Upload(be, h)
	if err != nil {
		return err
	}
	defer func() { cyc.Free() }()
	bv, err := be.NewVector(n)
	if err != nil {
		return err
	}
	defer bv.Free()
	xv, err := be.NewVector(n)
	if err != nil {
		return err
	}
	defer xv.Free()
	be.Upload(bv, p.b)
	if err := be.Err(); err != nil {
		return err
	}
	upload := time.Since(t)
	// Device memory this run holds: the hierarchy, b and x, plus PCG's four work vectors.
	var devMem int64
	if free, _, err := be.MemInfo(); err == nil {
		devMem = int64(be.Info().FreeMem) - int64(free) + 4*int64(n)*8
	}

	be.SetPhase("solve")
	t = time.Now()
	res, err := backendcycle.PCG(be, cyc.Operator(), cyc, bv, xv, c.kry)
	solve := time.Since(t)
	if err != nil {
		return fmt.Errorf("%s (GPU): %w", p.name, err)
	}
	bnorm := norm(p.b)
	rep := solveReport{
		Problem: p.name, Unknowns: n, BlockSize: p.A.R, Threads: workersOf(c.threads),
		Iterations: res.Iterations, RelativeResidual: res.Residual / nonzero(bnorm),
		AssemblySeconds: (p.symbolic + p.numeric).Seconds(), SetupSeconds: setup.Seconds(),
		SolveSeconds: solve.Seconds(), GridComplexity: h.GridComplexity(),
		OperatorComplexity: h.OperatorComplexity(), Levels: h.Info(), Phases: h.Times(),
		History: res.History, Device: be.Name(), UploadSeconds: upload.Seconds(),
		DeviceMemoryBytes: devMem,
	}
	rep.NullSpace = p.A.R
	if p.ns != nil {
		rep.NullSpace = p.ns.Cols
	}
	var resetups []float64
	for step := 1; step <= c.steps; step++ {
		sr := stepResult{Step: step}
		t = time.Now()
		if err := newValues(p, step, c.threads); err != nil {
			return err
		}
		sr.AssemblySeconds = time.Since(t).Seconds()
		t = time.Now()
		if err := h.Update(p.A); err != nil {
			return fmt.Errorf("step %d: %w", step, err)
		}
		sr.GalerkinSeconds = h.Times().Galerkin.Seconds()
		be.SetPhase(fmt.Sprintf("step %d re-upload (host re-setup)", step))
		cyc.Free()
		if cyc, err = backendcycle.Upload(be, h); err != nil {
			return err
		}
		sr.SetupSeconds = time.Since(t).Seconds()
		be.SetPhase(fmt.Sprintf("step %d solve", step))
		t = time.Now()
		r, err := backendcycle.PCG(be, cyc.Operator(), cyc, bv, xv, c.kry)
		sr.SolveSeconds = time.Since(t).Seconds()
		if err != nil {
			return fmt.Errorf("%s (GPU), step %d: %w", p.name, step, err)
		}
		sr.Iterations = r.Iterations
		sr.RelativeResidual = r.Residual / nonzero(bnorm)
		rep.Steps = append(rep.Steps, sr)
		resetups = append(resetups, sr.SetupSeconds)
	}
	if len(resetups) > 0 {
		rep.ResetupSeconds = median(resetups)
	}
	rep.Traffic = map[string]backend.Traffic{}
	for _, ph := range be.Counters().Phases() {
		rep.Traffic[ph] = be.Counters().Phase(ph)
	}
	rep.PeakRSSBytes = peakRSS()
	if c.plot != "" {
		if err := plotHistory(c.plot, p.name+" (GPU)", res.History, bnorm); err != nil {
			return err
		}
	}
	if c.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(stdout, "device: %s (set-up on the host, V-cycle and CG on the device)\n", rep.Device)
	printSolve(stdout, &rep, p)
	fmt.Fprintf(stdout, "upload of the hierarchy %.4f s; device memory %.2f GB; %.3f ms per CG iteration\n\n",
		rep.UploadSeconds, float64(rep.DeviceMemoryBytes)/1e9, 1e3*rep.SolveSeconds/float64(max(rep.Iterations, 1)))
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\tH2D bytes\tD2H bytes\tcopies\t")
	for _, ph := range be.Counters().Phases() {
		tr := be.Counters().Phase(ph)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", ph, tr.H2DBytes, tr.D2HBytes, tr.H2DCalls+tr.D2HCalls)
	}
	return tw.Flush()
}
