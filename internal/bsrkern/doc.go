// Package bsrkern holds the hand-written SIMD kernels of the block-row products that
// dominate a solve: A·x over a range of block rows of a BSR matrix with 3×3 or 6×6
// blocks (elasticity's fine and coarse levels; float64 values or a smoother's float32
// copy) or 3×6 blocks (the fine prolongator), in AVX2 with fused multiply-adds on
// amd64; the product with the blocks on and above the diagonal of a symmetric matrix
// (SymRows); the prolongator's restriction Pᵀ·x (TransRows36, the scalar loop's own
// operations and bits); and whether the processor runs them.
//
// A scalar Go loop over a 3×3 block row issues about 35 instructions a block and
// runs at about 18 GB/s on one core, under half of what the memory delivers; the
// vector kernels issue a third of that. Callers keep a pure Go path for other
// processors and for builds with the noasm tag (as gonum does), and pick one with
// Enabled: results are bitwise identical for any worker count and any split into
// row ranges within either path, but the two paths round differently in the last
// bits (fused multiply-adds, and the vector lanes sum a row's terms in another order).
package bsrkern
