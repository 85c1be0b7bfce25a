package amg

import "github.com/blockamg/blockamg/filter"

// LevelInfo summarises one level for tables and JSON.
type LevelInfo struct {
	Level      int   `json:"level"`      // 0 for the finest
	Rows       int   `json:"rows"`       // scalar unknowns
	BlockRows  int   `json:"block_rows"` // nodes
	BlockSize  int   `json:"block_size"` // b of the b×b blocks of A
	NNZBlocks  int64 `json:"nnz_blocks"` // stored blocks of A
	NNZ        int64 `json:"nnz"`        // stored scalars of A (NNZBlocks·b²)
	Bytes      int64 `json:"bytes"`      // memory of A (pattern and values)
	Bytes32    int64 `json:"bytes_f32"`  // float32 copy of A's values (SmootherFloat32), else 0
	Aggregates int   `json:"aggregates"` // nodes of the next level (0 on the coarsest)

	// Prolongator to the next level (zero on the coarsest): PBlockRows×PBlockCols
	// blocks of PR×PC.
	PBlockRows int   `json:"p_block_rows"` // this level's nodes
	PBlockCols int   `json:"p_block_cols"` // the next level's nodes (aggregates)
	PR         int   `json:"p_r"`          // rows of P's blocks: this level's b
	PC         int   `json:"p_c"`          // columns of P's blocks: near-null vectors k
	PNNZBlocks int64 `json:"p_nnz_blocks"` // stored blocks of P
	PBytes     int64 `json:"p_bytes"`      // memory of P (pattern and values)
	Edges      int64 `json:"graph_edges"`  // directed edges of the strength graph
	// Filtering of P (FilterTheta > 0): its statistics, nil without filtering.
	Filter *filter.Stats `json:"filter,omitempty"`

	EigMin  float64 `json:"eig_min"`  // smallest Ritz value of D⁻¹A
	EigMax  float64 `json:"eig_max"`  // largest Ritz value of D⁻¹A
	Omega   float64 `json:"omega"`    // prolongator smoothing weight
	ChebMin float64 `json:"cheb_min"` // lower end of the Chebyshev interval
	ChebMax float64 `json:"cheb_max"` // upper end of the Chebyshev interval

	Times PhaseTimes `json:"times"` // of the last Setup or Update
}

// Info returns one LevelInfo per level, finest first.
func (h *Hierarchy) Info() []LevelInfo {
	out := make([]LevelInfo, len(h.Levels))
	for l, L := range h.Levels {
		A := L.A
		li := LevelInfo{
			Level: l, Rows: A.Rows(), BlockRows: A.BlockRows, BlockSize: A.R,
			NNZBlocks: A.NNZBlocks(), NNZ: A.NNZBlocks() * int64(A.R*A.C), Bytes: A.Bytes(),
			EigMin: L.Eig.Min, EigMax: L.Eig.Max, Omega: L.Omega,
			ChebMin: L.ChebMin, ChebMax: L.ChebMax, Times: L.Times,
		}
		if L.P != nil && h.Opt.SmootherFloat32 {
			// The cycle smooths with a float32 copy of this operator's values.
			li.Bytes32 = int64(len(A.Val)) * 4
		}
		if L.P != nil {
			li.Aggregates = L.Agg.Count
			li.PBlockRows, li.PBlockCols, li.PR, li.PC = L.P.BlockRows, L.P.BlockCols, L.P.R, L.P.C
			li.PNNZBlocks = L.P.NNZBlocks()
			li.PBytes = L.P.Bytes()
			li.Edges = L.Edges
			if L.Filter != nil {
				st := L.Filter.Stats()
				li.Filter = &st
			}
		}
		out[l] = li
	}
	return out
}

// GridComplexity returns Σ rows of all levels / rows of the finest (1 for an empty
// matrix, whose hierarchy is that one level).
func (h *Hierarchy) GridComplexity() float64 {
	s := 0
	for _, L := range h.Levels {
		s += L.A.Rows()
	}
	return ratio(float64(s), float64(h.Levels[0].A.Rows()))
}

// OperatorComplexity returns Σ stored scalars of all level operators / those of the
// finest (the usual memory and work measure of AMG; 1 for an empty matrix).
func (h *Hierarchy) OperatorComplexity() float64 {
	s := int64(0)
	for _, L := range h.Levels {
		s += L.A.NNZBlocks() * int64(L.A.R*L.A.C)
	}
	A := h.Levels[0].A
	return ratio(float64(s), float64(A.NNZBlocks()*int64(A.R*A.C)))
}

// ratio returns s/fine, or 1 when the fine level is empty (and so is every level),
// rather than a NaN that JSON cannot encode.
func ratio(s, fine float64) float64 {
	if fine == 0 {
		return 1
	}
	return s / fine
}

// Times returns the phase times of the last Setup or Update summed over levels.
func (h *Hierarchy) Times() PhaseTimes {
	var t PhaseTimes
	for _, L := range h.Levels {
		t = t.Add(L.Times)
	}
	return t
}
