// Prolongator smoothing Y = X − ω·D⁻¹·A·X with a precomputed product list, the
// re-setup's default (backend/cuda/smooth.go). smoothsearch.cu's rs_smooth has every
// thread walk all of row i of A and test each block against its own column: the
// threads of a warp (different Y blocks) match different A blocks, so the warp runs
// the product for nearly every A block of the row. The plan lists, per Y block, the
// (A block, X block) pairs that match, in A's storage order, so a thread runs only
// its own products, in the same order (the same bits). Every output is written by
// one thread in an order fixed by the pattern, so results are bitwise reproducible
// from run to run.

#include "common.cuh"
#include "resetup.cuh"

// rs_plan_count: per Y block s: its row, the position of its column in X's row (−1
// when absent) and the number of matching A blocks.
extern "C" __global__ void __launch_bounds__(THREADS) rs_plan_count(int n, i64 nY, const i64* __restrict__ arp,
                                                                    const int* __restrict__ acol,
                                                                    const i64* __restrict__ xrp,
                                                                    const int* __restrict__ xcol,
                                                                    const i64* __restrict__ yrp,
                                                                    const int* __restrict__ ycol, int* __restrict__ row,
                                                                    i64* __restrict__ xpos, int* __restrict__ cnt)
{
    const i64 s = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nY) return;
    const int i = rs_row(yrp, n, s);
    const int c = ycol[s];
    int k = 0;
    for (i64 a = arp[i]; a < arp[i + 1]; a++) {
        const int j = acol[a];
        if (rs_find(xcol, xrp[j], xrp[j + 1], c) >= 0) k++;
    }
    row[s] = i;
    xpos[s] = rs_find(xcol, xrp[i], xrp[i + 1], c);
    cnt[s] = k;
}

// rs_plan_fill writes the pairs of Y block s from ptr[s] (the exclusive sums of the
// counts).
extern "C" __global__ void __launch_bounds__(THREADS) rs_plan_fill(i64 nY, const i64* __restrict__ arp,
                                                                   const int* __restrict__ acol,
                                                                   const i64* __restrict__ xrp,
                                                                   const int* __restrict__ xcol,
                                                                   const int* __restrict__ ycol,
                                                                   const int* __restrict__ row,
                                                                   const i64* __restrict__ ptr, int2* __restrict__ pairs)
{
    const i64 s = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nY) return;
    const int i = row[s];
    const int c = ycol[s];
    i64 o = ptr[s];
    for (i64 a = arp[i]; a < arp[i + 1]; a++) {
        const int j = acol[a];
        const i64 t = rs_find(xcol, xrp[j], xrp[j + 1], c);
        if (t >= 0) pairs[o++] = make_int2((int)a, (int)t);
    }
}

// rs_smooth_plan: block s of Y = X − ω·D⁻¹·(A·X) from its product list; B = 0 takes
// the sizes at run time.
template <int B, int K>
__device__ __forceinline__ void rs_smooth_plan(int b_, int k_, i64 nY, const i64* __restrict__ ptr,
                                               const int2* __restrict__ pairs, const int* __restrict__ row,
                                               const i64* __restrict__ xpos, const double* __restrict__ aval,
                                               const double* __restrict__ xval, const double* __restrict__ dinv,
                                               double omega, double* __restrict__ yval)
{
    const i64 s = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nY) return;
    const int b = B > 0 ? B : b_;
    const int k = B > 0 ? K : k_;
    const int bk = b * k, bb = b * b;
    double acc[RS_MAX * RS_MAX];
#pragma unroll
    for (int e = 0; e < (B > 0 ? B * K : RS_MAX * RS_MAX); e++) acc[e] = 0;
    const i64 p1 = ptr[s + 1];
    for (i64 p = ptr[s]; p < p1; p++) {
        const int2 e2 = pairs[p];
        const double* A = aval + (i64)e2.x * bb;
        const double* X = xval + (i64)e2.y * bk;
        rs_acc<B, K>(b, k, A, X, acc);
    }
    const i64 ts = xpos[s];
    rs_store<B, K>(b, k, dinv + (i64)row[s] * bb, ts >= 0 ? xval + ts * bk : nullptr, omega, acc, yval + s * bk);
}

#define RS_SMOOTH_PLAN(NAME, B, K)                                                                       \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(                                          \
        int b, int k, i64 nY, const i64* __restrict__ ptr, const int2* __restrict__ pairs,               \
        const int* __restrict__ row, const i64* __restrict__ xpos, const double* __restrict__ aval,      \
        const double* __restrict__ xval, const double* __restrict__ dinv, double omega,                  \
        double* __restrict__ yval)                                                                       \
    {                                                                                                    \
        rs_smooth_plan<B, K>(b, k, nY, ptr, pairs, row, xpos, aval, xval, dinv, omega, yval);            \
    }
RS_SMOOTH_PLAN(resetup_smooth_plan_generic, 0, 0)

// rs_smooth_rows is rs_smooth_plan for fixed shapes with L ≥ B lanes per Y block: lane
// r < B owns row r of the block (K accumulators instead of B·K, so more threads stay
// resident), reading row r of each A block and the whole X block (the same addresses
// as its group's other lanes). D⁻¹ mixes the rows through shuffles within the group.
// Each value is the same sum in the same order as rs_smooth's, so the bits are equal.
template <int B, int K, int L>
__device__ __forceinline__ void rs_smooth_rows(i64 nY, const i64* __restrict__ ptr, const int2* __restrict__ pairs,
                                               const int* __restrict__ row, const i64* __restrict__ xpos,
                                               const double* __restrict__ aval, const double* __restrict__ xval,
                                               const double* __restrict__ dinv, double omega,
                                               double* __restrict__ yval)
{
    static_assert(B <= L && 32 % L == 0, "lanes per Y block");
    const i64 s = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / L;
    const int r = threadIdx.x & (L - 1);
    const bool active = s < nY; // the same for the whole group; every lane still shuffles
    const bool own = active && r < B;
    double acc[K];
#pragma unroll
    for (int e = 0; e < K; e++) acc[e] = 0;
    if (own) {
        const i64 p1 = ptr[s + 1];
        for (i64 p = ptr[s]; p < p1; p++) {
            const int2 e2 = pairs[p];
            const double* A = aval + (i64)e2.x * B * B + r * B;
            const double* X = xval + (i64)e2.y * B * K;
#pragma unroll
            for (int q = 0; q < B; q++) {
                const double av = A[q];
#pragma unroll
                for (int e = 0; e < K; e++) acc[e] += av * X[q * K + e];
            }
        }
    }
    const double* D = dinv + (own ? (i64)row[s] * B * B + r * B : 0);
    double t[K];
#pragma unroll
    for (int e = 0; e < K; e++) t[e] = 0;
#pragma unroll
    for (int q = 0; q < B; q++) {
        const double dq = own ? D[q] : 0.0;
#pragma unroll
        for (int e = 0; e < K; e++) t[e] += dq * __shfl_sync(0xffffffffu, acc[e], q, L);
    }
    if (!own) return;
    const i64 ts = xpos[s];
    double* Y = yval + s * B * K + r * K;
#pragma unroll
    for (int e = 0; e < K; e++) {
        const double x0 = ts >= 0 ? xval[ts * B * K + r * K + e] : 0.0;
        Y[e] = x0 - omega * t[e];
    }
}

#define RS_SMOOTH_ROWS(NAME, B, K, L)                                                                    \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(                                          \
        int b, int k, i64 nY, const i64* __restrict__ ptr, const int2* __restrict__ pairs,               \
        const int* __restrict__ row, const i64* __restrict__ xpos, const double* __restrict__ aval,      \
        const double* __restrict__ xval, const double* __restrict__ dinv, double omega,                  \
        double* __restrict__ yval)                                                                       \
    {                                                                                                    \
        rs_smooth_rows<B, K, L>(nY, ptr, pairs, row, xpos, aval, xval, dinv, omega, yval);               \
    }
RS_SMOOTH_ROWS(resetup_smooth_plan_3x6, 3, 6, 4)
RS_SMOOTH_ROWS(resetup_smooth_plan_6x6, 6, 6, 8)
