// Shared definitions for blockamg's CUDA kernels. The Go side concatenates this file
// and every kernels/*.cu into one translation unit for NVRTC; there are no headers.
typedef long long i64;

// THREADS is the block size every launcher uses; kernels with shared arrays size them
// by it.
#define THREADS 256
