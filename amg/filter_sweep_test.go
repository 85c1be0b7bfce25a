package amg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// diagDominantPath returns an n×n scalar SPD matrix: a path graph with couplings
// −10^u, u uniform in [−1.5, 1.5], each other pair coupled with probability extra,
// and a diagonal 1 to 2 times the row's absolute off-diagonal sum (diagonally
// dominant).
func diagDominantPath(t testing.TB, n int, seed uint64, extra float64) *bsr.Matrix {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 5))
	var bi, bj []int32
	var v []float64
	diag := make([]float64, n)
	add := func(i, j int, w float64) {
		bi, bj, v = append(bi, int32(i), int32(j)), append(bj, int32(j), int32(i)), append(v, w, w)
		diag[i] -= w
		diag[j] -= w
	}
	for i := 0; i+1 < n; i++ {
		add(i, i+1, -math.Pow(10, 3*rng.Float64()-1.5))
	}
	for i := 0; i < n; i++ {
		for j := i + 2; j < n; j++ {
			if rng.Float64() < extra {
				add(i, j, -math.Pow(10, 3*rng.Float64()-1.5))
			}
		}
	}
	for i := 0; i < n; i++ {
		bi, bj, v = append(bi, int32(i)), append(bj, int32(i)), append(v, diag[i]*(1+rng.Float64()))
	}
	A, err := bsr.FromBlockTriplets(n, n, 1, 1, bi, bj, v)
	if err != nil {
		t.Fatal(err)
	}
	return A
}

// TestFilterEmptiedColumn: the campaign's reproducer, a 10×10 diagonally dominant
// matrix with FilterTheta 0.9 and two smoothing steps. The drop rule kept the
// strongest block of every fine row but no block of one coarse column, so the coarse
// operator had a zero row and the coarse Cholesky called a valid SPD matrix "not
// symmetric positive definite". The column rule keeps that column's strongest block.
func TestFilterEmptiedColumn(t *testing.T) {
	A := diagDominantPath(t, 10, 91, 0.15)
	opt := DefaultOptions()
	opt.FilterTheta = 0.9
	opt.AggNSmooths = 2
	h, err := Setup(A, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	if kept := h.Levels[0].Filter.Stats().BlocksKeptForRank; kept == 0 {
		t.Error("no block kept for rank: the test no longer exercises the column rule")
	}
	res, _ := solveCG(t, h, randomVec(10, 1))
	t.Logf("%d iterations, stats %+v", res.Iterations, h.Levels[0].Filter.Stats())
}

// TestFilterThetaSweep: every θ in [0, 1] gives a usable hierarchy (set-up succeeds,
// CG converges) for one and two smoothing steps, with and without aggressive
// coarsening, on small diagonally dominant matrices, ex56 and a data case.
func TestFilterThetaSweep(t *testing.T) {
	type sys struct {
		name string
		A    *bsr.Matrix
		ns   *NullSpace
	}
	var cases []sys
	for seed := uint64(0); seed < 60; seed++ {
		cases = append(cases, sys{fmt.Sprintf("path DD seed %d", seed), diagDominantPath(t, 10, seed, float64(seed%4)*0.05), nil})
	}
	cases = append(cases, sys{"path DD seed 91", diagDominantPath(t, 10, 91, 0.15), nil})
	A, _, ns := ex56(t, 4)
	cases = append(cases, sys{"ex56 ne=4", A, ns})
	cases = append(cases, sys{"2D b=2 grid", gridMatrix(t, 12, 12, 2, true, 1e-3, 4), nil})
	thetas := []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1}
	run := func(t *testing.T, c sys) {
		for _, sm := range []int{1, 2} {
			for _, ag := range []int{0, 1} {
				its := make([]int, len(thetas))
				for q, th := range thetas {
					opt := DefaultOptions()
					opt.FilterTheta, opt.AggNSmooths, opt.AggressiveLevels = th, sm, ag
					h, err := Setup(c.A, c.ns, opt)
					if err != nil {
						t.Errorf("%s θ %g, %d smoothing steps, aggressive %d: %v", c.name, th, sm, ag, err)
						continue
					}
					res, _ := solveCG(t, h, randomVec(c.A.Rows(), 2))
					its[q] = res.Iterations
				}
				if c.A.Rows() > 10 {
					t.Logf("%s, %d smoothing steps, aggressive %d: iterations for θ %v: %v", c.name, sm, ag, thetas, its)
				}
			}
		}
	}
	for _, c := range cases {
		run(t, c)
	}
	t.Run("hypre_beam_tet_459", func(t *testing.T) {
		A, ns, _ := loadCase(t, "hypre_beam_tet_459", 3, "B6.mtx", "b.mtx")
		run(t, sys{"hypre_beam_tet_459", A, ns})
	})
}
