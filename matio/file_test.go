package matio

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReadMatrixFiles(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(11, 12))
	m := randMatrix(rng, 9, 9, 3, 3, 0.4)
	for _, name := range []string{"a.mtx", "a.MTX", "a.petsc", "a.dat", "a"} {
		path := filepath.Join(dir, name)
		if err := WriteMatrix(path, m); err != nil {
			t.Fatal(err)
		}
		// Block size 3 given explicitly works for both formats...
		got, err := ReadMatrix(path, 3)
		if err != nil || !identical(got, m) {
			t.Errorf("%s: read back with bs 3: %v", name, err)
		}
		// ...and 0 takes it from the .info companion, which only PETSc files have.
		got, err = ReadMatrix(path, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		_, statErr := os.Stat(path + ".info")
		if isMatrixMarket(name) {
			if got.R != 1 || statErr == nil {
				t.Errorf("%s: bs 0 gave %d×%d blocks (want 1×1), .info exists: %v", name, got.R, got.C, statErr == nil)
			}
		} else if !identical(got, m) || statErr != nil {
			t.Errorf("%s: bs 0 gave %d×%d blocks (want 3×3 from .info); .info: %v", name, got.R, got.C, statErr)
		}
	}

	// Overwriting a PETSc file with a scalar matrix removes the now wrong .info.
	path := filepath.Join(dir, "a.petsc")
	s := randMatrix(rng, 9, 9, 1, 1, 0.4)
	if err := WriteMatrix(path, s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".info"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stale .info left behind: %v", err)
	}
	if got, err := ReadMatrix(path, 0); err != nil || !identical(got, s) {
		t.Errorf("scalar PETSc: %v", err)
	}

	// Content decides, not the name: a PETSc file named .mtx still reads.
	odd := filepath.Join(dir, "petsc-inside.mtx")
	if err := os.WriteFile(odd, mat3(), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadMatrix(odd, 1); err != nil || !sameBits(dense(got), []float64{1, 0, 2, 0, 0, 0, 0, 3, 4}) {
		t.Errorf("PETSc content in a .mtx file: %v", err)
	}
}

func TestReadMatrixFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := write("garbage.dat", []byte("hello world"))
	_, err := ReadMatrix(p, 0)
	wantParseErr(t, "garbage", err, p+": byte 0:", "neither a Matrix Market banner nor a PETSc Mat")
	p = write("vec.petsc", be(1211214, 1, 1.0))
	_, err = ReadMatrix(p, 0)
	wantParseErr(t, "Vec as Mat", err, p+": byte 0:", "PETSc Vec")
	p = write("bad.info.petsc", mat3())
	write("bad.info.petsc.info", []byte("# comment\n-matload_block_size three\n"))
	_, err = ReadMatrix(p, 0)
	wantParseErr(t, "bad .info", err, p+".info:2:", `block size "three"`)
	p = write("trunc.petsc", mat3()[:40])
	_, err = ReadMatrix(p, 1)
	wantParseErr(t, "truncated file", err, p+": byte 0:", "truncated", "76 bytes", "has 40")
	if _, err := ReadMatrix(filepath.Join(dir, "missing.mtx"), 1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	// What a user mistypes: an empty file, a directory, a one-% banner. Each names
	// the file and says what is wrong rather than "no class id".
	p = write("empty.mtx", nil)
	_, err = ReadMatrix(p, 1)
	wantParseErr(t, "empty file", err, p+": ", "empty file")
	_, err = ReadDense(p)
	wantParseErr(t, "empty file (dense)", err, p+": ", "empty file", "PETSc Vec")
	sub := filepath.Join(dir, "sub.mtx")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = ReadMatrix(sub, 1)
	wantParseErr(t, "directory", err, sub+": ", "is a directory")
	_, err = ReadDense(sub)
	wantParseErr(t, "directory (dense)", err, sub+": ", "is a directory")
	p = write("onepct.mtx", []byte("%MatrixMarket matrix coordinate real general\n1 1 0\n"))
	_, err = ReadMatrix(p, 1)
	wantParseErr(t, "one-% banner", err, p+":1:", "not the Matrix Market banner")
}

func TestReadInfo(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		text  string
		bs    int
		found bool
	}{
		{"-matload_block_size 3\n", 3, true},
		{"#$$ Set.filename = 'x';\n-vecload_block_size 2\n-prefix_matload_block_size 6\n", 6, true},
		{"-vecload_block_size 2\n", 1, false},
		{"", 1, false},
	}
	for k, c := range cases {
		p := filepath.Join(dir, "i"+string(rune('0'+k))+".info")
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		bs, found, err := ReadInfo(p)
		if err != nil || bs != c.bs || found != c.found {
			t.Errorf("%q: got %d %v %v, want %d %v", c.text, bs, found, err, c.bs, c.found)
		}
	}
	if bs, found, err := ReadInfo(filepath.Join(dir, "none.info")); bs != 1 || found || err != nil {
		t.Errorf("missing .info: %d %v %v", bs, found, err)
	}
	p := filepath.Join(dir, "bad.info")
	os.WriteFile(p, []byte("-matload_block_size 0\n"), 0o644)
	_, _, err := ReadInfo(p)
	wantParseErr(t, "block size 0", err, p+":1:", "positive integer")
}

func TestWriteVectorFiles(t *testing.T) {
	dir := t.TempDir()
	v := []float64{1, -2.5, 1e-300, -0.0}
	for _, name := range []string{"v.mtx", "v.petsc"} {
		p := filepath.Join(dir, name)
		if err := WriteVector(p, v); err != nil {
			t.Fatal(err)
		}
		d, err := ReadDense(p)
		if err != nil || d.Rows != 4 || d.Cols != 1 || !sameBits(d.Data, v) {
			t.Errorf("%s: %+v %v", name, d, err)
		}
	}
}
