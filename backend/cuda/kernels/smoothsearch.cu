// Prolongator smoothing without a product list (backend/cuda/resetup.go's
// smoothSearch): for patterns whose block counts a plan's int32 indices cannot hold.
// Its own file, so that the runs which never need it do not compile it. Every output
// is written by one thread in an order fixed by the pattern, so results are
// bitwise reproducible from run to run.

#include "common.cuh"
#include "resetup.cuh"

// rs_smooth computes block s of Y = X − ω·D⁻¹·(A·X): B×B blocks of A and D⁻¹, B×K
// blocks of X and Y, on Y's pattern (which contains those of A·X and X). The thread
// finds its block row by bisection, walks row i of A in storage order and, for each
// A block (i, j), looks up column c of Y in row j of X (sorted columns, bisection), so
// the sum over j runs in A's storage order as on the CPU. B = 0 takes the sizes at run
// time.
template <int B, int K>
__device__ __forceinline__ void rs_smooth(int n, int b_, int k_, i64 nY, const i64* __restrict__ arp,
                                          const int* __restrict__ acol, const double* __restrict__ aval,
                                          const i64* __restrict__ xrp, const int* __restrict__ xcol,
                                          const double* __restrict__ xval, const double* __restrict__ dinv,
                                          double omega, const i64* __restrict__ yrp,
                                          const int* __restrict__ ycol, double* __restrict__ yval)
{
    const i64 s = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nY) return;
    const int b = B > 0 ? B : b_;
    const int k = B > 0 ? K : k_;
    const int bk = b * k, bb = b * b;
    const int i = rs_row(yrp, n, s);
    const int c = ycol[s];
    double acc[RS_MAX * RS_MAX];
#pragma unroll
    for (int e = 0; e < (B > 0 ? B * K : RS_MAX * RS_MAX); e++) acc[e] = 0;
    for (i64 a = arp[i]; a < arp[i + 1]; a++) {
        const int j = acol[a];
        const i64 t = rs_find(xcol, xrp[j], xrp[j + 1], c);
        if (t < 0) continue;
        const double* A = aval + a * bb;
        const double* X = xval + t * bk;
        rs_acc<B, K>(b, k, A, X, acc);
    }
    const i64 ts = rs_find(xcol, xrp[i], xrp[i + 1], c);
    rs_store<B, K>(b, k, dinv + (i64)i * bb, ts >= 0 ? xval + ts * bk : nullptr, omega, acc, yval + s * bk);
}

#define RS_SMOOTH(NAME, B, K)                                                                          \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(                                        \
        int n, int b, int k, i64 nY, const i64* __restrict__ arp, const int* __restrict__ acol,        \
        const double* __restrict__ aval, const i64* __restrict__ xrp, const int* __restrict__ xcol,    \
        const double* __restrict__ xval, const double* __restrict__ dinv, double omega,                \
        const i64* __restrict__ yrp, const int* __restrict__ ycol, double* __restrict__ yval)           \
    {                                                                                                  \
        rs_smooth<B, K>(n, b, k, nY, arp, acol, aval, xrp, xcol, xval, dinv, omega, yrp, ycol, yval); \
    }
RS_SMOOTH(resetup_smooth_3x6, 3, 6)
RS_SMOOTH(resetup_smooth_6x6, 6, 6)
RS_SMOOTH(resetup_smooth_generic, 0, 0)
