package filter

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// numericFromAccessors re-implements Numeric from the read-only views only (Dims,
// PfPattern, RowFactors, Factors), as another backend would: survivors found by
// merging the P and P_f rows, E summed from the dropped blocks, the solve as Factors
// documents it, then P_f = P + Y·B_cJᵀ.
func numericFromAccessors(p *Plan, P *bsr.Matrix, Bc []float64) []float64 {
	n, _, b, k := p.Dims()
	frp, fcol := p.PfPattern()
	rowFac, fac := p.RowFactors(), p.Factors()
	bk, kk, pk := int64(b*k), int64(k*k), int64(k*(k+1)/2)
	out := make([]float64, frp[n]*bk)
	if p.Identity() {
		copy(out, P.Val)
		return out
	}
	e, y := make([]float64, k), make([]float64, k)
	for i := 0; i < n; i++ {
		s0, s1, t0, t1 := P.RowPtr[i], P.RowPtr[i+1], frp[i], frp[i+1]
		f := rowFac[i]
		if f < 0 {
			copy(out[t0*bk:t1*bk], P.Val[s0*bk:s1*bk])
			continue
		}
		L := fac[int64(f)*pk : (int64(f)+1)*pk]
		for q := 0; q < b; q++ {
			clear(e)
			t := t0
			for s := s0; s < s1; s++ {
				J := int64(P.ColIdx[s])
				if t < t1 && int64(fcol[t]) == J {
					t++
					continue
				}
				row := P.Val[s*bk+int64(q*k) : s*bk+int64(q*k+k)]
				B := Bc[J*kk : (J+1)*kk]
				for c := 0; c < k; c++ {
					acc := e[c]
					for l := 0; l < k; l++ {
						acc += row[l] * B[l*k+c]
					}
					e[c] = acc
				}
			}
			for j := 0; j < k; j++ {
				s := e[j]
				for l := 0; l < j; l++ {
					s -= L[j*(j+1)/2+l] * y[l]
				}
				y[j] = s * L[j*(j+1)/2+j]
			}
			for j := k - 1; j >= 0; j-- {
				s := y[j]
				for l := j + 1; l < k; l++ {
					s -= L[l*(l+1)/2+j] * y[l]
				}
				y[j] = s * L[j*(j+1)/2+j]
			}
			t = t0
			for s := s0; s < s1 && t < t1; s++ {
				J := int64(P.ColIdx[s])
				if int64(fcol[t]) != J {
					continue
				}
				B := Bc[J*kk : (J+1)*kk]
				for c := 0; c < k; c++ {
					acc := 0.0
					for l := 0; l < k; l++ {
						acc += y[l] * B[c*k+l]
					}
					out[t*bk+int64(q*k+c)] = P.Val[s*bk+int64(q*k+c)] + acc
				}
				t++
			}
		}
	}
	return out
}

// TestAccessors checks the read-only views against Numeric and Stats: a Numeric
// written from them alone gives P_f to 1e-14 relative per row (bitwise on amd64,
// where Go fuses no multiply-add), the counts agree with Stats, and PfPattern is
// NewPf's pattern.
func TestAccessors(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, sh := range shapes {
		b, k := sh[0], sh[1]
		n, m := 300, 40
		P := randomP(rng, n, m, b, k, 0.2)
		Bc := randomBc(rng, m, k, 0.3, 3, 7, 11)
		for _, theta := range []float64{0, 0.05, 0.3} {
			name := fmt.Sprintf("%d×%d θ=%g", b, k, theta)
			plan, err := Symbolic(P, Bc, theta, Options{})
			if err != nil {
				t.Fatal(err)
			}
			gn, gm, gb, gk := plan.Dims()
			if gn != n || gm != m || gb != b || gk != k {
				t.Fatalf("%s: Dims %d %d %d %d", name, gn, gm, gb, gk)
			}
			prp, pcol := plan.PPattern()
			if !samePattern(P, n, m, b, k, prp, pcol) {
				t.Fatalf("%s: PPattern is not P's", name)
			}
			frp, fcol := plan.PfPattern()
			Pf := poisoned(plan)
			if !samePattern(Pf, n, m, b, k, frp, fcol) {
				t.Fatalf("%s: PfPattern is not NewPf's", name)
			}
			st := plan.Stats()
			corrected := 0
			for i, f := range plan.RowFactors() {
				if f >= 0 {
					corrected++
					if !(frp[i+1]-frp[i] < P.RowPtr[i+1]-P.RowPtr[i]) {
						t.Fatalf("%s: row %d has a factor but lost no block", name, i)
					}
				} else if frp[i+1]-frp[i] != P.RowPtr[i+1]-P.RowPtr[i] {
					t.Fatalf("%s: row %d has no factor but lost blocks", name, i)
				}
			}
			if corrected != st.RowsCorrected || len(plan.Factors()) != corrected*k*(k+1)/2 {
				t.Fatalf("%s: %d rows with a factor, %d values; stats say %d corrected", name, corrected, len(plan.Factors()), st.RowsCorrected)
			}
			if theta > 0 && (st.RowsCorrected == 0 || (k > 1 && st.RowsUnfiltered == 0)) {
				t.Fatalf("%s: the case exercises too little: %+v", name, st)
			}
			if err := plan.Numeric(P, Bc, Pf, 2); err != nil {
				t.Fatal(err)
			}
			got := numericFromAccessors(plan, P, Bc)
			bk := int64(b * k)
			diff := 0
			for i := 0; i < n; i++ {
				lo, hi := frp[i]*bk, frp[i+1]*bk
				if d, w := diffNorm(got[lo:hi], Pf.Val[lo:hi]), norm2(Pf.Val[lo:hi]); !(d <= 1e-14*w) {
					t.Fatalf("%s: row %d differs by %.3g (‖row‖ %.3g)", name, i, d, w)
				}
			}
			for v := range got {
				if math.Float64bits(got[v]) != math.Float64bits(Pf.Val[v]) {
					diff++
				}
			}
			t.Logf("%s: %d corrected, %d unfiltered rows; %d of %d values not bitwise equal", name, st.RowsCorrected, st.RowsUnfiltered, diff, len(got))
		}
	}
}
