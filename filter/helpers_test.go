package filter

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// randomP returns an n×m-block prolongator with b×k blocks: each row gets a random
// subset of the columns (about density·m, at least one unless the row is chosen
// empty), values Gaussian times 10^(−4u) per block so that block norms spread over
// four decades. Some rows are empty and some all-zero, as in amg's P.
func randomP(rng *rand.Rand, n, m, b, k int, density float64) *bsr.Matrix {
	P := &bsr.Matrix{BlockRows: n, BlockCols: m, R: b, C: k, RowPtr: make([]int64, n+1)}
	for i := 0; i < n; i++ {
		if rng.IntN(20) == 0 { // empty row
			P.RowPtr[i+1] = P.RowPtr[i]
			continue
		}
		zero := rng.IntN(25) == 0
		var cols []int32
		for J := 0; J < m; J++ {
			if rng.Float64() < density {
				cols = append(cols, int32(J))
			}
		}
		if len(cols) == 0 {
			cols = append(cols, int32(rng.IntN(m)))
		}
		P.ColIdx = append(P.ColIdx, cols...)
		for range cols {
			scale := math.Pow(10, -4*rng.Float64())
			if zero {
				scale = 0
			}
			for range b * k {
				P.Val = append(P.Val, scale*rng.NormFloat64())
			}
		}
		P.RowPtr[i+1] = int64(len(P.ColIdx))
	}
	if P.Val == nil {
		P.Val = []float64{}
	}
	return P
}

// randomBc returns m coarse blocks k×k: diagonal entries in [1, 2] plus Gaussian
// entries of standard deviation offDiag everywhere (offDiag = 0.3: condition numbers
// up to about 10, like the QR factors of ex56's hierarchies; larger offDiag gives
// ill-conditioned blocks). Blocks listed in singular get their last row zeroed (rank
// k−1).
func randomBc(rng *rand.Rand, m, k int, offDiag float64, singular ...int) []float64 {
	Bc := make([]float64, m*k*k)
	for J := 0; J < m; J++ {
		B := Bc[J*k*k : (J+1)*k*k]
		for r := 0; r < k; r++ {
			for c := 0; c < k; c++ {
				B[r*k+c] = offDiag * rng.NormFloat64()
				if c == r {
					B[r*k+c] += 1 + rng.Float64()
				}
			}
		}
		if slices.Contains(singular, J) {
			clear(B[(k-1)*k:])
		}
	}
	return Bc
}

// rowTimesBc returns (P·B_c)_i (b×k) by plain loops, independent of the package.
func rowTimesBc(P *bsr.Matrix, Bc []float64, i int) []float64 {
	b, k := P.R, P.C
	T := make([]float64, b*k)
	for s := P.RowPtr[i]; s < P.RowPtr[i+1]; s++ {
		J := int(P.ColIdx[s])
		blk := P.Val[s*int64(b*k) : (s+1)*int64(b*k)]
		for r := 0; r < b; r++ {
			for c := 0; c < k; c++ {
				for l := 0; l < k; l++ {
					T[r*k+c] += blk[r*k+l] * Bc[J*k*k+l*k+c]
				}
			}
		}
	}
	return T
}

// norm2 returns the Frobenius norm of a (bsr.Norm: the plain root in range, no
// overflow or underflow for the scaled tests).
func norm2(a []float64) float64 { return bsr.Norm(a) }

// diffNorm returns ‖a − b‖_F.
func diffNorm(a, b []float64) float64 {
	d := make([]float64, len(a))
	for t := range a {
		d[t] = a[t] - b[t]
	}
	return bsr.Norm(d)
}

// poisoned returns a matrix with Pf's pattern whose values are NaN, so that a value
// Numeric fails to write shows.
func poisoned(p *Plan) *bsr.Matrix {
	Pf := p.NewPf()
	for t := range Pf.Val {
		Pf.Val[t] = math.NaN()
	}
	return Pf
}

// fromPattern builds a plan whose survivors are the blocks of pattern (a sub-pattern
// of P's): the from-scratch construction for a given pattern that Numeric's reuse is
// compared with.
func fromPattern(t testing.TB, P *bsr.Matrix, Bc []float64, pattern *bsr.Matrix) *Plan {
	t.Helper()
	opt := Options{}
	if err := checkInput(P, Bc, &opt); err != nil {
		t.Fatal(err)
	}
	keep := make([]bool, P.NNZBlocks())
	for i := 0; i < P.BlockRows; i++ {
		q := pattern.RowPtr[i]
		for s := P.RowPtr[i]; s < P.RowPtr[i+1]; s++ {
			if q < pattern.RowPtr[i+1] && pattern.ColIdx[q] == P.ColIdx[s] {
				keep[s] = true
				q++
			}
		}
		if q != pattern.RowPtr[i+1] {
			t.Fatalf("row %d: pattern is not a sub-pattern of P", i)
		}
	}
	return build(P, Bc, keep, opt)
}

// blockNorm returns the Frobenius norm of block s of P.
func blockNorm(P *bsr.Matrix, s int64) float64 {
	return norm2(P.Block(s))
}

// rowScale returns Σ_J ‖P_iJ‖‖B_cJ‖ + Σ_J ‖P_f,iJ‖‖B_cJ‖, the size of the terms of
// (P·B_c)_i and (P_f·B_c)_i: the scale of their round-off.
func rowScale(P, Pf *bsr.Matrix, Bc []float64, i int) float64 {
	k := P.C
	s := 0.0
	for _, M := range []*bsr.Matrix{P, Pf} {
		for q := M.RowPtr[i]; q < M.RowPtr[i+1]; q++ {
			J := int(M.ColIdx[q])
			s += blockNorm(M, q) * norm2(Bc[J*k*k:(J+1)*k*k])
		}
	}
	return s
}
