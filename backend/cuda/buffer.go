package cuda

import (
	"fmt"
	"unsafe"

	"github.com/blockamg/blockamg/internal/cudadrv"
)

// Elem is the element type of a device buffer.
type Elem interface{ ~int32 | ~int64 | ~float64 }

// Buffer is device memory holding n values of type T. It is created by Alloc and must
// be released with Free; a Buffer of length 0 holds no memory.
type Buffer[T Elem] struct {
	b     *Backend
	ptr   cudadrv.DevPtr
	n     int
	freed bool
}

func elemSize[T Elem]() int64 {
	var z T
	return int64(unsafe.Sizeof(z))
}

// Alloc allocates a zero-filled buffer of n values on b's device.
func Alloc[T Elem](b *Backend, n int) (*Buffer[T], error) {
	if n < 0 {
		panic("cuda: negative buffer length")
	}
	u := &Buffer[T]{b: b, n: n}
	if n == 0 {
		return u, nil
	}
	bytes := uint64(int64(n) * elemSize[T]())
	err := b.call(func() error {
		p, err := cudadrv.MemAlloc(bytes)
		if err != nil {
			return err
		}
		if err := cudadrv.MemsetD8(p, 0, bytes); err != nil {
			cudadrv.MemFree(p)
			return err
		}
		u.ptr = p
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cuda: allocating %d values: %w", n, err)
	}
	return u, nil
}

// Len returns the number of values.
func (u *Buffer[T]) Len() int { return u.n }

// Bytes returns the buffer's size in bytes.
func (u *Buffer[T]) Bytes() int64 { return int64(u.n) * elemSize[T]() }

// Ptr returns the device address (0 for an empty buffer).
func (u *Buffer[T]) Ptr() cudadrv.DevPtr {
	u.live()
	return u.ptr
}

func (u *Buffer[T]) live() {
	if u.freed {
		panic("cuda: buffer used after Free")
	}
}

// Upload copies src (len(src) == Len()) to the device and counts the bytes under the
// backend's current phase.
func (u *Buffer[T]) Upload(src []T) error {
	u.live()
	if len(src) != u.n {
		panic("cuda: Upload: length mismatch")
	}
	if u.n == 0 {
		return nil
	}
	bytes := u.Bytes()
	err := u.b.call(func() error {
		return cudadrv.MemcpyHtoD(u.ptr, unsafe.Pointer(&src[0]), uint64(bytes))
	})
	if err == nil {
		u.b.counters.AddH2D(u.b.phase, bytes)
	}
	return err
}

// Download copies the buffer into dst (len(dst) == Len()), after all queued work, and
// counts the bytes under the backend's current phase.
func (u *Buffer[T]) Download(dst []T) error {
	if len(dst) != u.n {
		panic("cuda: Download: length mismatch")
	}
	return u.DownloadPrefix(dst)
}

// DownloadPrefix copies the first len(dst) ≤ Len() values into dst, like Download.
func (u *Buffer[T]) DownloadPrefix(dst []T) error { return u.downloadAt(0, dst) }

// downloadAt copies len(dst) values from index i on into dst (waiting for the device).
func (u *Buffer[T]) downloadAt(i int, dst []T) error {
	u.live()
	if i < 0 || i+len(dst) > u.n {
		panic("cuda: download past the end of the buffer")
	}
	if len(dst) == 0 {
		return nil
	}
	bytes := int64(len(dst)) * elemSize[T]()
	src := u.ptr + cudadrv.DevPtr(int64(i)*elemSize[T]())
	err := u.b.call(func() error {
		return cudadrv.MemcpyDtoH(unsafe.Pointer(&dst[0]), src, uint64(bytes))
	})
	if err == nil {
		u.b.counters.AddD2H(u.b.phase, bytes)
	}
	return err
}

// Free releases the memory after queued work that uses it; freeing twice is a no-op.
func (u *Buffer[T]) Free() {
	if u.freed {
		return
	}
	u.freed = true
	if p := u.ptr; p != 0 {
		u.ptr = 0
		u.b.enqueue(func() error { return cudadrv.MemFree(p) })
	}
}
