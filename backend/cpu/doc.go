// Package cpu is the pure-Go implementation of backend.Backend: vectors are []float64,
// products call the bsr kernels (bsr.Matrix.MulVec and MulTransVec), and loops run on
// par's fixed chunks, so every result is bitwise identical for any worker count.
// There is no device, so its transfer counters stay at zero.
package cpu
