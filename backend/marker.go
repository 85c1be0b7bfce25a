package backend

import "time"

// Marker is implemented by backends that time queued work without waiting for it, so
// that a multi-phase computation can report each phase's time without draining the
// device between phases (each drain costs the time to refill it).
type Marker interface {
	// Mark queues a time stamp behind the work queued so far and returns its index,
	// counted from the first Mark after the last MarkTimes.
	Mark() int
	// MarkTimes waits for the queued work and returns the times of the marks since
	// the last MarkTimes, each from the first of them; then it forgets them.
	MarkTimes() ([]time.Duration, error)
}
