// What the re-setup's kernels share (resetup.cu, smooth.cu, smoothsearch.cu): the
// largest block they take, the searches of a pattern and the block arithmetic of
// the prolongator smoothing, whose order of additions every smoothing kernel keeps.
#ifndef BLOCKAMG_RESETUP_CUH
#define BLOCKAMG_RESETUP_CUH

#include "common.cuh"

#define RS_MAX 6 // largest block dimension the re-setup kernels take

// rs_find returns the position of column c in the sorted columns col[lo..hi), or -1.
__device__ __forceinline__ i64 rs_find(const int* __restrict__ col, i64 lo, i64 hi, int c)
{
    while (lo < hi) {
        const i64 m = (lo + hi) >> 1;
        const int v = col[m];
        if (v == c) return m;
        if (v < c) lo = m + 1;
        else hi = m;
    }
    return -1;
}

// rs_row returns the block row of block s: the largest i with rowptr[i] <= s.
__device__ __forceinline__ int rs_row(const i64* __restrict__ rowptr, int n, i64 s)
{
    int lo = 0, hi = n; // rowptr[lo] <= s < rowptr[hi]
    while (hi - lo > 1) {
        const int m = (lo + hi) >> 1;
        if (rowptr[m] <= s) lo = m;
        else hi = m;
    }
    return lo;
}

// rs_acc adds A·X to acc (A b×b, X and acc b×k, row-major); B = 0 takes b and k at
// run time. The order of the additions is the smoothing kernels' common order.
template <int B, int K>
__device__ __forceinline__ void rs_acc(int b, int k, const double* __restrict__ A, const double* __restrict__ X,
                                       double* acc)
{
#pragma unroll
    for (int r = 0; r < (B > 0 ? B : RS_MAX); r++) {
        if (B == 0 && r >= b) break;
#pragma unroll
        for (int q = 0; q < (B > 0 ? B : RS_MAX); q++) {
            if (B == 0 && q >= b) break;
            const double av = A[r * b + q];
#pragma unroll
            for (int e = 0; e < (B > 0 ? K : RS_MAX); e++) {
                if (B == 0 && e >= k) break;
                acc[r * k + e] += av * X[q * k + e];
            }
        }
    }
}

// rs_store writes Y = X0 − ω·D·acc (X0 null: zero), D b×b.
template <int B, int K>
__device__ __forceinline__ void rs_store(int b, int k, const double* __restrict__ D, const double* __restrict__ X0,
                                         double omega, const double* acc, double* __restrict__ Y)
{
#pragma unroll
    for (int r = 0; r < (B > 0 ? B : RS_MAX); r++) {
        if (B == 0 && r >= b) break;
#pragma unroll
        for (int e = 0; e < (B > 0 ? K : RS_MAX); e++) {
            if (B == 0 && e >= k) break;
            double t = 0;
#pragma unroll
            for (int q = 0; q < (B > 0 ? B : RS_MAX); q++) {
                if (B == 0 && q >= b) break;
                t += D[r * b + q] * acc[q * k + e];
            }
            const double x0 = X0 != nullptr ? X0[r * k + e] : 0.0;
            Y[r * k + e] = x0 - omega * t;
        }
    }
}

#endif
