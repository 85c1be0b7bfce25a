package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// failedSolve runs solve with args, which must fail with exit 2, and returns its JSON
// report (args include --json) and stderr.
func failedSolve(t *testing.T, args ...string) (solveReport, string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"solve"}, args...), &out, &errb); code != exitBadInput {
		t.Fatalf("solve %v: exit %d, want %d (stderr %q)", args, code, exitBadInput, errb.String())
	}
	var r solveReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("solve %v failed without one JSON object on stdout: %v\n%q", args, err, out.String())
	}
	return r, errb.String()
}

// isPNG fails the test unless path holds a PNG image.
func isPNG(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Errorf("--plot did not write a PNG on failure: %v", err)
	}
}

// TestSolveFailureReports checks that a solve that fails after it started still
// reports: --json prints one object with the error, the iterations, the residual
// history so far and the set-up figures, --plot draws that history, and the exit
// status stays 2. Before, both printed and wrote nothing.
func TestSolveFailureReports(t *testing.T) {
	dir := t.TempDir()

	// Not converged in 3 iterations.
	png := filepath.Join(dir, "maxit.png")
	r, stderr := failedSolve(t, "--json", "--ne", "6", "--maxit", "3", "--plot", png)
	if !strings.Contains(r.Error, "did not converge in 3 iterations") || !strings.Contains(stderr, r.Error) {
		t.Errorf("--maxit 3: error %q (stderr %q)", r.Error, stderr)
	}
	if r.Iterations != 3 || len(r.History) != 4 || r.History[0] <= 0 || r.RelativeResidual <= 0 {
		t.Errorf("--maxit 3: %d iterations, history %v, residual %g; want 3, 4 entries", r.Iterations, r.History, r.RelativeResidual)
	}
	if r.Unknowns != 3*7*7*7 || r.SetupSeconds <= 0 || len(r.Levels) < 2 || r.PeakRSSBytes <= 0 {
		t.Errorf("--maxit 3: set-up figures missing: %d unknowns, set-up %g s, %d levels, rss %d",
			r.Unknowns, r.SetupSeconds, len(r.Levels), r.PeakRSSBytes)
	}
	isPNG(t, png)

	// A recurring step's solve fails: the step is reported with its history.
	png = filepath.Join(dir, "step.png")
	r, _ = failedSolve(t, "--json", "--ne", "6", "--maxit", "8", "--rtol", "1e-14", "--steps", "2", "--plot", png)
	if r.Error == "" {
		t.Fatalf("step failure: no error field")
	}
	if len(r.Steps) == 0 {
		// The first solve already failed: fine, as long as it reported.
		if len(r.History) != 9 {
			t.Errorf("first solve failed with %d history entries, want 9", len(r.History))
		}
	} else if s := r.Steps[len(r.Steps)-1]; len(s.History) != 9 || s.Iterations != 8 || !strings.Contains(r.Error, "step") {
		t.Errorf("failed step %+v, error %q", s, r.Error)
	}
	isPNG(t, png)

	// A breakdown: rᵀz overflows for a right-hand side of 1e300s.
	a := filepath.Join(dir, "A.mtx")
	var sb strings.Builder
	n := 64
	fmt.Fprintf(&sb, "%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n", n, n, 2*n-1)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "%d %d 2\n", i, i)
		if i < n {
			fmt.Fprintf(&sb, "%d %d -1\n", i+1, i)
		}
	}
	os.WriteFile(a, []byte(sb.String()), 0o644)
	b := filepath.Join(dir, "b.mtx")
	sb.Reset()
	fmt.Fprintf(&sb, "%%%%MatrixMarket matrix array real general\n%d 1\n", n)
	for i := 0; i < n; i++ {
		sb.WriteString("1e300\n")
	}
	os.WriteFile(b, []byte(sb.String()), 0o644)
	png = filepath.Join(dir, "breakdown.png")
	r, stderr = failedSolve(t, "--json", "--matrix", a, "--rhs", b, "--plot", png)
	t.Logf("breakdown: %s; history %v; stderr %s", r.Error, r.History, stderr)
	if !strings.Contains(r.Error, "breakdown") || len(r.History) == 0 {
		t.Errorf("breakdown: error %q, history %v", r.Error, r.History)
	}
	isPNG(t, png)

	// A set-up failure reports the error and what was known.
	r, _ = failedSolve(t, "--json", "--ne", "4", "--cheb-esteig", "0,0,0,0")
	if !strings.Contains(r.Error, "Chebyshev") || r.Unknowns != 375 {
		t.Errorf("set-up failure: error %q, %d unknowns", r.Error, r.Unknowns)
	}
}

// TestReportNonFinite checks that a NaN or infinite residual (a breakdown's) is
// written as null instead of making the JSON report fail to encode.
func TestReportNonFinite(t *testing.T) {
	rep := solveReport{RelativeResidual: number(math.NaN()), History: numbers{1, math.Inf(1), 0.5, math.NaN()}}
	data, err := json.Marshal(&rep)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if !strings.Contains(s, `"relative_residual":null`) || !strings.Contains(s, `"history":[1,null,0.5,null]`) {
		t.Errorf("non-finite numbers: %s", s)
	}
	fine, _ := json.Marshal(struct {
		A float64
		H []float64
	}{1e-7, []float64{1e-9, 3, 1e21}})
	ours, _ := json.Marshal(struct {
		A number
		H numbers
	}{1e-7, numbers{1e-9, 3, 1e21}})
	if string(fine) != string(ours) {
		t.Errorf("finite numbers written differently: %s vs %s", ours, fine)
	}
}
