package bsr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Reference machinery shared by the tests: random triplets, a dense matrix built
// straight from them (independent of any code under test), and tolerant comparisons.

// shapes lists every block shape the tests cover.
func shapes() [][2]int {
	var s [][2]int
	for r := 1; r <= 6; r++ {
		for c := 1; c <= 6; c++ {
			s = append(s, [2]int{r, c})
		}
	}
	return s
}

// dims lists block dimensions, including degenerate ones, that every test runs on.
var dims = [][2]int{{0, 0}, {0, 4}, {4, 0}, {1, 1}, {5, 3}, {3, 7}, {12, 12}, {17, 9}}

// blockTriplets is a random set of block triplets with duplicates; rows and columns
// that are multiples of 4 (when there are at least 4) are left empty on purpose.
type blockTriplets struct {
	nbr, nbc, r, c int
	bi, bj         []int32
	vals           []float64
}

func randTriplets(rng *rand.Rand, nbr, nbc, r, c int) blockTriplets {
	t := blockTriplets{nbr: nbr, nbc: nbc, r: r, c: c}
	if nbr == 0 || nbc == 0 {
		return t
	}
	n := rng.IntN(3*nbr + 2)
	for len(t.bi) < n {
		i, j := rng.IntN(nbr), rng.IntN(nbc)
		if (nbr >= 4 && i%4 == 0) || (nbc >= 4 && j%4 == 0) {
			continue
		}
		t.bi = append(t.bi, int32(i))
		t.bj = append(t.bj, int32(j))
		for p := 0; p < r*c; p++ {
			t.vals = append(t.vals, rng.NormFloat64())
		}
		if rng.IntN(5) == 0 { // a duplicate of the block just added
			t.bi = append(t.bi, int32(i))
			t.bj = append(t.bj, int32(j))
			for p := 0; p < r*c; p++ {
				t.vals = append(t.vals, rng.NormFloat64())
			}
		}
	}
	return t
}

// dense returns the dense row-major matrix the triplets describe, summing duplicates in
// input order.
func (t blockTriplets) dense() []float64 {
	rows, cols := t.nbr*t.r, t.nbc*t.c
	d := make([]float64, rows*cols)
	for k := range t.bi {
		for ii := 0; ii < t.r; ii++ {
			for jj := 0; jj < t.c; jj++ {
				d[(int(t.bi[k])*t.r+ii)*cols+int(t.bj[k])*t.c+jj] += t.vals[(k*t.r+ii)*t.c+jj]
			}
		}
	}
	return d
}

func (t blockTriplets) matrix(tb testing.TB) *Matrix {
	tb.Helper()
	m, err := FromBlockTriplets(t.nbr, t.nbc, t.r, t.c, t.bi, t.bj, t.vals)
	if err != nil {
		tb.Fatalf("FromBlockTriplets: %v", err)
	}
	return m
}

// randMatrix is a random valid matrix and its dense reference.
func randMatrix(tb testing.TB, rng *rand.Rand, nbr, nbc, r, c int) (*Matrix, []float64) {
	t := randTriplets(rng, nbr, nbc, r, c)
	return t.matrix(tb), t.dense()
}

// walkDense returns the dense form of m by walking its storage; it does not use any
// method under test beyond the fields.
func walkDense(m *Matrix) []float64 {
	rows, cols := m.BlockRows*m.R, m.BlockCols*m.C
	d := make([]float64, rows*cols)
	for i := 0; i < m.BlockRows; i++ {
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			j := int(m.ColIdx[k])
			for ii := 0; ii < m.R; ii++ {
				for jj := 0; jj < m.C; jj++ {
					d[(i*m.R+ii)*cols+j*m.C+jj] = m.Val[(k*int64(m.R)+int64(ii))*int64(m.C)+int64(jj)]
				}
			}
		}
	}
	return d
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

func nanVec(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// denseMulVec returns alpha*D*x + beta*y0 and, per entry, a bound on its rounding error
// scale: sum of |terms|.
func denseMulVec(d []float64, rows, cols int, trans bool, alpha float64, x []float64, beta float64, y0 []float64) (want, scale []float64) {
	n, inner := rows, cols
	if trans {
		n, inner = cols, rows
	}
	want = make([]float64, n)
	scale = make([]float64, n)
	for i := 0; i < n; i++ {
		s, a := 0.0, 0.0
		for j := 0; j < inner; j++ {
			var v float64
			if trans {
				v = d[j*cols+i]
			} else {
				v = d[i*cols+j]
			}
			s += v * x[j]
			a += math.Abs(v * x[j])
		}
		want[i] = alpha * s
		scale[i] = math.Abs(alpha) * a
		if beta != 0 {
			want[i] += beta * y0[i]
			scale[i] += math.Abs(beta * y0[i])
		}
	}
	return want, scale
}

// closeVec fails unless |got-want| <= tol*scale entrywise (plus a tiny absolute slack for
// exact zeros).
func closeVec(tb testing.TB, what string, got, want, scale []float64, tol float64) {
	tb.Helper()
	if len(got) != len(want) {
		tb.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !(math.Abs(got[i]-want[i]) <= tol*scale[i]+1e-300) {
			tb.Fatalf("%s: entry %d = %v, want %v (scale %v)", what, i, got[i], want[i], scale[i])
		}
	}
}

// sameBits fails unless a and b are bitwise identical.
func sameBits(tb testing.TB, what string, a, b []float64) {
	tb.Helper()
	if len(a) != len(b) {
		tb.Fatalf("%s: lengths %d and %d", what, len(a), len(b))
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			tb.Fatalf("%s: entry %d differs: %v vs %v", what, i, a[i], b[i])
		}
	}
}

func equalDense(tb testing.TB, what string, got, want []float64) {
	tb.Helper()
	if len(got) != len(want) {
		tb.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			tb.Fatalf("%s: entry %d = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// forEachCase runs f on every block shape and every dims entry with a seeded rng.
func forEachCase(t *testing.T, f func(t *testing.T, rng *rand.Rand, nbr, nbc, r, c int)) {
	for _, s := range shapes() {
		for _, d := range dims {
			r, c, nbr, nbc := s[0], s[1], d[0], d[1]
			t.Run(fmt.Sprintf("%dx%d/%dx%d", r, c, nbr, nbc), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(r*1000+c*100+nbr), uint64(nbc+1)))
				f(t, rng, nbr, nbc, r, c)
			})
		}
	}
}

// withSmallChunks makes every parallel loop split even tiny matrices, so that worker
// counts matter, and restores the default when the test ends.
func withSmallChunks(t *testing.T) {
	old := minChunkBlocks
	minChunkBlocks = 1
	t.Cleanup(func() { minChunkBlocks = old })
}
