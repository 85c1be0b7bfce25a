//go:build !linux

package bsrkern

import "testing"

// guardedFloat32 returns n float32 values; without mmap and mprotect here there is no
// guard page after them, so an overrun goes unnoticed rather than faulting.
func guardedFloat32(t *testing.T, n int) ([]float32, func()) {
	return make([]float32, n), func() {}
}
