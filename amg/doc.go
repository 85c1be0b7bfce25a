// Package amg is smoothed-aggregation algebraic multigrid for block systems, built the
// way PETSc's GAMG builds it, with every operator kept in BSR form: the fine matrix has
// b×b blocks (3×3 for 3D elasticity), the prolongator b×k blocks (3×6 with the six
// rigid-body modes), and every coarser operator and prolongator k×k blocks.
//
// # Pipeline
//
// Setup builds one level after another; each stage is one file and one function:
//
//	strength.go    Strength: node graph from block Frobenius norms, scaled by
//	               √(‖A_ii‖‖A_jj‖), edges above Threshold (negative keeps all); the
//	               norms and the test are safe from overflow and underflow (bsr.Norm)
//	aggregate.go   Aggregate: greedy MIS in node order on the squared graph (first
//	               AggressiveLevels levels) or the graph, roots then take their
//	               neighbours; undersized aggregates merged
//	tentative.go   Tentative: per-aggregate Householder QR of the near-null space;
//	               Q gives P_tent (b×k blocks), R the coarse near-null space; safe from
//	               overflow and underflow, rows weighted by √a_pp where an aggregate's
//	               unknowns differ in scale beyond 2^24 (a D·A·D system)
//	smooth.go      P = (I − ω·D⁻¹A)·P_tent on a pattern computed once, D the block
//	               diagonal, ω = ProlongDamping/λmax(D⁻¹A)
//	               Ac = PᵀAP through galerkin.Symbolic/Numeric
//	eig.go         a CG–Lanczos estimate of λ(D⁻¹A) (backend.CGLanczos on the CPU
//	               backend), mapped onto the smoother interval by ChebyshevInterval
//	cholesky.go    CoarseFactor: dense Cholesky of the coarsest operator
//	hierarchy.go   Setup, Update
//
// The near-null space is a dense n×k array (NullSpace); without one, the b constant
// modes are used (ConstantModes).
//
// # Symbolic and numeric
//
// Everything that depends only on patterns (strength graph, aggregates, tentative
// prolongator and coarse near-null spaces, the patterns of the smoothed prolongators,
// of every coarse operator, the Galerkin plans) is computed once by Setup.
// Update takes new values of the fine matrix on the same pattern and redoes only the
// numeric work: block-diagonal inverses, eigenvalue estimates, the prolongator values
// (re-smoothed with the new D⁻¹ and ω), the Galerkin products and the coarse
// factorisation — PETSc's -pc_gamg_reuse_interpolation, with the smoothed prolongator
// kept consistent with the new operator. For the same aggregates, Update gives
// bitwise the hierarchy Setup would.
//
// # Nodes outside aggregates
//
// As in GAMG, a node with no strong neighbour (a Dirichlet row kept as an identity
// block, or a node whose couplings all fall under the threshold) joins no aggregate:
// its row of P_tent is empty, and the smoother treats it exactly. Every other node
// lies in exactly one aggregate. Aggregates with fewer than ⌈k/b⌉ nodes would give a
// rank-deficient coarse space and are merged into a neighbouring one.
//
// # Cycle
//
// The hierarchy holds no cycle: package amg/cycle runs the V-cycle (its smoothers
// registered by name, Options.Smoother) on a backend, the CPU's or a GPU's, and
// backend.PCG the CG around it; the front door, package blockamg, joins them.
//
// # Determinism
//
// Every parallel loop splits rows into chunks fixed by the pattern and the worker
// count, every output is written by one goroutine in a fixed order, and reductions add
// fixed-length partial sums in order: the hierarchy is bitwise
// identical for any Options.Workers.
//
// # Errors
//
// Setup and Update return errors wrapping ErrOptions, ErrInput (a matrix or near-null
// space that does not fit, non-finite values, a zero diagonal block, a zero near-null
// vector), ErrNotSPD (a diagonal entry that is not positive, a negative curvature in
// an eigenvalue estimate, a failed coarse Cholesky), ErrStalled (aggregation stopped reducing the grid — a block-diagonal
// operator, every coupling under Threshold — while the level was too large for the
// dense coarse solve), ErrPattern (Update with another pattern) or bsr.ErrSingular (a
// diagonal block singular to float64 precision, even after scaling: the operator is
// singular or ill-conditioned there), naming the level. After an Update that failed part-way
// Broken reports true and a cycle refuses the hierarchy (ErrBroken).
package amg
