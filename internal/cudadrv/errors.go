package cudadrv

import (
	"errors"
	"fmt"
	"unsafe"
)

// ErrNoDriver is wrapped by the error Load returns when libcuda.so.1 cannot be opened.
var ErrNoDriver = errors.New("no CUDA driver")

// ErrNoDevice is wrapped by the error Init returns when a driver is present but it
// finds no usable device (CUDA_ERROR_NO_DEVICE and similar).
var ErrNoDevice = errors.New("no CUDA device")

// ErrNoNVRTC is wrapped by the error LoadNVRTC returns when no NVRTC library is found.
var ErrNoNVRTC = errors.New("no NVRTC library")

// Result is a CUresult, the status every driver API call returns.
type Result int32

// Success is CUDA_SUCCESS.
const Success Result = 0

// Results that callers test for.
const (
	ErrorInvalidValue   Result = 1
	ErrorOutOfMemory    Result = 2
	ErrorNotInitialized Result = 3
	ErrorNoDevice       Result = 100
	ErrorInvalidDevice  Result = 101
	ErrorNotFound       Result = 500 // e.g. no function of that name in the module
)

// Error is a failed driver API or NVRTC call.
type Error struct {
	Call string // the C function, e.g. "cuMemAlloc_v2", possibly with context
	Code Result // the CUresult or nvrtcResult
	Name string // its symbolic name, e.g. "CUDA_ERROR_OUT_OF_MEMORY"
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s (%d)", e.Call, e.Name, e.Code)
}

// check turns a CUresult into nil or an *Error naming call.
func check(call string, r int32) error {
	if r == 0 {
		return nil
	}
	return &Error{Call: call, Code: Result(r), Name: ErrorName(Result(r))}
}

// ErrorName returns the symbolic name of a CUresult, or "CUDA_ERROR_<n>" when the
// driver does not know it or is not loaded.
func ErrorName(r Result) string {
	if drv.cuGetErrorName != nil {
		var p *byte
		if drv.cuGetErrorName(int32(r), &p) == 0 && p != nil {
			return goString(p)
		}
	}
	return fmt.Sprintf("CUDA_ERROR_%d", int32(r))
}

// goString copies the NUL-terminated C string at p into a Go string.
func goString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// cString returns s as a NUL-terminated byte slice.
func cString(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}
