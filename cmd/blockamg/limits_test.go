package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// runTimed runs the CLI with args and gives up after limit (the run may then still go
// on in its goroutine: the test fails either way).
func runTimed(t *testing.T, limit time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		c := run(args, &out, &errb)
		done <- result{c, out.String(), errb.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-time.After(limit):
		t.Fatalf("blockamg %v still running after %v: want it refused at once", args, limit)
		return 0, "", ""
	}
}

// TestSolveRefusesUnboundedWork checks that every flag that scales solve's work or
// memory is bounded: a value past its limit (or 10⁹) is refused at once with exit 2 and
// an error naming the flag, the value and the range. Before, --smoother-its 1000000000
// was accepted and the solve never finished.
func TestSolveRefusesUnboundedWork(t *testing.T) {
	for _, c := range []struct {
		flag  string
		limit int
	}{
		{"smoother-its", 100}, {"agg-nsmooths", 20}, {"esteig-its", 1000}, {"max-levels", 64},
		{"aggressive-levels", 64}, {"coarse-eq-limit", 8000}, {"maxit", 100000}, {"steps", 1000},
		{"threads", 4096},
	} {
		for _, v := range []int{c.limit + 1, 1_000_000_000} {
			code, _, stderr := runTimed(t, 10*time.Second, "solve", "--ne", "2", "--"+c.flag, fmt.Sprint(v))
			if code != exitBadInput {
				t.Errorf("--%s %d: exit %d, want %d", c.flag, v, code, exitBadInput)
			}
			for _, want := range []string{"--" + c.flag, fmt.Sprint(v), fmt.Sprint(c.limit)} {
				if !strings.Contains(stderr, want) {
					t.Errorf("--%s %d: stderr %q does not name %q", c.flag, v, stderr, want)
				}
			}
		}
	}
	// The limits themselves are accepted.
	for _, args := range [][]string{{"--agg-nsmooths", "20"}, {"--smoother-its", "100"}, {"--esteig-its", "1000"}, {"--max-levels", "64"}} {
		if code, _, stderr := runTimed(t, 60*time.Second, append([]string{"solve", "-q", "--ne", "2"}, args...)...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}
