// Shared definitions for blockamg's CUDA kernels. Every kernels/*.cu is its own
// translation unit and includes this header and the others it needs (the Go side
// inlines them: backend/cuda/units.go).
#ifndef BLOCKAMG_COMMON_CUH
#define BLOCKAMG_COMMON_CUH

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

// final_sum returns, in thread 0, the sum of partial[0..m) (one block of THREADS, a
// fixed tree): the second stage of the deterministic reductions whose first stage
// writes one partial per block of a fixed grid.
__device__ __forceinline__ double final_sum(int m, const double* __restrict__ partial)
{
    __shared__ double s[THREADS];
    double acc = 0.0;
    for (int i = threadIdx.x; i < m; i += THREADS) acc += partial[i];
    s[threadIdx.x] = acc;
    block_sum(s);
    return s[0];
}

#endif
