// PCG's recurrence with its scalars on the device (backend/cuda/cgstep.go, the
// backend.CGStepper of backend.PCG). Layout of S (doubles):
//   S[0] state: 0 running, 2 breakdown; S[1] iteration of the breakdown, S[2] its
//   quantity (0 rᵀz, 1 pᵀAp), S[3] its value; S[4] rᵀr; S[5] rz, S[6] α, S[7] β.
// The host reads S[0..4] once per iteration.
// After a breakdown every kernel but cg_start leaves vectors and scalars alone. The
// partial sums come from dot_partial or cg_update on the fixed DOT_BLOCKS grid and are
// summed by final_sum, so every scalar has the bits of the backend's Dot. The vector
// updates are vec_axpby's expression a·x + b·y with b = one, a run-time 1.0, so that
// the compiler contracts them as it does vec_axpby's.

#include "common.cuh"

__device__ __forceinline__ bool cg_bad(double v) { return !(v > 0) || isinf(v); }

__device__ __forceinline__ void cg_break(double* S, int it, int quantity, double v)
{
    S[0] = 2;
    S[1] = it;
    S[2] = quantity;
    S[3] = v;
}

// cg_start: rz = Σ partial, the recurrence (re)started at iteration it (one block).
extern "C" __global__ void __launch_bounds__(THREADS) cg_start(int m, const double* __restrict__ partial, double* S,
                                                               int it)
{
    const double rz = final_sum(m, partial);
    if (threadIdx.x != 0) return;
    S[0] = 0;
    S[5] = rz;
    if (cg_bad(rz)) cg_break(S, it, 0, rz);
}

// cg_alpha: pq = Σ partial, α = rz/pq (one block).
extern "C" __global__ void __launch_bounds__(THREADS) cg_alpha(int m, const double* __restrict__ partial, double* S,
                                                               int it)
{
    const double pq = final_sum(m, partial);
    if (threadIdx.x != 0 || S[0] != 0) return;
    if (cg_bad(pq)) {
        cg_break(S, it, 1, pq);
        return;
    }
    S[6] = S[5] / pq;
}

// cg_update: x = α·p + x, r = −α·q + r and partial[block] = this block's share of rᵀr,
// dot_partial's element order (grid stride over DOT_BLOCKS blocks) and tree.
extern "C" __global__ void __launch_bounds__(THREADS) cg_update(i64 n, const double* __restrict__ S, double one,
                                                                const double* __restrict__ p,
                                                                const double* __restrict__ q, double* __restrict__ x,
                                                                double* __restrict__ r, double* __restrict__ partial)
{
    __shared__ double s[THREADS];
    if (S[0] != 0) return; // uniform
    const double a = S[6], na = -S[6];
    const i64 stride = (i64)gridDim.x * blockDim.x;
    double acc = 0.0;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        x[i] = a * p[i] + one * x[i];
        const double ri = na * q[i] + one * r[i];
        r[i] = ri;
        acc += ri * ri;
    }
    s[threadIdx.x] = acc;
    block_sum(s);
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// cg_rr: rᵀr = Σ partial (one block).
extern "C" __global__ void __launch_bounds__(THREADS) cg_rr(int m, const double* __restrict__ partial, double* S)
{
    const double rr = final_sum(m, partial);
    if (threadIdx.x != 0 || S[0] != 0) return;
    S[4] = rr;
}

// cg_beta: rzNew = Σ partial, β = rzNew/rz, rz = rzNew (one block).
extern "C" __global__ void __launch_bounds__(THREADS) cg_beta(int m, const double* __restrict__ partial, double* S,
                                                              int it)
{
    const double rz = final_sum(m, partial);
    if (threadIdx.x != 0 || S[0] != 0) return;
    if (cg_bad(rz)) {
        cg_break(S, it, 0, rz);
        return;
    }
    S[7] = rz / S[5];
    S[5] = rz;
}

// cg_xpby: p = one·z + β·p.
extern "C" __global__ void __launch_bounds__(THREADS) cg_xpby(i64 n, const double* __restrict__ S, double one,
                                                              const double* __restrict__ z, double* __restrict__ p)
{
    if (S[0] != 0) return;
    const double b = S[7];
    const i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) p[i] = one * z[i] + b * p[i];
}
