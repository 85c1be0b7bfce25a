package backendtest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/bsr"
)

// Tol is the agreement required between a backend and the dense reference, relative
// to the reference's largest entry.
const Tol = 1e-12

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 2*rng.Float64() - 1
	}
	return v
}

// NaNVec returns n NaNs: the poison an output gets before a kernel writes it.
func NaNVec(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// relErr returns max|got−want| / max(max|want|, tiny); NaN anywhere gives +Inf.
func relErr(got, want []float64) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	num, den := 0.0, 0.0
	for i := range got {
		if math.IsNaN(got[i]) || math.IsInf(got[i], 0) {
			return math.Inf(1)
		}
		num = max(num, math.Abs(got[i]-want[i]))
		den = max(den, math.Abs(want[i]))
	}
	if den == 0 {
		return num
	}
	return num / den
}

// BitsEqual reports whether a and b have the same length and bitwise the same values.
func BitsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// vector allocates a vector holding vals, failing the test on error.
func vector(t *testing.T, be backend.Backend, vals []float64) backend.Vector {
	t.Helper()
	v, err := be.NewVector(len(vals))
	if err != nil {
		t.Fatalf("NewVector(%d): %v", len(vals), err)
	}
	be.Upload(v, vals)
	return v
}

// download returns v's entries.
func download(t *testing.T, be backend.Backend, v backend.Vector) []float64 {
	t.Helper()
	out := make([]float64, v.Len())
	be.Download(out, v)
	if err := be.Err(); err != nil {
		t.Fatalf("backend error: %v", err)
	}
	return out
}

// RandomBSR returns a seeded random matrix of the given block dimensions and shape:
// each block row holds between 0 and maxPerRow distinct random block columns (so some
// rows are empty), with values in [-1, 1).
func RandomBSR(seed uint64, blockRows, blockCols, r, c, maxPerRow int) *bsr.Matrix {
	rng := newRand(seed)
	var bi, bj []int32
	for i := 0; i < blockRows; i++ {
		k := 0
		if blockCols > 0 {
			k = rng.IntN(min(maxPerRow, blockCols) + 1)
		}
		for _, j := range rng.Perm(blockCols)[:k] {
			bi = append(bi, int32(i))
			bj = append(bj, int32(j))
		}
	}
	vals := randVec(rng, len(bi)*r*c)
	m, err := bsr.FromBlockTriplets(blockRows, blockCols, r, c, bi, bj, vals)
	if err != nil {
		panic(err)
	}
	return m
}

// denseMulVec returns alpha·op(A)·x + beta·y from A's dense form (row-major rows×cols);
// beta == 0 ignores y.
func denseMulVec(d []float64, rows, cols int, trans bool, alpha float64, x []float64, beta float64, y []float64) []float64 {
	if trans {
		rows, cols = cols, rows
	}
	out := make([]float64, rows)
	for i := 0; i < rows; i++ {
		s := 0.0
		for j := 0; j < cols; j++ {
			a := d[i*cols+j]
			if trans {
				a = d[j*rows+i]
			}
			s += a * x[j]
		}
		out[i] = alpha * s
		if beta != 0 {
			out[i] += beta * y[i]
		}
	}
	return out
}

// SPDProblem returns a seeded symmetric positive definite matrix with 3×3 blocks on an
// n×n×n grid of nodes, 27-point coupling: a graph Laplacian whose edge weights are
// random symmetric positive semi-definite 3×3 blocks, plus shift times the identity.
// It stands for a small elasticity-like operator; shift sets its conditioning.
func SPDProblem(seed uint64, n int, shift float64) *bsr.Matrix {
	rng := newRand(seed)
	node := func(i, j, k int) int { return i + n*(j+n*k) }
	nn := n * n * n
	diag := make([]float64, nn*9)
	var bi, bj []int32
	var vals []float64
	for k := 0; k < n; k++ {
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				a := node(i, j, k)
				for dz := -1; dz <= 1; dz++ {
					for dy := -1; dy <= 1; dy++ {
						for dx := -1; dx <= 1; dx++ {
							ii, jj, kk := i+dx, j+dy, k+dz
							if ii < 0 || jj < 0 || kk < 0 || ii >= n || jj >= n || kk >= n {
								continue
							}
							b := node(ii, jj, kk)
							if b <= a {
								continue
							}
							// S = v vᵀ + 0.1 I with random v: symmetric PSD.
							var s [9]float64
							v := [3]float64{rng.Float64(), rng.Float64() - 0.5, rng.Float64() - 0.5}
							for p := 0; p < 3; p++ {
								for q := 0; q < 3; q++ {
									s[p*3+q] = v[p] * v[q]
								}
								s[p*3+p] += 0.1
							}
							neg := make([]float64, 9)
							for t := range s {
								neg[t] = -s[t]
								diag[a*9+t] += s[t]
								diag[b*9+t] += s[t]
							}
							bi = append(bi, int32(a), int32(b))
							bj = append(bj, int32(b), int32(a))
							vals = append(vals, neg...)
							vals = append(vals, neg...) // S symmetric, so the transposed block is S too
						}
					}
				}
			}
		}
	}
	for a := 0; a < nn; a++ {
		for p := 0; p < 3; p++ {
			diag[a*9+p*4] += shift
		}
		bi = append(bi, int32(a))
		bj = append(bj, int32(a))
		vals = append(vals, diag[a*9:(a+1)*9]...)
	}
	m, err := bsr.FromBlockTriplets(nn, nn, 3, 3, bi, bj, vals)
	if err != nil {
		panic(err)
	}
	return m
}
