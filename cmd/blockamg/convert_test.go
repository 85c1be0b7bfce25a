package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/matio"
)

func convertIdentical(a, b *bsr.Matrix) bool {
	if !a.SamePattern(b) {
		return false
	}
	for k := range a.Val {
		if math.Float64bits(a.Val[k]) != math.Float64bits(b.Val[k]) {
			return false
		}
	}
	return true
}

func TestConvertRoundTrip(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "a.mtx")
	// Symmetric input with a partial 2×2 block; converting writes the mirrored, blocked
	// matrix.
	os.WriteFile(in, []byte("%%MatrixMarket matrix coordinate real symmetric\n4 4 4\n1 1 4\n2 1 -1.25\n3 3 1e-300\n4 3 7\n"), 0o644)
	want, err := matio.ReadMatrix(in, 2)
	if err != nil {
		t.Fatal(err)
	}
	pets := filepath.Join(dir, "a.petsc")
	back := filepath.Join(dir, "back.mtx")
	steps := [][]string{
		{"convert", in, pets, "--block-size", "2"},
		{"convert", pets, back},
	}
	for _, args := range steps {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d, %s", args, code, errb.String())
		}
		if !strings.Contains(out.String(), "blocks of 2×2") {
			t.Errorf("%v: output %q", args, out.String())
		}
	}
	// The PETSc file carries the block size in .info; the final .mtx needs it given.
	for _, c := range []struct {
		path string
		bs   int
	}{{pets, 0}, {back, 2}} {
		got, err := matio.ReadMatrix(c.path, c.bs)
		if err != nil {
			t.Fatal(err)
		}
		if !convertIdentical(got, want) {
			t.Errorf("%s: not the matrix that was converted", c.path)
		}
	}

	// Vectors: Matrix Market n×1 to a PETSc Vec and back.
	v := filepath.Join(dir, "v.mtx")
	os.WriteFile(v, []byte("%%MatrixMarket matrix array real general\n3 1\n1\n-2.5\n3e10\n"), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"convert", v, filepath.Join(dir, "v.petsc")}, &out, &errb); code != 0 {
		t.Fatalf("vector: exit %d, %s", code, errb.String())
	}
	got, err := matio.ReadDense(filepath.Join(dir, "v.petsc"))
	if err != nil || got.Rows != 3 || got.Data[1] != -2.5 || got.Data[2] != 3e10 {
		t.Errorf("vector: %+v %v", got, err)
	}
}

func TestConvertBadInput(t *testing.T) {
	dir := t.TempDir()
	trunc := filepath.Join(dir, "t.mtx")
	os.WriteFile(trunc, []byte("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n"), 0o644)
	multi := filepath.Join(dir, "m.mtx")
	os.WriteFile(multi, []byte("%%MatrixMarket matrix array real general\n1 2\n1\n2\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"convert", trunc, filepath.Join(dir, "o.petsc")}, trunc + ":4: unexpected end of file"},
		{[]string{"convert", multi, filepath.Join(dir, "o.petsc")}, "a PETSc Vec holds one column"},
		{[]string{"convert", trunc, trunc}, "same file"},
		{[]string{"convert", trunc}, "expected IN and OUT"},
		{[]string{"convert", filepath.Join(dir, "none.mtx"), filepath.Join(dir, "o.mtx")}, "no such file"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "o.petsc")); err == nil {
		t.Error("a failed conversion left an output file")
	}
	var out, errb bytes.Buffer
	if code := run([]string{"convert", "-h"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "usage: blockamg convert IN OUT") {
		t.Errorf("-h: exit %d, %q", code, errb.String())
	}
}
