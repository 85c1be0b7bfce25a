//go:build !amd64 || noasm

package galerkin

// The pure Go kernel only: other architectures, or amd64 built with -tags noasm.

var useAsm = false

func kern336(a *[9]float64, src []float64, srcStride, srcOff int, cols, pos []int32, out []float64, outStride, outOff int) {
	kern336Go(a, src, srcStride, srcOff, cols, pos, out, outStride, outOff)
}
