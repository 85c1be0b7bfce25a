package cuda

import (
	"fmt"
	"sort"

	"github.com/blockamg/blockamg/internal/cudadrv"
)

// Time queues an event, runs f (which queues device work on this backend), queues a
// second event and returns the device time between them in milliseconds. Host-side
// overheads between launches count only where they leave the device idle.
func (b *Backend) Time(f func()) (float64, error) {
	b.enqueue(func() error { return cudadrv.EventRecord(b.evStart, b.stream) })
	f()
	b.enqueue(func() error { return cudadrv.EventRecord(b.evEnd, b.stream) })
	var ms float32
	err := b.do(func() error {
		if err := cudadrv.EventSynchronize(b.evEnd); err != nil {
			return err
		}
		var err error
		ms, err = cudadrv.EventElapsed(b.evStart, b.evEnd)
		return err
	})
	return float64(ms), err
}

// TimeMedian runs f warm times untimed, then reps times each between events, and
// returns the median time in milliseconds.
func (b *Backend) TimeMedian(warm, reps int, f func()) (float64, error) {
	for i := 0; i < warm; i++ {
		f()
	}
	if err := b.Err(); err != nil {
		return 0, err
	}
	ts := make([]float64, 0, reps)
	for i := 0; i < reps; i++ {
		ms, err := b.Time(f)
		if err != nil {
			return 0, err
		}
		ts = append(ts, ms)
	}
	sort.Float64s(ts)
	return ts[len(ts)/2], nil
}

// Bandwidth is a measured device-memory bandwidth.
type Bandwidth struct {
	Bytes     int64   // size of the source buffer
	MemcpyGBs float64 // cuMemcpyDtoD, (read + write bytes) / median time, in GB/s (1e9)
	KernelGBs float64 // copy_kernel, likewise
}

// CopyBandwidth measures device-to-device copy bandwidth on two buffers of bytes
// bytes, counting bytes read plus bytes written over the median of reps timed copies
// (after two warm-up copies): with cuMemcpyDtoD and with a plain copy kernel.
func (b *Backend) CopyBandwidth(bytes int64, reps int) (Bandwidth, error) {
	n := int(bytes / 8)
	bw := Bandwidth{Bytes: int64(n) * 8}
	src, err := Alloc[float64](b, n)
	if err != nil {
		return bw, err
	}
	defer src.Free()
	dst, err := Alloc[float64](b, n)
	if err != nil {
		return bw, err
	}
	defer dst.Free()
	sp, dp := src.Ptr(), dst.Ptr()
	ms, err := b.TimeMedian(2, reps, func() {
		b.enqueue(func() error { return cudadrv.MemcpyDtoD(dp, sp, uint64(bw.Bytes)) })
	})
	if err != nil {
		return bw, fmt.Errorf("cuda: timing cuMemcpyDtoD: %w", err)
	}
	bw.MemcpyGBs = 2 * float64(bw.Bytes) / (ms * 1e6)
	ms, err = b.TimeMedian(2, reps, func() {
		b.enqueue(func() error { return b.launchCopy(int64(n), sp, dp) })
	})
	if err != nil {
		return bw, fmt.Errorf("cuda: timing copy_kernel: %w", err)
	}
	bw.KernelGBs = 2 * float64(bw.Bytes) / (ms * 1e6)
	return bw, nil
}
