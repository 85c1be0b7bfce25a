package bsr

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestFromBlockTriplets(t *testing.T) {
	forEachCase(t, func(t *testing.T, rng *rand.Rand, nbr, nbc, r, c int) {
		tr := randTriplets(rng, nbr, nbc, r, c)
		m := tr.matrix(t)
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		equalDense(t, "values", walkDense(m), tr.dense())
		// The pattern is exactly the set of distinct positions given.
		distinct := map[[2]int32]bool{}
		for k := range tr.bi {
			distinct[[2]int32{tr.bi[k], tr.bj[k]}] = true
		}
		if int(m.NNZBlocks()) != len(distinct) {
			t.Fatalf("%d stored blocks, want %d distinct positions", m.NNZBlocks(), len(distinct))
		}
		for p := range distinct {
			if _, ok := m.Find(int(p[0]), int(p[1])); !ok {
				t.Fatalf("block %v missing", p)
			}
		}
	})
}

// Duplicates are summed in input order, which a reordering of the input must not
// change beyond rounding and which repeated calls must reproduce bitwise.
func TestFromBlockTripletsDuplicateOrder(t *testing.T) {
	vals := []float64{1e16, 1, -1e16, 1}
	m, err := FromBlockTriplets(1, 1, 1, 1, []int32{0, 0, 0, 0}, []int32{0, 0, 0, 0}, vals)
	if err != nil {
		t.Fatal(err)
	}
	// ((1e16 + 1) - 1e16) + 1 = 0 + 1 in float64, since 1e16+1 rounds to 1e16.
	if m.Val[0] != 1 {
		t.Fatalf("sum %v, want input-order sum 1", m.Val[0])
	}
}

func TestFromScalarTriplets(t *testing.T) {
	forEachCase(t, func(t *testing.T, rng *rand.Rand, nbr, nbc, r, c int) {
		rows, cols := nbr*r, nbc*c
		var is, js []int32
		var vs []float64
		want := make([]float64, rows*cols)
		touched := map[[2]int]bool{}
		if rows > 0 && cols > 0 {
			for n := rng.IntN(4 * rows); n > 0; n-- {
				i, j := rng.IntN(rows), rng.IntN(cols)
				v := rng.NormFloat64()
				if n%7 == 0 {
					v = 0 // an explicit zero still touches its block
				}
				is, js, vs = append(is, int32(i)), append(js, int32(j)), append(vs, v)
				want[i*cols+j] += v
				touched[[2]int{i / r, j / c}] = true
				if n%3 == 0 { // duplicate
					is, js, vs = append(is, int32(i)), append(js, int32(j)), append(vs, 1.5)
					want[i*cols+j] += 1.5
				}
			}
		}
		m, err := FromScalarTriplets(rows, cols, r, c, is, js, vs)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		if m.BlockRows != nbr || m.BlockCols != nbc {
			t.Fatalf("block dims %d×%d, want %d×%d", m.BlockRows, m.BlockCols, nbr, nbc)
		}
		equalDense(t, "values", walkDense(m), want)
		if int(m.NNZBlocks()) != len(touched) {
			t.Fatalf("%d stored blocks, want %d touched", m.NNZBlocks(), len(touched))
		}
		for p := range touched {
			if _, ok := m.Find(p[0], p[1]); !ok {
				t.Fatalf("touched block %v not stored", p)
			}
		}
	})
}

func TestCSRRoundTrip(t *testing.T) {
	forEachCase(t, func(t *testing.T, rng *rand.Rand, nbr, nbc, r, c int) {
		m, d := randMatrix(t, rng, nbr, nbc, r, c)
		a := m.ToCSR()
		if err := a.Validate(); err != nil {
			t.Fatal(err)
		}
		if a.Rows != nbr*r || a.Cols != nbc*c {
			t.Fatalf("CSR %d×%d", a.Rows, a.Cols)
		}
		if int64(len(a.Val)) != m.NNZBlocks()*int64(r*c) {
			t.Fatalf("CSR has %d entries, want every block entry (%d)", len(a.Val), m.NNZBlocks()*int64(r*c))
		}
		got := make([]float64, len(d))
		for i := 0; i < a.Rows; i++ {
			for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
				got[i*a.Cols+int(a.ColIdx[k])] = a.Val[k]
			}
		}
		equalDense(t, "ToCSR", got, d)
		back, err := FromCSR(a, r, c)
		if err != nil {
			t.Fatal(err)
		}
		if !back.SamePattern(m) {
			t.Fatal("FromCSR(ToCSR) changed the pattern")
		}
		equalDense(t, "FromCSR(ToCSR)", back.Val, m.Val)
		// Independent storage.
		if len(a.Val) > 0 {
			a.Val[0] = 12345
			if back.Val[0] == 12345 {
				t.Fatal("FromCSR aliases its input")
			}
		}
	})
}

// csr22 is a 4×4 scalar matrix whose 2×2 blocks (0,0), (0,1) and (1,1) are stored.
func csr22() *CSR {
	return &CSR{
		Rows: 4, Cols: 4,
		RowPtr: []int64{0, 4, 8, 10, 12},
		ColIdx: []int32{0, 1, 2, 3, 0, 1, 2, 3, 2, 3, 2, 3},
		Val:    []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
	}
}

func TestFromCSRBlocks(t *testing.T) {
	m, err := FromCSR(csr22(), 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 11, 12}
	equalDense(t, "values", m.Val, want)
	if m.NNZBlocks() != 3 || m.ColIdx[0] != 0 || m.ColIdx[1] != 1 || m.ColIdx[2] != 1 {
		t.Fatalf("pattern %v %v", m.RowPtr, m.ColIdx)
	}
}

func TestFromCSRRejects(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(a *CSR) *CSR
		r, c   int
		substr string
	}{
		{"shape", func(a *CSR) *CSR { return a }, 0, 2, "block shape"},
		{"rows not divisible", func(a *CSR) *CSR { return a }, 3, 2, "not a multiple"},
		{"cols not divisible", func(a *CSR) *CSR { return a }, 2, 3, "not a multiple"},
		{"missing entry in second row", func(a *CSR) *CSR {
			// Drop (1,3): block (0,1) is then incomplete in scalar row 1.
			a.ColIdx = append(a.ColIdx[:7:7], a.ColIdx[8:]...)
			a.Val = append(a.Val[:7:7], a.Val[8:]...)
			a.RowPtr = []int64{0, 4, 7, 9, 11}
			return a
		}, 2, 2, "CSR row 1"},
		{"different block in second row", func(a *CSR) *CSR {
			// Row 3 holds block column 0 instead of 1.
			a.ColIdx[10], a.ColIdx[11] = 0, 1
			return a
		}, 2, 2, "CSR row 3"},
		{"block not aligned", func(a *CSR) *CSR {
			// Row 2 holds columns 1,2: an odd start straddling two blocks.
			a.ColIdx[8], a.ColIdx[9] = 1, 2
			return a
		}, 2, 2, "CSR row 2"},
		{"unsorted", func(a *CSR) *CSR { a.ColIdx[0], a.ColIdx[1] = 1, 0; return a }, 2, 2, "not strictly increasing"},
		{"column out of range", func(a *CSR) *CSR { a.ColIdx[3] = 4; return a }, 2, 2, "out of range"},
		{"NaN", func(a *CSR) *CSR { a.Val[5] = math.NaN(); return a }, 2, 2, "non-finite"},
		{"Inf", func(a *CSR) *CSR { a.Val[5] = math.Inf(-1); return a }, 2, 2, "non-finite"},
		{"row pointer", func(a *CSR) *CSR { a.RowPtr = a.RowPtr[:4]; return a }, 2, 2, "row pointer"},
		{"row pointer decreases", func(a *CSR) *CSR { a.RowPtr[2] = 3; return a }, 2, 2, "decreases"},
		{"row pointer passes count", func(a *CSR) *CSR { a.RowPtr[1] = 13; return a }, 2, 2, "CSR row 0"},
		{"value count", func(a *CSR) *CSR { a.Val = a.Val[:11]; return a }, 2, 2, "values"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromCSR(tc.edit(csr22()), tc.r, tc.c)
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.substr) {
				t.Fatalf("error %v, want ErrInvalid mentioning %q", err, tc.substr)
			}
		})
	}
}

func TestFromBlockTripletsRejects(t *testing.T) {
	one := []float64{1, 2, 3, 4}
	cases := []struct {
		name           string
		nbr, nbc, r, c int
		bi, bj         []int32
		vals           []float64
		substr         string
	}{
		{"negative dims", -1, 2, 2, 2, nil, nil, nil, "block dimensions"},
		{"zero block side", 2, 2, 0, 2, nil, nil, nil, "block shape"},
		{"row out of range", 2, 2, 2, 2, []int32{2}, []int32{0}, one, "block triplet 0"},
		{"negative column", 2, 2, 2, 2, []int32{0}, []int32{-1}, one, "outside"},
		{"NaN", 2, 2, 2, 2, []int32{1}, []int32{1}, []float64{1, math.NaN(), 3, 4}, "non-finite"},
		{"Inf", 2, 2, 2, 2, []int32{1}, []int32{1}, []float64{1, 2, math.Inf(1), 4}, "non-finite"},
		{"overflowing duplicates", 2, 2, 2, 2, []int32{1, 1}, []int32{0, 0},
			[]float64{1e308, 0, 0, 0, 1e308, 0, 0, 0}, "float64 range"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromBlockTriplets(tc.nbr, tc.nbc, tc.r, tc.c, tc.bi, tc.bj, tc.vals)
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.substr) {
				t.Fatalf("error %v, want ErrInvalid mentioning %q", err, tc.substr)
			}
		})
	}
}

func TestFromScalarTripletsRejects(t *testing.T) {
	cases := []struct {
		name             string
		rows, cols, r, c int
		i, j             []int32
		v                []float64
		substr           string
	}{
		{"rows not divisible", 5, 6, 2, 3, nil, nil, nil, "whole number"},
		{"cols not divisible", 6, 5, 2, 3, nil, nil, nil, "whole number"},
		{"negative", -6, 6, 2, 3, nil, nil, nil, "dimensions"},
		{"zero block side", 6, 6, 2, 0, nil, nil, nil, "block shape"},
		{"row out of range", 6, 6, 2, 3, []int32{6}, []int32{0}, []float64{1}, "triplet 0"},
		{"col out of range", 6, 6, 2, 3, []int32{0, 1}, []int32{0, -3}, []float64{1, 2}, "triplet 1"},
		{"NaN", 6, 6, 2, 3, []int32{0}, []int32{0}, []float64{math.NaN()}, "non-finite"},
		{"Inf", 6, 6, 2, 3, []int32{0}, []int32{0}, []float64{math.Inf(1)}, "non-finite"},
		{"overflowing duplicates", 6, 6, 2, 3, []int32{0, 0}, []int32{0, 0}, []float64{-1e308, -1e308}, "float64 range"},
		// 2³²×2³² blocks: the block size wraps to 0 (and int32(r) would too).
		{"block size overflows", 1 << 32, 1 << 32, 1 << 32, 1 << 32, []int32{5}, []int32{7}, []float64{1}, "overflows"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromScalarTriplets(tc.rows, tc.cols, tc.r, tc.c, tc.i, tc.j, tc.v)
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.substr) {
				t.Fatalf("error %v, want ErrInvalid mentioning %q", err, tc.substr)
			}
		})
	}
}

func TestBuildersPanicOnLengthMismatch(t *testing.T) {
	mustPanic(t, "block bj", func() { FromBlockTriplets(2, 2, 1, 1, []int32{0}, nil, []float64{1}) })
	mustPanic(t, "block vals", func() { FromBlockTriplets(2, 2, 2, 1, []int32{0}, []int32{0}, []float64{1}) })
	mustPanic(t, "scalar v", func() { FromScalarTriplets(2, 2, 1, 1, []int32{0}, []int32{0}, nil) })
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatalf("%s: no panic", what)
		}
	}()
	f()
}
