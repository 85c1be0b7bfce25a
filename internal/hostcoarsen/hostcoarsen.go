// Package hostcoarsen is test support: the CPU backend as a backend.Coarsener whose
// symbolic set-up is package amg's host functions — amg.Strength, amg.AggregateRounds
// (not merging small aggregates, which it reports as a device does), amg.Tentative and
// the smoothed prolongator's pattern (that of A·P_tent ∪ P_tent, amg's) — and whose
// Galerkin plans are the CPU backend's. With it the device set-up (amg/cycle's
// SetupResident) and the code built on it (the front door's default set-up on a
// Device, solve --gpu's engine) run without a GPU. It is not a product path: amg.Setup
// is the CPU's set-up.
package hostcoarsen

import (
	"fmt"
	"slices"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cpu"
	"github.com/blockamg/blockamg/bsr"
)

// Backend is the CPU backend with Coarsen, NewGalerkinOn and DownloadPattern.
type Backend struct {
	*cpu.Backend
	workers int
}

var _ backend.Coarsener = (*Backend)(nil)

// New returns a Backend over cpu.New(workers).
func New(workers int) *Backend { return &Backend{Backend: cpu.New(workers), workers: workers} }

// Coarsen implements backend.Coarsener (see the package comment).
func (b *Backend) Coarsen(a backend.Matrix, B backend.Vector, k int, opt backend.CoarsenOptions) (*backend.Coarsening, error) {
	return Coarsen(a, B, k, opt, b.workers)
}

// NewGalerkinOn implements backend.Coarsener with the CPU backend's plan.
func (b *Backend) NewGalerkinOn(a, p backend.Matrix) (backend.Galerkin, error) {
	return NewGalerkinOn(b.Backend, a, p)
}

// DownloadPattern implements backend.Coarsener.
func (b *Backend) DownloadPattern(a backend.Matrix) (*bsr.Matrix, error) { return DownloadPattern(a) }

// Coarsen coarsens the CPU backend's operator a with near-null space B (a CPU
// vector): backend.Coarsener's Coarsen for any wrapper of the CPU backend.
func Coarsen(a backend.Matrix, B backend.Vector, k int, opt backend.CoarsenOptions, workers int) (*backend.Coarsening, error) {
	A := host(a)
	bv, ok := B.(*cpu.Vector)
	if !ok {
		panic("hostcoarsen: near-null space from another backend")
	}
	if A.R != A.C || A.BlockRows != A.BlockCols || bv.Len() != A.Rows()*k {
		panic(fmt.Sprintf("hostcoarsen: Coarsen of %d×%d blocks of %d×%d with %d near-null entries for k = %d",
			A.BlockRows, A.BlockCols, A.R, A.C, bv.Len(), k))
	}
	g, err := amg.Strength(A, opt.Threshold, workers)
	if err != nil {
		return nil, err
	}
	agg := amg.AggregateRounds(g, opt.Distance2, 1, workers)
	co := &backend.Coarsening{Aggregates: agg.Count, Edges: int64(len(g.Adj)), Rounds: agg.Rounds}
	for a := 0; a < agg.Count; a++ {
		if agg.Ptr[a+1]-agg.Ptr[a] < int64(opt.MinNodes) {
			co.Small = true
			return co, nil
		}
	}
	if agg.Count == 0 {
		return co, nil
	}
	P, Bc := amg.Tentative(agg, bv.Data(), A.R, k, workers)
	co.Ptent, co.Bc = cpu.WrapMatrix(P), cpu.WrapVector(Bc)
	if opt.Smooth {
		co.P = cpu.WrapMatrix(amg.SmoothPattern(A, P, workers))
	}
	return co, nil
}

// NewGalerkinOn plans Ac = PᵀAP on the CPU backend r for the CPU operators a and p.
func NewGalerkinOn(r backend.Resetter, a, p backend.Matrix) (backend.Galerkin, error) {
	return r.NewGalerkin(host(a), host(p))
}

// DownloadPattern returns a copy of the CPU operator a's pattern (Val nil).
func DownloadPattern(a backend.Matrix) (*bsr.Matrix, error) {
	m := host(a)
	return &bsr.Matrix{BlockRows: m.BlockRows, BlockCols: m.BlockCols, R: m.R, C: m.C,
		RowPtr: slices.Clone(m.RowPtr), ColIdx: slices.Clone(m.ColIdx)}, nil
}

func host(a backend.Matrix) *bsr.Matrix {
	m, ok := a.(*cpu.Matrix)
	if !ok {
		panic("hostcoarsen: matrix from another backend")
	}
	return m.BSR()
}
