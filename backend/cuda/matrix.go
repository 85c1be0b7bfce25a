package cuda

import (
	"fmt"
	"slices"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/bsr"
)

// Matrix is a BSR matrix in device memory with bsr.Matrix's layout, optionally with
// its explicit transpose for SpMVTrans.
type Matrix struct {
	b                          *Backend
	blockRows, blockCols, r, c int
	rowPtr                     *Buffer[int64]
	col                        *Buffer[int32]
	val                        *Buffer[float64]
	variant                    spmvVariant // the SpMV kernel used
	t                          *Matrix
	// tperm maps each block of t to the block of this matrix it transposes (set by
	// UploadPattern), so that RefreshTranspose follows new values with a gather.
	tperm *Buffer[int64]
	// smooth is the product list of SmoothProlongator when this matrix is its output
	// (smooth.go), freed with it.
	smooth *smoothPlan
	// shared is set on a matrix whose values belong to a Galerkin plan: Free leaves
	// them to the plan.
	shared bool
	freed  bool
}

var _ backend.Matrix = (*Matrix)(nil)

// Dims returns the block dimensions and shape.
func (m *Matrix) Dims() (int, int, int, int) { return m.blockRows, m.blockCols, m.r, m.c }

// Bytes returns the device memory of the pattern and values (without the transpose).
func (m *Matrix) Bytes() int64 { return m.rowPtr.Bytes() + m.col.Bytes() + m.val.Bytes() }

// Transpose returns the device transpose, or nil when the matrix was uploaded without.
func (m *Matrix) Transpose() *Matrix { return m.t }

// Free releases the device memory, the transpose's too.
func (m *Matrix) Free() {
	if m.freed {
		return
	}
	m.freed = true
	m.rowPtr.Free()
	m.col.Free()
	if !m.shared {
		m.val.Free()
	}
	if m.t != nil {
		m.t.Free()
	}
	if m.tperm != nil {
		m.tperm.Free()
	}
	if m.smooth != nil {
		m.smooth.free()
	}
}

// chooseVariant picks the SpMV kernel from the block shape and the mean number of
// blocks per block row, nb (rules read off the H200 bandwidth report; see the package
// documentation):
//   - rowlane with 16 lanes while a row's rows-times-blocks nb·R stays under 128 (3×3
//     operators, prolongators), else 32 lanes (6×6 coarse operators, restrictions);
//   - one step of P = lanes/R blocks in flight when the row fits in it, else two;
//   - the 64-register build (_b4) for rows of at least 8P blocks, where more loads in
//     flight per lane beat occupancy;
//   - a thread block per row (cta) for at most ctaMaxRows rows of at least
//     ctaMinBlocks blocks: a coarse level, which one warp per row would leave on a
//     few multiprocessors, each walking its rows in many dependent steps.
//
// Shapes without specialised kernels use the generic kernel.
// The cta rule's bounds: with fewer rows than twice the H200's 132 multiprocessors
// times eight, and rows long enough that a warp per row needs several steps, a thread
// block per row finishes in about one memory round trip.
const (
	ctaMaxRows   = 2048
	ctaMinBlocks = 16
)

func chooseVariant(r, c int, nnzBlocks int64, blockRows int) spmvVariant {
	if _, ok := spmvVariants[spmvShape{r, c}]; !ok {
		return spmvVariant{}
	}
	nb := 0.0
	if blockRows > 0 {
		nb = float64(nnzBlocks) / float64(blockRows)
	}
	if nb >= ctaMinBlocks && blockRows <= ctaMaxRows {
		return ctaVariant
	}
	lanes := 16
	if nb*float64(r) >= 128 {
		lanes = 32
	}
	p := float64(lanes / r)
	switch {
	case nb <= p:
		return rl(lanes, 1, "")
	case nb >= 8*p:
		return rl(lanes, 2, "_b4")
	}
	return rl(lanes, 2, "")
}

// UploadMatrixBSR copies m to the device (and its transpose, built on the host by
// bsr.Matrix.Transpose, when withTranspose), counting the bytes under the current
// phase.
func (b *Backend) UploadMatrixBSR(m *bsr.Matrix, withTranspose bool) (*Matrix, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if int64(m.BlockRows)*int64(max(m.R, 32)) >= 1<<31 {
		return nil, fmt.Errorf("cuda: %d block rows: too many for 32-bit row counts in the kernels", m.BlockRows)
	}
	d, err := b.upload(m)
	if err != nil {
		return nil, err
	}
	if withTranspose {
		if d.t, err = b.upload(m.Transpose()); err != nil {
			d.Free()
			return nil, err
		}
	}
	return d, nil
}

// transposePattern returns the pattern of mᵀ (Val nil) and, for each of its blocks,
// the index of the block of m it transposes. Walking m's rows in order fills each row
// of mᵀ in ascending column order, as bsr.Matrix.Transpose stores them; no values are
// touched.
func transposePattern(m *bsr.Matrix) (*bsr.Matrix, []int64) {
	t := &bsr.Matrix{BlockRows: m.BlockCols, BlockCols: m.BlockRows, R: m.C, C: m.R,
		RowPtr: make([]int64, m.BlockCols+1), ColIdx: make([]int32, len(m.ColIdx))}
	for _, c := range m.ColIdx {
		t.RowPtr[c+1]++
	}
	for c := 0; c < m.BlockCols; c++ {
		t.RowPtr[c+1] += t.RowPtr[c]
	}
	perm := make([]int64, len(m.ColIdx))
	next := slices.Clone(t.RowPtr[:m.BlockCols])
	for i := 0; i < m.BlockRows; i++ {
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			q := next[m.ColIdx[k]]
			next[m.ColIdx[k]]++
			t.ColIdx[q] = int32(i)
			perm[q] = k
		}
	}
	return t, perm
}

// upload copies m's pattern and values; a nil m.Val leaves the device values zero
// (a pattern whose values the device computes).
func (b *Backend) upload(m *bsr.Matrix) (*Matrix, error) {
	d := &Matrix{b: b, blockRows: m.BlockRows, blockCols: m.BlockCols, r: m.R, c: m.C}
	d.variant = chooseVariant(m.R, m.C, m.NNZBlocks(), m.BlockRows)
	fail := func(e error) (*Matrix, error) {
		d.Free()
		return nil, fmt.Errorf("cuda: uploading %d×%d blocks of %d×%d: %w", m.BlockRows, m.BlockCols, m.R, m.C, e)
	}
	// Empty placeholders first, so that fail can Free whatever was allocated.
	d.rowPtr, d.col, d.val = &Buffer[int64]{b: b}, &Buffer[int32]{b: b}, &Buffer[float64]{b: b}
	rp, err := Alloc[int64](b, len(m.RowPtr))
	if err != nil {
		return fail(err)
	}
	d.rowPtr = rp
	col, err := Alloc[int32](b, len(m.ColIdx))
	if err != nil {
		return fail(err)
	}
	d.col = col
	val, err := Alloc[float64](b, len(m.ColIdx)*m.R*m.C)
	if err != nil {
		return fail(err)
	}
	d.val = val
	if err = d.rowPtr.Upload(m.RowPtr); err != nil {
		return fail(err)
	}
	if err = d.col.Upload(m.ColIdx); err != nil {
		return fail(err)
	}
	if m.Val != nil {
		if err = d.val.Upload(m.Val); err != nil {
			return fail(err)
		}
	}
	return d, nil
}

// UploadMatrix implements backend.Backend.
func (b *Backend) UploadMatrix(m *bsr.Matrix, withTranspose bool) (backend.Matrix, error) {
	d, err := b.UploadMatrixBSR(m, withTranspose)
	if err != nil {
		return nil, err
	}
	return d, nil
}

func (b *Backend) mat(a backend.Matrix) *Matrix {
	m, ok := a.(*Matrix)
	if !ok || m.b != b {
		panic("cuda: matrix from another backend")
	}
	if m.freed {
		panic("cuda: matrix used after Free")
	}
	return m
}

// spmv queues y = alpha·m·x + beta·y.
func (b *Backend) spmv(m *Matrix, alpha float64, x *Vector, beta float64, y *Vector) {
	if x.Len() != m.blockCols*m.c || y.Len() != m.blockRows*m.r {
		panic("cuda: SpMV: vector length mismatch")
	}
	if y.Len() == 0 {
		return
	}
	if alpha == 0 {
		// BLAS convention: A and x are not read.
		if beta == 0 {
			b.Zero(y)
		} else if beta != 1 {
			b.Scale(beta, y)
		}
		return
	}
	rp, col, val, xp, yp := m.rowPtr.Ptr(), m.col.Ptr(), m.val.Ptr(), x.buf.Ptr(), y.buf.Ptr()
	nbr := int32(m.blockRows)
	v := m.variant
	if v.tag == "" {
		r, c := int32(m.r), int32(m.c)
		b.enqueue(func() error { return b.launchSpMVGeneric(nbr, r, c, rp, col, val, xp, yp, alpha, beta) })
		return
	}
	shape := spmvShape{m.r, m.c}
	f, ok := b.k.spmv[shape][v]
	if !ok {
		panic("cuda: no SpMV kernel " + spmvKernelName(shape, v))
	}
	name := spmvKernelName(shape, v)
	b.enqueue(func() error { return b.launchSpMVGroup(f, name, v.lanes, nbr, rp, col, val, xp, yp, alpha, beta) })
}

// SpMV implements backend.Backend.
func (b *Backend) SpMV(alpha float64, a backend.Matrix, x backend.Vector, beta float64, y backend.Vector) {
	b.spmv(b.mat(a), alpha, b.vec(x), beta, b.vec(y))
}

// SpMVTrans implements backend.Backend with the transpose built at upload: a gather,
// no atomics.
func (b *Backend) SpMVTrans(alpha float64, a backend.Matrix, x backend.Vector, beta float64, y backend.Vector) {
	m := b.mat(a)
	if m.t == nil {
		panic("cuda: SpMVTrans on a matrix uploaded without its transpose")
	}
	b.spmv(m.t, alpha, b.vec(x), beta, b.vec(y))
}

// BlockDiag is a block-diagonal operator on the device.
type BlockDiag struct {
	b         *Backend
	blocks, n int
	val       *Buffer[float64]
	freed     bool
}

var _ backend.BlockDiag = (*BlockDiag)(nil)

// Dims returns the block count and size.
func (d *BlockDiag) Dims() (int, int) { return d.blocks, d.n }

// Free releases the device memory.
func (d *BlockDiag) Free() {
	if !d.freed {
		d.freed = true
		d.val.Free()
	}
}

// UploadBlockDiag implements backend.Backend.
func (b *Backend) UploadBlockDiag(blocks, n int, vals []float64) (backend.BlockDiag, error) {
	if blocks < 0 || n < 1 || len(vals) != blocks*n*n {
		panic("cuda: UploadBlockDiag: len(vals) != blocks*b*b")
	}
	buf, err := Alloc[float64](b, len(vals))
	if err != nil {
		return nil, err
	}
	if err := buf.Upload(vals); err != nil {
		buf.Free()
		return nil, err
	}
	return &BlockDiag{b: b, blocks: blocks, n: n, val: buf}, nil
}

// BlockDiagApply implements backend.Backend.
func (b *Backend) BlockDiagApply(d backend.BlockDiag, x, y backend.Vector) {
	bd, ok := d.(*BlockDiag)
	if !ok || bd.b != b {
		panic("cuda: block diagonal from another backend")
	}
	if bd.freed {
		panic("cuda: block diagonal used after Free")
	}
	xv, yv := b.vec(x), b.vec(y)
	if xv.Len() != bd.blocks*bd.n || yv.Len() != xv.Len() {
		panic("cuda: BlockDiagApply: vector length mismatch")
	}
	if xv == yv {
		panic("cuda: BlockDiagApply: x and y alias")
	}
	if xv.Len() == 0 {
		return
	}
	nb, n, dp, xp, yp := int32(bd.blocks), int32(bd.n), bd.val.Ptr(), xv.buf.Ptr(), yv.buf.Ptr()
	b.enqueue(func() error { return b.launchBlockDiag(nb, n, dp, xp, yp) })
}

// NNZBlocks returns the number of stored blocks.
func (m *Matrix) NNZBlocks() int64 { return int64(m.col.Len()) }

// DeviceBytes returns all the device memory the matrix holds: pattern and values
// (unless they belong to a Galerkin plan), the transpose and its permutation, and the
// smoothing plan of a matrix that is a smoothing step's result.
func (m *Matrix) DeviceBytes() int64 {
	n := m.rowPtr.Bytes() + m.col.Bytes()
	if !m.shared {
		n += m.val.Bytes()
	}
	if m.t != nil {
		n += m.t.DeviceBytes()
	}
	if m.tperm != nil {
		n += m.tperm.Bytes()
	}
	if p := m.smooth; p != nil {
		for _, u := range []*Buffer[int64]{p.ptr, p.xpos} {
			if u != nil {
				n += u.Bytes()
			}
		}
		for _, u := range []*Buffer[int32]{p.pairs, p.row} {
			if u != nil {
				n += u.Bytes()
			}
		}
	}
	return n
}

// DeviceBytes returns the device memory of the inverted blocks.
func (d *BlockDiag) DeviceBytes() int64 { return d.val.Bytes() }
