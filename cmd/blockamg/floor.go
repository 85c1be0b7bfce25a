package main

import (
	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/amg/cycle"
	"github.com/blockamg/blockamg/bsr"
)

// floorModel holds the bytes each phase of the recurring step must move at least on a
// device, from the hierarchy's patterns, and the copy bandwidth measured in the same
// run: the floor of a phase is its bytes over that bandwidth. The byte counts
// (operators as stored, values and indices, bsr.Matrix.Bytes; vectors of 8-byte
// entries):
//
//   - assembly: the fine values written and one modulus per element read (ex56), or
//     the values read and written (scaling a matrix from a file);
//   - re-setup, per level but the coarsest, with n unknowns, b×b blocks and s
//     eigenvalue steps: the diagonal blocks read and their inverses written
//     (2·n·b·8); s CG–Lanczos steps, each reading A and 8 vectors; smoothing, which
//     reads A, P_tent and the inverses and writes each smoothed P, plus reading P and
//     writing its transpose; filtering (reads the smoothed P, writes the filtered);
//     the Galerkin product, reading A and P once and writing Ac's values; then the
//     coarsest operator's values;
//   - one CG iteration: per level but the coarsest, the SpMVs of the cycle, 2d with
//     Chebyshev degree d (one more on the finest for CG's own product), each reading
//     A; P read for prolongation and Pᵀ for restriction; 14 vector passes; and CG's
//     10 fine vector passes.
type floorModel struct {
	bandwidth                    float64 // bytes/s
	assembly, resetup, iteration int64
}

// shape is what the floor model reads of a stored matrix: its block rows, stored
// blocks and block shape.
type shape struct {
	rows, blocks, r, c int64
}

func shapeOf(m *bsr.Matrix) shape {
	return shape{int64(m.BlockRows), m.NNZBlocks(), int64(m.R), int64(m.C)}
}

// vals returns the bytes of the values.
func (s shape) vals() int64 { return s.blocks * s.r * s.c * 8 }

// bytes returns the bytes as stored (bsr.Matrix.Bytes: int64 row pointers, int32
// columns, values).
func (s shape) bytes() int64 { return (s.rows+1)*8 + s.blocks*4 + s.vals() }

// floorLevel is one level as the floor model reads it: the operator and, but on the
// coarsest, the prolongators.
type floorLevel struct {
	A, Ptent, P shape
	steps       []shape // each smoothing step's result, the last the smoothed P
	Psmooth     shape   // the smoothed P (P itself unless filtered)
	filtered    bool
}

// newFloorModel computes the byte counts for h with the copy bandwidth bw in bytes/s.
// assembly is what a device assembly of the fine values must move (its element data
// read and values written: cudafem's ValueBytes and DataBytes); 0 means there is none,
// and new values are an upload.
func newFloorModel(h *amg.Hierarchy, assembly int64, bw float64) *floorModel {
	levels := make([]floorLevel, len(h.Levels))
	for l, L := range h.Levels {
		fl := &levels[l]
		fl.A = shapeOf(L.A)
		if l == len(h.Levels)-1 {
			break
		}
		fl.Ptent, fl.P, fl.Psmooth = shapeOf(L.Ptent), shapeOf(L.P), shapeOf(L.Psmooth)
		for _, Y := range L.SmoothSteps() {
			fl.steps = append(fl.steps, shapeOf(Y))
		}
		fl.filtered = L.P != L.Psmooth
	}
	return floorOf(levels, h.Opt, assembly, bw)
}

// newDeviceFloorModel is newFloorModel for a hierarchy set up on the device (ds, with
// options opt): the same counts from the sizes the device set-up reports, which has
// no filtering and at most one smoothing step.
func newDeviceFloorModel(ds *cycle.DeviceSetup, opt amg.Options, assembly int64, bw float64) *floorModel {
	levels := make([]floorLevel, len(ds.Levels))
	for l, d := range ds.Levels {
		fl := &levels[l]
		b := int64(d.Block)
		fl.A = shape{int64(d.BlockRows), d.Blocks, b, b}
		if l == len(ds.Levels)-1 {
			break
		}
		k := int64(ds.Levels[l+1].Block)
		fl.Ptent = shape{int64(d.BlockRows), d.PtentBlocks, b, k}
		fl.P = shape{int64(d.BlockRows), d.PBlocks, b, k}
		fl.Psmooth = fl.P
		if opt.AggNSmooths > 0 {
			fl.steps = []shape{fl.P}
		}
	}
	return floorOf(levels, opt, assembly, bw)
}

// floorOf computes the byte counts of the hierarchy levels (set up with opt).
func floorOf(levels []floorLevel, opt amg.Options, assembly int64, bw float64) *floorModel {
	f := &floorModel{bandwidth: bw}
	L0 := levels[0].A
	if assembly > 0 {
		f.assembly = assembly
	} else {
		f.assembly = 2 * L0.vals()
	}
	d := int64(opt.SmootherIts)
	last := len(levels) - 1
	for l, L := range levels[:last] {
		A := L.A
		n, b := A.rows*A.r, A.r
		s := min(int64(opt.EstEigKSPMaxIt), n)
		f.resetup += 2 * n * b * 8
		f.resetup += s * (A.bytes() + 8*n*8)
		f.resetup += A.bytes() + L.Ptent.bytes() + n*b*8
		for _, Y := range L.steps {
			f.resetup += Y.vals()
		}
		f.resetup += 2 * L.P.vals()
		if L.filtered {
			f.resetup += L.Psmooth.vals() + L.P.vals()
		}
		f.resetup += A.bytes() + L.P.bytes() + levels[l+1].A.vals()
		spmv := 2 * d
		if l == 0 {
			spmv++
		}
		f.iteration += spmv*A.bytes() + 2*L.P.bytes() + 14*n*8
	}
	f.resetup += levels[last].A.vals()
	f.iteration += 10 * L0.rows * L0.r * 8
	return f
}

// floorReport is the recurring step next to its floor (JSON "floor").
type floorReport struct {
	BandwidthGBs   float64 `json:"copy_bandwidth_gbs"`
	AssemblyBytes  int64   `json:"assembly_bytes"`
	ResetupBytes   int64   `json:"resetup_bytes"`
	IterationBytes int64   `json:"iteration_bytes"`
	// Medians over the recurring steps, and each over its floor. IterationSeconds is
	// the PCG's time per iteration (transfers of b and x excluded); StepSeconds
	// includes them.
	AssemblySeconds  float64 `json:"assembly_seconds"`
	ResetupSeconds   float64 `json:"resetup_seconds"`
	IterationSeconds float64 `json:"iteration_seconds"`
	StepSeconds      float64 `json:"step_seconds"`
	AssemblyRatio    float64 `json:"assembly_ratio"`
	ResetupRatio     float64 `json:"resetup_ratio"`
	IterationRatio   float64 `json:"iteration_ratio"`
	StepRatio        float64 `json:"step_ratio"` // (assembly + re-setup + solve) over its floor
}

// report compares the median recurring step of r with the floor (nil without steps).
func (f *floorModel) report(r *solveReport) *floorReport {
	if len(r.Steps) == 0 || f.bandwidth <= 0 {
		return nil
	}
	var asm, set, solve, its, step []float64
	for _, s := range r.Steps {
		asm = append(asm, s.AssemblySeconds)
		set = append(set, s.SetupSeconds)
		solve = append(solve, s.SolveSeconds)
		pcg := s.PCGSeconds
		if pcg == 0 {
			pcg = s.SolveSeconds
		}
		its = append(its, pcg/float64(max(s.Iterations, 1)))
		step = append(step, s.AssemblySeconds+s.SetupSeconds+s.SolveSeconds)
	}
	bw := f.bandwidth
	fr := &floorReport{BandwidthGBs: bw / 1e9, AssemblyBytes: f.assembly, ResetupBytes: f.resetup, IterationBytes: f.iteration,
		AssemblySeconds: median(asm), ResetupSeconds: median(set), IterationSeconds: median(its), StepSeconds: median(step)}
	fr.AssemblyRatio = fr.AssemblySeconds / (float64(f.assembly) / bw)
	fr.ResetupRatio = fr.ResetupSeconds / (float64(f.resetup) / bw)
	fr.IterationRatio = fr.IterationSeconds / (float64(f.iteration) / bw)
	var stepFloor float64
	for _, s := range r.Steps {
		stepFloor += float64(f.assembly+f.resetup+int64(s.Iterations)*f.iteration) / bw
	}
	stepFloor /= float64(len(r.Steps))
	fr.StepRatio = fr.StepSeconds / stepFloor
	return fr
}
