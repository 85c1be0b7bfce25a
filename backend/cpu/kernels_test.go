package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/blockamg/blockamg/backend/backendtest"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/bsrkern"
)

// normals returns n standard normal values from rng.
func normals(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for k := range v {
		v[k] = rng.NormFloat64()
	}
	return v
}

// TestRowKernelsFloat32 checks the residual and Chebyshev step on float32 values, on
// the vector path where it runs and on the Go path: widening a float32 to float64 is
// exact, so either path gives the bits it gives for float64 values holding the
// widened ones, for any worker count; and the residual is within the summation
// rounding bound of b − A·x formed entry by entry.
func TestRowKernelsFloat32(t *testing.T) {
	defer func(m int, e bool) { minChunk, bsrkern.Enabled = m, e }(minChunk, bsrkern.Enabled)
	minChunk = 64
	paths := []bool{false}
	if bsrkern.Enabled {
		paths = append(paths, true)
	}
	for _, vector := range paths {
		bsrkern.Enabled = vector
		for ci, tc := range []struct{ rows, r, perRow int }{{200, 3, 27}, {50, 3, 4}, {60, 6, 60}, {40, 6, 5}, {25, 4, 6}} {
			m := backendtest.RandomBSR(uint64(700+ci), tc.rows, tc.rows, tc.r, tc.r, tc.perRow)
			val := make([]float32, len(m.Val))
			wide := make([]float64, len(m.Val))
			for k, v := range m.Val {
				val[k] = float32(v)
				wide[k] = float64(val[k])
			}
			rng := rand.New(rand.NewPCG(uint64(ci), 9))
			n := m.Rows()
			b, x, d0 := normals(rng, n), normals(rng, n), normals(rng, n)
			dinv := make([]float64, tc.rows*tc.r*tc.r)
			for k := range dinv {
				dinv[k] = rng.NormFloat64()
			}
			path := map[bool]string{false: "Go path", true: "vector path"}[vector]
			name := func(what string, workers int) string {
				return fmt.Sprintf("%s, %s, %d×%d, %d workers", what, path, tc.r, tc.r, workers)
			}

			ref := make([]float64, n)
			residualT(m, wide, b, x, ref, 1)
			checkResidualBound(t, name("residual", 1), m, val, b, x, ref)
			for _, workers := range []int{1, 3} {
				res := backendtest.NaNVec(n)
				residualT(m, val, b, x, res, workers)
				if !backendtest.BitsEqual(res, ref) {
					t.Errorf("%s: float32 values give other bits than float64 values holding them", name("residual", workers))
				}
			}

			for _, c1 := range []float64{0, 0.3} {
				dw, xw := append([]float64(nil), d0...), backendtest.NaNVec(n)
				chebStepT(m, wide, dinv, b, x, dw, xw, c1, -1.2, 1)
				for _, workers := range []int{1, 3} {
					d, xo := append([]float64(nil), d0...), backendtest.NaNVec(n)
					chebStepT(m, val, dinv, b, x, d, xo, c1, -1.2, workers)
					if !backendtest.BitsEqual(d, dw) || !backendtest.BitsEqual(xo, xw) {
						t.Errorf("%s c1=%g: float32 values give other bits than float64 values holding them", name("ChebStep", workers), c1)
					}
				}
			}
		}
	}
}

// checkResidualBound checks res against b − A·x formed entry by entry in float64 from
// the widened values. Each sum of a row's n terms is within (n+2)·u/(1−(n+2)·u)·Σ|a·x|
// of the exact one (u = 2⁻⁵³; the kernels' lanes are at most n+2 roundings deep, the
// reference's n), and each subtraction from b adds a rounding of at most
// u·(|b| + Σ|a·x|), so the two differ by at most twice the sum of those.
func checkResidualBound(t *testing.T, what string, m *bsr.Matrix, val []float32, b, x, res []float64) {
	t.Helper()
	const u = 0x1p-53
	r := m.R
	for i := 0; i < m.BlockRows; i++ {
		terms := float64(int(m.RowPtr[i+1]-m.RowPtr[i]) * r)
		g := (terms + 2) * u / (1 - (terms+2)*u)
		for p := 0; p < r; p++ {
			s, abs := 0.0, 0.0
			for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
				for q := 0; q < r; q++ {
					ax := float64(val[int(k)*r*r+p*r+q]) * x[int(m.ColIdx[k])*r+q]
					s += ax
					abs += math.Abs(ax)
				}
			}
			// abs is itself computed with roundings, low by at most a relative
			// terms·u/(1−terms·u): the factor 1 + 2·terms·u covers that.
			abs *= 1 + 2*terms*u
			o := i*r + p
			want := b[o] - s
			bound := 2 * (g*abs + u*(1+g)*(math.Abs(b[o])+abs))
			if !(math.Abs(res[o]-want) <= bound) {
				t.Fatalf("%s: res[%d] = %v, want %v within %.3g", what, o, res[o], want, bound)
			}
		}
	}
}

// TestRowKernelsSymmetric checks the residual and Chebyshev step of an operator kept
// by its upper blocks (UploadMatrixSymmetric) against those of the whole matrix, to
// the rounding of the sums (relative to Σ|a·x| of a row), and bitwise the same for any
// worker count.
func TestRowKernelsSymmetric(t *testing.T) {
	if !bsr.UpperSupported(3) {
		t.Skip("no AVX2 and FMA here (or built with noasm): the upper products do not run")
	}
	defer func(m int) { minChunk = m }(minChunk)
	minChunk = 64
	for ci, tc := range []struct{ rows, r, perRow int }{{200, 3, 14}, {60, 6, 30}, {40, 6, 3}} {
		h := backendtest.RandomBSR(uint64(800+ci), tc.rows, tc.rows, tc.r, tc.r, tc.perRow)
		var bi, bj []int32
		var vals []float64
		bs := tc.r * tc.r
		for i := 0; i < h.BlockRows; i++ {
			for k := h.RowPtr[i]; k < h.RowPtr[i+1]; k++ {
				v := h.Val[int(k)*bs : int(k+1)*bs]
				bi, bj = append(bi, int32(i), h.ColIdx[k]), append(bj, h.ColIdx[k], int32(i))
				vals = append(vals, v...)
				for p := 0; p < tc.r; p++ {
					for q := 0; q < tc.r; q++ {
						vals = append(vals, v[q*tc.r+p])
					}
				}
			}
		}
		m, err := bsr.FromBlockTriplets(tc.rows, tc.rows, tc.r, tc.r, bi, bj, vals)
		if err != nil {
			t.Fatal(err)
		}
		up, err := bsr.NewUpper(m)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(ci), 11))
		n := m.Rows()
		b, x, d0 := normals(rng, n), normals(rng, n), normals(rng, n)
		dinv := make([]float64, tc.rows*bs)
		for k := range dinv {
			dinv[k] = rng.NormFloat64()
		}
		// Σ|a·x| per row: the scale of the sums' rounding.
		scale := make([]float64, n)
		for i := 0; i < m.BlockRows; i++ {
			for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
				for p := 0; p < tc.r; p++ {
					for q := 0; q < tc.r; q++ {
						scale[i*tc.r+p] += math.Abs(m.Val[int(k)*bs+p*tc.r+q] * x[int(m.ColIdx[k])*tc.r+q])
					}
				}
			}
		}
		want := make([]float64, n)
		residualT(m, m.Val, b, x, want, 1)
		var ref []float64
		for _, workers := range []int{1, 3} {
			res := backendtest.NaNVec(n)
			residualSym(up, b, x, res, workers)
			for k := range res {
				if !(math.Abs(res[k]-want[k]) <= 1e-13*(scale[k]+math.Abs(b[k]))) {
					t.Fatalf("%d×%d, %d workers: residual[%d] = %v, want %v", tc.r, tc.r, workers, k, res[k], want[k])
				}
			}
			if ref == nil {
				ref = res
			} else if !backendtest.BitsEqual(res, ref) {
				t.Errorf("%d×%d: the residual's bits depend on the worker count", tc.r, tc.r)
			}
		}
		for _, c1 := range []float64{0, 0.3} {
			dw, xw := append([]float64(nil), d0...), backendtest.NaNVec(n)
			chebStepSym(up, dinv, b, x, dw, xw, c1, -1.2, 1)
			d3, x3 := append([]float64(nil), d0...), backendtest.NaNVec(n)
			chebStepSym(up, dinv, b, x, d3, x3, c1, -1.2, 3)
			if !backendtest.BitsEqual(d3, dw) || !backendtest.BitsEqual(x3, xw) {
				t.Errorf("%d×%d c1=%g: the Chebyshev step's bits depend on the worker count", tc.r, tc.r, c1)
			}
			df, xf := append([]float64(nil), d0...), backendtest.NaNVec(n)
			chebStepT(m, m.Val, dinv, b, x, df, xf, c1, -1.2, 1)
			for k := range xf {
				if d := math.Abs(xw[k] - xf[k]); !(d <= 1e-9*(1+math.Abs(xf[k]))) {
					t.Fatalf("%d×%d c1=%g: xOut[%d] = %v, want %v (whole matrix)", tc.r, tc.r, c1, k, xw[k], xf[k])
				}
			}
		}
	}
}

// TestChebRows: the written-out 3×3 and 6×6 rows of the Chebyshev update give
// chebRow's bits, row by row, with c1 zero (d not read: it holds NaN) and not.
func TestChebRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	normal := func(n int) []float64 { return normals(rng, n) }
	for _, r := range []int{3, 6, 4} {
		const rows, c, e = 40, 5, 37
		dinv, tt, x := normal(rows*r*r), normal((e-c)*r), normal(rows*r)
		for _, c1 := range []float64{0, 0.37} {
			d0 := normal(rows * r)
			if c1 == 0 {
				for i := range d0 {
					d0[i] = math.NaN()
				}
			}
			dw, dg := append([]float64(nil), d0...), append([]float64(nil), d0...)
			xw, xg := normal(rows*r), normal(rows*r)
			copy(xg, xw)
			z := make([]float64, r)
			for i := c; i < e; i++ {
				chebRow(r, i, dinv, tt[(i-c)*r:(i-c+1)*r], z, x, dw, xw, c1, -1.3)
			}
			chebRows(r, c, e, dinv, tt, z, x, dg, xg, c1, -1.3)
			for k := range dw {
				if math.Float64bits(dw[k]) != math.Float64bits(dg[k]) || math.Float64bits(xw[k]) != math.Float64bits(xg[k]) {
					t.Fatalf("r %d, c1 %v: entry %d: d %v x %v, chebRow's %v %v", r, c1, k, dg[k], xg[k], dw[k], xw[k])
				}
			}
		}
	}
}

// TestJacobiScale: the written-out 3×3 rows of the first Chebyshev step give
// blockGemv's bits, for any worker count.
func TestJacobiScale(t *testing.T) {
	defer func(m int) { minChunk = m }(minChunk)
	minChunk = 16
	rng := rand.New(rand.NewPCG(43, 44))
	const rows = 300
	dinv, b := normals(rng, 9*rows), normals(rng, 3*rows)
	want := make([]float64, 3*rows)
	z := make([]float64, 3)
	for i := 0; i < rows; i++ {
		blockGemv(3, dinv[9*i:9*i+9], b[3*i:3*i+3], z)
		for p := 0; p < 3; p++ {
			want[3*i+p] = 0.61 * z[p]
		}
	}
	for _, w := range []int{1, 3} {
		got := make([]float64, 3*rows)
		for i := range got {
			got[i] = math.NaN()
		}
		jacobiScale(3, dinv, b, got, 0.61, w)
		for k := range want {
			if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
				t.Fatalf("%d workers: entry %d: %v, blockGemv's %v", w, k, got[k], want[k])
			}
		}
	}
}
