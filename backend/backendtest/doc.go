// Package backendtest is the conformance suite of backend.Backend implementations, in
// the style of gonum's testblas: each implementation's tests call the functions here
// (backendtest.TestSpMV(t, impl), or TestAll for everything) with its own backend.
//
// Every check compares against an independent reference computed here in plain
// float64 loops over dense copies (bsr.Matrix.ToDense), on seeded random inputs that
// include odd sizes, empty block rows and zero-length vectors. Outputs are poisoned
// with NaN before a beta == 0 product, inputs are checked to be unchanged, and each
// operation is repeated to check that the results are bitwise identical. Agreement is
// required to 1e-12 relative to the reference's norm.
package backendtest
