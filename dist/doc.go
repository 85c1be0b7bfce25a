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
// into the columns the rank owns (the local part, numbered from its first row) and the
// others (the ghost part). Ghost columns are numbered in ascending global order, so
// each owner's ghosts are one contiguous range of the ghost vector, received in place
// with no unpacking. Both parts are plain bsr.Matrix values on flat arrays with int64
// value offsets, and multiply with bsr's kernels.
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
// # Not done yet
//
// The distributed SA set-up (aggregation within each rank, P with ghost rows, PᵀAP
// with remote rows gathered once per pattern), gathering coarse levels onto fewer
// ranks and the coarsest onto one, the recurring step's reuse of those plans, slab and
// graph partitioning of meshes, NCCL between GPUs, and `solve --json`'s ranks and
// counters.
package dist
