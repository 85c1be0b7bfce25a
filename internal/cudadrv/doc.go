// Package cudadrv binds the parts of the CUDA driver API and of NVRTC that blockamg
// uses, without cgo: both libraries are opened at run time with purego, so a binary
// built with CGO_ENABLED=0 runs on machines with and without an NVIDIA driver.
//
// # Loading
//
// Load opens libcuda.so.1 and resolves a fixed table of exact symbol names. CUDA
// headers map an API name onto a versioned symbol (cuMemAlloc → cuMemAlloc_v2), and
// CUDA 13 moved some names to versions with other signatures (cuCtxCreate → _v4), so
// the table names the versioned symbols the signatures here were written for, never
// the bare macro names. Without a driver Load returns an error wrapping ErrNoDriver,
// whose text is the one line "no CUDA driver: libcuda.so.1 not found".
//
// LoadNVRTC opens the run-time compiler. It tries, in order, the file named by
// BLOCKAMG_NVRTC, libnvrtc.so.13 through the loader's search path,
// /usr/local/cuda/lib64 and $CUDA_HOME/lib64; it preloads libnvrtc-builtins from the
// directory where NVRTC was found, since NVRTC opens it by name at compile time.
//
// # Threads
//
// A CUDA context is current per OS thread. Every function here acts on the context
// current on the calling thread, so callers must run all of them on one goroutine
// locked to its thread (runtime.LockOSThread) after CtxSetCurrent; backend/cuda does
// that with a worker goroutine. Only the NVRTC functions are free of this.
//
// # Errors
//
// Every failing call returns an *Error carrying the call's name, the CUresult (or
// nvrtcResult) and its symbolic name, such as "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY
// (2)". With BLOCKAMG_CUDA_DEBUG=1 in the environment at Load, LaunchKernel
// synchronises the context after every launch and reports a failing kernel at the
// launch that caused it rather than at some later call.
package cudadrv
