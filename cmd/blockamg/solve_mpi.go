package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/blockamg/blockamg"
	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/amg/cycle"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/dist"
	"github.com/blockamg/blockamg/dist/mpi"
	"github.com/blockamg/blockamg/internal/cli"
)

// errNotUnderMPI is wrapped by the refusal of a flag the distributed solve does not
// run yet.
var errNotUnderMPI = errors.New("not supported under mpiexec yet")

// mpiUsage is the part of solve's --help about mpiexec.
const mpiUsage = `
under mpiexec (OpenMPI, mpiexec -n N blockamg solve ..., N > 1; CPU only):
  every rank reads or assembles the whole problem (ex56, --matrix with --coords,
  --nullspace and --rhs, or --mesh), sets the serial hierarchy up and keeps its
  rows: an even split of the block rows, slabs along z for ex56. CG and the V-cycle
  run distributed; rank 0 prints the iterations, the true residual and every rank's
  MPI traffic per phase (--json: "ranks", "mpi"). --steps N repeats new values,
  Update on every rank and a refresh of the distributed levels on their halo
  plans, then the solve, with each step's traffic per rank ("steps"[].mpi).
  The ranks first compare digests of the executable, the options and the inputs
  and all end with exit 2 when one differs; a rank that waits longer than
  --mpi-timeout in one MPI call (a peer died, stalled or never started) ends
  with exit 2, and mpiexec ends the others.
  --dist-setup sets the hierarchy up from each rank's rows instead (dist.Setup:
  aggregation within each rank); with --steps each step's new values go to
  dist's Update on each rank's rows, which reruns the set-up's numeric phases on
  the plans it kept (only values travel; aggregates kept) instead of the serial
  Update and the refresh; its levels then stay where the set-up put them (no
  --gather-rows: the plans are for those layouts).
  --partition picks the fine level's split: even (the input's order cut into even
  ranges), rcb (recursive coordinate bisection), sfc (a Hilbert curve cut into even
  pieces) or graph (recursive BFS level-set bisection of the matrix graph); auto,
  the default, is even for ex56 (slabs) and otherwise whichever of even, rcb (with
  coordinates: --mesh, --coords) and graph cuts the fewest blocks. The system is renumbered so each rank's part is contiguous,
  the solution is written in the input's numbering, and the report gives each
  rank's halo and the edge cut ("partition").
  --gather-rows N (default 64) puts a coarse level of fewer than N block rows per
  rank on fewer ranks, each holding at least N, the others idle on it (the
  restriction sends their rows over, the prolongation brings them back), so small
  levels stop paying every rank's latency; a coarsest level on one rank is solved
  there without a collective. "level_ranks" reports each level's active ranks.
  --gpu, --host-setup, --gpu-galerkin, --plot, --manufactured, --w-stats, --atol,
  --smoother other than chebyshev, --smoother-f32 and --upper-products are refused (exit 2).
`

// mpiFlags are solve's flags for a run under mpiexec.
type mpiFlags struct {
	timeout   time.Duration // --mpi-timeout
	distSetup bool          // --dist-setup
	partition string        // --partition
	gather    int           // --gather-rows
}

// defaultMPITimeout bounds one blocking MPI call by default: far above any wait of a
// healthy run (ranks do the same work between two collectives), short enough that a
// broken launch ends on its own.
const defaultMPITimeout = 5 * time.Minute

// register adds the flags to fs and mpiUsage to its usage.
func (m *mpiFlags) register(fs *flag.FlagSet, stderr io.Writer) {
	fs.DurationVar(&m.timeout, "mpi-timeout", defaultMPITimeout,
		"under mpiexec: end this rank with an error when one MPI call blocks longer (a peer died, stalled or never started MPI; 0: wait forever)")
	fs.BoolVar(&m.distSetup, "dist-setup", false,
		"under mpiexec: set the hierarchy up from each rank's rows (aggregation within each rank, P smoothed and PᵀAP formed distributed) instead of the serial set-up on every rank; with --steps, each re-setup runs on each rank's rows over the set-up's kept plans")
	fs.StringVar(&m.partition, "partition", "auto",
		"under mpiexec: the fine level's split over the ranks: even, rcb (coordinate bisection), sfc (Hilbert curve), graph (BFS level-set bisection) or auto (even for ex56, else the fewest cut blocks of even, rcb with coordinates, and graph)")
	fs.IntVar(&m.gather, "gather-rows", dist.DefaultGatherRows,
		"under mpiexec: a coarse level of fewer block rows per rank than this lives on fewer ranks (each active one holding at least this many; the coarsest on one rank, solved there); 0: every level on all ranks")
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(stderr, mpiUsage)
	}
}

// distributedSetup sets the hierarchy up with dist.Setup from this rank's rows of the
// problem every rank loaded: its block rows of A by lay and of the near-null space as
// amg.CheckInput leaves it (orthonormalised; constant modes when none was given).
//
// The problem is renumbered by part first, so each rank's rows are contiguous.
func distributedSetup(c *solveConfig, comm *mpi.Comm, p *problem, part dist.Partition) (*dist.Hierarchy, error) {
	ns, err := amg.CheckInput(p.A, p.ns)
	if err != nil {
		return nil, err
	}
	lay := part.Layout
	lo, hi := lay.Range(comm.Rank())
	a, err := dist.NewMatrix(comm, lay, part.SliceSym(p.A, lo, hi))
	if err != nil {
		return nil, err
	}
	bk := p.A.R * ns.Cols
	B := part.Permute(ns.Data, bk)
	return dist.Setup(a, B[lo*bk:hi*bk], ns.Cols, c.amg)
}

// partitionMethods are --partition's values.
var partitionMethods = []string{"auto", dist.PartitionEven, dist.PartitionRCB, dist.PartitionSFC, dist.PartitionGraph}

// partitionProblem splits p's block rows over size ranks by --partition (auto: even
// for ex56, whose z-major numbering makes even ranges slabs; otherwise the candidate
// that cuts the fewest blocks of the fine operator, ties to the first of even, rcb
// where coordinates exist, and graph).
func partitionProblem(method string, p *problem, size int) (dist.Partition, error) {
	coords, dim := p.coords, p.coordDim
	switch {
	case p.box != nil:
		coords, dim = p.box.Coords(), 3
	case p.mesh != nil:
		coords, dim = p.mesh.m.Coords, 3
	}
	if method == "auto" {
		if p.box != nil {
			return dist.EvenPartition(p.A.BlockRows, size), nil
		}
		// The candidates' edge cuts, on the whole matrix every rank holds: a matrix
		// file's own order may already be slabs (structured grids), which neither a
		// bisection of its coordinates nor of its graph always beats.
		cands := []string{dist.PartitionEven, dist.PartitionGraph}
		if coords != nil {
			cands = []string{dist.PartitionEven, dist.PartitionRCB, dist.PartitionGraph}
		}
		var best dist.Partition
		bestCut := -1
		for _, m := range cands {
			q, err := partitionProblem(m, p, size)
			if err != nil {
				return dist.Partition{}, err
			}
			if _, cut := q.Quality(p.A); bestCut < 0 || cut < bestCut {
				best, bestCut = q, cut
			}
		}
		return best, nil
	}
	switch method {
	case dist.PartitionEven:
		return dist.EvenPartition(p.A.BlockRows, size), nil
	case dist.PartitionGraph:
		return dist.GraphPartition(p.A, size)
	case dist.PartitionRCB, dist.PartitionSFC:
		if coords == nil {
			return dist.Partition{}, fmt.Errorf("--partition %s: %w: no node coordinates (ex56, --mesh or --coords give them)", method, dist.ErrPartition)
		}
		if len(coords) != dim*p.A.BlockRows {
			return dist.Partition{}, fmt.Errorf("--partition %s: %w: %d coordinates of dimension %d for %d block rows", method, dist.ErrPartition, len(coords), dim, p.A.BlockRows)
		}
		return dist.CoordPartition(coords, dim, size, method)
	}
	return dist.Partition{}, fmt.Errorf("--partition %q: %w: want one of %s", method, dist.ErrPartition, strings.Join(partitionMethods, ", "))
}

// mpiPartReport is one rank's part of the fine level: rows, halo and cut blocks.
type mpiPartReport struct {
	Rank       int `json:"rank"`
	BlockRows  int `json:"block_rows"`
	Ghosts     int `json:"ghost_blocks"` // distinct block columns of other ranks its rows name
	Neighbours int `json:"neighbours"`
	Cut        int `json:"cut_blocks"` // its stored blocks in other ranks' columns
}

// mpiPartitionReport is the fine level's partition and its quality.
type mpiPartitionReport struct {
	Method string `json:"method"`
	// EdgeCut is the stored blocks of the fine operator between ranks (twice the cut
	// edges of a symmetric pattern); EvenEdgeCut the even split's, for comparison.
	EdgeCut     int             `json:"edge_cut"`
	EvenEdgeCut int             `json:"even_edge_cut"`
	Parts       []mpiPartReport `json:"parts"`
}

// partitionReport measures part on the whole fine operator a (every rank holds it).
func partitionReport(part dist.Partition, a *bsr.Matrix) *mpiPartitionReport {
	parts, cut := part.Quality(a)
	_, even := dist.EvenPartition(a.BlockRows, part.Layout.Size()).Quality(a)
	r := &mpiPartitionReport{Method: part.Method, EdgeCut: cut, EvenEdgeCut: even}
	for i, q := range parts {
		r.Parts = append(r.Parts, mpiPartReport{Rank: i, BlockRows: q.Rows, Ghosts: q.Ghosts, Neighbours: q.Neighbours, Cut: q.Cut})
	}
	return r
}

// inputFlags name files: the launch check compares the files' contents (the inputs'
// digest) rather than their names, and only rank 0 writes the outputs.
var inputFlags = map[string]bool{"matrix": true, "coords": true, "nullspace": true, "rhs": true, "mesh": true,
	"solution": true, "vtu": true, "png": true}

// optionsDigest is the digest of every flag's value but inputFlags', in flag order:
// the same on ranks that run the same options, however they were spelled.
func optionsDigest(fs *flag.FlagSet) uint64 {
	var d dist.Digest
	fs.VisitAll(func(f *flag.Flag) {
		if !inputFlags[f.Name] {
			d.String(f.Name + "=" + f.Value.String())
		}
	})
	return d.Sum()
}

// programDigest is the digest of this executable's bytes, the Go release it was built
// with and the MPI library's version line: ranks that run different builds differ.
func programDigest(comm *mpi.Comm) (uint64, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("launch check: %w", err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		return 0, fmt.Errorf("launch check: %w", err)
	}
	var d dist.Digest
	d.Bytes(data)
	d.String(runtime.Version())
	d.String(comm.LibraryVersion())
	return d.Sum(), nil
}

// inputsDigest is the digest of the problem every rank loaded: its matrix, near-null
// space and right-hand side.
func inputsDigest(p *problem) uint64 {
	var d dist.Digest
	d.Matrix(p.A)
	if p.ns != nil {
		d.Int(p.ns.Rows)
		d.Int(p.ns.Cols)
		d.Float64s(p.ns.Data)
	}
	d.Float64s(p.b)
	return d.Sum()
}

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
// "residual" covers the true residual of the first solve and of every step;
// "re-setup" and "step solve" are the recurring steps' (--steps), summed over them.
var mpiPhases = []string{"set-up", "solve", "residual", "re-setup", "step solve"}

// mpiStepPhases are the phases counted per recurring step, each step's share apart.
var mpiStepPhases = mpiPhases[3:]

// checkMPIFlags refuses, before MPI is initialised (so every rank refuses by itself
// and none waits for another), the flags the distributed solve does not run.
func (c *solveConfig) checkMPIFlags(set map[string]bool) error {
	if !slices.Contains(partitionMethods, c.mpi.partition) {
		return fmt.Errorf("--partition %q: %w: want one of %s", c.mpi.partition, dist.ErrPartition, strings.Join(partitionMethods, ", "))
	}
	if c.mpi.gather < 0 {
		return fmt.Errorf("--gather-rows %d: %w: want 0 (no gathering) or more", c.mpi.gather, dist.ErrLayout)
	}
	for _, f := range []struct {
		name string
		on   bool
	}{
		{"gpu", c.gpu},
		{"host-setup", c.hostSetup},
		{"gpu-galerkin", set["gpu-galerkin"]},
		{"plot", c.plot != ""},
		{"manufactured", c.mms},
		{"w-stats", c.wStats},
		{"atol", set["atol"]},
		// The distributed cycle is Chebyshev in float64 only (dist.NewHierarchy).
		{"smoother", c.amg.Smoother != "" && c.amg.Smoother != cycle.DefaultSmoother},
		{"smoother-f32", c.amg.SmootherFloat32},
		{"upper-products", c.amg.UpperProducts},
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

// mpiStepReport is one recurring step of a distributed solve (--steps): times of the
// slowest rank, and every rank's traffic in the step's re-setup and solve.
type mpiStepReport struct {
	Step            int     `json:"step"`
	AssemblySeconds float64 `json:"assembly_seconds"` // new values of the whole matrix, on every rank
	// SetupSeconds is the re-setup: amg's Update of the replicated hierarchy and the
	// Refresh of the distributed one on its plans (RefreshSeconds of it), or with
	// --dist-setup dist's Update on each rank's rows (RefreshSeconds zero).
	SetupSeconds     float64 `json:"setup_seconds"`
	RefreshSeconds   float64 `json:"refresh_seconds"`
	SolveSeconds     float64 `json:"solve_seconds"`
	Iterations       int     `json:"iterations"`
	RelativeResidual number  `json:"relative_residual"` // ‖b − A·x‖/‖b‖, computed distributed
	// MPI holds each rank's traffic in this step, under mpiStepPhases.
	MPI []mpiRankReport `json:"mpi"`
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
	// Partition is the fine level's split over the ranks (--partition).
	Partition *mpiPartitionReport `json:"partition"`
	// GatherRows is --gather-rows; LevelRanks each level's ranks that own rows of it.
	GatherRows int   `json:"gather_rows"`
	LevelRanks []int `json:"level_ranks"`
	Levels     int   `json:"levels"`
	// ResetupSeconds is the median over the recurring steps of their re-setup.
	ResetupSeconds float64         `json:"resetup_seconds,omitempty"`
	Steps          []mpiStepReport `json:"steps,omitempty"`
	// MPI holds each rank's traffic per phase (dist/mpi's counters).
	MPI []mpiRankReport `json:"mpi"`
}

// solveMPI is solve on every rank of an mpiexec world of more than one rank. Any error
// once MPI is initialised ends the whole world with MPI_Abort(2), after this rank has
// printed it on stderr: a rank that returned instead would leave the others waiting in
// a collective.
func solveMPI(c *solveConfig, fs *flag.FlagSet, stdout, stderr io.Writer) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := c.checkMPIFlags(set); err != nil {
		return err
	}
	// The watchdog covers MPI_Init_thread too, which never returns while a rank of the
	// launch has not started MPI; the rank is known from mpiexec's environment.
	rank := os.Getenv("OMPI_COMM_WORLD_RANK")
	mpi.SetWatchdog(c.mpi.timeout, func(call string, waited time.Duration) {
		if cli.LineOpen(stderr) {
			fmt.Fprintln(stderr)
		}
		fmt.Fprintf(stderr, "blockamg solve: rank %s of %d: %s has waited %v for the other ranks (--mpi-timeout %v): one of them died, stalled, or runs another program; ending this rank\n",
			rank, mpiWorldSize(), call, waited.Round(time.Second), c.mpi.timeout)
		if f, ok := stdout.(*os.File); ok {
			_ = f.Sync()
		}
		os.Exit(exitBadInput)
	})
	comm, err := mpi.Init()
	if err != nil {
		// No world to abort: each rank fails alone, and mpiexec ends the others.
		return fmt.Errorf("mpiexec: %w", err)
	}
	if err := solveOnWorld(c, fs, comm, stdout, stderr); err != nil {
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
func solveOnWorld(c *solveConfig, fs *flag.FlagSet, comm *mpi.Comm, stdout, stderr io.Writer) error {
	me, size := comm.Rank(), comm.Size()
	root := me == 0
	if !root {
		stdout, stderr = io.Discard, io.Discard
	}
	// The launch check, before any plan is agreed: ranks of other builds, options or
	// inputs would agree halo plans that do not fit together (a hang or a wrong
	// answer). Under the set-up phase: three small Allgathers.
	comm.SetPhase(mpiPhases[0])
	prog, err := programDigest(comm)
	if err != nil {
		return err
	}
	if err := dist.Agree(comm, "programs (executable, Go release, MPI library)", prog); err != nil {
		return err
	}
	if err := dist.Agree(comm, "options", optionsDigest(fs)); err != nil {
		return err
	}
	pr := progress{w: stderr, on: root && !c.quiet && !c.jsonOut}
	p, err := loadProblem(c, pr)
	if err != nil {
		return err
	}
	if err := dist.Agree(comm, "inputs (matrix, near-null space, right-hand side)", inputsDigest(p)); err != nil {
		return err
	}
	n := p.rows()
	pr.on = pr.on && n >= 100_000
	c.amg.Symmetric = c.half && p.A.CheckSymmetric() == nil

	// ex56 numbers its nodes z-major, so an even split of the block rows is a split of
	// the cube into slabs along z; a matrix file or a mesh is partitioned (--partition)
	// and the system renumbered so that each rank's part is contiguous.
	part, err := partitionProblem(c.mpi.partition, p, size)
	if err != nil {
		return err
	}
	lay := part.Layout
	t := time.Now()
	var s *blockamg.Solver
	var dh *dist.Hierarchy
	var serialSetup time.Duration
	if c.mpi.distSetup {
		if dh, err = distributedSetup(c, comm, p, part); err != nil {
			return err
		}
		// The re-setup's plans are for the set-up's layouts: with --steps the
		// levels stay there.
		if c.steps == 0 {
			if err = dh.Gather(c.mpi.gather); err != nil {
				return err
			}
		}
	} else {
		if s, err = blockamg.NewSolver(p.A, p.ns, c.solverOptions(nil)); err != nil {
			return err
		}
		defer s.Close()
		serialSetup = time.Since(t)
		var coarse []dist.Layout
		for _, L := range s.Hierarchy().Levels[1:] {
			coarse = append(coarse, dist.GatheredLayout(L.A.BlockRows, size, c.mpi.gather))
		}
		if dh, err = dist.NewPartitionedHierarchy(comm, s.Hierarchy(), part, coarse...); err != nil {
			return err
		}
	}
	setup := time.Since(t)

	comm.SetPhase(mpiPhases[1])
	lo, hi := lay.Range(me)
	bs := p.A.R
	b := part.Permute(p.b, bs)[lo*bs : hi*bs]
	x := make([]float64, len(b))
	t = time.Now()
	res, err := dist.CG(dh.Operator(), dh, b, x, c.kry.RelTol, c.kry.MaxIter)
	solve := time.Since(t)
	if err != nil {
		return fmt.Errorf("%s on %d ranks: %w", p.name, size, err)
	}

	rel, err := trueResidual(comm, dh.Operator(), b, x)
	if err != nil {
		return err
	}

	// Recurring steps: the serial step's new values and Update on every rank (the
	// replicated set-up), the distributed hierarchy refreshed on its plans, a solve
	// from x = 0; with --dist-setup the new values go to dist's Update on this rank's
	// rows instead.
	steps, stepTraffic := make([]mpiStepReport, c.steps), make([]int64, 0, c.steps*len(mpiStepPhases)*trafficFields)
	stepTimes := make([]float64, 0, 4*c.steps)
	eng := &cpuEngine{s: s}
	what := "new values, Update, Refresh, solve"
	if c.mpi.distSetup {
		what = "new values, distributed Update, solve"
	}
	for k := 1; k <= c.steps; k++ {
		done := pr.start("step %d: %s", k, what)
		before := trafficOf(comm, mpiStepPhases)
		comm.SetPhase(mpiStepPhases[0])
		var sr stepResult
		var resetup, refresh time.Duration
		if c.mpi.distSetup {
			if err := distStep(k, p, dh, part, c.threads, &sr); err != nil {
				return fmt.Errorf("step %d: %w", k, err)
			}
			resetup = time.Duration(sr.SetupSeconds * float64(time.Second))
		} else {
			if err := eng.step(k, p, nil, c.threads, &sr); err != nil {
				return fmt.Errorf("step %d: %w", k, err)
			}
			tr := time.Now()
			if err := dh.Refresh(s.Hierarchy()); err != nil {
				return fmt.Errorf("step %d: %w", k, err)
			}
			refresh = time.Since(tr)
			resetup = time.Duration(sr.SetupSeconds*float64(time.Second)) + refresh
		}
		comm.SetPhase(mpiStepPhases[1])
		clear(x)
		t = time.Now()
		r, err := dist.CG(dh.Operator(), dh, b, x, c.kry.RelTol, c.kry.MaxIter)
		stepSolve := time.Since(t)
		if err != nil {
			return fmt.Errorf("%s on %d ranks, step %d: %w", p.name, size, k, err)
		}
		srel, err := trueResidual(comm, dh.Operator(), b, x)
		if err != nil {
			return err
		}
		done()
		after := trafficOf(comm, mpiStepPhases)
		for i := range after {
			stepTraffic = append(stepTraffic, after[i]-before[i])
		}
		stepTimes = append(stepTimes, sr.AssemblySeconds, resetup.Seconds(), refresh.Seconds(), stepSolve.Seconds())
		steps[k-1] = mpiStepReport{Step: k, Iterations: r.Iterations, RelativeResidual: number(srel)}
	}

	comm.SetPhase("report")
	times := append([]float64{serialSetup.Seconds(), setup.Seconds(), solve.Seconds()}, stepTimes...)
	if err := comm.AllreduceFloat64(mpi.Max, times); err != nil {
		return err
	}
	ranks, err := gatherCounters(comm, lay, mpiPhases, trafficOf(comm, mpiPhases))
	if err != nil {
		return err
	}
	if c.steps > 0 {
		per, err := gatherCounters(comm, lay, mpiStepPhases, stepTraffic)
		if err != nil {
			return err
		}
		for k := range steps {
			st, v := &steps[k], times[3+4*k:]
			st.AssemblySeconds, st.SetupSeconds, st.RefreshSeconds, st.SolveSeconds = v[0], v[1], v[2], v[3]
			for _, rk := range per {
				n := len(mpiStepPhases)
				st.MPI = append(st.MPI, mpiRankReport{Rank: rk.Rank, BlockRows: rk.BlockRows, Phases: rk.Phases[k*n : (k+1)*n]})
			}
		}
	}
	var whole []float64
	if c.solution != "" || p.mesh != nil {
		if whole, err = gatherVector(comm, lay, bs, x); err != nil {
			return err
		}
		whole = part.Restore(whole, bs)
	}
	if !root {
		return nil
	}
	rep := &mpiSolveReport{
		Problem: p.name, Unknowns: n, BlockSize: bs, NullSpace: bs, Threads: workersOf(c.threads), Ranks: size,
		Iterations: res.Iterations, RelativeResidual: number(rel),
		SerialSetupSeconds: times[0], SetupSeconds: times[1], SolveSeconds: times[2],
		SymmetricGalerkin: c.amg.Symmetric, Levels: len(dh.Levels),
		SetupMode: "replicated: every rank runs the serial set-up on the whole matrix and keeps its rows",
		MPI:       ranks, Steps: steps, Partition: partitionReport(part, p.A), GatherRows: c.mpi.gather,
	}
	for _, L := range dh.Levels {
		active := 0
		for r := 0; r < size; r++ {
			if lo, hi := L.A.Layout.Range(r); hi > lo {
				active++
			}
		}
		rep.LevelRanks = append(rep.LevelRanks, active)
	}
	if c.mpi.distSetup {
		rep.SymmetricGalerkin = false
		rep.SetupMode = "distributed: each rank aggregates, smooths P and forms its rows of PᵀAP from its own rows (dist.Setup)"
	}
	if len(steps) > 0 {
		var rs []float64
		for _, st := range steps {
			rs = append(rs, st.SetupSeconds)
		}
		rep.ResetupSeconds = median(rs)
	}
	if p.ns != nil {
		rep.NullSpace = p.ns.Cols
	}
	if c.solution != "" {
		xs := whole
		if p.mesh != nil {
			xs = p.mesh.fileOrder(whole)
		}
		if err := writeSolution(c.solution, xs); err != nil {
			return err
		}
	}
	if p.mesh != nil {
		if err := writeMeshOutputs(c, p.mesh, whole, pr); err != nil {
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

// distStep is recurring step k of a hierarchy that dist.Setup made: the step's new
// values of the whole matrix (every rank holds it, as it loaded it) and dist's Update
// on this rank's rows in part's numbering (the set-up's), timed into sr.
func distStep(k int, p *problem, dh *dist.Hierarchy, part dist.Partition, threads int, sr *stepResult) error {
	t := time.Now()
	if err := newValues(p, k, threads); err != nil {
		return err
	}
	sr.AssemblySeconds = time.Since(t).Seconds()
	lo, hi := part.Layout.Range(dh.Comm.Rank())
	// Update reads this rank's rows once: in place where the partition keeps the
	// input's order.
	rows := part.ReadRows(p.A, lo, hi)
	t = time.Now()
	if err := dh.Update(rows); err != nil {
		return err
	}
	sr.SetupSeconds = time.Since(t).Seconds()
	return nil
}

// trafficFields is the number of int64 values trafficOf gives per phase.
const trafficFields = 7

// trafficOf returns this rank's counters under phases, trafficFields values each.
func trafficOf(comm *mpi.Comm, phases []string) []int64 {
	out := make([]int64, 0, trafficFields*len(phases))
	for _, ph := range phases {
		t := comm.Traffic(ph)
		out = append(out, t.BytesSent, t.BytesRecv, t.Sends, t.Recvs, t.Collectives, t.CollectiveBytes, int64(t.Time))
	}
	return out
}

// gatherCounters gathers every rank's counters send (trafficOf's values, for phases
// repeated as often as send holds them) with one Allgather: every rank gets the table,
// rank 0 reports it.
func gatherCounters(comm *mpi.Comm, lay dist.Layout, phases []string, send []int64) ([]mpiRankReport, error) {
	recv := make([]int64, len(send)*comm.Size())
	if err := comm.AllgatherInt64(send, recv); err != nil {
		return nil, err
	}
	per := len(send) / trafficFields
	out := make([]mpiRankReport, comm.Size())
	for r := range out {
		lo, hi := lay.Range(r)
		out[r] = mpiRankReport{Rank: r, BlockRows: hi - lo}
		for i := 0; i < per; i++ {
			v := recv[(r*per+i)*trafficFields:]
			out[r].Phases = append(out[r].Phases, mpiPhaseReport{Phase: phases[i%len(phases)], BytesSent: v[0], BytesRecv: v[1], Sends: v[2], Recvs: v[3],
				Collectives: v[4], CollectiveBytes: v[5], Seconds: time.Duration(v[6]).Seconds()})
		}
	}
	return out, nil
}

// trueResidual returns ‖b − A·x‖/‖b‖ of distributed vectors, under the "residual"
// phase (the phase is restored after).
func trueResidual(comm *mpi.Comm, a *dist.Matrix, b, x []float64) (float64, error) {
	defer comm.SetPhase(comm.SetPhase(mpiPhases[2]))
	r := make([]float64, len(b))
	if err := a.MulVec(x, r); err != nil {
		return 0, err
	}
	for i := range r {
		r[i] = b[i] - r[i]
	}
	rn, err := dist.Norm(comm, r)
	if err != nil {
		return 0, err
	}
	bn, err := dist.Norm(comm, b)
	if err != nil {
		return 0, err
	}
	return rn / nonzero(bn), nil
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

// gathered describes the coarse levels' ranks (--gather-rows).
func gathered(r *mpiSolveReport) string {
	var s []string
	for _, n := range r.LevelRanks {
		s = append(s, strconv.Itoa(n))
	}
	how := "the coarsest solved redundantly"
	if r.LevelRanks[len(r.LevelRanks)-1] == 1 && r.Ranks > 1 {
		how = "the coarsest solved on one rank"
	}
	return fmt.Sprintf("gathered below %d block rows per rank: ranks per level %s, %s", r.GatherRows, strings.Join(s, "/"), how)
}

// printMPISolve prints rank 0's report of a distributed solve.
func printMPISolve(w io.Writer, r *mpiSolveReport, slabs bool) {
	split := "even ranges of block rows, in the input's order"
	switch {
	case r.Partition.Method != dist.PartitionEven:
		split = map[string]string{dist.PartitionRCB: "parts by recursive coordinate bisection", dist.PartitionSFC: "parts along a Hilbert curve",
			dist.PartitionGraph: "parts by level-set bisection of the matrix graph"}[r.Partition.Method] + ", renumbered contiguous"
	case slabs:
		split = "even ranges of block rows: slabs along z (ex56 numbers its nodes z-major)"
	}
	fmt.Fprintf(w, "%s: %d unknowns, %d×%d blocks, %d near-null vectors, %d ranks\n", r.Problem, r.Unknowns, r.BlockSize, r.BlockSize, r.NullSpace, r.Ranks)
	if strings.HasPrefix(r.SetupMode, "distributed") {
		fmt.Fprintf(w, "fine level split into %s; each coarse level owned as its aggregates are (within each rank), %s\n", split, gathered(r))
		fmt.Fprintf(w, "set-up: distributed (--dist-setup): each rank aggregated its own rows, smoothed P and formed its rows of PᵀAP (%d levels)\n\n", r.Levels)
	} else {
		fmt.Fprintf(w, "fine level split into %s; coarse levels split evenly, %s\n", split, gathered(r))
		fmt.Fprintf(w, "set-up: interim, replicated: every rank ran the serial AMG set-up on the whole matrix (%d levels) and keeps its rows\n\n", r.Levels)
	}
	fmt.Fprintf(w, "partition %s: edge cut %d blocks (the even split's %d); per rank block rows/ghost blocks/neighbours:", r.Partition.Method, r.Partition.EdgeCut, r.Partition.EvenEdgeCut)
	for _, q := range r.Partition.Parts {
		fmt.Fprintf(w, " %d/%d/%d", q.BlockRows, q.Ghosts, q.Neighbours)
	}
	fmt.Fprintf(w, "\n\n")
	fmt.Fprintf(w, "distributed PCG + V-cycle: %d iterations, relative true residual ‖b−Ax‖/‖b‖ = %.3g\n", r.Iterations, float64(r.RelativeResidual))
	if r.SerialSetupSeconds > 0 {
		fmt.Fprintf(w, "set-up %.3f s (serial set-up %.3f s of it), solve %.3f s (slowest rank)\n\n", r.SetupSeconds, r.SerialSetupSeconds, r.SolveSeconds)
	} else {
		fmt.Fprintf(w, "set-up %.3f s, solve %.3f s (slowest rank)\n\n", r.SetupSeconds, r.SolveSeconds)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\trank\tblock rows\tbytes sent\tbytes recv\tsends\trecvs\tcollectives\tcoll. bytes\tMPI s\t")
	for i, ph := range mpiPhases {
		if len(r.Steps) == 0 && slices.Contains(mpiStepPhases, ph) {
			continue
		}
		for _, rk := range r.MPI {
			t := rk.Phases[i]
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.4f\t\n", ph, rk.Rank, rk.BlockRows,
				t.BytesSent, t.BytesRecv, t.Sends, t.Recvs, t.Collectives, t.CollectiveBytes, t.Seconds)
		}
	}
	tw.Flush()
	if len(r.Steps) == 0 {
		return
	}
	if strings.HasPrefix(r.SetupMode, "distributed") {
		fmt.Fprintf(w, "\nrecurring steps: new values, dist's Update on each rank's rows over the set-up's plans (values only), solve from x = 0 (slowest rank's times; messages and bytes summed over the ranks)\n")
	} else {
		fmt.Fprintf(w, "\nrecurring steps: new values, Update on every rank, Refresh of the distributed levels on their plans, solve from x = 0 (slowest rank's times; messages and bytes summed over the ranks)\n")
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\tassembly s\tre-setup s\trefresh s\tsolve s\titerations\trel. residual\tre-setup sends\tre-setup MB sent\tre-setup collectives\tsolve sends\tsolve MB sent\tsolve collectives\tsolve MPI s (max)\t")
	for _, st := range r.Steps {
		var rs, rb, rc, ss, sb, sc int64
		ms := 0.0
		for _, rk := range st.MPI {
			rs += rk.Phases[0].Sends
			rb += rk.Phases[0].BytesSent
			rc += rk.Phases[0].Collectives
			ss += rk.Phases[1].Sends
			sb += rk.Phases[1].BytesSent
			sc += rk.Phases[1].Collectives
			ms = max(ms, rk.Phases[1].Seconds)
		}
		fmt.Fprintf(tw, "%d\t%.4f\t%.4f\t%.4f\t%.4f\t%d\t%.3e\t%d\t%.2f\t%d\t%d\t%.2f\t%d\t%.4f\t\n", st.Step, st.AssemblySeconds, st.SetupSeconds, st.RefreshSeconds,
			st.SolveSeconds, st.Iterations, float64(st.RelativeResidual), rs, float64(rb)/1e6, rc, ss, float64(sb)/1e6, sc, ms)
	}
	tw.Flush()
}
