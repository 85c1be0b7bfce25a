package cuda

import (
	"fmt"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/internal/cudadrv"
)

// The device core's API for the packages beside it that add device work of their own
// on a Backend: fem/cudafem launches the backend's assembly kernels
// (kernels/assembly.cu) into device matrices; backend/cuda/cusparsebench drives
// cuSPARSE on the backend's context and stream. They go through the same device
// thread, stream, kernel cache, sticky error and transfer counters as the core's own
// operations, so their work is ordered with it and counted alike.

// Launch queues the kernel name (of kernels/*.cu) over blocks thread blocks (of the
// block size every kernel is built for: BlocksFor, StridedBlocks); args pushes its
// arguments, on the device thread, just before the launch. The kernel is resolved
// there (once, then cached; LookupKernel resolves it beforehand). Like every queued
// operation it is skipped after a failure, and a failure becomes the backend's sticky
// error.
func (b *Backend) Launch(name string, blocks uint32, args func(*cudadrv.Args)) {
	b.run(name, blocks, func() { args(b.args) })
}

// LaunchShared is Launch with shared bytes of dynamic shared memory a thread block
// (the kernel's extern __shared__ array), at most Info().SharedPerBlock; above the
// default 48 KiB the kernel is first allowed that much (once per size it grows to).
func (b *Backend) LaunchShared(name string, blocks, shared uint32, args func(*cudadrv.Args)) {
	b.runShared(name, blocks, shared, func() { args(b.args) })
}

// LookupKernel resolves the kernel name now (loading its translation unit if it is
// not loaded), so that a package can fail at its set-up rather than at its first
// Launch.
func (b *Backend) LookupKernel(name string) error {
	_, err := b.fnGlobal(name)
	return err
}

// BlocksFor returns the thread blocks that give one thread per item.
func BlocksFor(items int64) uint32 { return blocksFor(items) }

// StridedBlocks returns the grid of a grid-stride launch over n elements.
func StridedBlocks(n int64) uint32 { return stridedBlocks(n) }

// OnDevice runs f on the device thread, with the backend's stream, and waits for its
// result. It neither looks at nor sets the sticky error: a library's status is the
// caller's to judge.
func (b *Backend) OnDevice(f func(stream cudadrv.Stream) error) error {
	return b.call(func() error { return f(b.stream) })
}

// Failed returns the backend's first failure so far without waiting for queued work
// (Err waits).
func (b *Backend) Failed() error { return b.sticky() }

// Closed reports whether Close has run: the context and all its memory are gone.
func (b *Backend) Closed() bool { return b.closed }

// Phase returns the name copies are counted under now (SetPhase), for a package that
// makes copies of its own and counts them in Counters.
func (b *Backend) Phase() string { return b.phase }

// CheckMatrix returns a as one of this backend's live device matrices; another
// backend's matrix, or a freed one, is a programming error and panics, as for every
// operation of the backend.
func (b *Backend) CheckMatrix(a backend.Matrix) *Matrix { return b.mat(a) }

// RowPtr returns the device buffer of m's block row pointers (bsr.Matrix.RowPtr).
func (m *Matrix) RowPtr() *Buffer[int64] { return m.rowPtr }

// ColIdx returns the device buffer of m's block column indices (bsr.Matrix.ColIdx).
func (m *Matrix) ColIdx() *Buffer[int32] { return m.col }

// Backend returns the backend whose device holds the buffer.
func (u *Buffer[T]) Backend() *Backend { return u.b }

// CopyFrom queues a device-to-device copy of src, which must have u's length, into u
// (cuMemcpyDtoD on the device thread, ordered with the queued kernels).
func (u *Buffer[T]) CopyFrom(src *Buffer[T]) {
	if src.Len() != u.Len() {
		panic("cuda: CopyFrom: length mismatch")
	}
	dp, sp, bytes := u.Ptr(), src.Ptr(), uint64(src.Bytes())
	u.b.enqueue(func() error { return cudadrv.MemcpyDtoD(dp, sp, bytes) })
}

// NewMatrixOn makes a device BSR matrix of blockRows×blockCols blocks of r×c from a
// pattern already on the device — rowPtr (blockRows+1 values, rowPtr[0] = 0) and col
// (rowPtr[blockRows] sorted block columns per row) — and allocates its values, zero.
// The matrix takes both buffers over: its Free frees them, and so does a failure
// here. It is for a package that computes a pattern on the device (a device
// assembly's symbolic phase), so that no matrix-sized array crosses the bus; the
// pattern is not checked here.
func (b *Backend) NewMatrixOn(blockRows, blockCols, r, c int, rowPtr *Buffer[int64], col *Buffer[int32]) (*Matrix, error) {
	if rowPtr.Backend() != b || col.Backend() != b || rowPtr.Len() != blockRows+1 || r <= 0 || c <= 0 {
		panic("cuda: NewMatrixOn: pattern buffers of another backend or of the wrong size")
	}
	d := &Matrix{b: b, blockRows: blockRows, blockCols: blockCols, r: r, c: c, rowPtr: rowPtr, col: col}
	nnzb := int64(col.Len())
	d.variant = chooseVariant(r, c, nnzb, blockRows)
	val, err := Alloc[float64](b, int(nnzb)*r*c)
	if err != nil {
		rowPtr.Free()
		col.Free()
		return nil, fmt.Errorf("cuda: values of %d×%d blocks of %d×%d: %w", blockRows, blockCols, r, c, err)
	}
	d.val = val
	return d, nil
}
