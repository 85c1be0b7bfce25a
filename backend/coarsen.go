package backend

import "github.com/blockamg/blockamg/bsr"

// Coarsener is a Resetter that also computes the symbolic set-up in its own memory,
// so that a hierarchy can be built without its operators ever reaching the host
// (amg/cycle's SetupResident): per level the strength graph, the aggregates, the
// tentative prolongator with the coarse near-null space, the smoothed prolongator's
// pattern and the Galerkin product's patterns. Its results are package amg's, bit
// for bit (amg.Strength, amg.AggregateRounds — the greedy amg.Aggregate's aggregates
// — amg.Tentative and the smoothing pattern); the CPU's functions are its oracle.
type Coarsener interface {
	Resetter
	// Coarsen coarsens the level of the square-blocked operator a with near-null
	// space B (a.Rows()×k, node-blocked row-major: node v's b×k block at v·b·k).
	Coarsen(a Matrix, B Vector, k int, opt CoarsenOptions) (*Coarsening, error)
	// NewGalerkinOn plans Ac = PᵀAP from the patterns of a and p on the backend (p
	// from a Coarsening, which carries the transpose the plan reads).
	NewGalerkinOn(a, p Matrix) (Galerkin, error)
	// DownloadPattern copies a's pattern to the host (Val nil): the coarsest level's,
	// which is factored there.
	DownloadPattern(a Matrix) (*bsr.Matrix, error)
}

// CoarsenOptions are the set-up options one level's coarsening reads.
type CoarsenOptions struct {
	Threshold float64 // amg.Options.Threshold
	Distance2 bool    // aggregate at distance 2 (amg.Options.AggressiveLevels)
	MinNodes  int     // the smallest aggregate, ⌈k/b⌉
	Smooth    bool    // build the pattern of one Jacobi smoothing step of P_tent
}

// Coarsening is one level's symbolic set-up on a Coarsener.
type Coarsening struct {
	Aggregates int   // number of aggregates: the next level's block rows
	Edges      int64 // stored edges of the strength graph (each undirected one twice)
	Rounds     int   // rounds of the independent-set computation
	// Small reports aggregates under MinNodes, which amg merges and the backend does
	// not: the set-up must then be made on the host. Ptent, Bc and P are nil.
	Small bool
	Ptent Matrix // the tentative prolongator (with its values), and its transpose when not Smooth
	Bc    Vector // the coarse near-null space: Aggregates blocks of k×k
	// P is the smoothed prolongator's pattern (zero values) with its transpose's,
	// nil unless Smooth.
	P Matrix
}

// Free releases what the coarsening holds.
func (c *Coarsening) Free() {
	for _, m := range []Matrix{c.Ptent, c.P} {
		if m != nil {
			m.Free()
		}
	}
	if c.Bc != nil {
		c.Bc.Free()
	}
}

// StartVectorFiller is a Backend that writes krylov.StartVector's values (offset 0)
// into a vector in its own memory, bit for bit, so that a set-up on it need not
// upload the eigenvalue estimate's start vectors.
type StartVectorFiller interface {
	FillStartVector(v Vector)
}
