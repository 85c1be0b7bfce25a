package backend

import (
	"fmt"
	"io"
	"sync"
)

// Traffic is the host↔device traffic of one phase.
type Traffic struct {
	H2DBytes, D2HBytes int64 // bytes copied host to device and device to host
	H2DCalls, D2HCalls int64 // number of copies
}

// Counters counts host↔device copies per named phase. It is safe for concurrent use.
// The zero value is ready to use.
type Counters struct {
	mu     sync.Mutex
	phases map[string]*Traffic
	order  []string // phases in order of first use, for reports
}

func (c *Counters) get(phase string) *Traffic {
	if c.phases == nil {
		c.phases = map[string]*Traffic{}
	}
	t, ok := c.phases[phase]
	if !ok {
		t = &Traffic{}
		c.phases[phase] = t
		c.order = append(c.order, phase)
	}
	return t
}

// AddH2D counts one host-to-device copy of n bytes under phase.
func (c *Counters) AddH2D(phase string, n int64) {
	c.mu.Lock()
	t := c.get(phase)
	t.H2DBytes += n
	t.H2DCalls++
	c.mu.Unlock()
}

// AddD2H counts one device-to-host copy of n bytes under phase.
func (c *Counters) AddD2H(phase string, n int64) {
	c.mu.Lock()
	t := c.get(phase)
	t.D2HBytes += n
	t.D2HCalls++
	c.mu.Unlock()
}

// Phase returns the traffic counted under phase so far.
func (c *Counters) Phase(phase string) Traffic {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.phases[phase]; ok {
		return *t
	}
	return Traffic{}
}

// Phases returns the phase names in order of first use.
func (c *Counters) Phases() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.order...)
}

// Total returns the traffic summed over all phases.
func (c *Counters) Total() Traffic {
	c.mu.Lock()
	defer c.mu.Unlock()
	var s Traffic
	for _, t := range c.phases {
		s.H2DBytes += t.H2DBytes
		s.D2HBytes += t.D2HBytes
		s.H2DCalls += t.H2DCalls
		s.D2HCalls += t.D2HCalls
	}
	return s
}

// Reset forgets all counts.
func (c *Counters) Reset() {
	c.mu.Lock()
	c.phases, c.order = nil, nil
	c.mu.Unlock()
}

// Write prints one line per phase: name, bytes and copies each way.
func (c *Counters) Write(w io.Writer) error {
	for _, p := range c.Phases() {
		t := c.Phase(p)
		if _, err := fmt.Fprintf(w, "%-16s H2D %14d B in %6d copies   D2H %14d B in %6d copies\n",
			p, t.H2DBytes, t.H2DCalls, t.D2HBytes, t.D2HCalls); err != nil {
			return err
		}
	}
	return nil
}
