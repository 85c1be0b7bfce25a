package amg

import (
	"time"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/filter"
	"github.com/blockamg/blockamg/galerkin"
	"github.com/blockamg/blockamg/krylov"
)

// Level is one grid of the hierarchy. Its fields are exposed read-only for
// inspection, tests and the GPU upload; Update rewrites the values in place.
type Level struct {
	// A is the operator: the caller's matrix on level 0, the Galerkin product
	// PᵀAP of the finer level above. Square blocks of b×b (b = A.R).
	A *bsr.Matrix
	// B is the near-null space of this level, node-blocked row-major (A.Rows()×K):
	// the caller's on level 0, the stacked QR factors R of the finer level's
	// aggregates below it.
	B []float64
	K int // near-null vectors, the block size of the next coarser level

	// Agg, Ptent and P are nil on the coarsest level. The strength graph is not kept
	// (Edges counts it); Strength recomputes it from A.
	Agg   *Aggregates // the aggregates: nodes of the next level
	Ptent *bsr.Matrix // tentative prolongator, one b×K block per aggregated node
	// P is the prolongator the cycle and the Galerkin product use: the smoothed one
	// (Ptent itself when AggNSmooths is 0), filtered when FilterTheta > 0. Restriction
	// is Pᵀ, applied without storing it.
	P *bsr.Matrix
	// Psmooth is the smoothed prolongator before filtering (P itself without it).
	Psmooth *bsr.Matrix
	// Filter is the filtering plan of P (nil when FilterTheta is 0): its Stats tell
	// what was dropped.
	Filter *filter.Plan
	Dinv   []float64            // inverses of A's diagonal blocks (not on the coarsest level)
	Eig    krylov.EigenEstimate // spectrum estimate of D⁻¹A
	Omega  float64              // prolongator smoothing weight ProlongDamping/λmax

	// Chebyshev interval of the smoother (from Eig and ChebyshevEstEig).
	ChebMin, ChebMax float64

	// Times of the last Setup or Update.
	Times PhaseTimes

	Edges int64 // directed edges of the strength graph (the graph itself is not kept)

	smooth []*smoothPlan // AggNSmooths smoothing steps, each with its fixed pattern
	rap    *galerkin.Plan
	eig    *eigWork // the spectrum estimate's vectors
}

// PhaseTimes is the wall time of each set-up phase on one level. Strength,
// Aggregation and Tentative are symbolic (first Setup only); the others are redone
// by Update.
type PhaseTimes struct {
	Strength      time.Duration `json:"strength_ns"`       // strength graph
	Aggregation   time.Duration `json:"aggregation_ns"`    // MIS aggregation
	Tentative     time.Duration `json:"tentative_ns"`      // per-aggregate QR: P_tent and the coarse near-null space
	SmootherSetup time.Duration `json:"smoother_setup_ns"` // block-diagonal inverse
	EigEstimate   time.Duration `json:"eig_estimate_ns"`   // CG–Lanczos on D⁻¹A
	Smoothing     time.Duration `json:"smoothing_ns"`      // P = (I − ωD⁻¹A)·P_tent, pattern and values
	Filter        time.Duration `json:"filter_ns"`         // dropping small blocks of P and re-projecting
	Galerkin      time.Duration `json:"galerkin_ns"`       // Ac = PᵀAP, symbolic and numeric
	CoarseFactor  time.Duration `json:"coarse_factor_ns"`  // dense Cholesky (coarsest level)
}

// Total returns the sum of the phases.
func (p PhaseTimes) Total() time.Duration {
	return p.Strength + p.Aggregation + p.Tentative + p.SmootherSetup + p.EigEstimate +
		p.Smoothing + p.Filter + p.Galerkin + p.CoarseFactor
}

// Add returns the phase-wise sum of p and q.
func (p PhaseTimes) Add(q PhaseTimes) PhaseTimes {
	return PhaseTimes{
		Strength: p.Strength + q.Strength, Aggregation: p.Aggregation + q.Aggregation,
		Tentative: p.Tentative + q.Tentative, SmootherSetup: p.SmootherSetup + q.SmootherSetup,
		EigEstimate: p.EigEstimate + q.EigEstimate, Smoothing: p.Smoothing + q.Smoothing,
		Filter: p.Filter + q.Filter, Galerkin: p.Galerkin + q.Galerkin,
		CoarseFactor: p.CoarseFactor + q.CoarseFactor,
	}
}

// stopwatch adds the time since the last call to a phase.
type stopwatch struct{ t time.Time }

func newStopwatch() stopwatch { return stopwatch{time.Now()} }

func (s *stopwatch) lap(d *time.Duration) {
	now := time.Now()
	*d += now.Sub(s.t)
	s.t = now
}

// SmoothSteps returns the prolongators of the AggNSmooths smoothing steps in order
// (the last one is Psmooth): each step's fixed pattern is what a device re-setup
// fills. Only the last carries values (those of the last Setup or Update); the
// intermediate steps keep their patterns alone (Val nil), so that memory does not grow
// by a value array per step. Nil on the coarsest level or without
// smoothing.
func (L *Level) SmoothSteps() []*bsr.Matrix {
	var out []*bsr.Matrix
	for _, sp := range L.smooth {
		out = append(out, sp.Y)
	}
	return out
}
