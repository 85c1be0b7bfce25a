package bsr

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	m, err := New(3, 4, 2, 3, []int64{0, 2, 2, 3}, []int32{0, 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Val) != 3*6 || m.Rows() != 6 || m.Cols() != 12 || m.BlockSize() != 6 || m.NNZBlocks() != 3 {
		t.Fatalf("New: %d values, %d×%d, block size %d, %d blocks", len(m.Val), m.Rows(), m.Cols(), m.BlockSize(), m.NNZBlocks())
	}
	for _, v := range m.Val {
		if v != 0 {
			t.Fatal("New: values not zero")
		}
	}
	if got, want := m.Bytes(), int64(4*8+3*4+18*8); got != want {
		t.Fatalf("Bytes %d, want %d", got, want)
	}
	for _, tc := range []struct {
		i, j int
		k    int64
		ok   bool
	}{{0, 0, 0, true}, {0, 3, 1, true}, {0, 1, -1, false}, {1, 0, -1, false}, {2, 1, 2, true}, {2, 3, -1, false}} {
		if k, ok := m.Find(tc.i, tc.j); k != tc.k || ok != tc.ok {
			t.Fatalf("Find(%d,%d) = %d,%v, want %d,%v", tc.i, tc.j, k, ok, tc.k, tc.ok)
		}
	}
	copy(m.Block(2), []float64{1, 2, 3, 4, 5, 6})
	if m.Val[12] != 1 || m.Val[17] != 6 {
		t.Fatal("Block does not alias Val")
	}
}

func TestNewRejects(t *testing.T) {
	cases := []struct {
		name           string
		nbr, nbc, r, c int
		rowPtr         []int64
		colIdx         []int32
		substr         string
	}{
		{"negative rows", -1, 2, 1, 1, nil, nil, "block dimensions"},
		{"zero block side", 2, 2, 1, 0, []int64{0, 0, 0}, nil, "block shape"},
		{"row pointer length", 2, 2, 1, 1, []int64{0, 0}, nil, "row pointer"},
		{"negative block count", 1, 2, 1, 1, []int64{0, -1}, nil, "column indices"},
		{"block count mismatch", 1, 2, 1, 1, []int64{0, 2}, []int32{0}, "column indices"},
		{"first not zero", 1, 2, 1, 1, []int64{1, 1}, []int32{0}, "first entry"},
		{"row pointer passes count", 2, 2, 1, 1, []int64{0, 3, 1}, []int32{0}, "block row 0"},
		{"decreasing", 2, 3, 1, 1, []int64{0, 2, 1}, []int32{0}, "decreases"},
		{"column out of range", 1, 2, 1, 1, []int64{0, 1}, []int32{2}, "out of range"},
		{"negative column", 1, 2, 1, 1, []int64{0, 1}, []int32{-1}, "out of range"},
		{"unsorted", 2, 3, 1, 1, []int64{0, 0, 2}, []int32{2, 1}, "block row 1: columns not strictly increasing"},
		{"duplicate", 1, 3, 1, 1, []int64{0, 2}, []int32{1, 1}, "not strictly increasing"},
		// Shapes whose products wrap around: every value offset starts from them.
		{"block size overflows", 1, 1, 1 << 40, 1 << 40, []int64{0, 0}, nil, "overflows"},
		{"scalar rows overflow", math.MaxInt / 2, 1, 3, 3, nil, nil, "overflows"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.nbr, tc.nbc, tc.r, tc.c, tc.rowPtr, tc.colIdx)
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.substr) {
				t.Fatalf("error %v, want ErrInvalid mentioning %q", err, tc.substr)
			}
		})
	}
}

func TestValidateValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	m, _ := randMatrix(t, rng, 12, 12, 2, 3)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	// A NaN in the first block of block row 5 names that row.
	row := 5
	for m.RowPtr[row] == m.RowPtr[row+1] {
		row++
	}
	bad := m.Clone()
	bad.Val[m.RowPtr[row]*6+4] = math.NaN()
	if err := bad.Validate(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "block row "+strconv.Itoa(row)+":") {
		t.Fatalf("error %v, want ErrInvalid naming block row %d", err, row)
	}
	bad.Val[m.RowPtr[row]*6+4] = math.Inf(1)
	if err := bad.Validate(); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Inf: error %v", err)
	}
	short := m.Clone()
	short.Val = short.Val[:len(short.Val)-1]
	if err := short.Validate(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "values") {
		t.Fatalf("short values: error %v", err)
	}
	neg := &Matrix{BlockRows: -1, R: 1, C: 1}
	if err := neg.Validate(); !errors.Is(err, ErrInvalid) {
		t.Fatalf("negative dims: error %v", err)
	}
}

func TestCloneAndPattern(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	m, d := randMatrix(t, rng, 9, 7, 3, 2)
	c := m.Clone()
	if !c.SamePattern(m) || !m.SamePattern(c) {
		t.Fatal("clone has another pattern")
	}
	c.Val[0], c.ColIdx[0], c.RowPtr[1] = 99, c.ColIdx[0]+1, c.RowPtr[1]+1
	equalDense(t, "original after editing clone", walkDense(m), d)
	p := m.ClonePattern()
	if !p.SamePattern(m) || len(p.Val) != len(m.Val) {
		t.Fatal("ClonePattern changed the pattern")
	}
	for _, v := range p.Val {
		if v != 0 {
			t.Fatal("ClonePattern values not zero")
		}
	}
	p.Val[0] = 7
	if m.Val[0] == 7 {
		t.Fatal("ClonePattern shares values")
	}
	if m.SamePattern(Zeros(9, 7, 3, 2)) || m.SamePattern(Zeros(9, 7, 2, 3)) || m.SamePattern(Zeros(9, 8, 3, 2)) {
		t.Fatal("different patterns reported the same")
	}
	z := Zeros(0, 5, 2, 2)
	if z.NNZBlocks() != 0 || z.Rows() != 0 || z.Cols() != 10 || z.Validate() != nil {
		t.Fatal("Zeros(0,5)")
	}
	mustPanic(t, "Zeros negative", func() { Zeros(-1, 2, 1, 1) })
	mustPanic(t, "Zeros block side", func() { Zeros(1, 2, 0, 1) })
}

// TestIndexLimits: block columns beyond int32 column indices are invalid, and ToCSR
// refuses (by panic, it returns no error) a matrix whose scalar columns would wrap its
// int32 column indices instead of writing wrong ones.
func TestIndexLimits(t *testing.T) {
	if err := Zeros(1, 1<<32, 1, 1).Validate(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "int32") {
		t.Errorf("2³² block columns: %v", err)
	}
	wide := Zeros(1, 1<<31, 1, 2)
	if err := wide.Validate(); err != nil {
		t.Fatalf("2³¹ block columns of width 2: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("ToCSR of a matrix with 2³² scalar columns did not panic")
		}
	}()
	wide.ToCSR()
}
