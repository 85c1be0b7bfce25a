package amg

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// setInt sets the integer option name of o.
func setInt(o *Options, name string, v int) {
	switch name {
	case "AggNSmooths":
		o.AggNSmooths = v
	case "AggressiveLevels":
		o.AggressiveLevels = v
	case "CoarseEqLimit":
		o.CoarseEqLimit = v
	case "MaxLevels":
		o.MaxLevels = v
	case "EstEigKSPMaxIt":
		o.EstEigKSPMaxIt = v
	case "SmootherIts":
		o.SmootherIts = v
	case "Workers":
		o.Workers = v
	default:
		panic(name)
	}
}

// TestValidateBoundsWork checks that every option that scales the work or the memory
// of a set-up or a V-cycle has an upper limit: the limit itself is accepted, anything
// beyond is refused, with an error naming the option, the value and the range. Before,
// SmootherIts = 10⁹ was accepted and the first V-cycle never ended.
func TestValidateBoundsWork(t *testing.T) {
	names := map[string]bool{}
	for _, r := range IntRanges {
		names[r.Name] = true
		o := DefaultOptions()
		setInt(&o, r.Name, r.Max)
		if err := o.Validate(); err != nil {
			t.Errorf("%s = %d (its limit): %v", r.Name, r.Max, err)
		}
		for _, v := range []int{r.Max + 1, 1_000_000_000} {
			o := DefaultOptions()
			setInt(&o, r.Name, v)
			err := o.Validate()
			if !errors.Is(err, ErrOptions) {
				t.Errorf("%s = %d: Validate returned %v, want ErrOptions", r.Name, v, err)
				continue
			}
			msg := err.Error()
			for _, want := range []string{r.Name, fmt.Sprint(v), fmt.Sprint(r.Max)} {
				if !strings.Contains(msg, want) {
					t.Errorf("%s = %d: error %q does not name %q", r.Name, v, msg, want)
				}
			}
		}
		if r.Min > -1<<62 {
			o := DefaultOptions()
			setInt(&o, r.Name, r.Min-1)
			if err := o.Validate(); !errors.Is(err, ErrOptions) {
				t.Errorf("%s = %d: Validate returned %v, want ErrOptions", r.Name, r.Min-1, err)
			}
		}
	}
	for _, n := range []string{"AggNSmooths", "MaxLevels", "EstEigKSPMaxIt", "SmootherIts", "CoarseEqLimit", "Workers"} {
		if !names[n] {
			t.Errorf("%s has no range", n)
		}
	}
	// Setup refuses at once instead of running.
	A, _, ns := ex56(t, 2)
	o := DefaultOptions()
	o.SmootherIts = 1_000_000_000
	start := time.Now()
	if _, err := Setup(A, ns, o); !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "[1, 100]") {
		t.Errorf("SmootherIts 1e9: Setup returned %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("refusing took %v", d)
	}
}
