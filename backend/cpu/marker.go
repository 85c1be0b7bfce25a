package cpu

import (
	"time"

	"github.com/blockamg/blockamg/backend"
)

var _ backend.Marker = (*Backend)(nil)

// Mark implements backend.Marker: the CPU backend runs each operation when called,
// so a mark is the wall clock.
func (b *Backend) Mark() int {
	b.marks = append(b.marks, time.Now())
	return len(b.marks) - 1
}

// MarkTimes implements backend.Marker.
func (b *Backend) MarkTimes() ([]time.Duration, error) {
	out := make([]time.Duration, len(b.marks))
	for i, t := range b.marks {
		out[i] = t.Sub(b.marks[0])
	}
	b.marks = b.marks[:0]
	return out, nil
}
