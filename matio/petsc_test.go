package matio

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// be encodes int32 and float64 values big-endian, independently of the writer.
func be(vals ...any) []byte {
	var b []byte
	for _, v := range vals {
		switch x := v.(type) {
		case int:
			b = binary.BigEndian.AppendUint32(b, uint32(int32(x)))
		case float64:
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(x))
		default:
			panic("be: unsupported type")
		}
	}
	return b
}

// mat3 is a 3×3 matrix [[1 0 2] [0 0 0] [0 3 4]] in PETSc binary.
func mat3() []byte {
	return be(1211216, 3, 3, 4, 2, 0, 2, 0, 2, 1, 2, 1.0, 2.0, 3.0, 4.0)
}

func TestWritePETScMatLayout(t *testing.T) {
	// The 2×4 matrix with one 2×2 block at block column 1: all four block entries are
	// written, explicit zero included.
	m := &bsr.Matrix{BlockRows: 1, BlockCols: 2, R: 2, C: 2, RowPtr: []int64{0, 1}, ColIdx: []int32{1},
		Val: []float64{0.5, 0, -2, 7}}
	var buf bytes.Buffer
	if err := WritePETScMat(&buf, m); err != nil {
		t.Fatal(err)
	}
	want := be(1211216, 2, 4, 4, 2, 2, 2, 3, 2, 3, 0.5, 0.0, -2.0, 7.0)
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("got  % x\nwant % x", buf.Bytes(), want)
	}
	var vb bytes.Buffer
	if err := WritePETScVec(&vb, []float64{1.5, -3}); err != nil {
		t.Fatal(err)
	}
	if want := be(1211214, 2, 1.5, -3.0); !bytes.Equal(vb.Bytes(), want) {
		t.Errorf("Vec: got % x, want % x", vb.Bytes(), want)
	}
}

func TestReadPETScMat(t *testing.T) {
	m, err := ReadPETScMat(bytes.NewReader(mat3()), "a.petsc", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 0, 2, 0, 0, 0, 0, 3, 4}
	if got := dense(m); !sameBits(got, want) || m.R != 1 {
		t.Errorf("got %v (bs %d), want %v", got, m.R, want)
	}
	// Unsorted columns in a row are accepted and sorted (PETSc itself writes them sorted).
	unsorted := be(1211216, 2, 2, 3, 2, 1, 1, 0, 1, 5.0, 6.0, 7.0)
	m, err = ReadPETScMat(bytes.NewReader(unsorted), "u.petsc", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := dense(m); !sameBits(got, []float64{6, 5, 0, 7}) {
		t.Errorf("unsorted row: got %v", got)
	}
	// Trailing objects (a Vec after the Mat) are left unread.
	withVec := append(mat3(), be(1211214, 1, 9.0)...)
	if _, err := ReadPETScMat(bytes.NewReader(withVec), "a.petsc", 1); err != nil {
		t.Errorf("Mat followed by a Vec: %v", err)
	}
}

func TestPETScRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, bs := range []int{1, 2, 3, 6} {
		for _, n := range []int{0, 1, 7, 40} {
			m := randMatrix(rng, n, n+1, bs, bs, 0.3)
			if got := roundTripPETSc(t, m); !identical(got, m) {
				t.Errorf("bs %d n %d: PETSc round trip changed the matrix", bs, n)
			}
			// Read with a size the reader cannot see: the incremental path.
			var buf bytes.Buffer
			if err := WritePETScMat(&buf, m); err != nil {
				t.Fatal(err)
			}
			got, err := ReadPETScMat(hideLen{&buf}, "x", bs)
			if err != nil || !identical(got, m) {
				t.Errorf("bs %d n %d: PETSc round trip (size unknown): %v", bs, n, err)
			}
		}
	}
	// Rectangular blocks are written scalar and read back as the same scalar matrix.
	m := randMatrix(rng, 5, 3, 3, 6, 0.5)
	var buf bytes.Buffer
	if err := WritePETScMat(&buf, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPETScMat(&buf, "p.petsc", 3)
	if err != nil || !sameBits(dense(got), dense(m)) {
		t.Errorf("3×6 blocks read back with bs 3: %v", err)
	}
}

func TestReadPETScMatErrors(t *testing.T) {
	cases := []struct {
		name string
		data []byte
		bs   int
		want []string
	}{
		{"empty", nil, 1, []string{"m.petsc: byte 0:", "truncated inside the Mat header"}},
		{"short header", be(1211216, 3)[:6], 1, []string{"m.petsc: byte 6:", "truncated inside the Mat header"}},
		{"Vec class id", be(1211214, 3, 3, 0), 1, []string{"byte 0:", "class id 1211214, expected 1211216", "holds a PETSc Vec"}},
		{"wrong class id", be(42, 3, 3, 0), 1, []string{"byte 0:", "class id 42", "not a PETSc binary file"}},
		{"little-endian", append(binary.LittleEndian.AppendUint32(nil, 1211216), be(3, 3, 0)...), 1, []string{"byte 0:", "class id"}},
		{"negative rows", be(1211216, -1, 3, 0), 1, []string{"byte 4:", "negative dimensions"}},
		{"dense format", be(1211216, 2, 2, -1), 1, []string{"byte 12:", "dense PETSc Mat format"}},
		{"negative nz", be(1211216, 2, 2, -5), 1, []string{"byte 12:", "negative nonzero count"}},
		{"truncated values", mat3()[:len(mat3())-3], 1, []string{"m.petsc: byte", "truncated"}},
		{"truncated lengths", mat3()[:20], 1, []string{"m.petsc: byte", "truncated"}},
		{"row length too long", be(1211216, 2, 2, 3, 3, 0, 0, 1, 1, 1.0, 2.0, 3.0), 1, []string{"byte 16:", "row 0 has length 3, expected 0…2"}},
		{"negative row length", be(1211216, 2, 2, 1, 2, -1, 0, 1, 1.0, 2.0), 1, []string{"byte 20:", "row 1 has length -1"}},
		{"lengths disagree with nz", be(1211216, 2, 2, 3, 1, 1, 0, 0, 1, 1.0, 2.0, 3.0), 1, []string{"byte 16:", "row lengths sum to 2", "declares 3"}},
		{"column out of range", be(1211216, 2, 2, 2, 1, 1, 0, 2, 1.0, 2.0), 1, []string{"byte 28:", "row 1: column index 2 out of range, expected 0…1"}},
		{"negative column", be(1211216, 2, 2, 2, 1, 1, -1, 0, 1.0, 2.0), 1, []string{"byte 24:", "row 0: column index -1"}},
		{"duplicate column", be(1211216, 2, 2, 2, 2, 0, 1, 1, 1.0, 2.0), 1, []string{"byte 24:", "row 0: column 1 given twice"}},
		{"NaN", be(1211216, 2, 2, 2, 1, 1, 0, 1, 1.0, math.NaN()), 1, []string{"byte 40:", "not finite"}},
		{"Inf", be(1211216, 2, 2, 2, 1, 1, 0, 1, math.Inf(-1), 2.0), 1, []string{"byte 32:", "not finite"}},
		{"block size does not divide", mat3(), 2, []string{"m.petsc:", "block size 2 does not divide the dimensions 3×3"}},
		{"negative block size", mat3(), -1, []string{"block size -1"}},
		{"huge nz", be(1211216, 3, 3, 2147483647, 0, 0, 0), 1, []string{"m.petsc: byte", "2147483647 nonzeros"}},
		{"huge rows", be(1211216, 2147483647, 3, 0, 0, 0, 0), 1, []string{"m.petsc: byte", "truncated"}},
		{"mostly empty columns", be(1211216, 1, 2147483647, 0, 0), 1, []string{"byte 8:", "empty rows or columns"}},
	}
	for _, c := range cases {
		for _, hidden := range []bool{false, true} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var err error
			if hidden {
				_, err = ReadPETScMat(hideLen{bytes.NewReader(c.data)}, "m.petsc", c.bs)
			} else {
				_, err = ReadPETScMat(bytes.NewReader(c.data), "m.petsc", c.bs)
			}
			runtime.ReadMemStats(&after)
			wantParseErr(t, c.name, err, c.want...)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
				t.Errorf("%s (size hidden %v): allocated %d bytes for a %d-byte input", c.name, hidden, alloc, len(c.data))
			}
		}
	}
}

func TestReadPETScVec(t *testing.T) {
	v, err := ReadPETScVec(bytes.NewReader(be(1211214, 3, 1.0, -0.0, 2.5)), "v.petsc")
	if err != nil {
		t.Fatal(err)
	}
	if !sameBits(v, []float64{1, -0.0, 2.5}) {
		t.Errorf("got %v", v)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	w := make([]float64, 1000)
	for k := range w {
		w[k] = randValue(rng)
	}
	var buf bytes.Buffer
	if err := WritePETScVec(&buf, w); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPETScVec(hideLen{&buf}, "w")
	if err != nil || !sameBits(got, w) {
		t.Errorf("round trip: %v", err)
	}
	bad := []struct {
		name string
		data []byte
		want []string
	}{
		{"Mat class id", mat3(), []string{"byte 0:", "holds a PETSc Mat"}},
		{"negative length", be(1211214, -2), []string{"byte 4:", "negative Vec length"}},
		{"truncated", be(1211214, 3, 1.0, 2.0), []string{"v.petsc: byte", "truncated"}},
		{"huge length", be(1211214, 2147483647, 1.0), []string{"v.petsc: byte", "truncated"}},
		{"NaN", be(1211214, 2, 1.0, math.NaN()), []string{"byte 16:", "not finite"}},
	}
	for _, c := range bad {
		_, err := ReadPETScVec(bytes.NewReader(c.data), "v.petsc")
		wantParseErr(t, c.name, err, c.want...)
		_, err = ReadPETScVec(hideLen{bytes.NewReader(c.data)}, "v.petsc")
		wantParseErr(t, c.name+" (size unknown)", err, c.want...)
	}
	if err := WritePETScVec(&bytes.Buffer{}, []float64{1, math.Inf(1)}); err == nil {
		t.Error("writing Inf: no error")
	}
	if err := WritePETScMat(&bytes.Buffer{}, &bsr.Matrix{BlockRows: 1, BlockCols: 1, R: 1, C: 1, RowPtr: []int64{0, 1}, ColIdx: []int32{0}, Val: []float64{math.NaN()}}); err == nil {
		t.Error("writing a NaN Mat: no error")
	}
}
