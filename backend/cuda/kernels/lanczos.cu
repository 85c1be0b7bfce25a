// CG–Lanczos coefficients with the scalars on the device (backend/cuda/lanczos.go):
// the eigenvalue estimate of a re-setup runs its CG recurrence with no host round
// trip per step; the host downloads the scalar array once at the end and reads the
// coefficients, the stop and any breakdown from it. Layout of S (doubles):
//   S[0] state: 0 running, 1 stopped (Krylov space exhausted), 2 breakdown
//   S[1] iteration of the breakdown, S[2] its quantity (0 rᵀz, 1 pᵀAp), S[3] its value
//   S[4] rz0, S[5] rz (current), S[6] scratch for dots, S[7] αs computed, S[8] βs computed
//   S[LZ_A + it] alpha_it, S[LZ_B(steps) + it] beta_it, S[LZ_PQ(steps)+it] pᵀAp, S[LZ_RZ(steps)+it] rᵀz
// A step that finds the state not running leaves every vector and scalar unchanged.

#include "common.cuh"

__device__ __forceinline__ bool lz_finite(double v) { return isfinite(v); }

// lz_init: rz0 = rz = S[6] (the dot rᵀz just computed); breakdown when not positive.
extern "C" __global__ void lz_init(double* S)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    const double rz = S[6];
    S[0] = 0;
    S[7] = 0;
    S[8] = 0;
    S[4] = rz;
    S[5] = rz;
    if (!(rz > 0) || !lz_finite(rz)) {
        S[0] = 2;
        S[1] = 0;
        S[2] = 0;
        S[3] = rz;
    }
}

// lz_set_alpha, while running: pᵀAp = pq at S[6] and S[pq0 + it − 1], a breakdown
// when it is not positive and finite, else alpha = rz / pq at S[a0 + it − 1] (step it,
// 1-based).
__device__ __forceinline__ void lz_set_alpha(double* S, int it, int a0, int pq0, double pq)
{
    if (S[0] != 0) return;
    S[6] = pq;
    S[pq0 + it - 1] = pq;
    if (!(pq > 0) || !lz_finite(pq)) {
        S[0] = 2;
        S[1] = it;
        S[2] = 1;
        S[3] = pq;
        return;
    }
    S[a0 + it - 1] = S[5] / pq;
    S[7] = it;
}

// lz_set_beta, while running, with rzNew = rᵀz: stop when rzNew ≤ 1e-24·rz0 (exhausted
// space), breakdown when not finite, else beta = rzNew/rz at S[b0 + it − 1] and
// rz = rzNew.
__device__ __forceinline__ void lz_set_beta(double* S, int it, int b0, double rzNew)
{
    if (S[0] != 0) return;
    S[6] = rzNew;
    if (rzNew <= 1e-24 * S[4]) {
        S[0] = 1;
        return;
    }
    if (!lz_finite(rzNew)) {
        S[0] = 2;
        S[1] = it;
        S[2] = 0;
        S[3] = rzNew;
        return;
    }
    S[b0 + it - 1] = rzNew / S[5];
    S[5] = rzNew;
    S[8] = it;
}

// lz_alpha: lz_set_alpha with pᵀAp from S[6] (dot_final's output).
extern "C" __global__ void lz_alpha(double* S, int it, int a0, int pq0)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    lz_set_alpha(S, it, a0, pq0, S[6]);
}

// lz_beta: lz_set_beta with rᵀz from S[6].
extern "C" __global__ void lz_beta(double* S, int it, int b0)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    lz_set_beta(S, it, b0, S[6]);
}

// lz_axpy: y = y − S[k]·x while running.
extern "C" __global__ void __launch_bounds__(THREADS) lz_axpy(i64 n, const double* __restrict__ S, int k,
                                                              const double* __restrict__ x, double* __restrict__ y)
{
    if (S[0] != 0) return;
    const double a = S[k];
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)
        y[i] = y[i] - a * x[i];
}

// lz_xpby: p = z + S[k]·p while running.
extern "C" __global__ void __launch_bounds__(THREADS) lz_xpby(i64 n, const double* __restrict__ S, int k,
                                                              const double* __restrict__ z, double* __restrict__ p)
{
    if (S[0] != 0) return;
    const double b = S[k];
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)
        p[i] = z[i] + b * p[i];
}

// ---- Fused step kernels: six launches a CG–Lanczos step instead of ten. ----
// Partial sums come from a fixed grid (DOT_BLOCKS blocks, the Go side's dotBlocks) and
// fixed trees, so the results do not depend on the device's scheduling.

// lz_alpha_sum: lz_set_alpha with pᵀAp the sum of the m partials of dot_partial (one
// block).
extern "C" __global__ void __launch_bounds__(THREADS) lz_alpha_sum(int m, const double* __restrict__ partial,
                                                                   double* S, int it, int a0, int pq0)
{
    const double pq = final_sum(m, partial);
    if (threadIdx.x == 0) lz_set_alpha(S, it, a0, pq0, pq);
}

// lz_beta_sum: lz_set_beta with rᵀz the sum of the m partials of lz_residual (one
// block).
extern "C" __global__ void __launch_bounds__(THREADS) lz_beta_sum(int m, const double* __restrict__ partial,
                                                                  double* S, int it, int b0)
{
    const double rzNew = final_sum(m, partial);
    if (threadIdx.x == 0) lz_set_beta(S, it, b0, rzNew);
}

// lz_residual: while running, r = r − S[k]·q, z = D⁻¹r (nb blocks of B×B in d) and
// partial[blockIdx.x] = this block's share of rᵀz: one thread per block row (grid
// stride), launched with exactly DOT_BLOCKS blocks. Replaces lz_axpy, blockdiag_apply
// and dot_partial (three passes over r, one over z). B_ = 0: any B ≤ LZ_MAXB.
#define LZ_MAXB 8
template <int B_>
__device__ __forceinline__ void lz_residual_t(int nb, int bb, const double* __restrict__ S, int k,
                                              const double* __restrict__ q, double* __restrict__ r,
                                              const double* __restrict__ d, double* __restrict__ z,
                                              double* __restrict__ partial)
{
    __shared__ double s[THREADS];
    if (S[0] != 0) return; // uniform: every thread reads the same word
    const int B = B_ ? B_ : bb;
    constexpr int NB = B_ ? B_ : LZ_MAXB;
    const double a = S[k];
    double acc = 0.0;
    for (int br = blockIdx.x * THREADS + threadIdx.x; br < nb; br += gridDim.x * THREADS) {
        const i64 o = (i64)br * B;
        double rv[NB];
#pragma unroll
        for (int c = 0; c < NB; c++) {
            if (c < B) {
                rv[c] = r[o + c] - a * q[o + c];
                r[o + c] = rv[c];
            }
        }
        const double* db = d + o * B;
#pragma unroll
        for (int i = 0; i < NB; i++) {
            if (i < B) {
                double zi = 0.0;
#pragma unroll
                for (int c = 0; c < NB; c++)
                    if (c < B) zi += db[i * B + c] * rv[c];
                z[o + i] = zi;
                acc += rv[i] * zi;
            }
        }
    }
    s[threadIdx.x] = acc;
    block_sum(s);
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

#define LZ_RESIDUAL(NAME, B_)                                                                                 \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(int nb, int B, const double* __restrict__ S, int k, \
                                                               const double* __restrict__ q, double* __restrict__ r, \
                                                               const double* __restrict__ d, double* __restrict__ z, \
                                                               double* __restrict__ partial)                   \
    {                                                                                                         \
        lz_residual_t<B_>(nb, B, S, k, q, r, d, z, partial);                                                 \
    }
LZ_RESIDUAL(lz_residual_3, 3)
LZ_RESIDUAL(lz_residual_6, 6)
LZ_RESIDUAL(lz_residual, 0)
