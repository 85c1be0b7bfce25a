// Package cusparsebench is the vendor baseline for the device Galerkin product, for
// benchmarks only (blockamg-bench galerkin-gpu): what a user without a block SpGEMM
// does. A and P are expanded from BSR to scalar CSR with int32 indices (cuSPARSE's
// common index type), Pᵀ is formed explicitly, and Ac = Pᵀ·(A·P) is two calls of
// cuSPARSE's generic SpGEMM (CUSPARSE_SPGEMM_DEFAULT, float64), or cuSPARSE's reuse
// pipeline for a recurring product (Reuse). It is here to be timed against the block
// variants of backend/cuda and checked against their result; the solver never uses
// it. cuSPARSE runs on the backend's device thread and stream (cuda.Backend.OnDevice),
// so its work is ordered with the backend's and timed by the same kind of events.
//
// The library is opened at run time (cudadrv.LoadCusparse): BLOCKAMG_CUSPARSE names
// its file where the loader's path and the toolkit's directories do not have it.
package cusparsebench

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"unsafe"

	"github.com/blockamg/blockamg/backend/cuda"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/cudadrv"
	"github.com/blockamg/blockamg/internal/par"
)

// ErrInt32Overflow is wrapped when a scalar matrix has more nonzeros or columns than
// int32 indices can address, so that the 32-bit cuSPARSE path cannot take it.
var ErrInt32Overflow = errors.New("more than int32 indices can address")

// CSR32 is a scalar CSR matrix with int32 row offsets and column indices, the layout
// cuSPARSE's CUSPARSE_INDEX_32I descriptors take. Columns are sorted inside each row
// when it comes from ExpandCSR32; a product from cuSPARSE makes no such promise here.
type CSR32 struct {
	Rows, Cols int
	RowPtr     []int32 // len Rows+1
	ColIdx     []int32 // len RowPtr[Rows]
	Val        []float64
}

// Nnz returns the number of stored entries.
func (a *CSR32) Nnz() int64 { return int64(a.RowPtr[a.Rows]) }

// ScalarNnz returns the number of scalar entries m has once expanded (explicit zeros
// included): stored blocks × R × C.
func ScalarNnz(m *bsr.Matrix) int64 { return m.NNZBlocks() * int64(m.R*m.C) }

// ExpandCSR32 returns the scalar CSR form of m with int32 indices: every stored block
// entry becomes one scalar entry, explicit zeros included, in block order, so columns
// stay sorted within each row. It returns an error wrapping ErrInt32Overflow, before
// allocating anything, when the scalar nonzeros or columns do not fit int32.
func ExpandCSR32(m *bsr.Matrix) (*CSR32, error) {
	nnz := ScalarNnz(m)
	if nnz > math.MaxInt32 {
		return nil, fmt.Errorf("cuda: %d×%d matrix with %d scalar nonzeros: %w", m.Rows(), m.Cols(), nnz, ErrInt32Overflow)
	}
	if int64(m.Cols()) > math.MaxInt32 || int64(m.Rows()) > math.MaxInt32-1 {
		return nil, fmt.Errorf("cuda: %d×%d matrix: dimensions %w", m.Rows(), m.Cols(), ErrInt32Overflow)
	}
	r, c := m.R, m.C
	rows := m.Rows()
	a := &CSR32{Rows: rows, Cols: m.Cols(), RowPtr: make([]int32, rows+1), ColIdx: make([]int32, nnz), Val: make([]float64, nnz)}
	// Block row i starts at RowPtr[i]·R·C, and each of its R scalar rows holds
	// (blocks in the row)·C entries.
	for i := 0; i < m.BlockRows; i++ {
		lo, hi := m.RowPtr[i], m.RowPtr[i+1]
		for ii := 0; ii < r; ii++ {
			a.RowPtr[i*r+ii+1] = int32(lo*int64(r*c) + int64(ii+1)*(hi-lo)*int64(c))
		}
	}
	par.ForWeighted(m.RowPtr, 0, 8192, func(blo, bhi int) {
		for i := blo; i < bhi; i++ {
			lo, hi := m.RowPtr[i], m.RowPtr[i+1]
			for ii := 0; ii < r; ii++ {
				p := int64(a.RowPtr[i*r+ii])
				for k := lo; k < hi; k++ {
					col := m.ColIdx[k] * int32(c)
					src := m.Val[k*int64(r*c)+int64(ii*c):][:c]
					for jj, v := range src {
						a.ColIdx[p] = col + int32(jj)
						a.Val[p] = v
						p++
					}
				}
			}
		}
	})
	return a, nil
}

// Check compares a scalar product with a block reference.
type Check struct {
	Nnz     int64   // entries of the scalar result
	WantNnz int64   // scalar entries of the reference's blocks
	Outside int64   // entries of the result outside the reference's pattern (or repeated)
	Missing int64   // scalar entries of the reference the result lacks
	RelErr  float64 // ‖got − want‖_F / ‖want‖_F over the union of the patterns; +Inf with a NaN
	Verdict string  // "ok", "wrong: empty", "wrong: shape …", "wrong: NaN" or "wrong: rel err …"
}

// CompareCSR32 checks got against want (same scalar shape), entry by entry: the
// relative Frobenius error counts entries present in only one of them against zero.
// The verdict is "ok" when the error is at most tol; an empty result against a
// reference with stored blocks is "wrong: empty", the failure cuSPARSE shows on
// large operands.
func CompareCSR32(got *CSR32, want *bsr.Matrix, tol float64) Check {
	ck := Check{WantNnz: ScalarNnz(want)}
	if got.Rows != want.Rows() || got.Cols != want.Cols() || len(got.RowPtr) != got.Rows+1 {
		ck.RelErr = math.Inf(1)
		ck.Verdict = fmt.Sprintf("wrong: shape %d×%d, want %d×%d", got.Rows, got.Cols, want.Rows(), want.Cols())
		return ck
	}
	ck.Nnz = got.Nnz()
	r, c := want.R, want.C
	seen := make([]bool, len(want.Val))
	num, den := 0.0, 0.0
	nan := false
	for i := 0; i < got.Rows; i++ {
		bi, ii := i/r, i%r
		for k := got.RowPtr[i]; k < got.RowPtr[i+1]; k++ {
			j := int(got.ColIdx[k])
			v := got.Val[k]
			if v != v {
				nan = true
			}
			d := v
			if j >= 0 && j < got.Cols {
				if q, ok := want.Find(bi, j/c); ok {
					p := q*int64(r*c) + int64(ii*c+j%c)
					if !seen[p] {
						seen[p] = true
						d = v - want.Val[p]
					} else {
						ck.Outside++
					}
				} else {
					ck.Outside++
				}
			} else {
				ck.Outside++
			}
			num += d * d
		}
	}
	for p, w := range want.Val {
		den += w * w
		if !seen[p] {
			ck.Missing++
			num += w * w
		}
	}
	switch {
	case nan:
		ck.RelErr = math.Inf(1)
	case den == 0:
		ck.RelErr = math.Sqrt(num)
	default:
		ck.RelErr = math.Sqrt(num / den)
	}
	switch {
	case ck.Nnz == 0 && ck.WantNnz > 0:
		ck.Verdict = "wrong: empty"
	case nan:
		ck.Verdict = "wrong: NaN"
	case ck.RelErr > tol:
		ck.Verdict = fmt.Sprintf("wrong: rel err %.1e", ck.RelErr)
	default:
		ck.Verdict = "ok"
	}
	return ck
}

// Handle is a cuSPARSE handle bound to the backend's stream and thread, with its
// own pair of timing events.
type Handle struct {
	b      *cuda.Backend
	stream cudadrv.Stream // the backend's, set by Open
	h      cudadrv.SparseHandle
	ev     [2]cudadrv.Event
	path   string
	ver    [3]int
	closed bool
}

// Open loads cuSPARSE (cudadrv.LoadCusparse: BLOCKAMG_CUSPARSE, then the
// loader's path and the toolkit's directories) and creates a handle on the backend's
// context and stream. Without the library the error wraps cudadrv.ErrNoCusparse.
func Open(b *cuda.Backend) (*Handle, error) {
	path, err := cudadrv.LoadCusparse()
	if err != nil {
		return nil, err
	}
	c := &Handle{b: b, path: path}
	c.ver[0], c.ver[1], c.ver[2], err = cudadrv.CusparseVersion()
	if err != nil {
		return nil, err
	}
	err = b.OnDevice(func(s cudadrv.Stream) error {
		c.stream = s
		var err error
		if c.h, err = cudadrv.SparseCreate(); err != nil {
			return err
		}
		if err = cudadrv.SparseSetStream(c.h, s); err != nil {
			return err
		}
		for i := range c.ev {
			if c.ev[i], err = cudadrv.EventCreate(cudadrv.EventDefault); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("cuda: cuSPARSE %s: %w", path, err)
	}
	return c, nil
}

// Version returns cuSPARSE's version and the file it was loaded from, e.g.
// "12.6.3 (/usr/local/cuda/lib64/libcusparse.so.12.6.3.3)".
func (c *Handle) Version() string {
	return fmt.Sprintf("%d.%d.%d (%s)", c.ver[0], c.ver[1], c.ver[2], c.path)
}

// Close destroys the handle and events, after the backend's queued work; do it before
// closing the backend. A second Close is a no-op.
func (c *Handle) Close() error {
	if c.closed || c.b.Closed() {
		c.closed = true
		return nil
	}
	c.closed = true
	return c.b.OnDevice(func(cudadrv.Stream) error {
		var first error
		keep := func(err error) {
			if first == nil {
				first = err
			}
		}
		keep(cudadrv.StreamSynchronize(c.stream))
		for i := range c.ev {
			if c.ev[i] != 0 {
				keep(cudadrv.EventDestroy(c.ev[i]))
				c.ev[i] = 0
			}
		}
		if c.h != 0 {
			keep(cudadrv.SparseDestroy(c.h))
			c.h = 0
		}
		return first
	})
}

// rawBuf is device memory owned by the device thread, grown on demand and never
// shrunk, so that only the first of repeated runs allocates (what a caching allocator
// such as CuPy's memory pool gives a user).
type rawBuf struct {
	ptr   cudadrv.DevPtr
	bytes uint64
}

// ensure makes the buffer hold at least n bytes; new memory is filled with 0xFF bytes
// (NaN as float64, −1 as int32), so that anything read before it is written shows.
// It runs on the device thread.
func (r *rawBuf) ensure(n uint64) error {
	n = max(n, 256)
	if n <= r.bytes {
		return nil
	}
	r.free()
	p, err := cudadrv.MemAlloc(n)
	if err != nil {
		return err
	}
	if err := cudadrv.MemsetD8(p, 0xFF, n); err != nil {
		cudadrv.MemFree(p)
		return err
	}
	r.ptr, r.bytes = p, n
	return nil
}

func (r *rawBuf) free() {
	if r.ptr != 0 {
		cudadrv.MemFree(r.ptr)
	}
	r.ptr, r.bytes = 0, 0
}

// spCSR is a scalar CSR matrix in device memory: rowPtr int32[rows+1], col int32[nnz],
// val float64[nnz].
type spCSR struct {
	rows, cols      int
	nnz             int64
	rowPtr, col, vl rawBuf
}

func (m *spCSR) descr() (cudadrv.SpMatDescr, error) {
	return cudadrv.CreateCsr32(int64(m.rows), int64(m.cols), m.nnz, m.rowPtr.ptr, m.col.ptr, m.vl.ptr)
}

func (m *spCSR) bytes() int64 { return int64(m.rowPtr.bytes + m.col.bytes + m.vl.bytes) }

func (m *spCSR) free() { m.rowPtr.free(); m.col.free(); m.vl.free() }

// Galerkin holds the scalar operands A, P and Pᵀ of one level on the device,
// the products W = A·P and Ac = Pᵀ·W, and cuSPARSE's work buffers.
type Galerkin struct {
	c        *Handle
	a, p, pt spCSR
	w, ac    spCSR
	work     [2][2]rawBuf // per product: workEstimation's and compute's buffers
	haveW    bool
	freed    bool
}

// Galerkin expands A (n×n blocks of r×r) and P (n×m blocks of r×c) to scalar CSR,
// forms Pᵀ on the host (outside any timing, as a user would keep it), and uploads the
// three. An operand whose scalar nonzeros do not fit int32 gives an error wrapping
// ErrInt32Overflow.
func (c *Handle) Galerkin(A, P *bsr.Matrix) (*Galerkin, error) {
	if A.BlockRows != A.BlockCols || A.R != A.C || P.BlockRows != A.BlockRows || P.R != A.R {
		panic("cuda: cuSPARSE Galerkin: A must be square and P must have A's block rows")
	}
	g := &Galerkin{c: c}
	mats := []struct {
		name string
		m    *bsr.Matrix
		dst  *spCSR
	}{{"A", A, &g.a}, {"P", P, &g.p}, {"Pᵀ", nil, &g.pt}}
	for _, x := range mats {
		m := x.m
		if m == nil {
			m = P.Transpose()
		}
		s, err := ExpandCSR32(m)
		if err != nil {
			g.Free()
			return nil, fmt.Errorf("%s: %w", x.name, err)
		}
		if err := g.upload(x.dst, s); err != nil {
			g.Free()
			return nil, fmt.Errorf("cuda: uploading scalar %s: %w", x.name, err)
		}
	}
	g.w.rows, g.w.cols = g.a.rows, g.p.cols
	g.ac.rows, g.ac.cols = g.pt.rows, g.p.cols
	return g, nil
}

// upload copies a host CSR32 into dst's device arrays, counting the bytes.
func (g *Galerkin) upload(dst *spCSR, s *CSR32) error {
	b := g.c.b
	dst.rows, dst.cols, dst.nnz = s.Rows, s.Cols, s.Nnz()
	parts := []struct {
		buf   *rawBuf
		src   unsafe.Pointer
		bytes uint64
	}{
		{&dst.rowPtr, unsafe.Pointer(&s.RowPtr[0]), uint64(len(s.RowPtr)) * 4},
		{&dst.col, unsafe.Pointer(unsafe.SliceData(s.ColIdx)), uint64(len(s.ColIdx)) * 4},
		{&dst.vl, unsafe.Pointer(unsafe.SliceData(s.Val)), uint64(len(s.Val)) * 8},
	}
	err := b.OnDevice(func(cudadrv.Stream) error {
		for _, p := range parts {
			if err := p.buf.ensure(p.bytes); err != nil {
				return err
			}
			if p.bytes > 0 {
				if err := cudadrv.MemcpyHtoD(p.buf.ptr, p.src, p.bytes); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err == nil {
		for _, p := range parts {
			b.Counters().AddH2D(b.Phase(), int64(p.bytes))
		}
	}
	return err
}

// NnzA, NnzP and NnzW return the scalar nonzeros of A, P and (after a run) W = A·P,
// the last as cuSPARSE reported it.
func (g *Galerkin) NnzA() int64 { return g.a.nnz }
func (g *Galerkin) NnzP() int64 { return g.p.nnz }
func (g *Galerkin) NnzW() int64 { return g.w.nnz }

// Bytes returns the device memory held: operands, products and work buffers.
func (g *Galerkin) Bytes() int64 {
	n := g.a.bytes() + g.p.bytes() + g.pt.bytes() + g.w.bytes() + g.ac.bytes()
	for _, w := range g.work {
		n += int64(w[0].bytes + w[1].bytes)
	}
	return n
}

// WorkBytes returns the bytes of cuSPARSE's external work buffers (the largest asked
// for so far by each product's two phases).
func (g *Galerkin) WorkBytes() int64 {
	var n int64
	for _, w := range g.work {
		n += int64(w[0].bytes + w[1].bytes)
	}
	return n
}

// Run computes W = A·P (cuda.StageAP), Ac = Pᵀ·W from the W of an earlier run (cuda.StagePW),
// or both (cuda.StageAll), each as the full generic SpGEMM sequence a user calls:
// descriptors, work estimation, compute, size query, copy. The first run allocates
// the products and buffers; later runs reuse them unless a size grows. It waits for
// nothing but what cuSPARSE itself waits for (it reads the product's size back).
// An empty W gives an empty Ac without calling cuSPARSE for Pᵀ·W.
func (g *Galerkin) Run(stage cuda.Stage) error {
	return g.c.b.OnDevice(func(cudadrv.Stream) error { return g.run(stage) })
}

func (g *Galerkin) run(stage cuda.Stage) error {
	if g.freed {
		panic("cuda: Galerkin used after Free")
	}
	if err := g.c.b.Failed(); err != nil {
		return err
	}
	if stage != cuda.StagePW {
		g.haveW = false
		if err := g.product(&g.a, &g.p, &g.w, &g.work[0]); err != nil {
			return fmt.Errorf("cuSPARSE A·P: %w", err)
		}
		g.haveW = true
	}
	if stage == cuda.StageAP {
		return nil
	}
	if !g.haveW {
		return errors.New("cuda: cuSPARSE Pᵀ·W before a run that computed W")
	}
	if g.w.nnz == 0 {
		g.ac.nnz = 0
		return g.ac.rowPtr.ensure(uint64(g.ac.rows+1) * 4)
	}
	if err := g.product(&g.pt, &g.w, &g.ac, &g.work[1]); err != nil {
		return fmt.Errorf("cuSPARSE Pᵀ·W: %w", err)
	}
	return nil
}

// product is one SpGEMM c = x·y on the device thread.
func (g *Galerkin) product(x, y, c *spCSR, work *[2]rawBuf) error {
	h := g.c.h
	mx, err := x.descr()
	if err != nil {
		return err
	}
	defer cudadrv.DestroySpMat(mx)
	my, err := y.descr()
	if err != nil {
		return err
	}
	defer cudadrv.DestroySpMat(my)
	if err := c.rowPtr.ensure(uint64(c.rows+1) * 4); err != nil {
		return err
	}
	mc, err := cudadrv.CreateCsr32(int64(c.rows), int64(c.cols), 0, c.rowPtr.ptr, 0, 0)
	if err != nil {
		return err
	}
	defer cudadrv.DestroySpMat(mc)
	d, err := cudadrv.SpGEMMCreateDescr()
	if err != nil {
		return err
	}
	defer cudadrv.SpGEMMDestroyDescr(d)
	if err := sizedStep("work estimation buffer", &work[0], func(n uint64, buf cudadrv.DevPtr) (uint64, error) {
		return cudadrv.SpGEMMWorkEstimation(h, mx, my, mc, d, n, buf)
	}); err != nil {
		return err
	}
	if err := sizedStep("compute buffer", &work[1], func(n uint64, buf cudadrv.DevPtr) (uint64, error) {
		return cudadrv.SpGEMMCompute(h, mx, my, mc, d, n, buf)
	}); err != nil {
		return err
	}
	if err := c.sizeFrom(mc); err != nil {
		return err
	}
	if c.nnz == 0 {
		// Nothing to copy; the result is reported as empty.
		return nil
	}
	if err := c.pointAt(mc); err != nil {
		return err
	}
	return cudadrv.SpGEMMCopy(h, mx, my, mc, d)
}

// sizedStep runs a cuSPARSE step that takes an external buffer the way cuSPARSE asks:
// once with none, which returns the size it needs, then with buf grown to that size.
// what names the buffer in an allocation error.
func sizedStep(what string, buf *rawBuf, step func(n uint64, buf cudadrv.DevPtr) (uint64, error)) error {
	n, err := step(0, 0)
	if err != nil {
		return err
	}
	if err := buf.ensure(n); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	_, err = step(n, buf.ptr)
	return err
}

// sizeFrom takes the product's nonzeros from its descriptor (after cuSPARSE made its
// row offsets), checking its shape and that int32 indices address it.
func (c *spCSR) sizeFrom(mc cudadrv.SpMatDescr) error {
	rows, cols, nnz, err := cudadrv.SpMatGetSize(mc)
	if err != nil {
		return err
	}
	if rows != int64(c.rows) || cols != int64(c.cols) {
		return fmt.Errorf("cusparseSpMatGetSize: product is %d×%d, want %d×%d", rows, cols, c.rows, c.cols)
	}
	if nnz < 0 || nnz > math.MaxInt32 {
		return fmt.Errorf("cusparseSpMatGetSize: product has %d nonzeros: %w", nnz, ErrInt32Overflow)
	}
	c.nnz = nnz
	return nil
}

// pointAt sizes the product's column and value arrays for its nonzeros and points
// its descriptor at them, for cuSPARSE's copy step to fill.
func (c *spCSR) pointAt(mc cudadrv.SpMatDescr) error {
	if err := c.col.ensure(uint64(c.nnz) * 4); err != nil {
		return err
	}
	if err := c.vl.ensure(uint64(c.nnz) * 8); err != nil {
		return err
	}
	return cudadrv.CsrSetPointers(mc, c.rowPtr.ptr, c.col.ptr, c.vl.ptr)
}

// Time runs stage once between the handle's two events on the backend's stream and
// returns the device time between them in milliseconds: like Backend.Time, it counts
// the device idle while the host drives the sequence (cuSPARSE reads each product's
// size back before the copy).
func (g *Galerkin) Time(stage cuda.Stage) (float64, error) {
	return g.c.timeEvents(func() error { return g.run(stage) })
}

// timeEvents runs f on the device thread between the handle's two events on the
// backend's stream and returns the device time between them in milliseconds.
func (c *Handle) timeEvents(f func() error) (float64, error) {
	var ms float32
	err := c.b.OnDevice(func(cudadrv.Stream) error {
		s := c.stream
		if err := cudadrv.EventRecord(c.ev[0], s); err != nil {
			return err
		}
		if err := f(); err != nil {
			return err
		}
		if err := cudadrv.EventRecord(c.ev[1], s); err != nil {
			return err
		}
		if err := cudadrv.EventSynchronize(c.ev[1]); err != nil {
			return err
		}
		var err error
		ms, err = cudadrv.EventElapsed(c.ev[0], c.ev[1])
		return err
	})
	return float64(ms), err
}

// TimeMedian runs stage warm times untimed, then reps times each between events, and
// returns the median in milliseconds: Backend.TimeMedian's protocol. A cuSPARSE
// failure is returned and, unlike the backend's own work, is not made sticky.
func (g *Galerkin) TimeMedian(warm, reps int, stage cuda.Stage) (float64, error) {
	return timeMedian(warm, reps, func() error { return g.Run(stage) }, func() (float64, error) { return g.Time(stage) })
}

// timeMedian is TimeMedian's protocol over a run and a timed run.
func timeMedian(warm, reps int, run func() error, timed func() (float64, error)) (float64, error) {
	for i := 0; i < warm; i++ {
		if err := run(); err != nil {
			return 0, err
		}
	}
	ts := make([]float64, 0, reps)
	for i := 0; i < reps; i++ {
		ms, err := timed()
		if err != nil {
			return 0, err
		}
		ts = append(ts, ms)
	}
	sort.Float64s(ts)
	return ts[len(ts)/2], nil
}

// Poison fills the products' current arrays with 0xFF bytes (NaN values, −1 indices),
// so that a later Download shows anything the next run leaves unwritten.
func (g *Galerkin) Poison() error { return g.c.poison(&g.w, &g.ac) }

// poison fills the arrays of ms that exist with 0xFF bytes.
func (c *Handle) poison(ms ...*spCSR) error {
	return c.b.OnDevice(func(cudadrv.Stream) error {
		for _, m := range ms {
			for _, r := range []*rawBuf{&m.rowPtr, &m.col, &m.vl} {
				if r.ptr != 0 {
					if err := cudadrv.MemsetD8(r.ptr, 0xFF, r.bytes); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

// DownloadAc copies Ac = Pᵀ·A·P of the last whole run to the host (an empty matrix
// when cuSPARSE returned none), after the stream's work, counting the bytes.
func (g *Galerkin) DownloadAc() (*CSR32, error) { return g.c.download(&g.ac) }

func (c *Handle) download(m *spCSR) (*CSR32, error) {
	b := c.b
	out := &CSR32{Rows: m.rows, Cols: m.cols, RowPtr: make([]int32, m.rows+1)}
	err := b.OnDevice(func(s cudadrv.Stream) error {
		if err := cudadrv.StreamSynchronize(s); err != nil {
			return err
		}
		if m.nnz == 0 {
			return nil // RowPtr stays zero: an empty matrix
		}
		if m.rowPtr.ptr == 0 {
			return errors.New("cuda: cuSPARSE product downloaded before a run")
		}
		if err := cudadrv.MemcpyDtoH(unsafe.Pointer(&out.RowPtr[0]), m.rowPtr.ptr, uint64(len(out.RowPtr))*4); err != nil {
			return err
		}
		if int64(out.RowPtr[m.rows]) != m.nnz || out.RowPtr[0] != 0 {
			return fmt.Errorf("cuda: cuSPARSE product's row offsets run from %d to %d, want 0 to %d", out.RowPtr[0], out.RowPtr[m.rows], m.nnz)
		}
		out.ColIdx = make([]int32, m.nnz)
		out.Val = make([]float64, m.nnz)
		if err := cudadrv.MemcpyDtoH(unsafe.Pointer(&out.ColIdx[0]), m.col.ptr, uint64(m.nnz)*4); err != nil {
			return err
		}
		return cudadrv.MemcpyDtoH(unsafe.Pointer(&out.Val[0]), m.vl.ptr, uint64(m.nnz)*8)
	})
	if err != nil {
		return nil, err
	}
	b.Counters().AddD2H(b.Phase(), int64(len(out.RowPtr))*4+int64(len(out.ColIdx))*4+int64(len(out.Val))*8)
	// A row offset array that is not non-decreasing would make the comparison index
	// out of range: report it as the library's error instead.
	for i := 0; i < out.Rows; i++ {
		if out.RowPtr[i+1] < out.RowPtr[i] {
			return nil, fmt.Errorf("cuda: cuSPARSE product's row offsets decrease at row %d", i)
		}
	}
	return out, nil
}

// ReleaseProducts frees W, Ac and the work buffers of Run (the next Run allocates them
// again) and keeps the operands, so that Reuse has the memory: at ex56 ne = 64
// cusparseSpGEMM's work buffers alone hold about 100 GB.
func (g *Galerkin) ReleaseProducts() {
	if g.freed || g.c.b.Closed() {
		return
	}
	g.haveW = false
	g.w.nnz, g.ac.nnz = 0, 0
	g.c.b.OnDevice(func(cudadrv.Stream) error {
		cudadrv.StreamSynchronize(g.c.stream)
		g.w.free()
		g.ac.free()
		for i := range g.work {
			g.work[i][0].free()
			g.work[i][1].free()
		}
		return nil
	})
}

// Free releases the device memory after the stream's work; freeing twice is a no-op.
func (g *Galerkin) Free() {
	if g.freed {
		return
	}
	g.freed = true
	if g.c.b.Closed() {
		return
	}
	g.c.b.OnDevice(func(cudadrv.Stream) error {
		cudadrv.StreamSynchronize(g.c.stream)
		for _, m := range []*spCSR{&g.a, &g.p, &g.pt, &g.w, &g.ac} {
			m.free()
		}
		for i := range g.work {
			g.work[i][0].free()
			g.work[i][1].free()
		}
		return nil
	})
}
