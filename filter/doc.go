// Package filter thins the smoothed prolongator of smoothed-aggregation AMG: it drops
// the small b×k blocks of P (3×6 for elasticity) and corrects the surviving ones so
// that P still maps the coarse near-null space onto the same fine vectors.
//
// # Why
//
// One Jacobi step P = (I − ωD⁻¹A)·P_tent widens every row of P to the aggregates of the
// node's whole neighbourhood, and some of those blocks are small (in amg's default
// hierarchy on ex56, ne = 30, 6% of the fine level's blocks are under 5% of their
// row's largest, 23% under 10%). Each stored block of
// P costs a row of W = A·P and a share of Ac = PᵀAP, so the Galerkin product and the
// coarse operators grow with them. Dropping blocks outright would break what the
// coarse space exists for: P·B_c, with B_c the coarse near-null space, would no longer
// reproduce the near-null vectors (the rigid-body modes) the smoother cannot reduce.
//
// # Rule
//
// In block row i of P (fine node i), block (i, J) is dropped when
//
//	‖P_iJ‖_F < θ · max_J' ‖P_iJ'‖_F,
//
// strictly, so the strongest block of every row survives and θ = 0 drops nothing
// (Symbolic then returns an identity plan: P_f is P, bit for bit). θ is per level;
// LevelTheta gives θ·s^l for a base θ and a factor s per level. Norms are taken by
// bsr.Norm: the plain root of the plain sum of squares, and a scaled computation only
// where that would underflow or overflow (blocks beyond 1e±154), so the rule sees the
// same ratios whatever the scale of a row.
//
// The row rule alone can leave a coarse column without rank: at θ ≥ 0.8, with two
// smoothing steps, a coarse node J may be weak in every fine row it reaches (its own
// aggregate's rows peak on a neighbour), so P_f's block column J is empty or spans
// fewer than k directions, Ac = P_fᵀ·A·P_f is singular, and the coarse Cholesky calls
// a valid SPD matrix indefinite. Hence the column rule, applied to the row rule's
// survivors (Stats.BlocksKeptForRank counts what it keeps):
//
//   - Each coarse column J on its own: when its survivors' Gram matrix
//     Σ_i P_iJᵀ·P_iJ (each block scaled by a power of two that brings its row's
//     largest block norm to one, as the row rule sees it, and the k scalar columns then
//     to unit largest magnitude) fails the pivot test of Options.PivotTol, J's dropped
//     blocks are kept again, strongest first (lowest row on a tie), until it passes.
//   - All columns together: two columns can each pass and still be dependent (both
//     kept only in one fine row). Full structural rank asks that every coarse column
//     can be given k of the scalar rows of its surviving blocks, none given twice;
//     this is checked as a flow (demand k per coarse column, b rows per fine node),
//     greedily and by augmenting paths, and a column that cannot be completed gets its
//     strongest dropped blocks back, one at a time, until it can.
//
// A column that fails even whole (a column of P without rank k, from an aggregate with
// fewer than k rows) is left as the row rule left it. Where every coarse column keeps
// rank, as on SA prolongators at moderate θ (each coarse column peaks on its own
// aggregate), the column rule keeps nothing and the plan is the row rule's, bit for
// bit.
//
// # Projection
//
// Fix row i; let S be its surviving coarse columns and D the dropped ones, and B_cJ
// the k×k block of coarse node J in B_c. What the row of P contributes to P·B_c is the
// b×k matrix
//
//	T_i = Σ_{J∈S∪D} P_iJ·B_cJ.
//
// Write the surviving part of the row as the b×(k|S|) matrix X = [P_iJ]_{J∈S} and stack
// the matching coarse blocks into the (k|S|)×k matrix G_S = [B_cJ]_{J∈S}. The filtered
// row X + Δ must satisfy (X + Δ)·G_S = T_i, i.e. Δ·G_S = E with
//
//	E = T_i − X·G_S = Σ_{J∈D} P_iJ·B_cJ,
//
// what the dropped blocks carried. Each of the b rows of Δ is an independent
// under-determined system δ·G_S = e (k equations, k|S| unknowns); its minimum-norm
// solution lies in the row space of G_Sᵀ, δ = z·G_Sᵀ, so z·(G_SᵀG_S) = e. Together:
//
//	Δ = E·M⁻¹·G_Sᵀ,   M = G_SᵀG_S = Σ_{J∈S} B_cJᵀ·B_cJ   (k×k, SPD when G_S has rank k),
//
// that is ΔP_iJ = Y·B_cJᵀ for every J ∈ S with Y = E·M⁻¹. Among all corrections of the
// surviving blocks that restore (P_f·B_c)_i = (P·B_c)_i this one has the least Frobenius
// norm, so P_f departs from P (hence from the energy-minimising smoothed P) as little
// as the constraint allows. Only the b×k residual E and one k×k solve per row are
// needed; no row ever forms X or G_S.
//
// # What is computed once
//
// M depends only on the surviving pattern S of the row and on B_c. In amg both are
// fixed across Updates: the aggregates, the tentative prolongator and with them the
// coarse near-null spaces are kept, and the drop decision is taken once. Symbolic
// therefore forms the Gram blocks B_cJᵀ·B_cJ once per coarse node, sums them into each
// corrected row's M, factors M = L·Lᵀ (Cholesky) and keeps the packed
// factor (k(k+1)/2 values, 21 for k = 6); Numeric only forms E from the dropped
// blocks' new values, solves with L for Y and adds Y·B_cJᵀ to each survivor.
//
// The projection is invariant under scaling the columns of B_c, and so is the plan:
// where a column of B_c lies beyond 2^±250, M would overflow or underflow, so
// Symbolic factors C·M·C instead, C the powers of two that bring each such column to
// unit scale, and stores the factor of M itself (C⁻¹ times that of C·M·C, exactly);
// Numeric needs no change. For columns in range C is the identity and nothing is
// scaled.
//
// A row whose surviving columns cannot support the projection is left whole: when a
// Cholesky pivot of M falls to Options.PivotTol times its diagonal entry (B_cJ of a
// two-node aggregate, for one, misses the rotation about the aggregate's axis, and the
// row's survivors may all be such blocks). Such rows are copied and counted in
// Stats.RowsUnfiltered.
//
// # Accuracy
//
// The normal equations square the condition of G_S, but the error that matters, in
// (P_f·B_c)_i, stays at the level of the round-off of P_f's own values: the tests
// measure it under ε·cond(G_S)·(Σ_J ‖P_iJ‖‖B_cJ‖ + Σ_J ‖P_f,iJ‖‖B_cJ‖) for coarse blocks
// with cond up to 10³, and on ex56 hierarchies (cond(G_S) of order 10) under 10⁻¹⁵·‖(P·B_c)_i‖.
//
// # Memory
//
// Besides P_f (pattern and values) a Plan keeps a 4-byte factor index per fine row and
// k(k+1)/2 float64 per corrected row (168 bytes for k = 6). An identity plan keeps
// nothing and shares P's pattern.
//
// # Symbolic and numeric
//
// Symbolic(P, B_c, θ, opt) decides the pattern from P's current values and returns a
// Plan (pattern of P_f, per-row factor index, factors). Plan.Numeric(P, B_c, P_f,
// workers) refills P_f from new values of P on the same pattern without re-deciding.
// The cost of Numeric per corrected row is |D| b×k·k×k products for E, b pairs of k×k
// triangular solves and |S| b×k·(k×k)ᵀ products; other rows are copied.
//
// # Determinism
//
// Every row is decided, factored and computed by one goroutine in a fixed order (blocks
// in column order), and rows are split into chunks by par.ForWeighted; the column
// rule tests each coarse column in one goroutine (columns split into chunks) and
// completes the flow serially, in column order: the plan and P_f are bitwise identical
// for any worker count.
//
// # On a device
//
// Dims, PPattern, PfPattern, RowFactors and Factors are read-only views of a Plan for
// another implementation of Numeric: backend/cuda's FilterPlan uploads the factor index
// and the factors once and re-projects on the device, one thread per scalar row of P
// (the b rows of Δ are independent), in Numeric's order of operations.
//
// # Use in amg
//
// After the smoothing of P and before the Galerkin product on each level l: Symbolic
// on Setup (with LevelTheta(θ, s, l) and B_c = Levels[l+1].B), Numeric on Update
// (after the re-smoothing); the Galerkin plan is built on P_f's pattern, the
// restriction is P_fᵀ, and the cycle prolongates with P_f. An identity plan (θ = 0, or
// nothing under θ) needs no P_f: keep P.
package filter
