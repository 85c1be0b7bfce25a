// Package backend defines the small set of vector and sparse-matrix primitives that the
// solver phase of blockamg runs on, so that one solver code drives the CPU and the GPU.
//
// The shape follows AMGCL's backends: a Backend allocates opaque Vectors, uploads
// bsr.Matrix operators and block-diagonal preconditioners once, and then offers SpMV,
// the transposed SpMV, axpby-style updates and reductions over them. Implementations
// live beside this package: backend/cpu (pure Go over the bsr kernels) and
// backend/cuda (NVIDIA GPUs through the driver API, no cgo). One conformance suite,
// backend/backendtest, drives both.
//
// # Semantics
//
// Every operation follows the BLAS conventions: y = alpha·op + beta·y, where beta == 0
// overwrites y without reading it (NaN in y does not propagate). Outputs must not
// alias inputs unless a method says so.
//
// # Errors and panics
//
// Mismatched lengths, handles from another backend and use after Free are programmer
// errors and panic. Failures that a device can produce (a launch error, a lost
// device) are sticky, as with bufio.Writer: the first one is kept, later operations do
// nothing, reductions return NaN, and Err reports it. Allocation and upload of
// operators return their errors directly.
//
// # Determinism
//
// Implementations must give bitwise identical results when an operation is repeated
// on the same inputs: reductions use a fixed tree, and no result depends on thread
// timing or run-dependent atomics.
//
// # Residency
//
// Counters records the bytes a backend moved between host and device per named phase
// (SetPhase), so that callers can prove a solve stayed on the device.
package backend
