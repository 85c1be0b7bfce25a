package cuda

import (
	"fmt"
	"unsafe"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/internal/cudadrv"
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

// StartUpload queues the copy of src into dst on a copy stream of its own, after the
// work already queued (which may still use dst), so that it runs while the device
// works on what is queued after it, and returns wait, which
// makes the work queued after it wait for the copy (without blocking the host): call
// wait before queueing anything that reads dst, and leave src unchanged until the
// backend has waited for the device after wait (a result, a download, Err). src
// must be a slice from HostAlloc (page-locked memory, which the copy engine reads by
// DMA); any other slice is uploaded at once, and wait does nothing. The bytes are
// counted under the current phase.
func (b *Backend) StartUpload(dst backend.Vector, src []float64) (wait func()) {
	d := b.vec(dst)
	if len(src) != d.Len() {
		panic("cuda: StartUpload: length mismatch")
	}
	if len(src) == 0 || !b.pinned[&src[0]] || b.sticky() != nil {
		b.Upload(dst, src)
		return func() {}
	}
	dp, sp, bytes := d.buf.Ptr(), unsafe.Pointer(&src[0]), uint64(len(src))*8
	b.enqueue(func() error {
		if b.copyStream == 0 {
			var err error
			if b.copyStream, err = cudadrv.StreamCreate(cudadrv.StreamNonBlocking); err != nil {
				return err
			}
			if b.copyDone, err = cudadrv.EventCreate(0); err != nil {
				return err
			}
			if b.copyReady, err = cudadrv.EventCreate(0); err != nil {
				return err
			}
		}
		if err := cudadrv.EventRecord(b.copyReady, b.stream); err != nil {
			return err
		}
		if err := cudadrv.StreamWaitEvent(b.copyStream, b.copyReady); err != nil {
			return err
		}
		if err := cudadrv.MemcpyHtoDAsync(dp, sp, bytes, b.copyStream); err != nil {
			return err
		}
		return cudadrv.EventRecord(b.copyDone, b.copyStream)
	})
	b.counters.AddH2D(b.phase, int64(bytes))
	return func() {
		b.enqueue(func() error { return cudadrv.StreamWaitEvent(b.stream, b.copyDone) })
	}
}
