package bsr

import (
	"math"

	"github.com/blockamg/blockamg/internal/par"
)

// Scale multiplies every stored value by alpha, in place.
func (m *Matrix) Scale(alpha float64) {
	par.For(len(m.Val), 0, int(minChunkBlocks)*4, func(lo, hi int) {
		for i, v := range m.Val[lo:hi] {
			m.Val[lo+i] = alpha * v
		}
	})
}

// AddSamePattern computes m += alpha*o in place. It panics unless o has the same
// dimensions, block shape and pattern as m (see SamePattern).
func (m *Matrix) AddSamePattern(alpha float64, o *Matrix) {
	if !m.SamePattern(o) {
		panic("bsr: AddSamePattern: patterns differ")
	}
	par.For(len(m.Val), 0, int(minChunkBlocks)*4, func(lo, hi int) {
		ov := o.Val[lo:hi]
		for i, v := range m.Val[lo:hi] {
			m.Val[lo+i] = v + alpha*ov[i]
		}
	})
}

// BlockNorms returns the Frobenius norm of every stored block, in storage order.
func (m *Matrix) BlockNorms() []float64 {
	nb := m.NNZBlocks()
	bs := int64(m.BlockSize())
	out := make([]float64, nb)
	par.ForWeighted(m.RowPtr, 0, minChunkBlocks, func(lo, hi int) {
		for k := m.RowPtr[lo]; k < m.RowPtr[hi]; k++ {
			out[k] = norm2(m.Val[k*bs : (k+1)*bs])
		}
	})
	return out
}

// FrobeniusNorm returns the Frobenius norm of m, computed without overflow or underflow
// for any finite values, serially so that it is reproducible.
func (m *Matrix) FrobeniusNorm() float64 { return norm2(m.Val) }

// norm2 returns the Euclidean norm of v, scaling by the largest magnitude so that the
// squares neither overflow nor underflow.
func norm2(v []float64) float64 {
	amax := 0.0
	for _, x := range v {
		if math.IsNaN(x) {
			return math.NaN()
		}
		amax = math.Max(amax, math.Abs(x))
	}
	if amax == 0 || math.IsInf(amax, 0) {
		return amax
	}
	s := 0.0
	for _, x := range v {
		q := x / amax
		s += q * q
	}
	return amax * math.Sqrt(s)
}

// ApproxEqual reports whether ‖m − o‖_F ≤ rtol·max(‖m‖_F, ‖o‖_F). The patterns may
// differ: a block stored in one matrix only is compared with zero. Matrices of
// different block dimensions or block shapes are never equal; NaN anywhere makes the
// answer false.
func (m *Matrix) ApproxEqual(o *Matrix, rtol float64) bool {
	if m.BlockRows != o.BlockRows || m.BlockCols != o.BlockCols || m.R != o.R || m.C != o.C {
		return false
	}
	// Scale everything by the largest magnitude in either matrix, so sums of squares
	// stay in range.
	amax := 0.0
	for _, vs := range [][]float64{m.Val, o.Val} {
		for _, v := range vs {
			if math.IsNaN(v) {
				return false
			}
			amax = math.Max(amax, math.Abs(v))
		}
	}
	if amax == 0 {
		return true
	}
	if math.IsInf(amax, 0) {
		return false
	}
	bs := int64(m.BlockSize())
	var diff, nm, no float64
	sq := func(acc *float64, v []float64) {
		for _, x := range v {
			q := x / amax
			*acc += q * q
		}
	}
	for i := 0; i < m.BlockRows; i++ {
		k, kend := m.RowPtr[i], m.RowPtr[i+1]
		l, lend := o.RowPtr[i], o.RowPtr[i+1]
		for k < kend || l < lend {
			switch {
			case l == lend || (k < kend && m.ColIdx[k] < o.ColIdx[l]):
				sq(&diff, m.Val[k*bs:(k+1)*bs])
				k++
			case k == kend || o.ColIdx[l] < m.ColIdx[k]:
				sq(&diff, o.Val[l*bs:(l+1)*bs])
				l++
			default:
				a, b := m.Val[k*bs:(k+1)*bs], o.Val[l*bs:(l+1)*bs]
				for t := range a {
					q := (a[t] - b[t]) / amax
					diff += q * q
				}
				k++
				l++
			}
		}
	}
	sq(&nm, m.Val)
	sq(&no, o.Val)
	return math.Sqrt(diff) <= rtol*math.Sqrt(math.Max(nm, no))
}
