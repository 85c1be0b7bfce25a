package bsrkern

import (
	"syscall"
	"testing"
	"unsafe"
)

// guardedFloat32 returns n float32 values ending exactly where an inaccessible page
// begins, so that a kernel reading even one byte past them faults, and a function that
// unmaps them.
func guardedFloat32(t *testing.T, n int) ([]float32, func()) {
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	end := mem[page-4*n : page]
	val := unsafe.Slice((*float32)(unsafe.Pointer(&end[0])), n)
	return val, func() { syscall.Munmap(mem) }
}
