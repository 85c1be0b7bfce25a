// Exclusive prefix sums of int32 counts into int64 offsets, on the device (three
// launches, no host round trip): out[0] = 0, out[i+1] = in[0] + … + in[i]. Block b of
// scan_blocks takes elements [b·SCAN_ITEMS·THREADS, (b+1)·SCAN_ITEMS·THREADS) and
// writes their prefix sums within the block and the block's total to sums[b];
// scan_sums turns the totals into exclusive offsets (one block); scan_add adds them.

#include "common.cuh"

#define SCAN_ITEMS 4

template <typename T>
__device__ __forceinline__ void scan_blocks_body(i64 n, const T* __restrict__ in, i64* __restrict__ out, i64* __restrict__ sums)
{
    __shared__ i64 s[THREADS];
    const i64 base = (i64)blockIdx.x * SCAN_ITEMS * THREADS + (i64)threadIdx.x * SCAN_ITEMS;
    i64 v[SCAN_ITEMS];
    i64 t = 0;
#pragma unroll
    for (int k = 0; k < SCAN_ITEMS; k++) {
        v[k] = base + k < n ? in[base + k] : 0;
        t += v[k];
    }
    s[threadIdx.x] = t;
    __syncthreads();
    // Inclusive scan of the thread totals (Hillis–Steele).
    for (int o = 1; o < THREADS; o <<= 1) {
        const i64 x = threadIdx.x >= o ? s[threadIdx.x - o] : 0;
        __syncthreads();
        s[threadIdx.x] += x;
        __syncthreads();
    }
    i64 run = s[threadIdx.x] - t; // exclusive within the block
#pragma unroll
    for (int k = 0; k < SCAN_ITEMS; k++) {
        run += v[k];
        if (base + k < n) out[base + k + 1] = run;
    }
    if (threadIdx.x == THREADS - 1) sums[blockIdx.x] = s[THREADS - 1];
    if (blockIdx.x == 0 && threadIdx.x == 0) out[0] = 0;
}

extern "C" __global__ void __launch_bounds__(THREADS) scan_blocks(i64 n, const int* __restrict__ in,
                                                                  i64* __restrict__ out, i64* __restrict__ sums)
{
    scan_blocks_body<int>(n, in, out, sums);
}

// scan_blocks64 is scan_blocks for int64 counts.
extern "C" __global__ void __launch_bounds__(THREADS) scan_blocks64(i64 n, const i64* __restrict__ in,
                                                                    i64* __restrict__ out, i64* __restrict__ sums)
{
    scan_blocks_body<i64>(n, in, out, sums);
}

// scan_sums: sums[0..m) becomes its exclusive prefix sums (one block; each thread
// scans a contiguous chunk, then the chunk totals are scanned).
extern "C" __global__ void __launch_bounds__(THREADS) scan_sums(int m, i64* __restrict__ sums)
{
    __shared__ i64 s[THREADS];
    const int chunk = (m + THREADS - 1) / THREADS;
    const int lo = threadIdx.x * chunk, hi = min(lo + chunk, m);
    i64 t = 0;
    for (int i = lo; i < hi; i++) t += sums[i];
    s[threadIdx.x] = t;
    __syncthreads();
    for (int o = 1; o < THREADS; o <<= 1) {
        const i64 x = threadIdx.x >= o ? s[threadIdx.x - o] : 0;
        __syncthreads();
        s[threadIdx.x] += x;
        __syncthreads();
    }
    i64 run = s[threadIdx.x] - t;
    for (int i = lo; i < hi; i++) {
        const i64 v = sums[i];
        sums[i] = run;
        run += v;
    }
}

// scan_add: out[i+1] += the offset of i's block.
extern "C" __global__ void __launch_bounds__(THREADS) scan_add(i64 n, const i64* __restrict__ sums,
                                                               i64* __restrict__ out)
{
    const i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i + 1] += sums[i / (SCAN_ITEMS * THREADS)];
}
