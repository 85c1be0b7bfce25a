package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/blockamg/blockamg"
	"github.com/blockamg/blockamg/dist"
	"github.com/blockamg/blockamg/dist/mpi"
	"github.com/blockamg/blockamg/fem"
)

func init() {
	register("scaling", "under mpiexec -n 2: measure ex56's recurring step split in two slabs, predict weak scaling to 8, 64 and 512 ranks (dist.Model)", runScaling)
}

// scalingNetworks are the interconnects the prediction is made for, one rank per
// node: HDR InfiniBand (100 Gb/s, about 2 µs of MPI latency and a fraction of a
// microsecond per message), and 10 Gb/s Ethernet with TCP (about 20 µs, a few
// microseconds per message).
var scalingNetworks = []dist.Network{
	{Name: "HDR InfiniBand: latency 2 µs, 0.2 µs per message, 12.5 GB/s", Latency: 2 * time.Microsecond, Overhead: 200 * time.Nanosecond, Bandwidth: 12.5e9},
	{Name: "10 GbE: latency 20 µs, 2 µs per message, 1.25 GB/s", Latency: 20 * time.Microsecond, Overhead: 2 * time.Microsecond, Bandwidth: 1.25e9},
}

// scalingRanks are the rank counts predicted.
var scalingRanks = []int{1, 8, 64, 512}

func runScaling(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("scaling", "[--ne N] [--steps S] [--threads T] (under mpiexec -n 2)", stderr)
	ne := fs.Int("ne", 39, "ex56 elements per side of the measured problem (its two ranks hold half each)")
	steps := fs.Int("steps", 3, "recurring steps measured (medians are taken; 1 … 100)")
	threads := fs.Int("threads", 1, "worker goroutines per rank for the serial set-up and Update")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if *ne < 4 || *ne > fem.MaxNe || *steps < 1 || *steps > 100 || *threads < 0 {
		return fmt.Errorf("--ne %d (4 … %d), --steps %d (1 … 100), --threads %d (≥ 0): out of range", *ne, fem.MaxNe, *steps, *threads)
	}
	comm, err := mpi.Init()
	if err != nil {
		return fmt.Errorf("mpiexec: %w", err)
	}
	if comm.Size() != 2 {
		// Every rank sees the same size and fails alike: none waits for another.
		err := fmt.Errorf("%w: the model is fitted to two slabs, each with one neighbour: run it under mpiexec -n 2 (world of %d)", errScalingWorld, comm.Size())
		if ferr := comm.Finalize(); ferr != nil {
			err = fmt.Errorf("%w (and %w)", err, ferr)
		}
		return err
	}
	m, its, err := measureScaling(comm, *ne, *steps, *threads)
	if err != nil {
		fmt.Fprintf(stderr, "blockamg-bench scaling: rank %d: %v\n", comm.Rank(), err)
		comm.Abort(exitFailed)
		return err
	}
	if err := comm.Finalize(); err != nil {
		return err
	}
	if comm.Rank() != 0 {
		return nil
	}
	printScaling(stdout, *ne, m, its)
	return nil
}

// errScalingWorld is wrapped when scaling runs on another world size than two.
var errScalingWorld = errors.New("not two ranks")

// measuredIts is one serial iteration count of the fit.
type measuredIts struct {
	ne, unknowns, its int
}

// measureScaling measures, on both ranks, the Model of ex56 of size ne split in two
// slabs: the levels' halos from the plans, one CG iteration's computation outside
// MPI and the serial Update (medians over steps, the slower rank), and the serial
// iteration counts at ne/4, ne/2 and ne for the fit.
func measureScaling(comm *mpi.Comm, ne, steps, threads int) (dist.Model, []measuredIts, error) {
	var its []measuredIts
	var ns []float64
	var counts []int
	var solver *blockamg.Solver
	var asm *fem.Assembly
	var box *fem.Box
	var rhs []float64
	for _, e := range []int{max(ne/4, 2), max(ne/2, 3), ne} {
		b, err := fem.NewBox(fem.Ex56(e))
		if err != nil {
			return dist.Model{}, nil, err
		}
		a, err := b.Symbolic(threads)
		if err != nil {
			return dist.Model{}, nil, err
		}
		if err := a.Numeric(a.Matrix, nil, threads); err != nil {
			return dist.Model{}, nil, err
		}
		modes, _, err := fem.RigidBodyModes(b.Coords(), 3, true)
		if err != nil {
			return dist.Model{}, nil, err
		}
		opt := blockamg.DefaultOptions()
		opt.Workers = threads
		opt.AssumeSymmetric = true // ex56's assembly is symmetric to the bit (fem's tests)
		s, err := blockamg.NewSolver(a.Matrix, &blockamg.NullSpace{Rows: b.Unknowns(), Cols: 6, Data: modes}, opt)
		if err != nil {
			return dist.Model{}, nil, err
		}
		x := make([]float64, b.Unknowns())
		res, err := s.Solve(b.RHS(), x)
		if err != nil {
			return dist.Model{}, nil, err
		}
		its = append(its, measuredIts{e, b.Unknowns(), res.Iterations})
		ns, counts = append(ns, float64(b.Unknowns())), append(counts, res.Iterations)
		if e != ne {
			s.Close()
			continue
		}
		solver, asm, box, rhs = s, a, b, b.RHS()
	}
	defer solver.Close()
	h := solver.Hierarchy()
	lay := dist.EvenLayout(h.Levels[0].A.BlockRows, comm.Size())
	dh, err := dist.NewHierarchy(comm, h, lay)
	if err != nil {
		return dist.Model{}, nil, err
	}
	lo, hi := lay.Range(comm.Rank())
	b := rhs[lo*3 : hi*3]
	x := make([]float64, len(b))
	var update, work []float64
	hard := box.Problem().E
	for k := 1; k <= steps; k++ {
		mod := box.ElementModulus()
		for e, v := range mod {
			if v != hard {
				mod[e] = v * (1 + float64(k)/10)
			}
		}
		if err := asm.Numeric(asm.Matrix, mod, threads); err != nil {
			return dist.Model{}, nil, err
		}
		t := time.Now()
		if err := solver.Update(asm.Matrix); err != nil {
			return dist.Model{}, nil, err
		}
		update = append(update, time.Since(t).Seconds())
		if err := dh.Refresh(solver.Hierarchy()); err != nil {
			return dist.Model{}, nil, err
		}
		clear(x)
		ph := fmt.Sprintf("step %d", k)
		prev := comm.SetPhase(ph)
		t = time.Now()
		r, err := dist.CG(dh.Operator(), dh, b, x, solver.SolveOptions().RelTol, solver.SolveOptions().MaxIter)
		wall := time.Since(t)
		comm.SetPhase(prev)
		if err != nil {
			return dist.Model{}, nil, err
		}
		work = append(work, (wall-comm.Traffic(ph).Time).Seconds()/float64(max(r.Iterations, 1)))
	}
	// The slower rank's medians: the weak-scaling step waits for it.
	med := []float64{median(update), median(work)}
	if err := comm.AllreduceFloat64(mpi.Max, med); err != nil {
		return dist.Model{}, nil, err
	}
	last := h.Levels[len(h.Levels)-1].A
	ratio := math.Pow(float64(h.Levels[0].A.BlockRows)/float64(last.BlockRows), 1/float64(len(h.Levels)-1))
	m := dist.Model{
		Levels:    dh.LevelShapes(),
		SolveWork: time.Duration(med[1] * 1e9),
		// Update's work split over the two ranks' rows.
		SetupWork:  time.Duration(med[0] / float64(comm.Size()) * 1e9),
		Unknowns:   (hi - lo) * 3,
		Iterations: dist.IterationFit(ns, counts),
		EigSteps:   h.Opt.EstEigKSPMaxIt, SmootherDegree: h.Opt.SmootherIts,
		CoarseBytes:       int64(last.Rows()) * 8,
		CoarseMatrixBytes: int64(len(last.Val)) * 8,
		CoarseRatio:       ratio,
	}
	return m, its, nil
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// printScaling prints the measured inputs and the predictions.
func printScaling(w io.Writer, ne int, m dist.Model, its []measuredIts) {
	fmt.Fprintf(w, "ex56 ne=%d on 2 ranks (slabs along z): %d unknowns per rank, the load every rank keeps below\n", ne, m.Unknowns)
	fmt.Fprintf(w, "measured: one CG iteration's computation %.3f ms per rank; serial Update %.1f ms, taken as %.1f ms per rank (rows split)\n",
		m.SolveWork.Seconds()*1e3, 2*m.SetupWork.Seconds()*1e3, m.SetupWork.Seconds()*1e3)
	fmt.Fprint(w, "serial iterations:")
	for _, c := range its {
		fmt.Fprintf(w, " ne=%d (%d unknowns) %d;", c.ne, c.unknowns, c.its)
	}
	fmt.Fprintf(w, " fit %.2f + %.3f·log₂ n\n", m.Iterations(1), m.Iterations(2)-m.Iterations(1))
	fmt.Fprintf(w, "coarsening ratio %.1f (block rows per level); coarse right-hand side %d B, coarsest operator %d B\n\n",
		m.CoarseRatio, m.CoarseBytes, m.CoarseMatrixBytes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "level\tblock rows per rank\tblock\tA ghost blocks (one face)\tP ghost\tPᵀ ghost\tA blocks/row\tP blocks/row\t")
	for l, s := range m.Levels {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t%.1f\t\n", l, s.Rows, s.Block, s.AHalo, s.PHalo, s.RHalo, s.ANnzRow, s.PNnzRow)
	}
	tw.Flush()
	for _, net := range scalingNetworks {
		fmt.Fprintf(w, "\npredicted weak scaling of the recurring step (re-setup + solve), %s, one rank per node, communication not overlapped with computation:\n", net.Name)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "ranks\tneighbours\tlevels\titerations\tre-setup ms\tof it comm.\tsolve ms\tof it comm.\tstep ms\tefficiency\tcomm. only\t")
		for _, p := range m.WeakScaling(net, scalingRanks) {
			ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 }
			fmt.Fprintf(tw, "%d\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f%%\t%.0f%%\t\n", p.Ranks, p.Neighbours, p.Levels, p.Iterations,
				ms(p.Resetup), ms(p.ResetupComm), ms(p.Solve), ms(p.SolveComm), ms(p.Resetup+p.Solve), 100*p.Efficiency, 100*p.CommEfficiency)
		}
		tw.Flush()
	}
}
