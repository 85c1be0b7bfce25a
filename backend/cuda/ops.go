package cuda

import (
	"math"
	"unsafe"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/internal/cudadrv"
)

// Vector is a float64 vector in device memory.
type Vector struct {
	buf *Buffer[float64]
}

var _ backend.Vector = (*Vector)(nil)

// Len returns the number of entries.
func (v *Vector) Len() int { return v.buf.Len() }

// Free releases the device memory.
func (v *Vector) Free() { v.buf.Free() }

// Buffer returns the underlying device buffer.
func (v *Vector) Buffer() *Buffer[float64] { return v.buf }

func (b *Backend) vec(v backend.Vector) *Vector {
	cv, ok := v.(*Vector)
	if !ok || cv.buf.b != b {
		panic("cuda: vector from another backend")
	}
	cv.buf.live()
	return cv
}

// NewVector implements backend.Backend.
func (b *Backend) NewVector(n int) (backend.Vector, error) {
	buf, err := Alloc[float64](b, n)
	if err != nil {
		return nil, err
	}
	return &Vector{buf: buf}, nil
}

// Upload implements backend.Backend; a failure is sticky.
func (b *Backend) Upload(dst backend.Vector, src []float64) {
	d := b.vec(dst)
	if len(src) != d.Len() {
		panic("cuda: Upload: length mismatch")
	}
	if len(src) == 0 || b.sticky() != nil {
		return
	}
	if err := d.buf.Upload(src); err != nil {
		b.fail(err)
	}
}

// Download implements backend.Backend; after a failure dst is filled with NaN.
func (b *Backend) Download(dst []float64, src backend.Vector) {
	s := b.vec(src)
	if len(dst) != s.Len() {
		panic("cuda: Download: length mismatch")
	}
	if len(dst) == 0 {
		return
	}
	err := b.sticky()
	if err == nil {
		if err = s.buf.Download(dst); err != nil {
			b.fail(err)
		} else {
			err = b.sticky() // a queued kernel failed before the copy
		}
	}
	if err != nil {
		for i := range dst {
			dst[i] = math.NaN()
		}
	}
}

// Copy implements backend.Backend.
func (b *Backend) Copy(dst, src backend.Vector) {
	d, s := b.vec(dst), b.vec(src)
	if d.Len() != s.Len() {
		panic("cuda: Copy: length mismatch")
	}
	if d == s || d.Len() == 0 {
		return
	}
	dp, sp, n := d.buf.Ptr(), s.buf.Ptr(), uint64(d.buf.Bytes())
	b.enqueue(func() error { return cudadrv.MemcpyDtoD(dp, sp, n) })
}

// Zero implements backend.Backend.
func (b *Backend) Zero(v backend.Vector) {
	x := b.vec(v)
	if x.Len() == 0 {
		return
	}
	p, n := x.buf.Ptr(), uint64(x.buf.Bytes())
	b.enqueue(func() error { return cudadrv.MemsetD8(p, 0, n) })
}

// Axpby implements backend.Backend.
func (b *Backend) Axpby(a float64, x backend.Vector, bb float64, y backend.Vector) {
	xv, yv := b.vec(x), b.vec(y)
	if xv.Len() != yv.Len() {
		panic("cuda: Axpby: length mismatch")
	}
	if yv.Len() == 0 {
		return
	}
	n, xp, yp := int64(yv.Len()), xv.buf.Ptr(), yv.buf.Ptr()
	b.enqueue(func() error { return b.launchAxpby(n, a, xp, bb, yp) })
}

// Scale implements backend.Backend.
func (b *Backend) Scale(a float64, x backend.Vector) {
	xv := b.vec(x)
	if xv.Len() == 0 {
		return
	}
	n, xp := int64(xv.Len()), xv.buf.Ptr()
	b.enqueue(func() error { return b.launchScale(n, a, xp) })
}

// Vmul implements backend.Backend.
func (b *Backend) Vmul(a float64, x, y backend.Vector, bb float64, z backend.Vector) {
	xv, yv, zv := b.vec(x), b.vec(y), b.vec(z)
	if xv.Len() != zv.Len() || yv.Len() != zv.Len() {
		panic("cuda: Vmul: length mismatch")
	}
	if zv.Len() == 0 {
		return
	}
	n, xp, yp, zp := int64(zv.Len()), xv.buf.Ptr(), yv.buf.Ptr(), zv.buf.Ptr()
	b.enqueue(func() error { return b.launchVmul(n, a, xp, yp, bb, zp) })
}

// Dot implements backend.Backend: two fixed-shape kernels, then 8 bytes back, counted
// under the current phase. After a failure it returns NaN.
func (b *Backend) Dot(x, y backend.Vector) float64 {
	xv, yv := b.vec(x), b.vec(y)
	if xv.Len() != yv.Len() {
		panic("cuda: Dot: length mismatch")
	}
	n, xp, yp := int64(xv.Len()), xv.buf.Ptr(), yv.buf.Ptr()
	var out float64
	err := b.do(func() error {
		if err := b.launchDotPartial(n, xp, yp, b.partial); err != nil {
			return err
		}
		if err := b.launchDotFinal(dotBlocks, b.partial, b.scalar); err != nil {
			return err
		}
		if err := cudadrv.MemcpyDtoH(unsafe.Pointer(b.hostScalar), b.scalar, 8); err != nil {
			return err
		}
		out = *b.hostScalar
		return nil
	})
	if err != nil {
		return math.NaN()
	}
	b.counters.AddD2H(b.phase, 8)
	return out
}

// Norm implements backend.Backend as √(xᵀx).
func (b *Backend) Norm(x backend.Vector) float64 { return math.Sqrt(b.Dot(x, x)) }
