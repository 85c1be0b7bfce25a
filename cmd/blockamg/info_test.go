package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const infoData = "../../../shared/data"

// infoReference summarizes a Matrix Market coordinate file the slow, obvious way:
// every entry into a map, then the numbers info reports for block size bs.
type infoRef struct {
	rows, blocks, nonzeros int
	asym, dmin, dmax       float64
}

func infoReference(t *testing.T, path string, bs int) infoRef {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sized := false
	var ref infoRef
	a := map[[2]int]float64{}
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) == 0 || strings.HasPrefix(w[0], "%") {
			continue
		}
		if !sized {
			ref.rows, _ = strconv.Atoi(w[0])
			sized = true
			continue
		}
		i, _ := strconv.Atoi(w[0])
		j, _ := strconv.Atoi(w[1])
		v, _ := strconv.ParseFloat(w[2], 64)
		a[[2]int{i - 1, j - 1}] = v
	}
	blocks := map[[2]int]bool{}
	scale, diff := 0.0, 0.0
	for p, v := range a {
		blocks[[2]int{p[0] / bs, p[1] / bs}] = true
		if v != 0 {
			ref.nonzeros++
		}
		scale = max(scale, math.Abs(v))
		diff = max(diff, math.Abs(v-a[[2]int{p[1], p[0]}]))
	}
	ref.blocks = len(blocks)
	ref.asym = diff / scale
	ref.dmin, ref.dmax = math.Inf(1), math.Inf(-1)
	for i := 0; i < ref.rows; i++ {
		d := a[[2]int{i, i}]
		ref.dmin, ref.dmax = min(ref.dmin, d), max(ref.dmax, d)
	}
	return ref
}

func TestInfoBeamHex(t *testing.T) {
	path := filepath.Join(infoData, "hypre_beam_hex_459", "A.mtx")
	if _, err := os.Stat(path); err != nil {
		t.Skip("shared test data not present: " + path)
	}
	ref := infoReference(t, path, 3)
	if ref.rows != 459 || ref.rows/3 != 153 {
		t.Fatalf("reference: %d rows", ref.rows)
	}

	var out, errb bytes.Buffer
	if code := run([]string{"info", path, "--block-size", "3", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	var s infoSummary
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, out.String())
	}
	if s.Rows != 459 || s.Cols != 459 || s.BlockRows != 153 || s.BlockCols != 153 || s.BlockR != 3 || s.BlockC != 3 {
		t.Errorf("shape: %+v", s)
	}
	if s.NNZBlocks != int64(ref.blocks) || s.NNZScalar != 9*int64(ref.blocks) || s.Nonzeros != int64(ref.nonzeros) {
		t.Errorf("counts: blocks %d, scalar %d, nonzero %d; reference %d blocks, %d nonzero",
			s.NNZBlocks, s.NNZScalar, s.Nonzeros, ref.blocks, ref.nonzeros)
	}
	if s.Asymmetry == nil || *s.Asymmetry != ref.asym {
		t.Errorf("asymmetry %v, reference %v", s.Asymmetry, ref.asym)
	}
	if s.DiagMin == nil || s.DiagMax == nil || *s.DiagMin != ref.dmin || *s.DiagMax != ref.dmax {
		t.Errorf("diagonal [%v, %v], reference [%v, %v]", s.DiagMin, s.DiagMax, ref.dmin, ref.dmax)
	}
	// 8 bytes per row pointer (154 and 460), 4 per column index, 8 per value.
	if want := int64(154*8 + ref.blocks*(4+9*8)); s.BytesBSR != want {
		t.Errorf("BSR bytes %d, want %d", s.BytesBSR, want)
	}
	if want := int64(460*8 + 9*ref.blocks*(4+8)); s.BytesCSR != want {
		t.Errorf("CSR bytes %d, want %d", s.BytesCSR, want)
	}

	// The text form carries the same numbers.
	out.Reset()
	if code := run([]string{"info", "--block-size", "3", path}, &out, &errb); code != 0 {
		t.Fatalf("text: exit %d, stderr %q", code, errb.String())
	}
	for _, want := range []string{"459 × 459 scalar = 153 × 153 blocks of 3×3", "stored blocks     " + strconv.Itoa(ref.blocks),
		strconv.Itoa(ref.nonzeros) + " nonzero", "symmetric"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestInfoSmallAndDense(t *testing.T) {
	dir := t.TempDir()
	// [[2 1 0] [-1 5 0] [0 0 -3]]: asymmetry |1-(-1)|/5, diagonal [-3, 5].
	a := filepath.Join(dir, "a.mtx")
	os.WriteFile(a, []byte("%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 2\n1 2 1\n2 1 -1\n2 2 5\n3 3 -3\n"), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"info", a, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var s infoSummary
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	if s.NNZScalar != 5 || s.BlockR != 1 || s.Asymmetry == nil || *s.Asymmetry != 2.0/5 || *s.DiagMin != -3 || *s.DiagMax != 5 {
		t.Errorf("got %+v (asymmetry %v)", s, s.Asymmetry)
	}
	// A rectangular matrix has no symmetry or diagonal: null in JSON.
	r := filepath.Join(dir, "r.mtx")
	os.WriteFile(r, []byte("%%MatrixMarket matrix coordinate real general\n2 4 1\n1 4 1\n"), 0o644)
	out.Reset()
	if code := run([]string{"info", r, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), `"asymmetry": null`) || !strings.Contains(out.String(), `"diag_min": null`) {
		t.Errorf("rectangular: %s", out.String())
	}
	// A dense array is described as such.
	d := filepath.Join(dir, "d.mtx")
	os.WriteFile(d, []byte("%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n"), 0o644)
	out.Reset()
	if code := run([]string{"info", d}, &out, &errb); code != 0 || !strings.Contains(out.String(), "dense             2 × 3") {
		t.Errorf("dense: exit %d, %q %q", code, out.String(), errb.String())
	}
}

func TestInfoBadInput(t *testing.T) {
	dir := t.TempDir()
	trunc := filepath.Join(dir, "trunc.mtx")
	os.WriteFile(trunc, []byte("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 2\n"), 0o644)
	bad := filepath.Join(dir, "bad.mtx")
	os.WriteFile(bad, []byte("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 x 2\n"), 0o644)
	pets := filepath.Join(dir, "bad.petsc")
	os.WriteFile(pets, []byte{0, 0x12, 0x7b, 0x50, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 9, 0, 0}, 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"info", trunc}, "blockamg info: " + trunc + ":5: unexpected end of file after 2 of the 3 entries"},
		{[]string{"info", bad}, "blockamg info: " + bad + ":4: column index \"x\""},
		{[]string{"info", pets}, "blockamg info: " + pets + ": byte 0: file truncated"},
		{[]string{"info", trunc, "--block-size", "2"}, "block size 2 does not divide"},
		{[]string{"info", filepath.Join(dir, "missing.mtx")}, "no such file"},
		{[]string{"info"}, "expected one FILE"},
		{[]string{"info", "--block-size", "x", trunc}, "invalid value"},
		{[]string{"info", "--block-size", "-3", trunc}, "must be positive"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: stderr %q lacks %q", c.args, errb.String(), c.want)
		}
		if strings.Contains(errb.String(), "goroutine") || strings.Contains(errb.String(), "panic") {
			t.Errorf("%v: stack trace on stderr", c.args)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"info", "--help"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "usage: blockamg info FILE") {
		t.Errorf("--help: exit %d, %q", code, errb.String())
	}
}
