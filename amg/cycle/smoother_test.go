package cycle

import (
	"math"
	"testing"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cpu"
	"github.com/blockamg/blockamg/bsr"
)

// diagLevel returns a level whose D⁻¹A = diag(lams) (A diagonal, 1×1 blocks) on be.
func diagLevel(t *testing.T, be backend.Backend, lams []float64, spec *Spectrum, degree int) *Level {
	t.Helper()
	n := len(lams)
	var bi, bj []int32
	var vals []float64
	dinv := make([]float64, n)
	for i, l := range lams {
		bi, bj = append(bi, int32(i)), append(bj, int32(i))
		vals = append(vals, 2+float64(i))
		dinv[i] = l / vals[i]
	}
	A, err := bsr.FromBlockTriplets(n, n, 1, 1, bi, bj, vals)
	if err != nil {
		t.Fatal(err)
	}
	S, err := be.UploadMatrix(A, false)
	if err != nil {
		t.Fatal(err)
	}
	D, err := be.UploadBlockDiag(n, 1, dinv)
	if err != nil {
		t.Fatal(err)
	}
	lv := &Level{S: S, Dinv: D, Spectrum: spec, Degree: degree}
	for _, v := range []*backend.Vector{&lv.D, &lv.R, &lv.T} {
		*v, _ = be.NewVector(n)
	}
	return lv
}

// TestSmootherPolynomials checks each smoother against its closed form: with b = 0 and
// x = e_i, Post leaves p(λ_i)·e_i, p the smoother's error polynomial in D⁻¹A:
// Chebyshev T_k((θ−λ)/δ)/T_k(θ/δ), damped Jacobi (1 − ωλ)^k. Both with and without
// the backend's fused steps; and Pre from x = 0 must equal Post from an explicit zero.
func TestSmootherPolynomials(t *testing.T) {
	lams := []float64{0.05, 0.3, 0.9, 1.5, 1.98, 2.2}
	n := len(lams)
	spec := &Spectrum{EigMin: 0.15, EigMax: 2.0, ChebMin: 0.2, ChebMax: 2.1}
	theta, delta := (spec.ChebMax+spec.ChebMin)/2, (spec.ChebMax-spec.ChebMin)/2
	cheb := func(k int, x float64) float64 { // T_k(x), any real x
		if math.Abs(x) <= 1 {
			return math.Cos(float64(k) * math.Acos(x))
		}
		return math.Pow(math.Copysign(1, x), float64(k)) * math.Cosh(float64(k)*math.Acosh(math.Abs(x)))
	}
	omega := 4 / (3 * spec.EigMax)
	want := map[string]func(k int, l float64) float64{
		"chebyshev": func(k int, l float64) float64 { return cheb(k, (theta-l)/delta) / cheb(k, theta/delta) },
		"jacobi":    func(k int, l float64) float64 { return math.Pow(1-omega*l, float64(k)) },
	}
	for _, be := range []backend.Backend{cpu.New(1), unfused{cpu.New(1)}} {
		for name, p := range want {
			for deg := 1; deg <= 4; deg++ {
				lv := diagLevel(t, be, lams, spec, deg)
				sm, err := smoothers[name](be, lv)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := be.NewVector(n)
				for i, l := range lams {
					x, _ := be.NewVector(n)
					e := make([]float64, n)
					e[i] = 1
					be.Upload(x, e)
					sm.Post(b, x, x)
					got := make([]float64, n)
					be.Download(got, x)
					if w := p(deg, l); math.Abs(got[i]-w) > 1e-13 {
						t.Errorf("%s degree %d, λ=%g: factor %g, want %g", name, deg, l, got[i], w)
					}
					for j := range got {
						if j != i && got[j] != 0 {
							t.Errorf("%s degree %d: mixing into component %d", name, deg, j)
						}
					}
				}
				// Pre from zero against Post from an explicit zero, for b ≠ 0.
				be.Upload(b, []float64{1, -2, 3, 0.5, 4, -1})
				x1, _ := be.NewVector(n)
				x2, _ := be.NewVector(n)
				be.Upload(x2, []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()})
				sm.Post(b, x1, x1)
				cur := sm.Pre(b, x2)
				g1, g2 := make([]float64, n), make([]float64, n)
				be.Download(g1, x1)
				be.Download(g2, cur)
				for j := range g1 {
					if math.Abs(g1[j]-g2[j]) > 1e-15*math.Abs(g1[j])+1e-300 {
						t.Errorf("%s degree %d: Pre %v differs from Post from zero %v", name, deg, g2, g1)
						break
					}
				}
			}
		}
	}
}
