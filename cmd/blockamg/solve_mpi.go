package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/blockamg/blockamg"
	"github.com/blockamg/blockamg/amg/cycle"
	"github.com/blockamg/blockamg/dist"
	"github.com/blockamg/blockamg/dist/mpi"
	"github.com/blockamg/blockamg/internal/cli"
)

// errNotUnderMPI is wrapped by the refusal of a flag the distributed solve does not
// run yet.
var errNotUnderMPI = errors.New("not supported under mpiexec yet")

// mpiWorldSize returns the world size OpenMPI's mpiexec gives this process in
// OMPI_COMM_WORLD_SIZE, or 1 outside mpiexec: read from the environment so that an
// ordinary run neither loads libmpi nor initialises MPI.
func mpiWorldSize() int {
	n, err := strconv.Atoi(os.Getenv("OMPI_COMM_WORLD_SIZE"))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// mpiPhases are the phases the distributed solve counts MPI traffic under, in the
// order they run; every rank uses all of them, so the gathered table is rectangular.
var mpiPhases = []string{"set-up", "solve", "residual"}

// checkMPIFlags refuses, before MPI is initialised (so every rank refuses by itself
// and none waits for another), the flags the distributed solve does not run.
func (c *solveConfig) checkMPIFlags(set map[string]bool) error {
	for _, f := range []struct {
		name string
		on   bool
	}{
		{"gpu", c.gpu},
		{"host-setup", c.hostSetup},
		{"gpu-galerkin", set["gpu-galerkin"]},
		{"plot", c.plot != ""},
		{"manufactured", c.mms},
		{"steps", c.steps > 0},
		{"w-stats", c.wStats},
		{"atol", set["atol"]},
		// The distributed cycle is Chebyshev in float64 only (dist.NewHierarchy).
		{"smoother", c.amg.Smoother != "" && c.amg.Smoother != cycle.DefaultSmoother},
		{"smoother-f32", c.amg.SmootherFloat32},
	} {
		if f.on {
			return fmt.Errorf("--%s: %w (mpiexec runs the CPU V-cycle and CG distributed, without it)", f.name, errNotUnderMPI)
		}
	}
	return nil
}

// mpiPhaseReport is one rank's MPI traffic under one phase.
type mpiPhaseReport struct {
	Phase           string  `json:"phase"`
	BytesSent       int64   `json:"bytes_sent"`
	BytesRecv       int64   `json:"bytes_received"`
	Sends           int64   `json:"sends"`
	Recvs           int64   `json:"receives"`
	Collectives     int64   `json:"collectives"`
	CollectiveBytes int64   `json:"collective_bytes"`
	Seconds         float64 `json:"mpi_seconds"`
}

// mpiRankReport is one rank's rows and traffic.
type mpiRankReport struct {
	Rank      int              `json:"rank"`
	BlockRows int              `json:"block_rows"` // of the fine level
	Phases    []mpiPhaseReport `json:"phases"`
}

// mpiSolveReport is the --json report of a distributed solve: the serial report's
// fields that it fills, and the ranks and their counters.
type mpiSolveReport struct {
	Problem          string  `json:"problem"`
	Unknowns         int     `json:"unknowns"`
	BlockSize        int     `json:"block_size"`
	NullSpace        int     `json:"nullspace_vectors"`
	Threads          int     `json:"threads"`
	Ranks            int     `json:"ranks"`
	Iterations       int     `json:"iterations"`
	RelativeResidual number  `json:"relative_residual"` // ‖b − A·x‖/‖b‖, computed distributed
	SetupSeconds     float64 `json:"setup_seconds"`     // replicated serial set-up + slicing, slowest rank
	// SerialSetupSeconds is the part of SetupSeconds that is the serial set-up every
	// rank runs whole (the interim, replicated set-up), slowest rank.
	SerialSetupSeconds float64 `json:"serial_setup_seconds"`
	SolveSeconds       float64 `json:"solve_seconds"` // slowest rank
	SymmetricGalerkin  bool    `json:"symmetric_galerkin"`
	SetupMode          string  `json:"setup"`
	Levels             int     `json:"levels"`
	// MPI holds each rank's traffic per phase (dist/mpi's counters).
	MPI []mpiRankReport `json:"mpi"`
}

// solveMPI is solve on every rank of an mpiexec world of more than one rank. Any error
// once MPI is initialised ends the whole world with MPI_Abort(2), after this rank has
// printed it on stderr: a rank that returned instead would leave the others waiting in
// a collective.
func solveMPI(c *solveConfig, set map[string]bool, stdout, stderr io.Writer) error {
	if err := c.checkMPIFlags(set); err != nil {
		return err
	}
	comm, err := mpi.Init()
	if err != nil {
		// No world to abort: each rank fails alone, and mpiexec ends the others.
		return fmt.Errorf("mpiexec: %w", err)
	}
	if err := solveOnWorld(c, comm, stdout, stderr); err != nil {
		if cli.LineOpen(stderr) {
			fmt.Fprintln(stderr)
		}
		fmt.Fprintf(stderr, "blockamg solve: rank %d of %d: %v\n", comm.Rank(), comm.Size(), err)
		if f, ok := stdout.(*os.File); ok {
			_ = f.Sync()
		}
		comm.Abort(exitBadInput)
		return err // MPI_Abort did not end the process
	}
	if err := comm.Finalize(); err != nil {
		return err
	}
	return nil
}

// solveOnWorld runs the distributed solve on comm: every rank loads the problem and
// sets the serial hierarchy up whole (the interim, replicated set-up of package
// dist), slices it by an even split of the fine block rows, and solves with dist.CG
// preconditioned by the distributed V-cycle. Rank 0 reports.
func solveOnWorld(c *solveConfig, comm *mpi.Comm, stdout, stderr io.Writer) error {
	me, size := comm.Rank(), comm.Size()
	root := me == 0
	if !root {
		stdout, stderr = io.Discard, io.Discard
	}
	pr := progress{w: stderr, on: root && !c.quiet && !c.jsonOut}
	p, err := loadProblem(c, pr)
	if err != nil {
		return err
	}
	n := p.rows()
	c.amg.Symmetric = c.half && p.A.CheckSymmetric() == nil

	comm.SetPhase(mpiPhases[0])
	t := time.Now()
	s, err := blockamg.NewSolver(p.A, p.ns, c.solverOptions(nil))
	if err != nil {
		return err
	}
	defer s.Close()
	serialSetup := time.Since(t)
	h := s.Hierarchy()
	// ex56 numbers its nodes z-major, so an even split of the block rows is a split of
	// the cube into slabs along z; a matrix file or a mesh is split as it is numbered.
	lay := dist.EvenLayout(p.A.BlockRows, size)
	dh, err := dist.NewHierarchy(comm, h, lay)
	if err != nil {
		return err
	}
	setup := time.Since(t)

	comm.SetPhase(mpiPhases[1])
	lo, hi := lay.Range(me)
	bs := p.A.R
	b := p.b[lo*bs : hi*bs]
	x := make([]float64, len(b))
	t = time.Now()
	res, err := dist.CG(dh.Operator(), dh, b, x, c.kry.RelTol, c.kry.MaxIter)
	solve := time.Since(t)
	if err != nil {
		return fmt.Errorf("%s on %d ranks: %w", p.name, size, err)
	}

	comm.SetPhase(mpiPhases[2])
	r := make([]float64, len(b))
	if err := dh.Operator().MulVec(x, r); err != nil {
		return err
	}
	for i := range r {
		r[i] = b[i] - r[i]
	}
	rn, err := dist.Norm(comm, r)
	if err != nil {
		return err
	}
	bn, err := dist.Norm(comm, b)
	if err != nil {
		return err
	}

	comm.SetPhase("report")
	times := []float64{serialSetup.Seconds(), setup.Seconds(), solve.Seconds()}
	if err := comm.AllreduceFloat64(mpi.Max, times); err != nil {
		return err
	}
	ranks, err := gatherCounters(comm, lay)
	if err != nil {
		return err
	}
	var whole []float64
	if c.solution != "" || p.mesh != nil {
		if whole, err = gatherVector(comm, lay, bs, x); err != nil {
			return err
		}
	}
	if !root {
		return nil
	}
	rep := &mpiSolveReport{
		Problem: p.name, Unknowns: n, BlockSize: bs, NullSpace: bs, Threads: workersOf(c.threads), Ranks: size,
		Iterations: res.Iterations, RelativeResidual: number(rn / nonzero(bn)),
		SerialSetupSeconds: times[0], SetupSeconds: times[1], SolveSeconds: times[2],
		SymmetricGalerkin: c.amg.Symmetric, Levels: len(h.Levels),
		SetupMode: "replicated: every rank runs the serial set-up on the whole matrix and keeps its rows",
		MPI:       ranks,
	}
	if p.ns != nil {
		rep.NullSpace = p.ns.Cols
	}
	if c.solution != "" {
		if err := writeSolution(c.solution, whole); err != nil {
			return err
		}
	}
	if p.mesh != nil {
		if err := writeMeshOutputs(c, p.mesh, whole); err != nil {
			return err
		}
	}
	if c.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printMPISolve(stdout, rep, p.box != nil)
	return nil
}

// gatherCounters gathers every rank's traffic under mpiPhases (one Allgather; every
// rank gets the table, rank 0 reports it).
func gatherCounters(comm *mpi.Comm, lay dist.Layout) ([]mpiRankReport, error) {
	const k = 7 // int64 fields per phase
	send := make([]int64, 0, k*len(mpiPhases))
	for _, ph := range mpiPhases {
		t := comm.Traffic(ph)
		send = append(send, t.BytesSent, t.BytesRecv, t.Sends, t.Recvs, t.Collectives, t.CollectiveBytes, int64(t.Time))
	}
	recv := make([]int64, len(send)*comm.Size())
	if err := comm.AllgatherInt64(send, recv); err != nil {
		return nil, err
	}
	out := make([]mpiRankReport, comm.Size())
	for r := range out {
		lo, hi := lay.Range(r)
		out[r] = mpiRankReport{Rank: r, BlockRows: hi - lo}
		for i, ph := range mpiPhases {
			v := recv[(r*len(mpiPhases)+i)*k:]
			out[r].Phases = append(out[r].Phases, mpiPhaseReport{Phase: ph, BytesSent: v[0], BytesRecv: v[1], Sends: v[2], Recvs: v[3],
				Collectives: v[4], CollectiveBytes: v[5], Seconds: time.Duration(v[6]).Seconds()})
		}
	}
	return out, nil
}

// gatherVector returns the whole vector whose rank parts x are distributed by lay in
// blocks of bs, on every rank: one Allgather, each rank's part padded to the largest
// (MPI_Allgather takes one count for all).
func gatherVector(comm *mpi.Comm, lay dist.Layout, bs int, x []float64) ([]float64, error) {
	pad := 0
	for r := 0; r < comm.Size(); r++ {
		lo, hi := lay.Range(r)
		pad = max(pad, (hi-lo)*bs)
	}
	send := make([]float64, pad)
	copy(send, x)
	recv := make([]float64, pad*comm.Size())
	if err := comm.AllgatherFloat64(send, recv); err != nil {
		return nil, err
	}
	whole := make([]float64, lay.N()*bs)
	for r := 0; r < comm.Size(); r++ {
		lo, hi := lay.Range(r)
		copy(whole[lo*bs:hi*bs], recv[r*pad:r*pad+(hi-lo)*bs])
	}
	return whole, nil
}

// printMPISolve prints rank 0's report of a distributed solve.
func printMPISolve(w io.Writer, r *mpiSolveReport, slabs bool) {
	split := "even ranges of block rows, in the input's order"
	if slabs {
		split = "even ranges of block rows: slabs along z (ex56 numbers its nodes z-major)"
	}
	fmt.Fprintf(w, "%s: %d unknowns, %d×%d blocks, %d near-null vectors, %d ranks\n", r.Problem, r.Unknowns, r.BlockSize, r.BlockSize, r.NullSpace, r.Ranks)
	fmt.Fprintf(w, "fine level split into %s; coarse levels split evenly; coarsest solved redundantly\n", split)
	fmt.Fprintf(w, "set-up: interim, replicated: every rank ran the serial AMG set-up on the whole matrix (%d levels) and keeps its rows\n\n", r.Levels)
	fmt.Fprintf(w, "distributed PCG + V-cycle: %d iterations, relative true residual ‖b−Ax‖/‖b‖ = %.3g\n", r.Iterations, float64(r.RelativeResidual))
	fmt.Fprintf(w, "set-up %.3f s (serial set-up %.3f s of it), solve %.3f s (slowest rank)\n\n", r.SetupSeconds, r.SerialSetupSeconds, r.SolveSeconds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\trank\tblock rows\tbytes sent\tbytes recv\tsends\trecvs\tcollectives\tcoll. bytes\tMPI s\t")
	for i, ph := range mpiPhases {
		for _, rk := range r.MPI {
			t := rk.Phases[i]
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.4f\t\n", ph, rk.Rank, rk.BlockRows,
				t.BytesSent, t.BytesRecv, t.Sends, t.Recvs, t.Collectives, t.CollectiveBytes, t.Seconds)
		}
	}
	tw.Flush()
}
