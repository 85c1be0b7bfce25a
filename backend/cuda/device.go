package cuda

import (
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/internal/cudadrv"
)

// Options selects the device and the kernel cache.
type Options struct {
	Device int // device ordinal, default 0
	// CacheDir is where compiled kernels are kept; "" means os.UserCacheDir()/blockamg
	// (or no cache when that is unknown), "-" disables the cache.
	CacheDir string
	// Galerkin forces the variant of the device re-setup's Galerkin products
	// (NewGalerkin) on the levels that offer it, the model's pick on the others; ""
	// lets the GPU traffic model choose on every level.
	Galerkin GalerkinVariant
	// GalerkinTune, with Galerkin unset, replaces the model's pick by the fastest
	// deterministic variant timed on the product's first numeric phase (3 timed runs
	// each): an empirical planner for the re-setup.
	GalerkinTune bool
	// Symmetric declares every operator A given to this backend's Galerkin plans
	// (GalerkinSymbolicFor, NewGalerkin) symmetric, as the SPD operators of CG are;
	// the Pᵀ·W stage of tc-block, smem-tiles and tc-pairs then computes the blocks of
	// Ac on and above the diagonal and mirrors them (Ac = PᵀAP is symmetric with A),
	// 55% of the products on ex56 (galerkin_sym.go). The symbolic phase checks A's
	// pattern and the values it is given (bsr's CheckSymmetric) and fails when they
	// are not symmetric; the numeric phase trusts later values, as PETSc's
	// MAT_SYMMETRIC does.
	Symmetric bool
}

// SetSymmetric sets Options.Symmetric for the Galerkin plans made from now on (a
// caller that learns whether its operator is symmetric after opening the device).
func (b *Backend) SetSymmetric(sym bool) { b.opt.Symmetric = sym }

// Info describes the device and the toolchain a Backend runs with.
type Info struct {
	Ordinal       int    // CUDA device ordinal
	Name          string // e.g. "NVIDIA H200"
	CCMajor       int    // compute capability, major
	CCMinor       int    // compute capability, minor
	SMs           int    // multiprocessors
	L2Bytes       int    // L2 cache size
	TotalMem      uint64 // device memory in bytes
	FreeMem       uint64 // free at start-up
	MemClockKHz   int    // memory clock
	BusWidthBits  int    // memory bus width
	DriverVersion int    // CUDA version of the driver, major*1000 + minor*10
	NVRTCMajor    int    // NVRTC version, major
	NVRTCMinor    int    // NVRTC version, minor
	NVRTCPath     string // the libnvrtc loaded
	Arch          string // the NVRTC target, e.g. "sm_90"
	// The kernels are compiled per kernels/*.cu file, each its own CUBIN and cache
	// file; New loads the files every run uses (the start set) and the others load
	// on first use. These fields describe the start set.
	KernelCache     string        // the cache directory holding its CUBINs, or "" when not cached
	KernelsFromDisk bool          // whether all of its CUBINs came from the cache
	KernelsCompiled []string      // its files that NVRTC compiled (not found in the cache)
	KernelTime      time.Duration // New's time on it: reading or compiling, and loading
	// NVRTCLoadTime is the part of KernelTime spent opening NVRTC (reading the
	// library from disk on a machine's first run).
	NVRTCLoadTime time.Duration
	Debug         bool // BLOCKAMG_CUDA_DEBUG=1: synchronise and check after every launch
	// SharedPerBlock is the most shared memory a thread block may have (LaunchShared).
	SharedPerBlock int
}

// Backend is the CUDA backend. It is not safe for concurrent use; see the package
// documentation for its threading.
type Backend struct {
	work   chan func()
	closed bool

	errMu sync.Mutex
	err   error // first device failure (sticky)

	info     Info
	opt      Options
	phase    string
	counters backend.Counters
	gmach    *GalerkinMachine            // measured on the first NewGalerkin
	scr      map[[2]int]backend.Vector   // ChebStep's scratch vectors (size, index)
	fns      map[string]cudadrv.Function // kernels looked up by name (function; device thread only)
	// sharedSet is the dynamic shared memory each kernel has been allowed beyond the
	// default (LaunchShared; device thread only).
	sharedSet map[string]uint32
	flag      *Flag             // InvertBlockDiag's singular-row flag
	lz        *Buffer[float64]  // CGLanczos's scalar array
	cgs       *Buffer[float64]  // the CGStepper's scalars (kernels/cg.cu)
	cgHost    []float64         // their host copy
	nmarks    int               // Mark's count since the last MarkTimes
	pinned    map[*float64]bool // live HostAlloc slices

	// Owned by the worker goroutine.
	dev        cudadrv.Device
	ctx        cudadrv.Context
	stream     cudadrv.Stream
	kern       kernelSet // the kernels' units and modules (compile.go)
	k          kernels
	args       *cudadrv.Args
	partial    cudadrv.DevPtr  // dotBlocks partial sums
	scalar     cudadrv.DevPtr  // one reduction result
	hostScalar *float64        // its host copy
	marks      []cudadrv.Event // Mark's events, created on first use
	copyStream cudadrv.Stream  // StartUpload's stream and event, created on first use
	copyDone   cudadrv.Event
	copyReady  cudadrv.Event // recorded on the main stream before each copy
	evStart    cudadrv.Event
	evEnd      cudadrv.Event
}

var _ backend.Backend = (*Backend)(nil)

// New starts a backend on the device opt.Device: it loads the driver and NVRTC, makes
// the primary context current on a dedicated thread, and compiles or loads the
// kernels. Without a driver the error wraps cudadrv.ErrNoDriver; without a device,
// cudadrv.ErrNoDevice.
func New(opt Options) (*Backend, error) {
	if err := cudadrv.Load(); err != nil {
		return nil, err
	}
	b := &Backend{work: make(chan func(), 256), args: new(cudadrv.Args), hostScalar: new(float64), opt: opt}
	ready := make(chan error)
	go b.worker(opt, ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return b, nil
}

// worker owns the device: it locks its OS thread, sets up, and then runs closures until
// the work channel closes. It never unlocks: the thread ends with the goroutine.
func (b *Backend) worker(opt Options, ready chan<- error) {
	runtime.LockOSThread()
	if err := b.setup(opt); err != nil {
		b.teardown()
		ready <- err
		return
	}
	ready <- nil
	for {
		f, ok := spinRecv(b.work)
		if !ok {
			return
		}
		f()
	}
}

// spinWait is how long the device thread and a caller waiting for a result poll
// before they block. Handing work or a result to a blocked goroutine wakes its thread
// (a futex; in a virtual machine a halted virtual CPU), which measured ~0.1 ms a round
// trip on the H200 machines: paid at every wait for a scalar, it idled the device for
// milliseconds per recurring step. Polling costs a host core while it lasts.
const spinWait = 2 * time.Millisecond

// spinRecv receives from c, polling for up to spinWait before blocking.
func spinRecv[T any](c <-chan T) (T, bool) {
	select {
	case v, ok := <-c:
		return v, ok
	default:
	}
	for deadline := time.Now().Add(spinWait); time.Now().Before(deadline); {
		for range 64 {
			select {
			case v, ok := <-c:
				return v, ok
			default:
			}
		}
		runtime.Gosched() // with one P, let the other side run
	}
	v, ok := <-c
	return v, ok
}

func (b *Backend) setup(opt Options) error {
	if err := cudadrv.Init(); err != nil {
		return err
	}
	n, err := cudadrv.DeviceCount()
	if err != nil {
		return err
	}
	if opt.Device < 0 || opt.Device >= n {
		return fmt.Errorf("%w: device %d requested, %d present", cudadrv.ErrNoDevice, opt.Device, n)
	}
	if b.dev, err = cudadrv.DeviceGet(opt.Device); err != nil {
		return err
	}
	if b.ctx, err = cudadrv.PrimaryCtxRetain(b.dev); err != nil {
		return err
	}
	if err = cudadrv.CtxSetCurrent(b.ctx); err != nil {
		return err
	}
	if err = b.readInfo(opt.Device); err != nil {
		return err
	}
	if b.stream, err = cudadrv.StreamCreate(cudadrv.StreamDefault); err != nil {
		return err
	}
	if b.evStart, err = cudadrv.EventCreate(cudadrv.EventDefault); err != nil {
		return err
	}
	if b.evEnd, err = cudadrv.EventCreate(cudadrv.EventDefault); err != nil {
		return err
	}
	if err = b.loadKernels(opt.CacheDir); err != nil {
		return err
	}
	if b.partial, err = cudadrv.MemAlloc(dotBlocks * 8); err != nil {
		return err
	}
	if b.scalar, err = cudadrv.MemAlloc(8); err != nil {
		return err
	}
	return nil
}

func (b *Backend) readInfo(ordinal int) error {
	in := &b.info
	in.Ordinal = ordinal
	in.Debug = cudadrv.Debug()
	var err error
	if in.Name, err = cudadrv.DeviceName(b.dev); err != nil {
		return err
	}
	attrs := []struct {
		dst *int
		a   cudadrv.DeviceAttribute
	}{
		{&in.CCMajor, cudadrv.AttrComputeCapabilityMajor},
		{&in.CCMinor, cudadrv.AttrComputeCapabilityMinor},
		{&in.SMs, cudadrv.AttrMultiprocessorCount},
		{&in.L2Bytes, cudadrv.AttrL2CacheSize},
		{&in.SharedPerBlock, cudadrv.AttrMaxSharedPerBlockOptin},
		{&in.MemClockKHz, cudadrv.AttrMemoryClockRate},
		{&in.BusWidthBits, cudadrv.AttrGlobalMemoryBusWidth},
	}
	for _, a := range attrs {
		if *a.dst, err = cudadrv.DeviceAttr(b.dev, a.a); err != nil {
			return err
		}
	}
	if in.TotalMem, err = cudadrv.DeviceTotalMem(b.dev); err != nil {
		return err
	}
	if in.FreeMem, _, err = cudadrv.MemGetInfo(); err != nil {
		return err
	}
	if in.DriverVersion, err = cudadrv.DriverVersion(); err != nil {
		return err
	}
	return nil
}

// teardown releases what setup created; it runs on the worker.
func (b *Backend) teardown() {
	if b.scalar != 0 {
		cudadrv.MemFree(b.scalar)
		b.scalar = 0
	}
	if b.partial != 0 {
		cudadrv.MemFree(b.partial)
		b.partial = 0
	}
	b.unloadKernels()
	for _, e := range b.marks {
		cudadrv.EventDestroy(e)
	}
	if b.copyStream != 0 {
		cudadrv.StreamSynchronize(b.copyStream)
		cudadrv.StreamDestroy(b.copyStream)
		b.copyStream = 0
	}
	for _, e := range []*cudadrv.Event{&b.copyDone, &b.copyReady} {
		if *e != 0 {
			cudadrv.EventDestroy(*e)
			*e = 0
		}
	}
	b.marks = nil
	for _, e := range []*cudadrv.Event{&b.evStart, &b.evEnd} {
		if *e != 0 {
			cudadrv.EventDestroy(*e)
			*e = 0
		}
	}
	if b.stream != 0 {
		cudadrv.StreamDestroy(b.stream)
		b.stream = 0
	}
	if b.ctx != 0 {
		cudadrv.PrimaryCtxRelease(b.dev)
		b.ctx = 0
	}
}

// Info returns the device and toolchain description.
func (b *Backend) Info() Info { return b.info }

// Name returns "cuda:<ordinal> <device name>".
func (b *Backend) Name() string { return fmt.Sprintf("cuda:%d %s", b.info.Ordinal, b.info.Name) }

func (b *Backend) sticky() error {
	b.errMu.Lock()
	defer b.errMu.Unlock()
	return b.err
}

func (b *Backend) fail(err error) {
	b.errMu.Lock()
	if b.err == nil {
		b.err = err
	}
	b.errMu.Unlock()
}

// call runs f on the device thread and waits for its result. It does not look at or
// set the sticky error; see do.
func (b *Backend) call(f func() error) error {
	if b.closed {
		panic("cuda: backend used after Close")
	}
	done := make(chan error, 1)
	b.work <- func() { done <- f() }
	err, _ := spinRecv(done)
	return err
}

// do is call for operations of the data flow: skipped after a failure, and a failure
// becomes sticky.
func (b *Backend) do(f func() error) error {
	err := b.call(func() error {
		if err := b.sticky(); err != nil {
			return err
		}
		if err := f(); err != nil {
			b.fail(err)
			return err
		}
		return nil
	})
	return err
}

// enqueue queues f on the device thread without waiting; a failure becomes sticky and
// later queued work is skipped. After Close it does nothing (the context and all its
// memory are gone).
func (b *Backend) enqueue(f func() error) {
	if b.closed {
		return
	}
	b.work <- func() {
		if b.sticky() != nil {
			return
		}
		if err := f(); err != nil {
			b.fail(err)
		}
	}
}

// Err waits for all queued work and returns the first failure.
func (b *Backend) Err() error {
	if b.closed {
		return b.sticky()
	}
	b.do(func() error { return cudadrv.StreamSynchronize(b.stream) })
	return b.sticky()
}

// Close waits for queued work, releases the backend's resources and stops its thread.
// Vectors and matrices must be freed before; a second Close is a no-op.
func (b *Backend) Close() error {
	if b.closed {
		return nil
	}
	err := b.Err()
	for _, v := range b.scr {
		v.Free()
	}
	b.scr = nil
	if b.flag != nil {
		b.flag.Free()
		b.flag = nil
	}
	if b.cgs != nil {
		b.cgs.Free()
		b.cgs = nil
	}
	if b.lz != nil {
		b.lz.Free()
		b.lz = nil
	}
	for p := range b.pinned {
		pp := unsafe.Pointer(p)
		b.call(func() error { return cudadrv.MemFreeHost(pp) })
	}
	b.pinned = nil
	b.call(func() error { b.teardown(); return nil })
	b.closed = true
	close(b.work)
	return err
}

// SetPhase names the phase later copies are counted under.
func (b *Backend) SetPhase(name string) string {
	prev := b.phase
	b.phase = name
	return prev
}

// Counters returns the transfer counters.
func (b *Backend) Counters() *backend.Counters { return &b.counters }

// MemInfo returns the device's free and total memory now (cuMemGetInfo), for
// reporting what a run occupies.
func (b *Backend) MemInfo() (free, total uint64, err error) {
	err = b.do(func() error {
		var e error
		free, total, e = cudadrv.MemGetInfo()
		return e
	})
	return free, total, err
}
