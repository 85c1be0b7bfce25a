package mpi

import "time"

// Traffic is what one rank did under one phase.
type Traffic struct {
	BytesSent int64 // payload bytes of posted sends
	BytesRecv int64 // payload bytes of posted receives (their buffer sizes)
	Sends     int64 // point-to-point messages posted for sending
	Recvs     int64 // point-to-point messages posted for receiving

	Collectives     int64 // barriers, reductions, gathers and all-to-alls
	CollectiveBytes int64 // this rank's contribution to them

	Time time.Duration // wall time the caller spent in MPI calls
}

// Add returns t with o's counts and time added.
func (t Traffic) Add(o Traffic) Traffic {
	t.BytesSent += o.BytesSent
	t.BytesRecv += o.BytesRecv
	t.Sends += o.Sends
	t.Recvs += o.Recvs
	t.Collectives += o.Collectives
	t.CollectiveBytes += o.CollectiveBytes
	t.Time += o.Time
	return t
}

// PhaseTraffic is one phase's name and counts.
type PhaseTraffic struct {
	Phase string
	Traffic
}

// SetPhase names the phase that later calls are counted under and returns the
// previous name. The initial phase is "".
func (c *Comm) SetPhase(name string) (previous string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	previous, c.phase = c.phase, name
	return previous
}

// Phase returns the name calls are counted under now.
func (c *Comm) Phase() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.phase
}

// Traffic returns this rank's counts under phase.
func (c *Comm) Traffic(phase string) Traffic {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.counters[phase]; t != nil {
		return *t
	}
	return Traffic{}
}

// Counters returns this rank's counts for every phase used so far, in order of first
// use.
func (c *Comm) Counters() []PhaseTraffic {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]PhaseTraffic, len(c.order))
	for i, p := range c.order {
		out[i] = PhaseTraffic{Phase: p, Traffic: *c.counters[p]}
	}
	return out
}

// ResetCounters clears every phase's counts.
func (c *Comm) ResetCounters() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counters = map[string]*Traffic{}
	c.order = nil
}

// count applies f to the current phase's counters.
func (c *Comm) count(f func(*Traffic)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.counters[c.phase]
	if t == nil {
		t = new(Traffic)
		c.counters[c.phase] = t
		c.order = append(c.order, c.phase)
	}
	f(t)
}
