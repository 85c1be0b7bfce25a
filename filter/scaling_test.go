package filter

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// scalarP builds a scalar (1×1 blocks) prolongator from dense rows (0 = not stored).
func scalarP(t *testing.T, rows [][]float64) *bsr.Matrix {
	t.Helper()
	var bi, bj []int32
	var v []float64
	for i, r := range rows {
		for J, x := range r {
			if x != 0 {
				bi, bj, v = append(bi, int32(i)), append(bj, int32(J)), append(v, x)
			}
		}
	}
	P, err := bsr.FromBlockTriplets(len(rows), len(rows[0]), 1, 1, bi, bj, v)
	if err != nil {
		t.Fatal(err)
	}
	return P
}

// filtered runs Symbolic and Numeric and returns the plan and P_f.
func filtered(t *testing.T, P *bsr.Matrix, Bc []float64, theta float64) (*Plan, *bsr.Matrix) {
	t.Helper()
	plan, err := Symbolic(P, Bc, theta, Options{})
	if err != nil {
		t.Fatal(err)
	}
	Pf := poisoned(plan)
	if err := plan.Numeric(P, Bc, Pf, 2); err != nil {
		t.Fatal(err)
	}
	checkFiltered(t, P, Bc, theta, plan, Pf)
	return plan, Pf
}

// TestColumnRuleKeepsRank: the row rule alone emptied a coarse column, or crowded two
// into one fine row, and P_f lost column rank (Ac = P_fᵀ·A·P_f singular: the coarse
// Cholesky then called an SPD operator indefinite). Both are the shapes seen on
// 10×10 matrices at θ ≥ 0.8 with two smoothing steps.
func TestColumnRuleKeepsRank(t *testing.T) {
	Bc := []float64{1, 1, 1}
	for _, tc := range []struct {
		name  string
		rows  [][]float64
		theta float64
	}{
		// Column 2 is weak in both rows that reach it: the row rule keeps none of it.
		{"empty column", [][]float64{{1, 0.2, 0}, {0.9, 1, 0.5}, {1, 0, 0.6}, {0.1, 1, 0}}, 0.9},
		// Columns 1 and 2 each keep only row 1 after the per-column rule (column 2's
		// strongest block is there too): dependent, though each is non-empty.
		{"crowded row", [][]float64{{1, 0.1, 0}, {0.2, 1, 0.95}, {1, 0.3, 0.4}, {1, 0, 0.1}}, 0.9},
	} {
		P := scalarP(t, tc.rows)
		plan, Pf := filtered(t, P, Bc, tc.theta)
		if r := numRank(Pf.ToDense(), Pf.Rows(), Pf.Cols()); r != P.Cols() {
			t.Errorf("%s: P_f has rank %d of %d", tc.name, r, P.Cols())
		}
		s := plan.Stats()
		if s.BlocksKeptForRank == 0 || s.DroppedBlocks == 0 {
			t.Errorf("%s: stats %+v: want blocks kept for rank and blocks dropped", tc.name, s)
		}
		t.Logf("%s: %+v", tc.name, s)
	}
}

// TestColumnRuleRandomTheta: on random prolongators of every shape and θ up to 1, P_f
// keeps the column rank of P.
func TestColumnRuleRandomTheta(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, sh := range shapes {
		b, k := sh[0], sh[1]
		for trial := 0; trial < 4; trial++ {
			n, m := 60, 12
			P := randomP(rng, n, m, b, k, 0.2)
			Bc := randomBc(rng, m, k, 0.3)
			full := numRank(P.ToDense(), P.Rows(), P.Cols())
			for _, theta := range []float64{0.5, 0.8, 0.9, 1} {
				plan, Pf := filtered(t, P, Bc, theta)
				if r := numRank(Pf.ToDense(), Pf.Rows(), Pf.Cols()); r < full {
					t.Errorf("%dx%d trial %d θ %g: P_f rank %d, P's %d (stats %+v)", b, k, trial, theta, r, full, plan.Stats())
				}
				// The column rule, like the rest, does not depend on workers.
				for _, w := range []int{1, 3} {
					p2, err := Symbolic(P, Bc, theta, Options{Workers: w})
					if err != nil {
						t.Fatal(err)
					}
					ptr, col := p2.PfPattern()
					ptr0, col0 := plan.PfPattern()
					if !slices.Equal(ptr, ptr0) || !slices.Equal(col, col0) || !slices.Equal(p2.Factors(), plan.Factors()) || p2.Stats() != plan.Stats() {
						t.Fatalf("%dx%d θ %g: plan with %d workers differs", b, k, theta, w)
					}
				}
			}
		}
	}
}

// TestBcColumnScaling: the projection is invariant under scaling the columns of B_c.
// Columns beyond 2^±250 made the Gram blocks and M overflow or underflow, and every
// row was left unfiltered (or filtered against a wrong M). Powers of two give the
// unscaled plan and P_f bit for bit; general scalings (1e±160) give them to round-off.
func TestBcColumnScaling(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, sh := range shapes {
		b, k := sh[0], sh[1]
		n, m := 200, 30
		P := randomP(rng, n, m, b, k, 0.15)
		Bc := randomBc(rng, m, k, 0.3)
		plan0, Pf0 := filtered(t, P, Bc, 0.1)
		for _, pow2 := range []bool{true, false} {
			s := make([]float64, k)
			for q := range s {
				switch {
				case pow2:
					s[q] = math.Ldexp(1, []int{600, -600, 0, 900, -900, 300}[q%6])
				default:
					s[q] = []float64{1e160, 1e-170, 1, 1e100, 1e-150, 3}[q%6]
				}
			}
			Bs := append([]float64(nil), Bc...)
			for t2 := range Bs {
				Bs[t2] *= s[t2%k]
			}
			plan, Pf := filtered(t, P, Bs, 0.1)
			s0, s1 := plan0.Stats(), plan.Stats()
			if s0 != s1 {
				t.Errorf("%dx%d pow2 %v: stats\n got %+v\nwant %+v", b, k, pow2, s1, s0)
				continue
			}
			if pow2 {
				for v := range Pf.Val {
					if math.Float64bits(Pf.Val[v]) != math.Float64bits(Pf0.Val[v]) {
						t.Fatalf("%dx%d: P_f value %d = %v, unscaled %v", b, k, v, Pf.Val[v], Pf0.Val[v])
					}
				}
				continue
			}
			if d := diffNorm(Pf.Val, Pf0.Val); d > 1e-12*norm2(Pf0.Val) {
				t.Errorf("%dx%d: ‖P_f − P_f(unscaled)‖ = %.3g·‖P_f‖", b, k, d/norm2(Pf0.Val))
			}
		}
	}
}

// TestRowScaledP: the drop rule compares block norms within a row, so scaling rows of P
// by powers of two (2^±500: squares beyond the float64 range) changes no decision and
// scales P_f's rows exactly.
func TestRowScaledP(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	for _, sh := range shapes {
		b, k := sh[0], sh[1]
		P := randomP(rng, 200, 30, b, k, 0.15)
		Bc := randomBc(rng, 30, k, 0.3)
		plan0, Pf0 := filtered(t, P, Bc, 0.1)
		Ps := P.Clone()
		e := make([]int, P.BlockRows)
		for i := range e {
			e[i] = rng.IntN(1001) - 500
			for s := P.RowPtr[i]; s < P.RowPtr[i+1]; s++ {
				for q := range Ps.Block(s) {
					Ps.Block(s)[q] = math.Ldexp(Ps.Block(s)[q], e[i])
				}
			}
		}
		plan, err := Symbolic(Ps, Bc, 0.1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		Pf := poisoned(plan)
		if err := plan.Numeric(Ps, Bc, Pf, 2); err != nil {
			t.Fatal(err)
		}
		s0, s1 := plan0.Stats(), plan.Stats()
		s0.BytesBefore, s1.BytesBefore = 0, 0
		if s0.DroppedBlocks != s1.DroppedBlocks || s0.RowsCorrected != s1.RowsCorrected || s0.RowsUnfiltered != s1.RowsUnfiltered {
			t.Errorf("%dx%d: stats\n got %+v\nwant %+v", b, k, s1, s0)
			continue
		}
		if !Pf.SamePattern(Pf0) {
			t.Errorf("%dx%d: P_f pattern differs", b, k)
			continue
		}
		for i := 0; i < Pf.BlockRows; i++ {
			for s := Pf.RowPtr[i]; s < Pf.RowPtr[i+1]; s++ {
				for q, v := range Pf.Block(s) {
					if want := math.Ldexp(Pf0.Block(s)[q], e[i]); v != want {
						t.Fatalf("%dx%d row %d: P_f %v, want 2^%d × %v", b, k, i, v, e[i], Pf0.Block(s)[q])
					}
				}
			}
		}
	}
}
