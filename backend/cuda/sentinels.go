package cuda

import "github.com/blockamg/blockamg/internal/cudadrv"

// Errors New wraps when no GPU can be used, re-exported from the internal driver
// bindings so that callers can test for them with errors.Is.
var (
	// ErrNoDriver: libcuda.so.1 (the NVIDIA driver) was not found.
	ErrNoDriver = cudadrv.ErrNoDriver
	// ErrNoDevice: the driver reports no CUDA device, or fewer than Options.Device+1.
	ErrNoDevice = cudadrv.ErrNoDevice
)
