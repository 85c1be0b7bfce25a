package bsr

import (
	"github.com/blockamg/blockamg/internal/bsrkern"
	"github.com/blockamg/blockamg/internal/par"
)

// MulVec computes y = alpha*A*x + beta*y on par.Workers() goroutines. When beta is 0, y
// is overwritten and whatever it held (NaN included) does not propagate; when alpha is
// 0, A and x are not read. It panics when len(x) != m.Cols() or len(y) != m.Rows().
// The result is bitwise identical for any worker count.
func (m *Matrix) MulVec(alpha float64, x []float64, beta float64, y []float64) {
	m.MulVecWorkers(0, alpha, x, beta, y)
}

// MulVecWorkers is MulVec on at most workers goroutines (workers <= 0 means
// par.Workers()). Every block row is computed by one goroutine, left to right, so the
// bits do not depend on workers.
func (m *Matrix) MulVecWorkers(workers int, alpha float64, x []float64, beta float64, y []float64) {
	if len(x) != m.Cols() || len(y) != m.Rows() {
		panic("bsr: MulVec: vector length mismatch")
	}
	if alpha == 0 {
		scaleVec(beta, y)
		return
	}
	par.ForWeighted(m.RowPtr, workers, minChunkBlocks, func(lo, hi int) {
		switch {
		case bsrkern.Has(m.R, m.C, false):
			m.mulRowsVector(lo, hi, alpha, x, beta, y)
		case m.R == 3 && m.C == 3:
			m.mulRows33(lo, hi, alpha, x, beta, y)
		case m.R == 6 && m.C == 6:
			m.mulRows66(lo, hi, alpha, x, beta, y)
		case m.R == 3 && m.C == 6:
			m.mulRowsKernel(lo, hi, alpha, x, beta, y, gemv36)
		case m.R == 6 && m.C == 3:
			m.mulRowsKernel(lo, hi, alpha, x, beta, y, gemv63)
		default:
			m.mulRowsGeneric(lo, hi, alpha, x, beta, y)
		}
	})
}

// scaleVec sets y = beta*y, with beta == 0 clearing y so that NaN does not survive.
func scaleVec(beta float64, y []float64) {
	switch beta {
	case 1:
	case 0:
		clear(y)
	default:
		for i := range y {
			y[i] *= beta
		}
	}
}

// store writes y = alpha*s + beta*y for one block row's sums s.
func store(alpha float64, s []float64, beta float64, y []float64) {
	y = y[:len(s)]
	if beta == 0 {
		for t, v := range s {
			y[t] = alpha * v
		}
		return
	}
	for t, v := range s {
		y[t] = alpha*v + beta*y[t]
	}
}

func (m *Matrix) mulRowsGeneric(lo, hi int, alpha float64, x []float64, beta float64, y []float64) {
	r, c := m.R, m.C
	bs := int64(r * c)
	s := make([]float64, r)
	for i := lo; i < hi; i++ {
		clear(s)
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			j := int(m.ColIdx[k]) * c
			GemvAcc(r, c, m.Val[k*bs:(k+1)*bs], x[j:j+c], s)
		}
		store(alpha, s, beta, y[i*r:])
	}
}

// mulRowsKernel is mulRowsGeneric with the block kernel fixed by the caller, which
// skips GemvAcc's shape dispatch and length checks on every block.
func (m *Matrix) mulRowsKernel(lo, hi int, alpha float64, x []float64, beta float64, y []float64, kern func(a, x, y []float64)) {
	r, c := m.R, m.C
	bs := int64(r * c)
	var sb [6]float64
	s := sb[:r]
	for i := lo; i < hi; i++ {
		clear(s)
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			j := int(m.ColIdx[k]) * c
			kern(m.Val[k*bs:(k+1)*bs], x[j:j+c], s)
		}
		store(alpha, s, beta, y[i*r:])
	}
}

// vectorChunk is the block rows mulRowsVector hands the vector kernels a call.
const vectorChunk = 32

// mulRowsVector is mulRows33, mulRows66 or the 3×6 rows (a prolongator's) through
// the vector kernels of package bsrkern (AVX2 with fused multiply-adds), chunk by
// chunk; each row's bits depend on that row alone.
func (m *Matrix) mulRowsVector(lo, hi int, alpha float64, x []float64, beta float64, y []float64) {
	r := m.R
	var sb [6 * vectorChunk]float64
	var lanes [bsrkern.ScratchMax * vectorChunk]float64
	for c := lo; c < hi; c += vectorChunk {
		e := min(c+vectorChunk, hi)
		s := sb[:(e-c)*r]
		bsrkern.MulRows(r, m.C, m.RowPtr, m.ColIdx, m.Val, c, e, x, s, lanes[:])
		store(alpha, s, beta, y[c*r:])
	}
}

func (m *Matrix) mulRows33(lo, hi int, alpha float64, x []float64, beta float64, y []float64) {
	var s [3]float64
	for i := lo; i < hi; i++ {
		var s0, s1, s2 float64
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			j := int(m.ColIdx[k]) * 3
			xb := (*[3]float64)(x[j:])
			b := (*[9]float64)(m.Val[k*9:])
			x0, x1, x2 := xb[0], xb[1], xb[2]
			s0 = s0 + b[0]*x0 + b[1]*x1 + b[2]*x2
			s1 = s1 + b[3]*x0 + b[4]*x1 + b[5]*x2
			s2 = s2 + b[6]*x0 + b[7]*x1 + b[8]*x2
		}
		s[0], s[1], s[2] = s0, s1, s2
		store(alpha, s[:], beta, y[i*3:])
	}
}

func (m *Matrix) mulRows66(lo, hi int, alpha float64, x []float64, beta float64, y []float64) {
	var s [6]float64
	for i := lo; i < hi; i++ {
		s = [6]float64{}
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			j := int(m.ColIdx[k]) * 6
			xb := (*[6]float64)(x[j:])
			b := (*[36]float64)(m.Val[k*36:])
			x0, x1, x2, x3, x4, x5 := xb[0], xb[1], xb[2], xb[3], xb[4], xb[5]
			for t := 0; t < 6; t++ {
				s[t] = s[t] + b[6*t]*x0 + b[6*t+1]*x1 + b[6*t+2]*x2 + b[6*t+3]*x3 + b[6*t+4]*x4 + b[6*t+5]*x5
			}
		}
		store(alpha, s[:], beta, y[i*6:])
	}
}

// MulTransVec computes y = alpha*Aᵀ*x + beta*y without forming Aᵀ, on par.Workers()
// goroutines. beta == 0 overwrites y; alpha == 0 does not read A or x. It panics when
// len(x) != m.Rows() or len(y) != m.Cols().
//
// Each goroutine owns a contiguous range of block columns (of y) and walks all block
// rows in increasing order, so every y block receives its terms in block-row order
// whatever the split: the result is bitwise identical for any worker count. The price
// is that every goroutine reads the whole row pointer; rows whose column span misses
// its range are skipped in O(1).
func (m *Matrix) MulTransVec(alpha float64, x []float64, beta float64, y []float64) {
	m.MulTransVecWorkers(0, alpha, x, beta, y)
}

// MulTransVecWorkers is MulTransVec on at most workers goroutines (workers <= 0 means
// par.Workers()).
func (m *Matrix) MulTransVecWorkers(workers int, alpha float64, x []float64, beta float64, y []float64) {
	if len(x) != m.Rows() || len(y) != m.Cols() {
		panic("bsr: MulTransVec: vector length mismatch")
	}
	if alpha == 0 {
		scaleVec(beta, y)
		return
	}
	if workers <= 0 {
		workers = par.Workers()
	}
	work := m.NNZBlocks() + int64(m.BlockRows)
	chunks := int(min(int64(workers), work/minChunkBlocks))
	chunks = max(chunks, 1)
	grain := (m.BlockCols + chunks - 1) / chunks
	par.For(m.BlockCols, chunks, grain, func(clo, chi int) {
		scaleVec(beta, y[clo*m.C:chi*m.C])
		m.mulTransCols(int32(clo), int32(chi), alpha, x, y)
	})
}

// mulTransCols adds alpha*Aᵀx to the y blocks of block columns [clo, chi).
func (m *Matrix) mulTransCols(clo, chi int32, alpha float64, x, y []float64) {
	r, c := m.R, m.C
	if r == 3 && c == 6 && bsrkern.Enabled {
		// A prolongator's restriction: the vector kernel, the loop below's bits.
		bsrkern.TransRows36(m.RowPtr, m.ColIdx, m.Val, 0, m.BlockRows, alpha, x, y, int(clo), int(chi))
		return
	}
	bs := int64(r * c)
	ax := make([]float64, r)
	// The kernel is chosen once: GemvTAcc's dispatch and checks per block cost more
	// than the block itself. 3×3 and 3×6 (a prolongator's) are inlined below, with
	// gemvT33's and gemvT36's operations in their order: the call through a function
	// value cost as much as the block.
	kern := gemvTGeneric
	switch {
	case r == 6 && c == 6:
		kern = func(_, _ int, a, x, y []float64) { gemvT66(a, x, y) }
	case r == 6 && c == 3:
		kern = func(_, _ int, a, x, y []float64) { gemvT63(a, x, y) }
	}
	for i := 0; i < m.BlockRows; i++ {
		lo, hi := m.RowPtr[i], m.RowPtr[i+1]
		if lo == hi || m.ColIdx[lo] >= chi || m.ColIdx[hi-1] < clo {
			continue
		}
		k := lo
		if m.ColIdx[lo] < clo {
			k = searchCol(m.ColIdx, lo, hi, clo)
		}
		for t := range ax {
			ax[t] = alpha * x[i*r+t]
		}
		if r == 3 && c == 3 {
			a0, a1, a2 := ax[0], ax[1], ax[2]
			for ; k < hi && m.ColIdx[k] < chi; k++ {
				j := int(m.ColIdx[k]) * 3
				yb := (*[3]float64)(y[j:])
				b := (*[9]float64)(m.Val[k*9:])
				yb[0] = yb[0] + b[0]*a0 + b[3]*a1 + b[6]*a2
				yb[1] = yb[1] + b[1]*a0 + b[4]*a1 + b[7]*a2
				yb[2] = yb[2] + b[2]*a0 + b[5]*a1 + b[8]*a2
			}
			continue
		}
		if r == 3 && c == 6 {
			a0, a1, a2 := ax[0], ax[1], ax[2]
			for ; k < hi && m.ColIdx[k] < chi; k++ {
				j := int(m.ColIdx[k]) * 6
				yb := (*[6]float64)(y[j:])
				b := (*[18]float64)(m.Val[k*18:])
				yb[0] = yb[0] + b[0]*a0 + b[6]*a1 + b[12]*a2
				yb[1] = yb[1] + b[1]*a0 + b[7]*a1 + b[13]*a2
				yb[2] = yb[2] + b[2]*a0 + b[8]*a1 + b[14]*a2
				yb[3] = yb[3] + b[3]*a0 + b[9]*a1 + b[15]*a2
				yb[4] = yb[4] + b[4]*a0 + b[10]*a1 + b[16]*a2
				yb[5] = yb[5] + b[5]*a0 + b[11]*a1 + b[17]*a2
			}
			continue
		}
		for ; k < hi && m.ColIdx[k] < chi; k++ {
			j := int(m.ColIdx[k]) * c
			kern(r, c, m.Val[k*bs:(k+1)*bs], ax, y[j:j+c])
		}
	}
}

// searchCol returns the first k in [lo, hi) with col[k] >= target (hi if none).
func searchCol(col []int32, lo, hi int64, target int32) int64 {
	for lo < hi {
		mid := lo + (hi-lo)/2
		if col[mid] < target {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
