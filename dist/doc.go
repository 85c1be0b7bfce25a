// Package dist holds blockamg's row-distributed operators over MPI (package mpi): the
// first layer under a distributed smoothed-aggregation solver.
//
// # Layout
//
// A Layout splits the global block rows into contiguous ranges, rank r owning
// [Offsets[r], Offsets[r+1]); a vector is distributed by the same ranges, so a rank
// holds the x and y blocks of its rows. Ranges may be empty. EvenLayout balances row
// counts; NewLayout takes the offsets of any other partition (slabs of a box mesh, a
// graph partition renumbered so that each part is contiguous).
//
// # Matrix
//
// NewMatrix takes a rank's block rows with global column indices and splits each row
// into the columns the rank owns (the local part, numbered from its first column) and
// the others (the ghost part). Ghost columns are numbered in ascending global order, so
// each owner's ghosts are one contiguous range of the ghost vector, received in place
// with no unpacking. Both parts are plain bsr.Matrix values on flat arrays with int64
// value offsets, and multiply with bsr's kernels.
//
// NewRectMatrix is the general case, a matrix whose columns have a layout of their
// own: a prolongator's rows lie on the fine level's layout and its columns on the
// coarse level's, so the halo fetches coarse x blocks by the coarse layout.
//
// # Halo plan
//
// The plan is agreed once, with the pattern: every rank tells each owner how many of
// its blocks it needs (an all-to-all of counts) and then which (one message per owner);
// the owner checks them against its range and keeps them as local row lists. Each
// MulVec then posts one receive per owner it needs and one send per rank that needs it,
// multiplies the local part while they travel, waits, and adds the ghost part. Values
// may change on the same pattern without a new plan. Matrix.Halo reports each
// exchange's messages and bytes, which the mpi package's counters measure.
//
// # Determinism
//
// For a fixed rank count and layout, every result is bitwise the same run to run: each
// y block is the local part's sum and then the ghost part's, each in column order;
// messages land in fixed slots whatever their arrival order; Dot gathers one partial
// sum per rank and adds them in rank order on every rank, rather than trusting MPI's
// reduction order, so all ranks take the same CG branches. Results differ in the last
// bits from the serial SpMV and between rank counts, because the sums are grouped
// differently.
//
// # Hierarchy
//
// NewHierarchy distributes an amg.Hierarchy that every rank holds whole, by slicing:
// level l's operator on its layout (the caller's for the fine level, even splits of
// the coarse block rows by default), its prolongator P (fine rows, coarse columns) and
// the restriction Pᵀ as a matrix of its own (coarse rows, fine columns), built from
// the global transpose so that restricting is one product with its own halo and no
// partial sums travel back. The smoother's block-diagonal inverses and Chebyshev
// intervals are the serial hierarchy's. This is the interim set-up: every rank runs
// amg.Setup on the same global matrix, paying the whole serial set-up.
//
// Its V-cycle (Apply, VCycle) is amg/cycle's: Chebyshev of degree SmootherIts on
// D⁻¹A, pre-smoothing from zero, residual, restriction, coarse correction,
// prolongation, post-smoothing, in the same order, so that on one rank it gives the
// serial cycle's result up to round-off. The coarsest level is solved redundantly:
// its right-hand side is gathered on every rank by one Allgather (each rank's share
// padded to the largest) and every rank solves it with the whole Cholesky factor and
// keeps its rows, which saves the broadcast a solve on one rank would need. CG takes
// the Hierarchy as its preconditioner, and CycleTraffic gives one cycle's messages
// and bytes from the plans, which a phase's counters can be checked against.
//
// # Recurring step
//
// New values on the same pattern reuse every plan: Matrix.SetValues overwrites a
// matrix's local and ghost values in place, checking the pattern against the one it
// was built with (amg.ErrPattern otherwise), and Hierarchy.Refresh does it for every
// level's operator, prolongator and restriction after amg.Hierarchy.Update on every
// rank, taking the new block-diagonal inverses, Chebyshev intervals and coarse
// factor. Nothing travels: the step's communication is its solve's. A refreshed
// hierarchy is bitwise the one NewHierarchy would make from the updated serial one.
//
// # Launch check
//
// Ranks that hold different matrices would agree halo plans that do not fit
// together, which can hang or give a wrong answer, so a launch first compares what
// its ranks hold: Digest hashes numbers, strings and matrices the same way on every
// machine, and Agree gathers one sum per rank and fails every rank alike, with
// ErrMismatch naming the ranks that differ from rank 0. A rank that dies ends the
// launch through OpenMPI (mpiexec kills the others); one that stalls, or never starts
// MPI, through package mpi's watchdog (SetWatchdog).
//
// # Scaling model
//
// Model predicts the weak scaling of the recurring step from a measured run:
// LevelShapes gives each level's rows, halos and stored blocks per row from the plans,
// and the caller measures one CG iteration's computation and the Update (`mpiexec -n 2
// blockamg-bench scaling`). WeakScaling gives every rank a cube of the measured load,
// scales the measured one-face halos to a cube's faces, edges and corners, and costs
// the exchanges and collectives on a Network (latency, per-message overhead,
// bandwidth), with iterations growing as fitted (IterationFit) and one level added per
// coarsening ratio.
//
// # Distributed set-up: coarsening
//
// Coarsen is the first step of the set-up that is to replace the replicated one: on
// each rank, amg's Strength on the local part of the operator (the couplings between
// the rank's own rows), amg's Aggregate on that graph and amg's Tentative on the
// rank's rows of the near-null space, so that no aggregate crosses a rank (PETSc
// GAMG's and AMGX's choice); one Allgather of the aggregate counts gives the coarse
// layout, each rank owning its aggregates. The tentative prolongator has no ghost
// column. On one rank it is the serial set-up's level bit for bit; on more, the
// serial functions on the serial strength graph without its edges between ranks.
// The smoother's set-up is distributed too: InvertDiag inverts this rank's diagonal
// blocks as amg does (the same bits), and EstimateEigenvalues runs amg's CG–Lanczos
// estimate of λ(D⁻¹A) on the distributed operator, from the same start vector.
// SmoothProlongator smooths the tentative prolongator, P = (I − ω·D⁻¹A)·P_tent, with
// the rows of P_tent that the operator's ghost columns name fetched from their owners
// over the operator's own halo plan (GhostRows: row lengths, then columns and
// values). Galerkin forms Ac = Pᵀ·A·P: W = A·P on each rank's rows with P's fetched
// rows, then Pᵀ·W's partial rows sent to the owners of their coarse rows, which add
// them in rank order; Transpose gathers the restriction's rows the same way. Setup
// chains them level by level into a Hierarchy, with amg.Setup's stopping rules, and
// gathers the coarsest operator on every rank to factor it: no rank holds more than
// its rows of any other level. On one rank it is the serial hierarchy to round-off;
// on more, the aggregates stop at rank boundaries and CG needs about the serial
// iterations (ex56: 9 to 12 on 2 and 3 ranks where the serial solve needs 11).
//
// # Partitioning
//
// A Partition assigns each fine block row (node) to a rank and renumbers the rows so
// that each rank's part is one contiguous range, its Layout: CoordPartition by
// recursive coordinate bisection (each part split at its ranks' share across the
// longest extent of its bounding box) or along a Hilbert curve cut into even pieces;
// GraphPartition, for a matrix without coordinates, by recursive bisection of
// breadth-first level sets from a pseudo-peripheral row; EvenPartition keeps the
// input's order. Every part gets EvenLayout's share (balance within one row), and ties
// are broken by row number, so every rank computes the same partition. The caller
// renumbers the system (SliceSym for the operator, Permute for vectors and the
// near-null space) and brings the solution back (Restore); NewPartitionedHierarchy
// does it for a replicated hierarchy's fine level (operator, P's rows, the
// restriction's columns, D⁻¹), so the cycle is the serial one renumbered. Quality
// gives each part's halo, neighbours and cut blocks.
//
// # Gathering coarse levels
//
// A coarse level too small to keep every rank busy lives on a subset of ranks: its
// layout gives the others empty ranges (GatheredLayout: at least a threshold of rows
// per active rank), so they idle on it; the restriction onto it sends their residual
// rows to the subset over its own halo plan, and the prolongation brings the
// correction back. A coarsest level on one rank is solved there, without the
// Allgather. NewHierarchy takes gathered layouts directly; Hierarchy.Gather is the
// post-pass for Setup's hierarchy (its rows move to their new owners and the plans
// touching the level are agreed again). The operators do not change, so the cycle
// gives the same result to round-off; LevelTraffic shows the messages per level.
//
// # Distributed set-up: the recurring step
//
// Each of Setup's products is a symbolic phase, which agrees its pattern with the
// other ranks, and a numeric phase, which sends values only over what was agreed
// (plan.go): GhostRows agrees row lengths and columns once and keeps, per
// neighbour, where the blocks it sends lie; the products accumulate each row in an
// array indexed by a dense numbering of the columns they read, on patterns formed
// once; the assembly of partial rows (of Pᵀ and of PᵀAP) agrees counts and block
// positions once and keeps where every received block lands and which one of its
// contributions comes first, so the sum is taken in rank order; the coarsest
// operator's gather keeps the pattern. Setup keeps all of them, and
// Hierarchy.Update, given new fine values on the same pattern, runs the numeric
// phases alone, level by level: block-diagonal inverses, the λ estimate and
// Chebyshev interval, P's values (P_tent and its ghost rows are kept, depending on
// the near-null space only), the restriction's, the next operator's, then the
// coarsest gathered (one Allgather of values) and factored. What travels is P's
// ghost rows' values, one message per pair of ranks that share coarse rows for each
// of Pᵀ and PᵀAP, the coarsest values and the λ estimates' products and dots;
// UpdateTraffic gives all but the last from the plans. The aggregates are kept, as
// amg.Hierarchy.Update keeps them, and the arithmetic is Setup's, so an updated
// hierarchy is bitwise a fresh Setup on the new values whenever those aggregate
// alike (the soft sphere's modulus of ex56 changed, on 1–3 ranks). A hierarchy that
// NewHierarchy made has no plans: Update refuses it (ErrNoPlan), Refresh takes its
// new values; Gather, which moves levels to other ranks, drops the plans, so a
// gathered hierarchy is refused too (the command line does not gather with --steps).
//
// # Not done yet
//
// AggNSmooths other than 1 and filtering in the distributed set-up; a re-setup of a
// gathered hierarchy (Gather drops Setup's plans); coarse levels of the replicated
// hierarchy laid out by the fine partition (they are split evenly in the serial
// aggregates' order); aggregation of a gathered level on its subset during Setup
// (Gather moves levels after they are built, so their aggregates still stop at the
// old ranks' boundaries); a multilevel graph partitioner (the level-set bisection
// sometimes cuts more than a matrix file's own order, which the command line then
// keeps); each rank reading only its rows (every rank loads the whole problem);
// smoothers other than Chebyshev and float32 smoothing in the distributed cycle;
// NCCL between GPUs.
//
// # Command line
//
// `mpiexec -n N blockamg solve` (N > 1) runs this package's CG and V-cycle on the
// interim set-up: every rank loads the whole problem, sets the serial hierarchy up
// and slices it with NewPartitionedHierarchy, the fine level by --partition (auto:
// an even split of block rows for ex56, whose z-major numbering makes its ranks hold
// slabs along z; otherwise whichever of the even split, RCB on the coordinates and
// the graph's bisection cuts the fewest blocks), the coarse levels gathered below
// --gather-rows rows per rank (64). Rank 0 reports
// the iterations, the true residual ‖b − A·x‖/‖b‖ computed distributed, and every
// rank's counters per phase (set-up, solve, residual; with --steps also re-setup and
// step solve, summed and per step). Its inputs are the serial solve's: ex56, a matrix
// file with its near-null space or coordinates and right-hand side, or a Gmsh mesh.
// --steps runs the serial step's new values and Update on every rank, then Refresh
// and a distributed solve. Before anything else the ranks Agree on the program (the
// executable's bytes, the Go release, the MPI library), the options and, once loaded,
// the inputs; every MPI call is bounded by --mpi-timeout (5 minutes by default).
// --dist-setup replaces the replicated set-up by Setup on each rank's rows of the
// renumbered problem, then Gather; with --steps each step's new values go to
// Hierarchy.Update on each rank's rows (without the Gather), which replaces the serial
// Update and the Refresh.
package dist
