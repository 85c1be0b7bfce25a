package cudadrv

import (
	"fmt"
	"math"
	"os"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Handles of driver objects. They are opaque pointers owned by the driver.
type (
	Device   int32   // CUdevice: an ordinal-like device handle
	Context  uintptr // CUcontext
	Module   uintptr // CUmodule
	Function uintptr // CUfunction
	Stream   uintptr // CUstream; 0 is the legacy default stream
	Event    uintptr // CUevent
	DevPtr   uint64  // CUdeviceptr: a device address
)

// DeviceAttribute is a CUdevice_attribute.
type DeviceAttribute int32

// Device attributes used by blockamg (values from cuda.h, stable across versions).
const (
	AttrMaxThreadsPerBlock          DeviceAttribute = 1
	AttrMultiprocessorCount         DeviceAttribute = 16
	AttrMemoryClockRate             DeviceAttribute = 36 // kHz
	AttrGlobalMemoryBusWidth        DeviceAttribute = 37 // bits
	AttrL2CacheSize                 DeviceAttribute = 38 // bytes
	AttrMaxThreadsPerMultiprocessor DeviceAttribute = 39
	AttrComputeCapabilityMajor      DeviceAttribute = 75
	AttrComputeCapabilityMinor      DeviceAttribute = 76
	// AttrMaxSharedPerBlockOptin is the shared memory one thread block may have once
	// its kernel opts in (FuncAttrMaxDynamicShared), beyond the default 48 KiB.
	AttrMaxSharedPerBlockOptin DeviceAttribute = 97
)

// Event creation flags.
const (
	EventDefault       uint32 = 0
	EventBlockingSync  uint32 = 1
	EventDisableTiming uint32 = 2
)

// Stream creation flags.
const (
	StreamDefault     uint32 = 0 // synchronises with the legacy default stream
	StreamNonBlocking uint32 = 1
)

// drv is the table of resolved driver entry points. Each field's C name is given by
// the bind call in Load; signatures follow cuda.h for those exact symbols.
var drv struct {
	once   sync.Once
	err    error
	handle uintptr
	debug  bool

	cuInit                    func(flags uint32) int32
	cuDriverGetVersion        func(v *int32) int32
	cuDeviceGetCount          func(n *int32) int32
	cuDeviceGet               func(d *int32, ordinal int32) int32
	cuDeviceGetName           func(name *byte, n int32, d int32) int32
	cuDeviceGetAttribute      func(v *int32, attr int32, d int32) int32
	cuDeviceTotalMem          func(bytes *uint64, d int32) int32
	cuDevicePrimaryCtxRetain  func(ctx *uintptr, d int32) int32
	cuDevicePrimaryCtxRelease func(d int32) int32
	cuCtxSetCurrent           func(ctx uintptr) int32
	cuCtxSynchronize          func() int32
	cuMemAlloc                func(p *uint64, bytes uint64) int32
	cuMemFree                 func(p uint64) int32
	cuMemcpyHtoD              func(dst uint64, src unsafe.Pointer, bytes uint64) int32
	cuMemcpyDtoH              func(dst unsafe.Pointer, src uint64, bytes uint64) int32
	cuMemcpyDtoD              func(dst, src uint64, bytes uint64) int32
	cuMemcpyHtoDAsync         func(dst uint64, src unsafe.Pointer, bytes uint64, s uintptr) int32
	cuStreamWaitEvent         func(s, e uintptr, flags uint32) int32
	cuMemsetD8                func(dst uint64, v uint8, n uint64) int32
	cuMemAllocHost            func(pp *unsafe.Pointer, bytes uint64) int32
	cuMemFreeHost             func(p unsafe.Pointer) int32
	cuMemGetInfo              func(free, total *uint64) int32
	cuModuleLoadData          func(m *uintptr, image unsafe.Pointer) int32
	cuModuleUnload            func(m uintptr) int32
	cuModuleGetFunction       func(f *uintptr, m uintptr, name string) int32
	cuFuncSetAttribute        func(f uintptr, attr int32, v int32) int32
	cuLaunchKernel            func(f uintptr, gx, gy, gz, bx, by, bz, shmem uint32, s uintptr, params, extra unsafe.Pointer) int32
	cuStreamCreate            func(s *uintptr, flags uint32) int32
	cuStreamDestroy           func(s uintptr) int32
	cuStreamSynchronize       func(s uintptr) int32
	cuEventCreate             func(e *uintptr, flags uint32) int32
	cuEventDestroy            func(e uintptr) int32
	cuEventRecord             func(e, s uintptr) int32
	cuEventSynchronize        func(e uintptr) int32
	cuEventElapsedTime        func(ms *float32, start, end uintptr) int32
	cuGetErrorName            func(r int32, name **byte) int32
	elapsedName               string
}

// Load opens libcuda.so.1 and resolves the driver entry points. It is safe to call
// many times; the first call's outcome is returned every time. Without a driver the
// error wraps ErrNoDriver.
func Load() error {
	drv.once.Do(func() { drv.err = load() })
	return drv.err
}

// Debug reports whether BLOCKAMG_CUDA_DEBUG=1 was set at Load: launches then
// synchronise and check.
func Debug() bool { return drv.debug }

func load() error {
	h, err := purego.Dlopen("libcuda.so.1", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return fmt.Errorf("%w: libcuda.so.1 not found", ErrNoDriver)
	}
	drv.handle = h
	drv.debug = os.Getenv("BLOCKAMG_CUDA_DEBUG") == "1"
	// cuGetErrorName first, so that later failures can be named.
	binds := []struct {
		fptr  any
		names []string
	}{
		{&drv.cuGetErrorName, []string{"cuGetErrorName"}},
		{&drv.cuInit, []string{"cuInit"}},
		{&drv.cuDriverGetVersion, []string{"cuDriverGetVersion"}},
		{&drv.cuDeviceGetCount, []string{"cuDeviceGetCount"}},
		{&drv.cuDeviceGet, []string{"cuDeviceGet"}},
		{&drv.cuDeviceGetName, []string{"cuDeviceGetName"}},
		{&drv.cuDeviceGetAttribute, []string{"cuDeviceGetAttribute"}},
		{&drv.cuDeviceTotalMem, []string{"cuDeviceTotalMem_v2"}},
		{&drv.cuDevicePrimaryCtxRetain, []string{"cuDevicePrimaryCtxRetain"}},
		{&drv.cuDevicePrimaryCtxRelease, []string{"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}},
		{&drv.cuCtxSetCurrent, []string{"cuCtxSetCurrent"}},
		{&drv.cuCtxSynchronize, []string{"cuCtxSynchronize"}},
		{&drv.cuMemAlloc, []string{"cuMemAlloc_v2"}},
		{&drv.cuMemFree, []string{"cuMemFree_v2"}},
		{&drv.cuMemcpyHtoD, []string{"cuMemcpyHtoD_v2"}},
		{&drv.cuMemcpyDtoH, []string{"cuMemcpyDtoH_v2"}},
		{&drv.cuMemcpyDtoD, []string{"cuMemcpyDtoD_v2"}},
		{&drv.cuMemcpyHtoDAsync, []string{"cuMemcpyHtoDAsync_v2"}},
		{&drv.cuStreamWaitEvent, []string{"cuStreamWaitEvent"}},
		{&drv.cuMemsetD8, []string{"cuMemsetD8_v2"}},
		{&drv.cuMemAllocHost, []string{"cuMemAllocHost_v2"}},
		{&drv.cuMemFreeHost, []string{"cuMemFreeHost"}},
		{&drv.cuMemGetInfo, []string{"cuMemGetInfo_v2"}},
		{&drv.cuModuleLoadData, []string{"cuModuleLoadData"}},
		{&drv.cuModuleUnload, []string{"cuModuleUnload"}},
		{&drv.cuModuleGetFunction, []string{"cuModuleGetFunction"}},
		{&drv.cuFuncSetAttribute, []string{"cuFuncSetAttribute"}},
		{&drv.cuLaunchKernel, []string{"cuLaunchKernel"}},
		{&drv.cuStreamCreate, []string{"cuStreamCreate"}},
		{&drv.cuStreamDestroy, []string{"cuStreamDestroy_v2"}},
		{&drv.cuStreamSynchronize, []string{"cuStreamSynchronize"}},
		{&drv.cuEventCreate, []string{"cuEventCreate"}},
		{&drv.cuEventDestroy, []string{"cuEventDestroy_v2"}},
		{&drv.cuEventRecord, []string{"cuEventRecord"}},
		{&drv.cuEventSynchronize, []string{"cuEventSynchronize"}},
		// CUDA 12.8 added cuEventElapsedTime_v2 with the same signature and cuda.h
		// maps the name onto it; older drivers have only the first version.
		{&drv.cuEventElapsedTime, []string{"cuEventElapsedTime_v2", "cuEventElapsedTime"}},
	}
	for _, b := range binds {
		name, err := bind(h, b.fptr, b.names)
		if err != nil {
			return err
		}
		if b.fptr == any(&drv.cuEventElapsedTime) {
			drv.elapsedName = name
		}
	}
	return nil
}

// bind resolves the first of names that the library exports into fptr.
func bind(h uintptr, fptr any, names []string) (string, error) {
	for _, n := range names {
		sym, err := purego.Dlsym(h, n)
		if err == nil && sym != 0 {
			purego.RegisterFunc(fptr, sym)
			return n, nil
		}
	}
	return "", fmt.Errorf("cudadrv: libcuda.so.1 lacks %v (driver too old?)", names)
}

// loaded panics when Load has not succeeded: calling the driver without it is a
// programmer error.
func loaded() {
	if drv.cuInit == nil {
		panic("cudadrv: driver call before a successful Load")
	}
}

// Init is cuInit(0). A driver without a usable device gives an error wrapping
// ErrNoDevice as well as the *Error.
func Init() error {
	loaded()
	if r := drv.cuInit(0); r != 0 {
		err := check("cuInit", r)
		switch Result(r) {
		case ErrorNoDevice, ErrorInvalidDevice, 999 /* CUDA_ERROR_UNKNOWN */, 35 /* INSUFFICIENT_DRIVER */ :
			return fmt.Errorf("%w: %w", ErrNoDevice, err)
		}
		return err
	}
	return nil
}

// DriverVersion returns the driver's CUDA version as major*1000 + minor*10.
func DriverVersion() (int, error) {
	loaded()
	var v int32
	return int(v), check("cuDriverGetVersion", drv.cuDriverGetVersion(&v))
}

// DeviceCount returns the number of CUDA devices.
func DeviceCount() (int, error) {
	loaded()
	var n int32
	return int(n), check("cuDeviceGetCount", drv.cuDeviceGetCount(&n))
}

// DeviceGet returns the device with the given ordinal.
func DeviceGet(ordinal int) (Device, error) {
	loaded()
	var d int32
	return Device(d), check("cuDeviceGet", drv.cuDeviceGet(&d, int32(ordinal)))
}

// DeviceName returns the device's marketing name.
func DeviceName(d Device) (string, error) {
	loaded()
	buf := make([]byte, 256)
	if err := check("cuDeviceGetName", drv.cuDeviceGetName(&buf[0], int32(len(buf)), int32(d))); err != nil {
		return "", err
	}
	return goString(&buf[0]), nil
}

// DeviceAttr returns a device attribute.
func DeviceAttr(d Device, a DeviceAttribute) (int, error) {
	loaded()
	var v int32
	return int(v), check("cuDeviceGetAttribute", drv.cuDeviceGetAttribute(&v, int32(a), int32(d)))
}

// DeviceTotalMem returns the device's memory in bytes.
func DeviceTotalMem(d Device) (uint64, error) {
	loaded()
	var v uint64
	return v, check("cuDeviceTotalMem_v2", drv.cuDeviceTotalMem(&v, int32(d)))
}

// PrimaryCtxRetain retains the device's primary context.
func PrimaryCtxRetain(d Device) (Context, error) {
	loaded()
	var c uintptr
	return Context(c), check("cuDevicePrimaryCtxRetain", drv.cuDevicePrimaryCtxRetain(&c, int32(d)))
}

// PrimaryCtxRelease releases one retain of the device's primary context.
func PrimaryCtxRelease(d Device) error {
	loaded()
	return check("cuDevicePrimaryCtxRelease", drv.cuDevicePrimaryCtxRelease(int32(d)))
}

// CtxSetCurrent binds c to the calling OS thread.
func CtxSetCurrent(c Context) error {
	loaded()
	return check("cuCtxSetCurrent", drv.cuCtxSetCurrent(uintptr(c)))
}

// CtxSynchronize waits for all work in the current context.
func CtxSynchronize() error {
	loaded()
	return check("cuCtxSynchronize", drv.cuCtxSynchronize())
}

// MemAlloc allocates bytes of device memory (bytes > 0).
func MemAlloc(bytes uint64) (DevPtr, error) {
	loaded()
	var p uint64
	if err := check("cuMemAlloc_v2", drv.cuMemAlloc(&p, bytes)); err != nil {
		return 0, fmt.Errorf("%w (%d bytes)", err, bytes)
	}
	return DevPtr(p), nil
}

// MemAllocHost allocates bytes of page-locked host memory, which the device reads and
// writes by DMA at full link speed (pageable memory goes through the driver's staging
// copies). The memory is outside Go's heap; free it with MemFreeHost.
func MemAllocHost(bytes uint64) (unsafe.Pointer, error) {
	loaded()
	var p unsafe.Pointer
	if err := check("cuMemAllocHost_v2", drv.cuMemAllocHost(&p, bytes)); err != nil {
		return nil, fmt.Errorf("%w (%d bytes)", err, bytes)
	}
	return p, nil
}

// MemFreeHost frees memory from MemAllocHost.
func MemFreeHost(p unsafe.Pointer) error {
	loaded()
	return check("cuMemFreeHost", drv.cuMemFreeHost(p))
}

// MemFree frees device memory from MemAlloc.
func MemFree(p DevPtr) error {
	loaded()
	return check("cuMemFree_v2", drv.cuMemFree(uint64(p)))
}

// MemcpyHtoD copies bytes from host memory at src to device memory at dst. src must
// stay alive for the call (it is synchronous for pageable memory).
func MemcpyHtoD(dst DevPtr, src unsafe.Pointer, bytes uint64) error {
	loaded()
	return check("cuMemcpyHtoD_v2", drv.cuMemcpyHtoD(uint64(dst), src, bytes))
}

// MemcpyHtoDAsync queues a copy of bytes from host memory at src to device memory at
// dst on stream s. src must be page-locked (MemAllocHost) for the copy to run
// asynchronously, and must stay untouched until the copy is done.
func MemcpyHtoDAsync(dst DevPtr, src unsafe.Pointer, bytes uint64, s Stream) error {
	loaded()
	return check("cuMemcpyHtoDAsync_v2", drv.cuMemcpyHtoDAsync(uint64(dst), src, bytes, uintptr(s)))
}

// StreamWaitEvent makes later work on stream s wait until event e (recorded on any
// stream) has completed, without blocking the host.
func StreamWaitEvent(s Stream, e Event) error {
	loaded()
	return check("cuStreamWaitEvent", drv.cuStreamWaitEvent(uintptr(s), uintptr(e), 0))
}

// MemcpyDtoH copies bytes from device memory at src to host memory at dst; it waits
// for earlier work on the legacy default stream and on blocking streams.
func MemcpyDtoH(dst unsafe.Pointer, src DevPtr, bytes uint64) error {
	loaded()
	return check("cuMemcpyDtoH_v2", drv.cuMemcpyDtoH(dst, uint64(src), bytes))
}

// MemcpyDtoD copies bytes between device buffers.
func MemcpyDtoD(dst, src DevPtr, bytes uint64) error {
	loaded()
	return check("cuMemcpyDtoD_v2", drv.cuMemcpyDtoD(uint64(dst), uint64(src), bytes))
}

// MemsetD8 sets n bytes at dst to v.
func MemsetD8(dst DevPtr, v uint8, n uint64) error {
	loaded()
	return check("cuMemsetD8_v2", drv.cuMemsetD8(uint64(dst), v, n))
}

// MemGetInfo returns the free and total memory of the current context's device.
func MemGetInfo() (free, total uint64, err error) {
	loaded()
	err = check("cuMemGetInfo_v2", drv.cuMemGetInfo(&free, &total))
	return free, total, err
}

// ModuleLoadData loads a CUBIN (or PTX) image into the current context.
func ModuleLoadData(image []byte) (Module, error) {
	loaded()
	if len(image) == 0 {
		return 0, &Error{Call: "cuModuleLoadData", Code: ErrorInvalidValue, Name: "empty image"}
	}
	var m uintptr
	return Module(m), check("cuModuleLoadData", drv.cuModuleLoadData(&m, unsafe.Pointer(&image[0])))
}

// ModuleUnload unloads a module.
func ModuleUnload(m Module) error {
	loaded()
	return check("cuModuleUnload", drv.cuModuleUnload(uintptr(m)))
}

// ModuleGetFunction returns the kernel called name (an extern "C" name) in m.
func ModuleGetFunction(m Module, name string) (Function, error) {
	loaded()
	var f uintptr
	if err := check("cuModuleGetFunction", drv.cuModuleGetFunction(&f, uintptr(m), name)); err != nil {
		return 0, fmt.Errorf("%w (kernel %s)", err, name)
	}
	return Function(f), nil
}

// FuncAttrPreferredSharedCarveout is CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
// the share (percent) of the L1/shared storage a kernel prefers as shared memory.
const FuncAttrPreferredSharedCarveout int32 = 9

// FuncAttrMaxDynamicShared is CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: the
// most dynamic shared memory a launch of the kernel may ask for (48 KiB unless set).
const FuncAttrMaxDynamicShared int32 = 8

// FuncSetAttribute is cuFuncSetAttribute: sets attribute attr of kernel f to v.
func FuncSetAttribute(f Function, attr, v int32) error {
	loaded()
	return check("cuFuncSetAttribute", drv.cuFuncSetAttribute(uintptr(f), attr, v))
}

// Dim3 is a grid or block shape.
type Dim3 struct{ X, Y, Z uint32 }

// LaunchKernel launches f on stream s with the arguments in args. With
// BLOCKAMG_CUDA_DEBUG=1 it then synchronises the context and returns the kernel's
// execution error, if any.
func LaunchKernel(f Function, grid, block Dim3, sharedMem uint32, s Stream, args *Args) error {
	loaded()
	var params unsafe.Pointer
	if args != nil && args.n > 0 {
		params = unsafe.Pointer(&args.ptrs[0])
	}
	if err := check("cuLaunchKernel", drv.cuLaunchKernel(uintptr(f), grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z, sharedMem, uintptr(s), params, nil)); err != nil {
		return err
	}
	if drv.debug {
		return check("cuCtxSynchronize after cuLaunchKernel", drv.cuCtxSynchronize())
	}
	return nil
}

// maxArgs bounds a kernel's argument count.
const maxArgs = 32

// Args holds a kernel's arguments the way cuLaunchKernel takes them: an array of
// pointers, each to one argument's value. Every value lives in an 8-byte slot; a
// 4-byte argument reads the low half, which is its value on little-endian machines.
// An Args must live on the heap (new(Args)) while a launch uses it; the driver copies
// the values at launch, so it can be reset and reused right after LaunchKernel.
type Args struct {
	vals [maxArgs]uint64
	ptrs [maxArgs]unsafe.Pointer
	n    int
}

// Reset empties the argument list.
func (a *Args) Reset() { a.n = 0 }

func (a *Args) push(v uint64) *Args {
	if a.n == maxArgs {
		panic("cudadrv: too many kernel arguments")
	}
	a.vals[a.n] = v
	a.ptrs[a.n] = unsafe.Pointer(&a.vals[a.n])
	a.n++
	return a
}

// Ptr appends a device pointer argument.
func (a *Args) Ptr(p DevPtr) *Args { return a.push(uint64(p)) }

// I32 appends an int argument.
func (a *Args) I32(v int32) *Args { return a.push(uint64(uint32(v))) }

// I64 appends a long long argument.
func (a *Args) I64(v int64) *Args { return a.push(uint64(v)) }

// F64 appends a double argument.
func (a *Args) F64(v float64) *Args { return a.push(math.Float64bits(v)) }

// StreamCreate creates a stream with the given flags.
func StreamCreate(flags uint32) (Stream, error) {
	loaded()
	var s uintptr
	return Stream(s), check("cuStreamCreate", drv.cuStreamCreate(&s, flags))
}

// StreamDestroy destroys a stream.
func StreamDestroy(s Stream) error {
	loaded()
	return check("cuStreamDestroy_v2", drv.cuStreamDestroy(uintptr(s)))
}

// StreamSynchronize waits for all work on s.
func StreamSynchronize(s Stream) error {
	loaded()
	return check("cuStreamSynchronize", drv.cuStreamSynchronize(uintptr(s)))
}

// EventCreate creates an event.
func EventCreate(flags uint32) (Event, error) {
	loaded()
	var e uintptr
	return Event(e), check("cuEventCreate", drv.cuEventCreate(&e, flags))
}

// EventDestroy destroys an event.
func EventDestroy(e Event) error {
	loaded()
	return check("cuEventDestroy_v2", drv.cuEventDestroy(uintptr(e)))
}

// EventRecord records e on stream s.
func EventRecord(e Event, s Stream) error {
	loaded()
	return check("cuEventRecord", drv.cuEventRecord(uintptr(e), uintptr(s)))
}

// EventSynchronize waits until e has completed.
func EventSynchronize(e Event) error {
	loaded()
	return check("cuEventSynchronize", drv.cuEventSynchronize(uintptr(e)))
}

// EventElapsed returns the time between two completed events in milliseconds.
func EventElapsed(start, end Event) (float32, error) {
	loaded()
	var ms float32
	return ms, check(drv.elapsedName, drv.cuEventElapsedTime(&ms, uintptr(start), uintptr(end)))
}
