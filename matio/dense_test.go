package matio

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

const arrayBanner = "%%MatrixMarket matrix array real general\n"

func TestReadDenseArray(t *testing.T) {
	// 3×2, column-major in the file, row-major in memory.
	text := arrayBanner + "% c\n3 2\n1\n2\n3\n4.5\n-0\n6e-300\n"
	d, err := ReadDenseFrom(strings.NewReader(text), "d.mtx")
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 4.5, 2, math.Copysign(0, -1), 3, 6e-300}
	if d.Rows != 3 || d.Cols != 2 || !sameBits(d.Data, want) {
		t.Errorf("got %d×%d %v, want 3×2 %v", d.Rows, d.Cols, d.Data, want)
	}
	d, err = ReadDenseFrom(strings.NewReader("%%MatrixMarket matrix array integer general\n2 1\n-7\n8\n"), "i.mtx")
	if err != nil || !sameBits(d.Data, []float64{-7, 8}) {
		t.Errorf("integer array: %v %v", d, err)
	}
	// A PETSc Vec reads as n×1.
	d, err = ReadDenseFrom(bytes.NewReader(be(1211214, 2, 1.0, 2.0)), "v.petsc")
	if err != nil || d.Rows != 2 || d.Cols != 1 || !sameBits(d.Data, []float64{1, 2}) {
		t.Errorf("PETSc Vec: %+v %v", d, err)
	}
}

func TestDenseRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, shape := range [][2]int{{0, 0}, {1, 1}, {5, 1}, {7, 6}, {0, 3}} {
		d := &Dense{Rows: shape[0], Cols: shape[1], Data: make([]float64, shape[0]*shape[1])}
		for k := range d.Data {
			d.Data[k] = randValue(rng)
		}
		var buf bytes.Buffer
		if err := WriteDense(&buf, d); err != nil {
			t.Fatal(err)
		}
		got, err := ReadDenseFrom(&buf, "rt.mtx")
		if err != nil {
			t.Fatalf("%v: %v", shape, err)
		}
		if got.Rows != d.Rows || got.Cols != d.Cols || !sameBits(got.Data, d.Data) {
			t.Errorf("%v: round trip changed the values", shape)
		}
	}
	if err := WriteDense(&bytes.Buffer{}, &Dense{Rows: 1, Cols: 1, Data: []float64{math.NaN()}}); err == nil {
		t.Error("writing NaN: no error")
	}
}

func TestReadDenseErrors(t *testing.T) {
	cases := []struct {
		name, text string
		want       []string
	}{
		{"coordinate", banner + "real general\n2 2 0\n", []string{"d.mtx:1:", "coordinate (sparse) format"}},
		{"array symmetric", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n", []string{"d.mtx:1:", "array format with symmetry"}},
		{"array pattern", "%%MatrixMarket matrix array pattern general\n2 2\n", []string{"d.mtx:1:", "pattern"}},
		{"size line with three numbers", arrayBanner + "2 2 4\n", []string{"d.mtx:2:", "expected 2 (ROWS COLS)"}},
		{"truncated", arrayBanner + "2 2\n1\n2\n3\n", []string{"d.mtx:6:", "after 3 of the 2×2 = 4 values"}},
		{"truncated in last value", arrayBanner + "2 1\n1\n2.25", []string{"d.mtx:4:", "no terminating newline"}},
		{"too many", arrayBanner + "1 2\n1\n2\n3\n", []string{"d.mtx:5:", "value beyond the 1×2"}},
		{"two per line", arrayBanner + "2 1\n1 2\n", []string{"d.mtx:3:", "one value per line"}},
		{"NaN", arrayBanner + "2 2\n1\nnan\n", []string{"d.mtx:4:", "value (2, 1)", "finite"}},
		{"garbage", "hello", []string{"d.mtx: byte 0:", "neither a Matrix Market banner nor a PETSc Vec"}},
		{"PETSc Mat", string(mat3()), []string{"d.mtx: byte 0:", "PETSc Mat"}},
	}
	for _, c := range cases {
		_, err := ReadDenseFrom(strings.NewReader(c.text), "d.mtx")
		wantParseErr(t, c.name, err, c.want...)
		_, err = ReadDenseFrom(hideLen{strings.NewReader(c.text)}, "d.mtx")
		wantParseErr(t, c.name+" (size unknown)", err, c.want...)
	}
}

// TestEmptyWideArray checks that an array with no values costs nothing however many
// columns it claims: 0×2147483647 is a 60-byte file, and reading and writing it used
// to loop over every empty column (seconds; found by FuzzReadMatrixMarket).
func TestEmptyWideArray(t *testing.T) {
	for _, size := range []string{"0 2147483647", "2147483647 0"} {
		start := time.Now()
		d, err := ReadDenseFrom(strings.NewReader(arrayBanner+size+"\n"), "w.mtx")
		if err != nil || len(d.Data) != 0 {
			t.Fatalf("%s: %v", size, err)
		}
		var buf bytes.Buffer
		if err := WriteDense(&buf, d); err != nil {
			t.Fatal(err)
		}
		got, err := ReadDenseFrom(&buf, "rt.mtx")
		if err != nil || got.Rows != d.Rows || got.Cols != d.Cols {
			t.Fatalf("%s: round trip %v", size, err)
		}
		if el := time.Since(start); el > 250*time.Millisecond {
			t.Errorf("%s: read, write and read back took %v", size, el)
		}
	}
}
