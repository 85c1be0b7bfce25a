package bsr

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// randSymmetric is a random symmetric matrix of n block rows of b×b blocks (some
// rows without their diagonal block, some empty) and its dense form.
func randSymmetric(tb testing.TB, rng *rand.Rand, n, b int) (*Matrix, []float64) {
	t := randTriplets(rng, n, n, b, b)
	s := blockTriplets{nbr: n, nbc: n, r: b, c: b}
	for k := range t.bi {
		i, j := t.bi[k], t.bj[k]
		v := t.vals[k*b*b : (k+1)*b*b]
		s.bi = append(s.bi, i, j)
		s.bj = append(s.bj, j, i)
		s.vals = append(s.vals, v...)
		for p := 0; p < b; p++ { // the transpose
			for q := 0; q < b; q++ {
				s.vals = append(s.vals, v[q*b+p])
			}
		}
	}
	return s.matrix(tb), s.dense()
}

// TestUpper checks Upper's product against the dense product of the whole matrix, to
// the rounding bound, for alpha and beta of each kind, bitwise the same for any worker
// count (with every loop split), and after a Refresh with new values.
func TestUpper(t *testing.T) {
	if !UpperSupported(3) {
		t.Skip("no AVX2 and FMA here (or built with noasm): Upper does not run")
	}
	withSmallChunks(t)
	for _, b := range []int{3, 6} {
		for _, n := range []int{1, 2, 9, 60} {
			rng := rand.New(rand.NewPCG(uint64(b), uint64(n)))
			m, d := randSymmetric(t, rng, n, b)
			if err := m.CheckSymmetric(); err != nil {
				t.Fatalf("b=%d n=%d: the test matrix: %v", b, n, err)
			}
			u, err := NewUpper(m)
			if err != nil {
				t.Fatal(err)
			}
			for round := 0; round < 2; round++ {
				x, y0 := randVec(rng, n*b), randVec(rng, n*b)
				for _, ab := range [][2]float64{{1, 0}, {-1, 1}, {2.5, -0.5}, {0, 3}} {
					want, scale := denseMulVec(d, n*b, n*b, false, ab[0], x, ab[1], y0)
					var ref []float64
					for _, w := range []int{1, 2, 3, 7} {
						y := append([]float64(nil), y0...)
						if ab[1] == 0 {
							y = nanVec(n * b)
						}
						u.MulVecWorkers(w, ab[0], x, ab[1], y)
						closeVec(t, "Upper.MulVec", y, want, scale, 1e-14*float64(n*b+2))
						if ref == nil {
							ref = y
						} else {
							sameBits(t, "Upper.MulVec, workers 1 and more", y, ref)
						}
					}
				}
				// New values on the same pattern, kept symmetric.
				s, _ := randSymmetric(t, rand.New(rand.NewPCG(uint64(b), uint64(n))), n, b)
				for k := range m.Val {
					m.Val[k] = s.Val[k] * 1.5
				}
				d = walkDense(m)
				u.Refresh(m)
			}
		}
	}
}

// TestNewUpperErrors: a matrix that is not square-blocked is an error wrapping
// ErrInvalid.
func TestNewUpperErrors(t *testing.T) {
	if !UpperSupported(3) {
		t.Skip("no AVX2 and FMA here (or built with noasm): Upper does not run")
	}
	m, _ := randMatrix(t, rand.New(rand.NewPCG(1, 1)), 4, 5, 3, 3)
	if _, err := NewUpper(m); !errors.Is(err, ErrInvalid) {
		t.Fatalf("NewUpper of 4×5 blocks: %v, want ErrInvalid", err)
	}
}
