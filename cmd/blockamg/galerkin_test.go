package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"blockamg/galerkin/galerkintest"
	"blockamg/matio"
)

// TestGalerkinCommand runs the benchmark on small problems from each source and checks
// the table has a row per variant, the planner line, and every level.
func TestGalerkinCommand(t *testing.T) {
	dir := t.TempDir()
	pr, err := galerkintest.Grid(5, 4, 4, 27, 1)
	if err != nil {
		t.Fatal(err)
	}
	A, P := filepath.Join(dir, "A.mtx"), filepath.Join(dir, "P.mtx")
	if err := matio.WriteMatrix(A, pr.A); err != nil {
		t.Fatal(err)
	}
	if err := matio.WriteMatrix(P, pr.P); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"--ne", "6", "--source", "synthetic"},
		{"--ne", "6"},
		{"--matrix", A, "--prolongator", P, "--block-size", "3", "--coarse-block", "6"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		args := append(c, "--runs", "1", "--threads", "1,2", "--calibrate=false")
		if err := runGalerkin(args, &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v (stderr %q)", c, err, stderr.String())
		}
		out := stdout.String()
		for _, want := range []string{"level 0:", "two-pass", "fused-row", "fused-recompute", "inspector", "planner picks", "threads 2"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: output lacks %q:\n%s", c, want, out)
			}
		}
	}
}

func TestGalerkinCommandErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--ne", "3", "--variant", "nope"},
		{"--ne", "3", "--threads", "0"},
		{"--ne", "3", "--source", "nope"},
		{"--ne", "3", "--runs", "0"},
		{"--matrix", "A.mtx"},
		{"--ne", "3", "--matrix", "A.mtx", "--prolongator", "P.mtx"},
	} {
		var stdout, stderr bytes.Buffer
		if err := runGalerkin(args, &stdout, &stderr); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
