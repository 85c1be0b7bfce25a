package filter

import (
	"math"
	"math/rand/v2"
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
