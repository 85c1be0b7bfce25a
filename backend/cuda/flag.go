package cuda

import "github.com/blockamg/blockamg/internal/cudadrv"

// Flag is one device int32 that kernels lower with atomicMin to report the least
// failing index (a singular block row, a bad element, a row off the pattern). It holds
// its sentinel between checks, set at allocation and after a failure, so a check
// costs one 4-byte download and no upload.
type Flag struct {
	buf      *Buffer[int32]
	sentinel int32
}

// NewFlag allocates a flag holding sentinel.
func NewFlag(b *Backend, sentinel int32) (*Flag, error) {
	buf, err := Alloc[int32](b, 1)
	if err != nil {
		return nil, err
	}
	if err := buf.Upload([]int32{sentinel}); err != nil {
		buf.Free()
		return nil, err
	}
	return &Flag{buf: buf, sentinel: sentinel}, nil
}

// Ptr returns the flag's device address, the argument of the kernels that lower it.
func (f *Flag) Ptr() cudadrv.DevPtr { return f.buf.Ptr() }

// Bytes returns the device memory the flag holds.
func (f *Flag) Bytes() int64 { return f.buf.Bytes() }

// Read waits for the queued work and returns the flag's value and whether a kernel
// lowered it, resetting it then. Failures, which may be a device fault's first sign,
// become the backend's sticky error.
func (f *Flag) Read() (int32, bool, error) {
	b := f.buf.b
	got := []int32{0}
	if err := f.buf.Download(got); err != nil {
		b.fail(err)
		return 0, false, err
	}
	if err := b.sticky(); err != nil {
		return 0, false, err
	}
	if got[0] == f.sentinel {
		return got[0], false, nil
	}
	if err := f.buf.Upload([]int32{f.sentinel}); err != nil {
		b.fail(err) // the flag would stay low for later checks
		return got[0], true, err
	}
	return got[0], true, nil
}

// Free releases the flag; a nil flag is a no-op.
func (f *Flag) Free() {
	if f != nil {
		f.buf.Free()
	}
}
