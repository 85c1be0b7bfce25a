package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n2 2 2.0\n")
	// Same matrix with an explicit zero added: equal.
	b := write("b.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1.0\n2 2 2.0\n1 2 0\n")
	// Off by 1e-3 relative: differs at the default tolerance.
	c := write("c.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n2 2 2.002236\n")
	for _, tc := range []struct {
		x, y string
		code int
	}{{a, b, 0}, {a, c, exitBadInput}, {a, filepath.Join(dir, "missing.mtx"), exitBadInput}} {
		var out, errb bytes.Buffer
		if code := run([]string{"diff", tc.x, tc.y}, &out, &errb); code != tc.code {
			t.Errorf("diff %s %s: exit %d, want %d (%s%s)", tc.x, tc.y, code, tc.code, out.String(), errb.String())
		}
	}
	var out, errb bytes.Buffer
	run([]string{"diff", a, c}, &out, &errb)
	// ‖a−c‖ = 0.002236, max norm √(1+2.002236²) ≈ 2.2381 → 9.99e-04.
	if !strings.Contains(out.String(), "9.99") {
		t.Errorf("diff a c printed %q, want a relative difference of 9.99e-04", out.String())
	}
}
