package cuda

import (
	"fmt"
	"unsafe"

	"blockamg/internal/cudadrv"
)

// HostAlloc returns n float64 values of page-locked host memory, zeroed. Upload and
// Download to and from such a slice run by DMA at the link's speed, without the
// driver's staging copies through pageable memory (on the H200's host: ~7.6 GB/s for
// pageable vectors). The slice is outside Go's heap: release it with HostFree, and do
// not use it after the backend is closed.
func (b *Backend) HostAlloc(n int) ([]float64, error) {
	if n < 0 {
		panic("cuda: HostAlloc: negative length")
	}
	if n == 0 {
		return []float64{}, nil
	}
	var p unsafe.Pointer
	err := b.call(func() error {
		var err error
		p, err = cudadrv.MemAllocHost(uint64(n) * 8)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cuda: page-locked host memory for %d values: %w", n, err)
	}
	s := unsafe.Slice((*float64)(p), n)
	clear(s)
	if b.pinned == nil {
		b.pinned = map[*float64]bool{}
	}
	b.pinned[&s[0]] = true
	return s, nil
}

// HostFree releases a slice from HostAlloc; other slices are left alone.
func (b *Backend) HostFree(s []float64) {
	if len(s) == 0 || !b.pinned[&s[0]] {
		return
	}
	delete(b.pinned, &s[0])
	p := unsafe.Pointer(&s[0])
	b.call(func() error { return cudadrv.MemFreeHost(p) })
}
