package main

import (
	"github.com/blockamg/blockamg/amg"
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

// newFloorModel computes the byte counts for h (ex56 says whether the fine values
// come from element moduli) with the copy bandwidth bw in bytes/s.
func newFloorModel(h *amg.Hierarchy, elements int, bw float64) *floorModel {
	f := &floorModel{bandwidth: bw}
	L0 := h.Levels[0].A
	vals := func(m *bsr.Matrix) int64 { return m.NNZBlocks() * int64(m.R*m.C) * 8 }
	if elements > 0 {
		f.assembly = vals(L0) + int64(elements)*8
	} else {
		f.assembly = 2 * vals(L0)
	}
	d := int64(h.Opt.SmootherIts)
	last := len(h.Levels) - 1
	for l, L := range h.Levels[:last] {
		A := L.A
		n, b := int64(A.Rows()), int64(A.R)
		s := int64(min(h.Opt.EstEigKSPMaxIt, A.Rows()))
		f.resetup += 2 * n * b * 8
		f.resetup += s * (A.Bytes() + 8*n*8)
		f.resetup += A.Bytes() + L.Ptent.Bytes() + n*b*8
		for _, Y := range L.SmoothSteps() {
			f.resetup += vals(Y)
		}
		f.resetup += 2 * vals(L.P)
		if L.P != L.Psmooth {
			f.resetup += vals(L.Psmooth) + vals(L.P)
		}
		f.resetup += A.Bytes() + L.P.Bytes() + vals(h.Levels[l+1].A)
		spmv := 2 * d
		if l == 0 {
			spmv++
		}
		f.iteration += spmv*A.Bytes() + 2*L.P.Bytes() + 14*n*8
	}
	f.resetup += vals(h.Levels[last].A)
	f.iteration += 10 * int64(L0.Rows()) * 8
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
