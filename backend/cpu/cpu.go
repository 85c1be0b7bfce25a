package cpu

import (
	"math"
	"time"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// Backend is the CPU backend. The zero value is not usable; call New.
type Backend struct {
	workers  int
	phase    string
	counters backend.Counters
	cg       cgState     // backend.CGStepper's scalars
	marks    []time.Time // backend.Marker's time stamps
}

var _ backend.Backend = (*Backend)(nil)

// New returns a CPU backend running on workers goroutines (workers <= 0 means
// par.Workers()).
func New(workers int) *Backend { return &Backend{workers: workers} }

// Name returns "cpu".
func (b *Backend) Name() string { return "cpu" }

// Vector is a CPU vector.
type Vector struct {
	data []float64
	free bool
}

// Len returns the number of entries.
func (v *Vector) Len() int { return len(v.data) }

// Free drops the storage.
func (v *Vector) Free() { v.data, v.free = nil, true }

// Data returns the entries, aliasing the vector.
func (v *Vector) Data() []float64 { return v.data }

// Matrix is an operator on the CPU: the bsr.Matrix itself, not copied.
type Matrix struct {
	m    *bsr.Matrix
	free bool
}

// Dims returns the block dimensions and shape.
func (m *Matrix) Dims() (int, int, int, int) { return m.m.BlockRows, m.m.BlockCols, m.m.R, m.m.C }

// Free drops the reference.
func (m *Matrix) Free() { m.m, m.free = nil, true }

// BlockDiag holds b×b blocks, row-major, consecutively.
type BlockDiag struct {
	blocks, b int
	val       []float64
	free      bool
}

// Dims returns the block count and size.
func (d *BlockDiag) Dims() (int, int) { return d.blocks, d.b }

// Free drops the storage.
func (d *BlockDiag) Free() { d.val, d.free = nil, true }

func vec(v backend.Vector) []float64 {
	cv, ok := v.(*Vector)
	if !ok {
		panic("cpu: vector from another backend")
	}
	if cv.free {
		panic("cpu: vector used after Free")
	}
	return cv.data
}

func mat(a backend.Matrix) *bsr.Matrix {
	m, ok := a.(*Matrix)
	if !ok {
		panic("cpu: matrix from another backend")
	}
	if m.free {
		panic("cpu: matrix used after Free")
	}
	return m.m
}

// NewVector returns a zero vector.
func (b *Backend) NewVector(n int) (backend.Vector, error) {
	if n < 0 {
		panic("cpu: negative vector length")
	}
	return &Vector{data: make([]float64, n)}, nil
}

// UploadMatrix wraps m without copying: the caller must not change m while it is in
// use. The transpose is applied with bsr's MulTransVec, which is deterministic.
func (b *Backend) UploadMatrix(m *bsr.Matrix, withTranspose bool) (backend.Matrix, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &Matrix{m: m}, nil
}

// UploadBlockDiag copies the blocks.
func (b *Backend) UploadBlockDiag(blocks, bs int, vals []float64) (backend.BlockDiag, error) {
	if blocks < 0 || bs < 1 || len(vals) != blocks*bs*bs {
		panic("cpu: UploadBlockDiag: len(vals) != blocks*b*b")
	}
	return &BlockDiag{blocks: blocks, b: bs, val: append([]float64(nil), vals...)}, nil
}

func sameLen(n int, vs ...[]float64) {
	for _, v := range vs {
		if len(v) != n {
			panic("cpu: vector length mismatch")
		}
	}
}

// Upload copies src into dst.
func (b *Backend) Upload(dst backend.Vector, src []float64) {
	d := vec(dst)
	sameLen(len(d), src)
	copy(d, src)
}

// Download copies src into dst.
func (b *Backend) Download(dst []float64, src backend.Vector) {
	s := vec(src)
	sameLen(len(s), dst)
	copy(dst, s)
}

// Copy sets dst = src.
func (b *Backend) Copy(dst, src backend.Vector) {
	d, s := vec(dst), vec(src)
	sameLen(len(d), s)
	copy(d, s)
}

// Zero clears v.
func (b *Backend) Zero(v backend.Vector) { clear(vec(v)) }

// SpMV computes y = alpha·A·x + beta·y.
func (b *Backend) SpMV(alpha float64, a backend.Matrix, x backend.Vector, beta float64, y backend.Vector) {
	mat(a).MulVecWorkers(b.workers, alpha, vec(x), beta, vec(y))
}

// SpMVTrans computes y = alpha·Aᵀ·x + beta·y.
func (b *Backend) SpMVTrans(alpha float64, a backend.Matrix, x backend.Vector, beta float64, y backend.Vector) {
	mat(a).MulTransVecWorkers(b.workers, alpha, vec(x), beta, vec(y))
}

// grain is the least number of entries per chunk of the vector loops.
const grain = 1 << 14

// BlockDiagApply computes y = D·x.
func (b *Backend) BlockDiagApply(d backend.BlockDiag, x, y backend.Vector) {
	bd, ok := d.(*BlockDiag)
	if !ok {
		panic("cpu: block diagonal from another backend")
	}
	if bd.free {
		panic("cpu: block diagonal used after Free")
	}
	xs, ys := vec(x), vec(y)
	n := bd.blocks * bd.b
	sameLen(n, xs, ys)
	bs := bd.b
	par.For(bd.blocks, b.workers, grain/(bs*bs), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			blk := bd.val[i*bs*bs : (i+1)*bs*bs]
			xb := xs[i*bs : (i+1)*bs]
			yb := ys[i*bs : (i+1)*bs]
			for r := 0; r < bs; r++ {
				s := 0.0
				for c, v := range blk[r*bs : (r+1)*bs] {
					s += v * xb[c]
				}
				yb[r] = s
			}
		}
	})
}

// Axpby computes y = a·x + b·y; b == 0 does not read y.
func (b *Backend) Axpby(a float64, x backend.Vector, bb float64, y backend.Vector) {
	xs, ys := vec(x), vec(y)
	sameLen(len(ys), xs)
	par.For(len(ys), b.workers, grain, func(lo, hi int) {
		if bb == 0 {
			for i := lo; i < hi; i++ {
				ys[i] = a * xs[i]
			}
			return
		}
		for i := lo; i < hi; i++ {
			ys[i] = a*xs[i] + bb*ys[i]
		}
	})
}

// Scale computes x = a·x.
func (b *Backend) Scale(a float64, x backend.Vector) {
	xs := vec(x)
	par.For(len(xs), b.workers, grain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xs[i] *= a
		}
	})
}

// Vmul computes z = a·x∘y + b·z; b == 0 does not read z.
func (b *Backend) Vmul(a float64, x, y backend.Vector, bb float64, z backend.Vector) {
	xs, ys, zs := vec(x), vec(y), vec(z)
	sameLen(len(zs), xs, ys)
	par.For(len(zs), b.workers, grain, func(lo, hi int) {
		if bb == 0 {
			for i := lo; i < hi; i++ {
				zs[i] = a * xs[i] * ys[i]
			}
			return
		}
		for i := lo; i < hi; i++ {
			zs[i] = a*xs[i]*ys[i] + bb*zs[i]
		}
	})
}

// dotChunks is the fixed number of partial sums of Dot: a constant, not the worker
// count, so that the summation order and the bits never depend on the machine.
const dotChunks = 64

// Dot returns xᵀy: dotChunks contiguous partial sums, each summed left to right, then
// added in chunk order.
func (b *Backend) Dot(x, y backend.Vector) float64 {
	xs, ys := vec(x), vec(y)
	sameLen(len(xs), ys)
	n := len(xs)
	chunks := min(dotChunks, max(n, 1))
	var part [dotChunks]float64
	par.For(chunks, b.workers, max(1, chunks*grain/max(n, 1)), func(lo, hi int) {
		for c := lo; c < hi; c++ {
			s, e := par.Split(n, chunks, c)
			acc := 0.0
			for i := s; i < e; i++ {
				acc += xs[i] * ys[i]
			}
			part[c] = acc
		}
	})
	sum := 0.0
	for _, p := range part[:chunks] {
		sum += p
	}
	return sum
}

// Norm returns √(xᵀx).
func (b *Backend) Norm(x backend.Vector) float64 { return math.Sqrt(b.Dot(x, x)) }

// SetPhase sets the phase name (the CPU moves no bytes, so it only labels).
func (b *Backend) SetPhase(name string) string {
	prev := b.phase
	b.phase = name
	return prev
}

// Counters returns the (always empty) transfer counters.
func (b *Backend) Counters() *backend.Counters { return &b.counters }

// Err returns nil: the CPU backend has no deferred failures.
func (b *Backend) Err() error { return nil }

// Close does nothing.
func (b *Backend) Close() error { return nil }

var _ backend.ChebStepper = (*Backend)(nil)

// ChebStep computes d = c1·d + c2·D⁻¹(b − A·x) and xOut = x + d row block by row
// block.
func (b *Backend) ChebStep(a backend.Matrix, dinv backend.BlockDiag, bv, xv backend.Vector, c1, c2 float64, dv, xov backend.Vector) {
	A, bd := mat(a), diag(dinv)
	rhs, x, d, xo := vec(bv), vec(xv), vec(dv), vec(xov)
	n := A.Rows()
	if A.R != A.C || A.BlockRows != A.BlockCols || bd.blocks != A.BlockRows || bd.b != A.R {
		panic("cpu: ChebStep: shapes do not match")
	}
	sameLen(n, rhs, x, d, xo)
	if n > 0 && (&xo[0] == &x[0] || &xo[0] == &d[0] || &xo[0] == &rhs[0] || &d[0] == &x[0] || &d[0] == &rhs[0]) {
		panic("cpu: ChebStep: d or xOut aliases another vector")
	}
	bs := A.R
	par.ForWeighted(A.RowPtr, b.workers, 1024, func(lo, hi int) {
		r := make([]float64, bs)
		for i := lo; i < hi; i++ {
			for q := 0; q < bs; q++ {
				r[q] = rhs[i*bs+q]
			}
			for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
				j := int(A.ColIdx[k])
				blk := A.Val[k*int64(bs*bs) : (k+1)*int64(bs*bs)]
				for q := 0; q < bs; q++ {
					s := 0.0
					for c := 0; c < bs; c++ {
						s += blk[q*bs+c] * x[j*bs+c]
					}
					r[q] -= s
				}
			}
			dblk := bd.val[i*bs*bs : (i+1)*bs*bs]
			for q := 0; q < bs; q++ {
				u := 0.0
				for c := 0; c < bs; c++ {
					u += dblk[q*bs+c] * r[c]
				}
				o := i*bs + q
				if c1 == 0 {
					d[o] = c2 * u
				} else {
					d[o] = c1*d[o] + c2*u
				}
				xo[o] = x[o] + d[o]
			}
		}
	})
}

// Residual computes r = b − A·x.
func (b *Backend) Residual(a backend.Matrix, bv, xv, rv backend.Vector) {
	copy(vec(rv), vec(bv))
	b.SpMV(-1, a, xv, 1, rv)
}

// DiagApply2 computes y = z = s·D·x.
func (b *Backend) DiagApply2(d backend.BlockDiag, s float64, xv, yv, zv backend.Vector) {
	b.BlockDiagApply(d, xv, yv)
	y, z := vec(yv), vec(zv)
	for i := range y {
		y[i] *= s
		z[i] = y[i]
	}
}
