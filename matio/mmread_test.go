package matio

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

const banner = "%%MatrixMarket matrix coordinate "

func TestReadMatrixMarketKinds(t *testing.T) {
	cases := []struct {
		name, text string
		want       []float64 // 4×4 row-major
	}{
		{"general real", banner + "real general\n% comment\n4 4 4\n1 1 2.5\n2 3 -1e-3\n4 1 7\n3 4 -0\n",
			[]float64{2.5, 0, 0, 0, 0, 0, -1e-3, 0, 0, 0, 0, math.Copysign(0, -1), 7, 0, 0, 0}},
		{"integer, CRLF, blank lines, any case", "%%MATRIXMARKET Matrix Coordinate Integer General\r\n\r\n4 4 2\r\n\r\n2 2 -3\r\n4 4 9007199254740992\r\n",
			[]float64{0, 0, 0, 0, 0, -3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9007199254740992}},
		{"pattern", banner + "pattern general\n4 4 3\n1 2\n3 3\n4 2\n",
			[]float64{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0}},
		{"symmetric lower, column-major", banner + "real symmetric\n4 4 5\n1 1 1\n3 1 2\n4 1 3\n2 2 4\n4 3 5\n",
			[]float64{1, 0, 2, 3, 0, 4, 0, 0, 2, 0, 0, 5, 3, 0, 5, 0}},
		{"symmetric given in the upper triangle", banner + "real symmetric\n4 4 2\n1 3 2\n2 2 4\n",
			[]float64{0, 0, 2, 0, 0, 4, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}},
		{"skew-symmetric", banner + "real skew-symmetric\n4 4 2\n2 1 1.5\n4 3 -2\n",
			[]float64{0, -1.5, 0, 0, 1.5, 0, 0, 0, 0, 0, 0, 2, 0, 0, -2, 0}},
		{"pattern symmetric, tabs", banner + "pattern symmetric\n4\t4\t2\n2\t1\n4 4\n",
			[]float64{0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}},
		{"comments between entries", banner + "real general\n4 4 2\n1 1 1\n%x\n\n4 4 2\n",
			[]float64{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}},
	}
	for _, c := range cases {
		for _, bs := range []int{0, 1, 2, 4} {
			m := mustRead(t, c.text, bs)
			want := max(bs, 1)
			if m.R != want || m.C != want || m.Rows() != 4 || m.Cols() != 4 {
				t.Errorf("%s, bs %d: got %d×%d of %d×%d blocks", c.name, bs, m.BlockRows, m.BlockCols, m.R, m.C)
			}
			if got := dense(m); !sameBits(got, c.want) {
				t.Errorf("%s, bs %d:\n got %v\nwant %v", c.name, bs, got, c.want)
			}
		}
	}
}

// TestReadMatrixMarketRandom compares the reader with an independent reference: a dense
// matrix filled directly from the generated entries, for every symmetry and block size,
// entries shuffled so that rows arrive out of order.
func TestReadMatrixMarketRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sym := range []string{"general", "symmetric", "skew-symmetric"} {
		for _, n := range []int{6, 12, 60} {
			want := make([]float64, n*n)
			type entry struct {
				i, j int
				v    float64
			}
			var es []entry
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if rng.Float64() > 0.3 || (sym != "general" && j > i) || (sym == "skew-symmetric" && i == j) {
						continue
					}
					v := randValue(rng)
					es = append(es, entry{i, j, v})
					want[i*n+j] = v
					switch sym {
					case "symmetric":
						want[j*n+i] = v
					case "skew-symmetric":
						want[j*n+i] = -v
					}
				}
			}
			rng.Shuffle(len(es), func(a, b int) { es[a], es[b] = es[b], es[a] })
			var b strings.Builder
			fmt.Fprintf(&b, "%sreal %s\n%d %d %d\n", banner, sym, n, n, len(es))
			for _, e := range es {
				fmt.Fprintf(&b, "%d %d %v\n", e.i+1, e.j+1, e.v)
			}
			for _, bs := range []int{1, 2, 3, 6} {
				m := mustRead(t, b.String(), bs)
				if got := dense(m); !sameBits(got, want) {
					t.Errorf("%s n=%d bs=%d: matrix differs from the entries written", sym, n, bs)
				}
				if got := roundTripMM(t, m); !identical(got, m) {
					t.Errorf("%s n=%d bs=%d: Matrix Market round trip changed the matrix", sym, n, bs)
				}
				if got := roundTripPETSc(t, m); !identical(got, m) {
					t.Errorf("%s n=%d bs=%d: PETSc round trip changed the matrix", sym, n, bs)
				}
			}
		}
	}
}

// TestBlockCSRMatchesBSR checks the reader's grouping into blocks against the bsr
// package's own builder on random duplicate-free scalar patterns.
func TestBlockCSRMatchesBSR(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 20; trial++ {
		bs := 1 + rng.IntN(4)
		nbr, nbc := 1+rng.IntN(8), 1+rng.IntN(8)
		rows, cols := nbr*bs, nbc*bs
		var ti, tj []int32
		var tv []float64
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				if rng.Float64() < 0.2 {
					ti, tj = append(ti, int32(i)), append(tj, int32(j))
					tv = append(tv, randValue(rng))
				}
			}
		}
		want, err := bsr.FromScalarTriplets(rows, cols, bs, bs, ti, tj, tv)
		if err != nil {
			t.Fatal(err)
		}
		tr := &triplets{i: ti, j: tj, v: tv}
		a, err := tr.toCSR("x", rows, cols, symGeneral)
		if err != nil {
			t.Fatal(err)
		}
		got, err := blockCSR("x", a, bs)
		if err != nil {
			t.Fatal(err)
		}
		// == rather than bits: FromScalarTriplets sums into zeroed blocks, so it turns
		// -0 into +0, which the reader deliberately keeps.
		if !got.SamePattern(want) || !slices.Equal(got.Val, want.Val) {
			t.Fatalf("trial %d (bs %d): blockCSR and bsr.FromScalarTriplets disagree", trial, bs)
		}
	}
}

func TestReadMatrixMarketErrors(t *testing.T) {
	g := banner + "real general\n"
	cases := []struct {
		name, text string
		bs         int
		want       []string
	}{
		{"empty", "", 1, []string{"t.mtx:1:", "empty file"}},
		{"no banner", "3 3 1\n1 1 1\n", 1, []string{"t.mtx:1:", "banner"}},
		{"short banner", "%%MatrixMarket matrix coordinate real\n", 1, []string{"t.mtx:1:", "expected 5"}},
		{"vector object", "%%MatrixMarket vector coordinate real general\n", 1, []string{"t.mtx:1:", `object "vector"`}},
		{"complex", banner + "complex general\n", 1, []string{"t.mtx:1:", `field "complex" not supported`}},
		{"hermitian", banner + "real hermitian\n", 1, []string{"t.mtx:1:", `symmetry "hermitian"`}},
		{"unknown format", "%%MatrixMarket matrix sparse real general\n", 1, []string{"t.mtx:1:", `format "sparse"`}},
		{"array given as sparse", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, []string{"t.mtx:1:", "array (dense) format"}},
		{"no size line", g + "% only comments\n", 1, []string{"t.mtx:3:", "expected the size line"}},
		{"size line short", g + "3 3\n", 1, []string{"t.mtx:2:", "expected 3 (ROWS COLS ENTRIES)"}},
		{"size line not a number", g + "3 x 1\n", 1, []string{"t.mtx:2:", `"x" is not a non-negative integer`}},
		{"size line negative", g + "-3 3 1\n", 1, []string{"t.mtx:2:", "not a non-negative integer"}},
		{"dimensions too large", g + "3000000000 3 1\n1 1 1\n", 1, []string{"t.mtx:2:", "exceed"}},
		{"truncated", g + "3 3 3\n1 1 1\n2 2 2\n", 1, []string{"t.mtx:5:", "unexpected end of file after 2 of the 3 entries declared on line 2"}},
		{"truncated mid-line", g + "3 3 2\n1 1 1\n2 2", 1, []string{"t.mtx:4:", "entry has 2 fields, expected 3"}},
		{"truncated inside the last value", g + "3 3 2\n1 1 1\n2 2 1.2", 1, []string{"t.mtx:4:", "no terminating newline", "truncated"}},
		{"too many entries", g + "3 3 1\n1 1 1\n2 2 2\n", 1, []string{"t.mtx:4:", "entry beyond the 1 declared on line 2"}},
		{"row index 0 (1-based)", g + "3 3 1\n0 1 1\n", 1, []string{"t.mtx:3:", `row index "0" out of range, expected an integer in [1, 3]`}},
		{"row index too big", g + "3 3 1\n4 1 1\n", 1, []string{"t.mtx:3:", "row index \"4\" out of range"}},
		{"column index too big", g + "3 3 1\n1 4 1\n", 1, []string{"t.mtx:3:", "column index \"4\" out of range"}},
		{"negative index", g + "3 3 1\n1 -1 1\n", 1, []string{"t.mtx:3:", "column index \"-1\""}},
		{"float index", g + "3 3 1\n1.0 1 1\n", 1, []string{"t.mtx:3:", "row index \"1.0\""}},
		{"NaN", g + "3 3 2\n1 1 1\n2 2 NaN\n", 1, []string{"t.mtx:4:", "entry (2, 2)", "finite", "NaN"}},
		{"Inf", g + "3 3 1\n1 1 -Inf\n", 1, []string{"t.mtx:3:", "finite"}},
		{"overflow to Inf", g + "3 3 1\n1 1 1e400\n", 1, []string{"t.mtx:3:", "finite"}},
		{"not a number", g + "3 3 1\n1 1 one\n", 1, []string{"t.mtx:3:", `got "one"`}},
		{"extra field", g + "3 3 1\n1 1 1 0\n", 1, []string{"t.mtx:3:", "4 fields, expected 3"}},
		{"pattern with value", banner + "pattern general\n3 3 1\n1 1 1\n", 1, []string{"t.mtx:3:", "3 fields, expected 2 (ROW COL)"}},
		{"integer field with a real", banner + "integer general\n3 3 1\n1 1 1.5\n", 1, []string{"t.mtx:3:", "expected an integer"}},
		{"integer beyond 2^53", banner + "integer general\n3 3 1\n1 1 9007199254740993\n", 1, []string{"t.mtx:3:", "not exactly representable"}},
		{"skew diagonal", banner + "real skew-symmetric\n3 3 1\n2 2 1\n", 1, []string{"t.mtx:3:", "diagonal entry (2, 2)"}},
		{"symmetric not square", banner + "real symmetric\n3 4 1\n1 1 1\n", 1, []string{"t.mtx:2:", "must be square"}},
		{"duplicate", g + "% c\n3 3 3\n1 2 1\n3 3 1\n1 2 5\n", 1, []string{"t.mtx:6:", "duplicate entry (1, 2)", "line 4"}},
		{"symmetric pair given twice", banner + "real symmetric\n3 3 2\n2 1 1\n1 2 1\n", 1, []string{"t.mtx:4:", "duplicate entry (1, 2)", "line 3", "symmetric"}},
		{"block size does not divide", g + "4 6 1\n1 1 1\n", 3, []string{"t.mtx:2:", "block size 3 does not divide the dimensions 4×6"}},
		{"negative block size", g + "4 4 1\n1 1 1\n", -2, []string{"block size -2"}},
		{"pattern skew", banner + "pattern skew-symmetric\n2 2 1\n2 1\n", 1, []string{"t.mtx:1:", "cannot be skew-symmetric"}},
		{"block fill too large", g + "10000 10000 2\n1 1 1\n10000 10000 1\n", 5000, []string{"t.mtx:", "block size 5000 would store 2 blocks of 25000000 values for 2 entries"}},
		{"mostly empty", g + "2000000000 2000000000 1\n1 1 1\n", 1, []string{"t.mtx:2:", "empty rows"}},
		{"binary garbage", "\x00\x12{P\x00\x00", 1, []string{"t.mtx:1:", "banner"}},
	}
	for _, c := range cases {
		// Both with a size the reader can see and hidden, to cover both allocation paths.
		_, err := ReadMatrixMarket(strings.NewReader(c.text), "t.mtx", c.bs)
		wantParseErr(t, c.name, err, c.want...)
		_, err = ReadMatrixMarket(hideLen{strings.NewReader(c.text)}, "t.mtx", c.bs)
		wantParseErr(t, c.name+" (size unknown)", err, c.want...)
	}
}

// TestHugeHeaderFailsFast checks that a tiny file claiming 2³¹ entries is refused
// without allocating anything near that size, whether or not the reader knows the size.
func TestHugeHeaderFailsFast(t *testing.T) {
	texts := []string{
		banner + "real general\n100000 100000 2147483647\n1 1 1\n",
		banner + "pattern symmetric\n2147483647 2147483647 4294967295\n1 1\n",
		"%%MatrixMarket matrix array real general\n2147483647 2147483647\n1\n",
	}
	for _, text := range texts {
		for _, hidden := range []bool{false, true} {
			var r interface{ Read([]byte) (int, error) } = strings.NewReader(text)
			if hidden {
				r = hideLen{r}
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var err error
			if strings.Contains(text, "array") {
				_, err = ReadDenseFrom(r, "huge.mtx")
			} else {
				_, err = ReadMatrixMarket(r, "huge.mtx", 1)
			}
			runtime.ReadMemStats(&after)
			wantParseErr(t, "huge header", err, "huge.mtx:")
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
				t.Errorf("huge header (size hidden %v): allocated %d bytes before failing", hidden, alloc)
			}
		}
	}
}

func TestWriteMatrixMarketFormat(t *testing.T) {
	// One 2×2 block at block (0, 1) of a 2×4 matrix: every block entry is written,
	// including the explicit zero, with 17 significant digits.
	m := &bsr.Matrix{BlockRows: 1, BlockCols: 2, R: 2, C: 2, RowPtr: []int64{0, 1}, ColIdx: []int32{1},
		Val: []float64{0.1, 0, -2, math.Copysign(0, -1)}}
	var buf bytes.Buffer
	if err := WriteMatrixMarket(&buf, m); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := []string{
		"%%MatrixMarket matrix coordinate real general",
		"2 4 4",
		"1 3 1.0000000000000001e-01",
		"1 4 0.0000000000000000e+00",
		"2 3 -2.0000000000000000e+00",
		"2 4 -0.0000000000000000e+00",
	}
	lines = slices.DeleteFunc(lines, func(s string) bool { return strings.HasPrefix(s, "% ") })
	if !slices.Equal(lines, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	m.Val[1] = math.NaN()
	if err := WriteMatrixMarket(&bytes.Buffer{}, m); err == nil {
		t.Error("writing NaN: no error")
	}
}

func TestLongLines(t *testing.T) {
	// A comment longer than any read buffer is fine...
	text := banner + "real general\n%" + strings.Repeat("x", 300<<10) + "\n2 2 1\n2 2 5\n"
	for _, hidden := range []bool{false, true} {
		var r interface{ Read([]byte) (int, error) } = strings.NewReader(text)
		if hidden {
			r = hideLen{r}
		}
		m, err := ReadMatrixMarket(r, "long.mtx", 1)
		if err != nil || !sameBits(dense(m), []float64{0, 0, 0, 5}) {
			t.Errorf("long comment (size hidden %v): %v", hidden, err)
		}
	}
	// ...but a "line" beyond maxLine is refused with its line number.
	text = banner + "real general\n2 2 1\n" + strings.Repeat("1", maxLine+10)
	_, err := ReadMatrixMarket(hideLen{strings.NewReader(text)}, "long.mtx", 1)
	wantParseErr(t, "huge line", err, "long.mtx:3:", "line longer than")
}
