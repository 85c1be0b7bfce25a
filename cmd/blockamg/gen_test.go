package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/matio"
)

// TestGenWritesProblem runs gen and reads every output back, comparing with what the
// fem package generates directly.
func TestGenWritesProblem(t *testing.T) {
	for _, ext := range []string{".petsc", ".mtx"} {
		dir := t.TempDir()
		A := filepath.Join(dir, "A"+ext)
		b := filepath.Join(dir, "b"+ext)
		x := filepath.Join(dir, "x.mtx")
		B := filepath.Join(dir, "B.mtx")
		var stdout, stderr bytes.Buffer
		err := runGen([]string{"--ne", "4", "--alpha", "0.01", "-o", A, "--rhs", b, "--coords", x, "--nullspace", B, "--orthonormalize"}, &stdout, &stderr)
		if err != nil {
			t.Fatalf("%s: %v (stderr %q)", ext, err, stderr.String())
		}
		if !strings.Contains(stdout.String(), "375 unknowns") {
			t.Errorf("%s: summary %q does not give the 375 unknowns", ext, stdout.String())
		}
		p := fem.Ex56(4)
		p.Alpha = 0.01
		box, err := fem.NewBox(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := box.Assemble(1)
		if err != nil {
			t.Fatal(err)
		}
		got, err := matio.ReadMatrix(A, 3)
		if err != nil {
			t.Fatal(err)
		}
		if !got.SamePattern(want) {
			t.Fatalf("%s: pattern of the written matrix differs from the assembled one", ext)
		}
		for i, v := range got.Val {
			if v != want.Val[i] {
				t.Fatalf("%s: value %d reads back as %v, assembled %v", ext, i, v, want.Val[i])
			}
		}
		var rhs []float64
		if ext == ".mtx" {
			d, err := matio.ReadDense(b)
			if err != nil {
				t.Fatal(err)
			}
			rhs = d.Data
		} else {
			f, err := os.Open(b)
			if err != nil {
				t.Fatal(err)
			}
			rhs, err = matio.ReadPETScVec(f, b)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		equal(t, "rhs"+ext, rhs, box.RHS())
		d, err := matio.ReadDense(x)
		if err != nil {
			t.Fatal(err)
		}
		if d.Rows != 125 || d.Cols != 3 {
			t.Fatalf("coordinates %d×%d, want 125×3", d.Rows, d.Cols)
		}
		equal(t, "coords", d.Data, box.Coords())
		d, err = matio.ReadDense(B)
		if err != nil {
			t.Fatal(err)
		}
		modes, _, err := fem.RigidBodyModes(box.Coords(), 3, true)
		if err != nil {
			t.Fatal(err)
		}
		if d.Rows != 375 || d.Cols != 6 {
			t.Fatalf("modes %d×%d, want 375×6", d.Rows, d.Cols)
		}
		equal(t, "modes", d.Data, modes)
	}
}

func equal(t *testing.T, name string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", name, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: value %d = %v, want %v", name, i, got[i], want[i])
		}
	}
}

func TestGenErrors(t *testing.T) {
	dir := t.TempDir()
	A := filepath.Join(dir, "A.petsc")
	for _, args := range [][]string{
		{"-o", A},               // no --ne
		{"--ne", "3"},           // no -o
		{"--ne", "0", "-o", A},  // bad size
		{"--ne", "-2", "-o", A}, // bad size
		{"--ne", "3", "-o", A, "--nu", "0.5"},
		{"--ne", "3", "-o", A, "--alpha", "0"},
		{"--ne", "3", "-o", A, "--coords", filepath.Join(dir, "x.petsc")},
		{"--ne", "3", "-o", A, "extra"},
		{"--ne", "3", "-o", filepath.Join(dir, "missing", "A.petsc")},
		{"--bogus"},
	} {
		var stdout, stderr bytes.Buffer
		if err := runGen(args, &stdout, &stderr); err == nil {
			t.Errorf("gen %v succeeded", args)
		}
	}
	var stdout, stderr bytes.Buffer
	if err := runGen([]string{"--help"}, &stdout, &stderr); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("gen --help: %v, want flag.ErrHelp", err)
	}
	if !strings.Contains(stderr.String(), "--nullspace") {
		t.Errorf("gen --help does not list --nullspace: %q", stderr.String())
	}
}
