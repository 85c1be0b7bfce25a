//go:build !noasm

package galerkin

import "github.com/blockamg/blockamg/internal/bsrkern"

// The 3×3·3×6 register kernel in AVX2 with fused multiply-adds: about three times the
// throughput of the scalar Go loop. It is used when the processor and the operating
// system support AVX2 and FMA; building with -tags noasm leaves it out
// (kernels_other.go). Every variant goes through the same kernel, so variants and
// worker counts still agree bitwise; results differ from the pure Go kernels' in the
// last bits (fused rounding).

//go:noescape
func kern336AVX2(a *[9]float64, src *float64, srcStride int, cols, pos *int32, n int, out *float64, outStride int)

// useAsm selects the assembly kernel; tests switch it off to check the Go path.
var useAsm = bsrkern.HasAVX2FMA()

// kern336 adds a·src_q into out for every block q of src: a is 3×3 (row-major), src_q
// is the 3×6 slab src[q*srcStride+srcOff:][:18] and its product goes to
// out[s*outStride+outOff:][:18] where s = pos[cols[q]], or s = cols[q] when pos is nil.
//
// The slots come from the plan's own patterns and are in range by construction; the
// assembly kernel trusts them (the Go kernel checks them as Go does), and kern336
// checks only the source range.
func kern336(a *[9]float64, src []float64, srcStride, srcOff int, cols, pos []int32, out []float64, outStride, outOff int) {
	n := len(cols)
	if !useAsm || n == 0 {
		kern336Go(a, src, srcStride, srcOff, cols, pos, out, outStride, outOff)
		return
	}
	if (n-1)*srcStride+srcOff+18 > len(src) || srcOff < 0 || outOff < 0 || outOff+18 > len(out) {
		panic("galerkin: kern336: block out of range")
	}
	var pp *int32
	if pos != nil {
		pp = &pos[0]
	}
	kern336AVX2(a, &src[srcOff], srcStride, &cols[0], pp, n, &out[outOff], outStride)
}
