package amg

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// gridMatrix returns the b×b-blocked operator L ⊗ K + shift·I on an nx×ny grid graph
// with 5-point (or, when diag, 9-point) connectivity, L the graph Laplacian and K a
// fixed SPD b×b block with a random perturbation of the off-diagonal couplings per edge
// (symmetric). It is SPD for shift > 0.
func gridMatrix(t testing.TB, nx, ny, b int, diag bool, shift float64, seed uint64) *bsr.Matrix {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	n := nx * ny
	K := make([]float64, b*b)
	for i := 0; i < b; i++ {
		for j := 0; j < b; j++ {
			K[i*b+j] = 0.3 / float64(1+i+j)
		}
		K[i*b+i] = 1
	}
	var bi, bj []int32
	var vals []float64
	add := func(i, j int, blk []float64) {
		bi, bj = append(bi, int32(i)), append(bj, int32(j))
		vals = append(vals, blk...)
	}
	blk := make([]float64, b*b)
	for y := 0; y < ny; y++ {
		for x := 0; x < nx; x++ {
			i := x + nx*y
			for _, d := range [][2]int{{1, 0}, {0, 1}, {1, 1}, {-1, 1}} {
				if !diag && d[0] != 0 && d[1] != 0 {
					continue
				}
				xx, yy := x+d[0], y+d[1]
				if xx < 0 || xx >= nx || yy >= ny {
					continue
				}
				j := xx + nx*yy
				w := 0.5 + rng.Float64()
				for p := range blk {
					blk[p] = -w * K[p]
				}
				add(i, j, blk)
				add(j, i, blk)
				for p := range blk {
					blk[p] = -blk[p]
				}
				add(i, i, blk)
				add(j, j, blk)
			}
			clear(blk)
			for p := 0; p < b; p++ {
				blk[p*b+p] = shift
			}
			add(i, i, blk)
		}
	}
	A, err := bsr.FromBlockTriplets(n, n, b, b, bi, bj, vals)
	if err != nil {
		t.Fatal(err)
	}
	return A
}

// randomVec returns a fixed-seed vector of length n.
func randomVec(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.Float64()*2 - 1
	}
	return v
}

// denseMul returns the dense product (r×k)·(k×c), row-major.
func denseMul(r, k, c int, a, b []float64) []float64 {
	out := make([]float64, r*c)
	for i := 0; i < r; i++ {
		for p := 0; p < k; p++ {
			v := a[i*k+p]
			if v == 0 {
				continue
			}
			for j := 0; j < c; j++ {
				out[i*c+j] += v * b[p*c+j]
			}
		}
	}
	return out
}

// maxDiff returns max |a_i − b_i| / max(1, max |b_i|).
func maxDiff(a, b []float64) float64 {
	d, s := 0.0, 1.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		s = math.Max(s, math.Abs(b[i]))
	}
	return d / s
}

func dotv(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func sameBits(a, b []float64) bool {
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

// updateMatchesFresh updates h with a copy of A scaled by s and checks every level's
// operator and prolongator against a fresh Setup with opt on those values, bit for
// bit (Update redoes the numeric set-up in the same order).
func updateMatchesFresh(t *testing.T, h *Hierarchy, A *bsr.Matrix, ns *NullSpace, opt Options, s float64) {
	t.Helper()
	A2 := A.Clone()
	A2.Scale(s)
	fresh, err := Setup(A2, ns, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Update(A2); err != nil {
		t.Fatal(err)
	}
	for l := range h.Levels {
		if !sameBits(h.Levels[l].A.Val, fresh.Levels[l].A.Val) {
			t.Fatalf("level %d: operator after Update differs from a fresh Setup", l)
		}
		if l < len(h.Levels)-1 && !sameBits(h.Levels[l].P.Val, fresh.Levels[l].P.Val) {
			t.Fatalf("level %d: P after Update differs from a fresh Setup", l)
		}
	}
}
