package dist_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/dist"
	"github.com/blockamg/blockamg/dist/internal/mpitest"
	"github.com/blockamg/blockamg/dist/mpi"
)

// TestEstimateEigenvalues checks the distributed smoother set-up against the serial
// hierarchy's, level by level: the block-diagonal inverses bit for bit, and the
// CG–Lanczos estimates of λ(D⁻¹A) to round-off (the same recurrence from the same
// start vector, its sums grouped by rank).
func TestEstimateEigenvalues(t *testing.T) {
	mpitest.Run(t, []int{1, 2, 3}, func(t *testing.T, c *mpi.Comm) {
		s, _ := reference(t, 9)
		h := s.Hierarchy()
		for l, L := range h.Levels[:len(h.Levels)-1] {
			lay := dist.EvenLayout(L.A.BlockRows, c.Size())
			lo, hi := lay.Range(c.Rank())
			a, err := dist.NewMatrix(c, lay, dist.Slice(L.A, lo, hi))
			if err != nil {
				t.Fatal(err)
			}
			dinv, err := dist.InvertDiag(a)
			if err != nil {
				t.Fatal(err)
			}
			bb := L.A.R * L.A.R
			if !bitsEqual(dinv, L.Dinv[lo*bb:hi*bb]) {
				t.Errorf("level %d: block-diagonal inverses differ from the serial set-up's", l)
			}
			e, err := dist.EstimateEigenvalues(a, dinv, h.Opt.EstEigKSPMaxIt)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range [][2]float64{{e.Max, L.Eig.Max}, {e.Min, L.Eig.Min}} {
				if math.Abs(v[0]-v[1]) > 1e-10*math.Abs(v[1]) {
					t.Errorf("level %d: λ estimate %.17g, serial %.17g", l, v[0], v[1])
				}
			}
			// A diagonal entry that is not positive, on this rank's first row (every
			// rank builds the matrix: NewMatrix agrees its plan with all).
			bad := dist.Slice(L.A, lo, hi)
			if hi > lo {
				k, _ := bad.Find(0, lo)
				bad.Block(k)[0] = -1
			}
			ba, err := dist.NewMatrix(c, lay, bad)
			if err != nil {
				t.Fatal(err)
			}
			if hi > lo {
				if _, err := dist.InvertDiag(ba); !errors.Is(err, amg.ErrNotSPD) || !strings.Contains(err.Error(), fmt.Sprintf("block row %d:", lo)) {
					t.Errorf("level %d: a negative diagonal entry: %v, want amg.ErrNotSPD naming block row %d", l, err, lo)
				}
			}
			if c.Rank() == 0 {
				t.Logf("level %d on %d ranks: λ ∈ [%.6g, %.6g] (serial [%.6g, %.6g])", l, c.Size(), e.Min, e.Max, L.Eig.Min, L.Eig.Max)
			}
		}
	})
}
