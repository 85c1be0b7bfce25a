package filter

// Read-only views of a Plan for other implementations of Numeric (the CUDA backend
// uploads them once and re-projects on the device). Every slice returned aliases the
// plan: callers must not modify it.

// Dims returns the plan's block dimensions: n fine nodes (block rows), m coarse nodes
// (block columns), and the b×k shape of the blocks of P and P_f.
func (p *Plan) Dims() (n, m, b, k int) { return p.n, p.m, p.b, p.k }

// PPattern returns the pattern of the P given to Symbolic, which Numeric's P must
// have (aliases the plan).
func (p *Plan) PPattern() (rowPtr []int64, colIdx []int32) { return p.pPtr, p.pCol }

// PfPattern returns the pattern of P_f (P's own for an identity plan) without
// allocating values, unlike NewPf (aliases the plan).
func (p *Plan) PfPattern() (rowPtr []int64, colIdx []int32) { return p.rowPtr, p.colIdx }

// RowFactors returns, per fine row i, the index of row i's Cholesky factor in Factors,
// or −1 for a row that Numeric copies from P unchanged (nothing dropped, or left
// unfiltered: then its P_f row has exactly P's blocks). Every row with an index has
// lost blocks: its P_f columns are a strict, ordered subset of its P columns. nil for
// an identity plan (aliases the plan).
func (p *Plan) RowFactors() []int32 { return p.rowFac }

// Factors returns the packed Cholesky factors of the corrected rows' M, k(k+1)/2
// values each, factor f at [f·k(k+1)/2, (f+1)·k(k+1)/2): the lower triangle of L
// (M = L·Lᵀ) row by row (row j's j+1 entries start at j(j+1)/2), with each diagonal
// entry replaced by its reciprocal. The solve Y = E·M⁻¹ of Numeric is, for each row e
// of E: forward w_j = (e_j − Σ_{l<j} L_jl·w_l)·(1/L_jj), then backward
// y_j = (w_j − Σ_{l>j} L_lj·y_l)·(1/L_jj), the sums taken in increasing l (aliases the
// plan).
func (p *Plan) Factors() []float64 { return p.fac }
