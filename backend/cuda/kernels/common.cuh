// Shared definitions for blockamg's CUDA kernels. The Go side concatenates this file
// and every kernels/*.cu into one translation unit for NVRTC; there are no headers.
typedef long long i64;

// THREADS is the block size every launcher uses; kernels with shared arrays size them
// by it.
#define THREADS 256

// block_sum leaves the sum of the THREADS values in s[0], in a fixed tree.
__device__ __forceinline__ void block_sum(double* s)
{
    for (int w = THREADS / 2; w > 0; w >>= 1) {
        __syncthreads();
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    }
    __syncthreads();
}
