package matio

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// fuzzReader hides the input size when the flag asks for it, so both allocation paths
// (size known, size unknown) are fuzzed.
func fuzzReader(data []byte, hide bool) io.Reader {
	if hide {
		return hideLen{bytes.NewReader(data)}
	}
	return bytes.NewReader(data)
}

// checkFuzzErr insists that a failure is a located *ParseError.
func checkFuzzErr(t *testing.T, err error) {
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *ParseError", err, err)
	}
}

func FuzzReadMatrixMarket(f *testing.F) {
	seeds := []string{
		banner + "real general\n3 3 4\n1 1 1.5\n2 3 -2\n3 1 1e-300\n3 3 0\n",
		banner + "real symmetric\n4 4 3\n1 1 1\n3 1 2\n4 4 -0\n",
		banner + "real skew-symmetric\n2 2 1\n2 1 3\n",
		banner + "integer general\n2 2 1\n1 2 -7\n",
		banner + "pattern symmetric\n6 6 2\n2 1\n6 5\n",
		banner + "real general\r\n%c\r\n\r\n2 4 1\r\n1 4 2.5\r\n",
		banner + "real general\n2 2 2\n1 1 1\n1 1 2\n",
		banner + "real general\n2 2 1\n3 1 1\n",
		banner + "real general\n2 2 2\n1 1 1\n",
		"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
		"%%MatrixMarket matrix array real general\n3 1\n1\n2\n",
		"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
		banner + "real general\n1000000 1000000 0\n",
		"",
	}
	for k, s := range seeds {
		f.Add([]byte(s), uint8(k))
	}
	f.Fuzz(func(t *testing.T, data []byte, flags uint8) {
		bs := int(flags % 5)
		hide := flags&0x80 != 0
		m, err := ReadMatrixMarket(fuzzReader(data, hide), "fuzz.mtx", bs)
		if err != nil {
			checkFuzzErr(t, err)
		} else {
			if err := m.Validate(); err != nil {
				t.Fatalf("accepted an invalid matrix: %v", err)
			}
			if m.R != max(bs, 1) || m.C != m.R {
				t.Fatalf("block size %d×%d, asked for %d", m.R, m.C, bs)
			}
			if got := roundTripMM(t, m); !identical(got, m) {
				t.Fatal("Matrix Market round trip changed the matrix")
			}
			if got := roundTripPETSc(t, m); !identical(got, m) {
				t.Fatal("PETSc round trip changed the matrix")
			}
		}
		d, err := ReadDenseFrom(fuzzReader(data, hide), "fuzz.mtx")
		if err != nil {
			checkFuzzErr(t, err)
			return
		}
		if len(d.Data) != d.Rows*d.Cols {
			t.Fatalf("dense %d×%d with %d values", d.Rows, d.Cols, len(d.Data))
		}
		var buf bytes.Buffer
		if err := WriteDense(&buf, d); err != nil {
			t.Fatal(err)
		}
		got, err := ReadDenseFrom(&buf, "rt.mtx")
		if err != nil || got.Rows != d.Rows || got.Cols != d.Cols || !sameBits(got.Data, d.Data) {
			t.Fatalf("dense round trip: %v", err)
		}
	})
}

func FuzzReadPETScMat(f *testing.F) {
	seeds := [][]byte{
		mat3(),
		be(1211216, 2, 2, 3, 2, 1, 1, 0, 1, 5.0, 6.0, 7.0),
		be(1211216, 4, 4, 4, 1, 1, 1, 1, 0, 1, 2, 3, 1.0, 2.0, 3.0, 4.0),
		be(1211216, 2, 2, 2, 2, 0, 1, 1, 1.0, 2.0),
		be(1211216, 3, 3, 2147483647, 0, 0, 0),
		be(1211216, 2, 2, -1),
		be(1211214, 3, 1.0, 2.0, 3.0),
		be(1211214, 2, 1.0),
		append(mat3(), be(1211214, 1, 9.0)...),
		nil,
	}
	for k, s := range seeds {
		f.Add(s, uint8(k))
	}
	f.Fuzz(func(t *testing.T, data []byte, flags uint8) {
		bs := int(flags % 5)
		hide := flags&0x80 != 0
		m, err := ReadPETScMat(fuzzReader(data, hide), "fuzz.petsc", bs)
		if err != nil {
			checkFuzzErr(t, err)
		} else {
			if err := m.Validate(); err != nil {
				t.Fatalf("accepted an invalid matrix: %v", err)
			}
			if m.R != max(bs, 1) || m.C != m.R {
				t.Fatalf("block size %d×%d, asked for %d", m.R, m.C, bs)
			}
			if got := roundTripPETSc(t, m); !identical(got, m) {
				t.Fatal("PETSc round trip changed the matrix")
			}
			if got := roundTripMM(t, m); !identical(got, m) {
				t.Fatal("Matrix Market round trip changed the matrix")
			}
		}
		v, err := ReadPETScVec(fuzzReader(data, hide), "fuzz.petsc")
		if err != nil {
			checkFuzzErr(t, err)
			return
		}
		var buf bytes.Buffer
		if err := WritePETScVec(&buf, v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), data[:buf.Len()]) {
			t.Fatal("Vec round trip changed the bytes")
		}
	})
}
