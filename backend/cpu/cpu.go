package cpu

import (
	"fmt"
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

// Matrix is an operator on the CPU: the bsr.Matrix itself, not copied, and for a
// smoothing operator from UploadMatrixFloat32 a float32 copy of its values that
// ChebStep and Residual read instead, or from UploadMatrixSymmetric a copy of its
// blocks on and above the diagonal that ChebStep, Residual and SpMV read.
type Matrix struct {
	m    *bsr.Matrix
	v32  []float32
	up   *bsr.Upper
	free bool
}

// Dims returns the block dimensions and shape.
func (m *Matrix) Dims() (int, int, int, int) { return m.m.BlockRows, m.m.BlockCols, m.m.R, m.m.C }

// Free drops the reference.
func (m *Matrix) Free() { m.m, m.v32, m.up, m.free = nil, nil, nil, true }

// BSR returns the host matrix the operator is (not a copy), for code that runs host
// algorithms on the CPU backend's operators: package amg's symbolic set-up behind a
// backend.Coarsener made of this backend (internal/hostcoarsen).
func (m *Matrix) BSR() *bsr.Matrix { return mat(m) }

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

func mat(a backend.Matrix) *bsr.Matrix { return smoothing(a).m }

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
	if m := smoothing(a); m.up != nil {
		m.up.MulVecWorkers(b.workers, alpha, vec(x), beta, vec(y))
		return
	}
	mat(a).MulVecWorkers(b.workers, alpha, vec(x), beta, vec(y))
}

// SpMVTrans computes y = alpha·Aᵀ·x + beta·y.
func (b *Backend) SpMVTrans(alpha float64, a backend.Matrix, x backend.Vector, beta float64, y backend.Vector) {
	if m := smoothing(a); m.up != nil { // symmetric
		m.up.MulVecWorkers(b.workers, alpha, vec(x), beta, vec(y))
		return
	}
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
	par.For(bd.blocks, b.workers, max(1, grain/(bs*bs)), func(lo, hi int) {
		var z [8]float64
		zz := z[:]
		if bs > len(z) {
			zz = make([]float64, bs)
		}
		for i := lo; i < hi; i++ {
			blockGemv(bs, bd.val[i*bs*bs:(i+1)*bs*bs], xs[i*bs:(i+1)*bs], zz)
			copy(ys[i*bs:(i+1)*bs], zz[:bs])
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

// dotChunk is the fixed length of the pieces inner products are split into: partial
// sums per chunk, added in chunk order, so the bits never depend on the worker count.
const dotChunk = 4096

// Dot returns xᵀy: partial sums over consecutive chunks of dotChunk entries, each
// summed left to right, then added in chunk order.
func (b *Backend) Dot(x, y backend.Vector) float64 {
	xs, ys := vec(x), vec(y)
	sameLen(len(xs), ys)
	return reduce(len(xs), b.workers, func(lo, hi int) float64 {
		s := 0.0
		for i := lo; i < hi; i++ {
			s += xs[i] * ys[i]
		}
		return s
	})
}

// reduce sums part(lo, hi) over the fixed chunks of [0, n) in chunk order.
func reduce(n, workers int, part func(lo, hi int) float64) float64 {
	nc := (n + dotChunk - 1) / dotChunk
	if nc <= 1 {
		if n == 0 {
			return 0
		}
		return part(0, n)
	}
	partial := make([]float64, nc)
	par.For(nc, workers, 1, func(clo, chi int) {
		for c := clo; c < chi; c++ {
			partial[c] = part(c*dotChunk, min((c+1)*dotChunk, n))
		}
	})
	s := 0.0
	for _, v := range partial {
		s += v
	}
	return s
}

// Norm returns ‖x‖₂. The plain sum of squares overflows for entries beyond about
// 1e154 and underflows below about 1e-154, which would turn a valid residual into Inf
// (a false breakdown) or 0 (a false convergence) for a badly scaled system; only then
// is it recomputed on x scaled by a power of two (exact), in the same chunk order.
func (b *Backend) Norm(x backend.Vector) float64 {
	xs := vec(x)
	return SafeNorm(xs, b.Dot(x, x), b.workers)
}

// SafeNorm returns ‖v‖₂ given ss, the plain sum of squares of v (see Norm). NaN stays
// NaN.
func SafeNorm(v []float64, ss float64, workers int) float64 {
	const tiny = 0x1p-900 // well above the subnormals, far below any sane squared norm
	if ss >= tiny && !math.IsInf(ss, 0) || math.IsNaN(ss) {
		return math.Sqrt(ss)
	}
	amax := 0.0
	for _, x := range v {
		amax = math.Max(amax, math.Abs(x))
	}
	if amax == 0 || math.IsInf(amax, 0) || math.IsNaN(amax) {
		return amax
	}
	_, e := math.Frexp(amax)
	s := math.Ldexp(1, -e)
	ss = reduce(len(v), workers, func(lo, hi int) float64 {
		t := 0.0
		for _, x := range v[lo:hi] {
			x *= s
			t += x * x
		}
		return t
	})
	return math.Sqrt(ss) / s
}

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

// ChebStep computes d = c1·d + c2·D⁻¹(b − A·x) and xOut = x + d row block by row,
// with a's float32 values when it has them (UploadMatrixFloat32).
func (b *Backend) ChebStep(a backend.Matrix, dinv backend.BlockDiag, bv, xv backend.Vector, c1, c2 float64, dv, xov backend.Vector) {
	m := smoothing(a)
	A, bd := m.m, diag(dinv)
	rhs, x, d, xo := vec(bv), vec(xv), vec(dv), vec(xov)
	n := A.Rows()
	if A.R != A.C || A.BlockRows != A.BlockCols || bd.blocks != A.BlockRows || bd.b != A.R {
		panic("cpu: ChebStep: shapes do not match")
	}
	sameLen(n, rhs, x, d, xo)
	if n > 0 && (&xo[0] == &x[0] || &xo[0] == &d[0] || &xo[0] == &rhs[0] || &d[0] == &x[0] || &d[0] == &rhs[0]) {
		panic("cpu: ChebStep: d or xOut aliases another vector")
	}
	switch {
	case m.up != nil:
		chebStepSym(m.up, bd.val, rhs, x, d, xo, c1, c2, b.workers)
	case m.v32 != nil:
		chebStepT(A, m.v32, bd.val, rhs, x, d, xo, c1, c2, b.workers)
	default:
		chebStepT(A, A.Val, bd.val, rhs, x, d, xo, c1, c2, b.workers)
	}
}

// Residual computes r = b − A·x, with a's float32 values when it has them.
func (b *Backend) Residual(a backend.Matrix, bv, xv, rv backend.Vector) {
	m := smoothing(a)
	rhs, x, r := vec(bv), vec(xv), vec(rv)
	sameLen(m.m.Rows(), rhs, r)
	sameLen(m.m.Cols(), x)
	switch {
	case m.up != nil:
		residualSym(m.up, rhs, x, r, b.workers)
	case m.v32 != nil:
		residualT(m.m, m.v32, rhs, x, r, b.workers)
	default:
		residualT(m.m, m.m.Val, rhs, x, r, b.workers)
	}
}

// DiagApply2 computes y = z = s·D·x.
func (b *Backend) DiagApply2(d backend.BlockDiag, s float64, xv, yv, zv backend.Vector) {
	bd := diag(d)
	x, y, z := vec(xv), vec(yv), vec(zv)
	sameLen(bd.blocks*bd.b, x, y, z)
	jacobiScale(bd.b, bd.val, x, y, s, b.workers)
	copy(z, y)
}

// smoothing returns a's CPU matrix (with its float32 values, if any), panicking on a
// matrix of another backend or one freed.
func smoothing(a backend.Matrix) *Matrix {
	m, ok := a.(*Matrix)
	if !ok {
		panic("cpu: matrix from another backend")
	}
	if m.free {
		panic("cpu: matrix used after Free")
	}
	return m
}

var _ backend.Float32Smoother = (*Backend)(nil)

// UploadMatrixFloat32 wraps m (not copied, as UploadMatrix) with a float32 copy of its
// values, which ChebStep and Residual read; SpMV still reads m's float64 values. An
// entry beyond the float32 range is an error.
func (b *Backend) UploadMatrixFloat32(m *bsr.Matrix) (backend.Matrix, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	v := make([]float32, len(m.Val))
	if !toFloat32(m.Val, v, b.workers) {
		return nil, fmt.Errorf("cpu: %w: an operator entry exceeds the float32 range (|a| ≤ %g)", backend.ErrFloat32Range, math.MaxFloat32)
	}
	return &Matrix{m: m, v32: v}, nil
}

var _ backend.SymmetricSmoother = (*Backend)(nil)

// UploadMatrixSymmetric wraps m (not copied, as UploadMatrix) with a copy of its
// blocks on and above the diagonal (bsr.Upper), which ChebStep, Residual, SpMV and
// SpMVTrans read: about half the bytes a product streams, for half m's memory more.
// m must be symmetric; its blocks below the diagonal are not read. Where bsr has no
// such product for m's blocks (bsr.UpperSupported) it is UploadMatrix.
func (b *Backend) UploadMatrixSymmetric(m *bsr.Matrix) (backend.Matrix, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if m.R != m.C || m.BlockRows != m.BlockCols || !bsr.UpperSupported(m.R) {
		return &Matrix{m: m}, nil
	}
	up, err := bsr.NewUpper(m)
	if err != nil {
		return nil, err
	}
	return &Matrix{m: m, up: up}, nil
}

// RefreshSymmetric copies the current values of a's matrix into its upper copy.
func (b *Backend) RefreshSymmetric(a backend.Matrix) {
	if m := smoothing(a); m.up != nil {
		m.up.Refresh(m.m)
	}
}

var _ backend.Host = (*Backend)(nil)

// HostMemory marks the CPU backend's vectors as host memory (backend.Host).
func (b *Backend) HostMemory() {}

// WrapVector returns v as a CPU vector without copying: the vector aliases v.
func WrapVector(v []float64) backend.Vector { return &Vector{data: v} }

// WrapMatrix returns m as a CPU matrix without copying or validating it (UploadMatrix
// validates): for code that built m itself, such as the host set-up.
func WrapMatrix(m *bsr.Matrix) backend.Matrix { return &Matrix{m: m} }

// WrapBlockDiag returns blocks b×b blocks stored consecutively in vals as a CPU
// block-diagonal operator, without copying: it aliases vals.
func WrapBlockDiag(blocks, b int, vals []float64) backend.BlockDiag {
	if blocks < 0 || b < 1 || len(vals) != blocks*b*b {
		panic("cpu: WrapBlockDiag: len(vals) != blocks*b*b")
	}
	return &BlockDiag{blocks: blocks, b: b, val: vals}
}
