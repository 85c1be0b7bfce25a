package cuda

import (
	"time"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/internal/cudadrv"
)

var _ backend.Marker = (*Backend)(nil)

// Mark implements backend.Marker with a CUDA event recorded on the backend's stream;
// the events are created on first use and kept for later marks.
func (b *Backend) Mark() int {
	k := b.nmarks
	b.nmarks++
	b.enqueue(func() error {
		for len(b.marks) <= k {
			e, err := cudadrv.EventCreate(0)
			if err != nil {
				return err
			}
			b.marks = append(b.marks, e)
		}
		return cudadrv.EventRecord(b.marks[k], b.stream)
	})
	return k
}

// MarkTimes implements backend.Marker: it waits for the last mark and reads the
// elapsed time from the first to each.
func (b *Backend) MarkTimes() ([]time.Duration, error) {
	n := b.nmarks
	b.nmarks = 0
	out := make([]time.Duration, n)
	if n == 0 {
		return out, b.Err()
	}
	err := b.do(func() error {
		if err := cudadrv.EventSynchronize(b.marks[n-1]); err != nil {
			return err
		}
		for i := 1; i < n; i++ {
			ms, err := cudadrv.EventElapsed(b.marks[0], b.marks[i])
			if err != nil {
				return err
			}
			out[i] = time.Duration(float64(ms) * float64(time.Millisecond))
		}
		return nil
	})
	return out, err
}
