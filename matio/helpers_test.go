package matio

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// dense expands m into a row-major scalar array.
func dense(m *bsr.Matrix) []float64 {
	rows, cols := m.Rows(), m.Cols()
	d := make([]float64, rows*cols)
	for bi := 0; bi < m.BlockRows; bi++ {
		for k := m.RowPtr[bi]; k < m.RowPtr[bi+1]; k++ {
			bj := int(m.ColIdx[k])
			blk := m.Block(k)
			for ii := 0; ii < m.R; ii++ {
				for jj := 0; jj < m.C; jj++ {
					d[(bi*m.R+ii)*cols+bj*m.C+jj] = blk[ii*m.C+jj]
				}
			}
		}
	}
	return d
}

// sameBits reports whether a and b hold bitwise identical values.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
			return false
		}
	}
	return true
}

// identical reports whether two matrices have the same shape, pattern and bitwise values.
func identical(a, b *bsr.Matrix) bool {
	return a.SamePattern(b) && sameBits(a.Val, b.Val)
}

// hideLen hides Len/Stat from a reader so that readers cannot learn the input size and
// must grow incrementally.
type hideLen struct{ r io.Reader }

func (h hideLen) Read(p []byte) (int, error) { return h.r.Read(p) }

// wantParseErr checks that err is a *ParseError whose text holds every fragment.
func wantParseErr(t *testing.T, what string, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one containing %q", what, fragments)
		return
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Errorf("%s: error %v (%T) is not a *ParseError", what, err, err)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("%s: error %q does not contain %q", what, err, f)
		}
	}
}

// randMatrix returns a random BSR matrix with about density of its blocks stored and
// values of all magnitudes, negative zero and explicit zeros included.
func randMatrix(rng *rand.Rand, nbr, nbc, r, c int, density float64) *bsr.Matrix {
	m := &bsr.Matrix{BlockRows: nbr, BlockCols: nbc, R: r, C: c, RowPtr: make([]int64, nbr+1)}
	for i := 0; i < nbr; i++ {
		for j := 0; j < nbc; j++ {
			if rng.Float64() < density {
				m.ColIdx = append(m.ColIdx, int32(j))
				for range r * c {
					m.Val = append(m.Val, randValue(rng))
				}
			}
		}
		m.RowPtr[i+1] = int64(len(m.ColIdx))
	}
	return m
}

func randValue(rng *rand.Rand) float64 {
	switch rng.IntN(10) {
	case 0:
		return 0
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return math.SmallestNonzeroFloat64 * float64(rng.IntN(100))
	case 3:
		return math.MaxFloat64 * (rng.Float64()*2 - 1)
	}
	return (rng.Float64()*2 - 1) * math.Pow(10, float64(rng.IntN(40)-20))
}

// mustRead reads Matrix Market text or fails the test.
func mustRead(t *testing.T, text string, bs int) *bsr.Matrix {
	t.Helper()
	m, err := ReadMatrixMarket(strings.NewReader(text), "t.mtx", bs)
	if err != nil {
		t.Fatalf("ReadMatrixMarket: %v", err)
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("result invalid: %v", err)
	}
	return m
}

// roundTripMM writes m as Matrix Market and reads it back with its block size.
func roundTripMM(t testing.TB, m *bsr.Matrix) *bsr.Matrix {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteMatrixMarket(&buf, m); err != nil {
		t.Fatalf("WriteMatrixMarket: %v", err)
	}
	got, err := ReadMatrixMarket(&buf, "roundtrip.mtx", m.R)
	if err != nil {
		t.Fatalf("reading back: %v", err)
	}
	return got
}

// roundTripPETSc is roundTripMM for PETSc binary.
func roundTripPETSc(t testing.TB, m *bsr.Matrix) *bsr.Matrix {
	t.Helper()
	var buf bytes.Buffer
	if err := WritePETScMat(&buf, m); err != nil {
		t.Fatalf("WritePETScMat: %v", err)
	}
	got, err := ReadPETScMat(&buf, "roundtrip.petsc", m.R)
	if err != nil {
		t.Fatalf("reading back: %v", err)
	}
	return got
}
