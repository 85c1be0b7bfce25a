// CG–Lanczos coefficients with the scalars on the device (backend/cuda/lanczos.go):
// the eigenvalue estimate of a re-setup runs its CG recurrence with no host round
// trip per step; the host downloads the scalar array once at the end and reads the
// coefficients, the stop and any breakdown from it. Layout of S (doubles):
//   S[0] state: 0 running, 1 stopped (Krylov space exhausted), 2 breakdown
//   S[1] iteration of the breakdown, S[2] its quantity (0 rᵀz, 1 pᵀAp), S[3] its value
//   S[4] rz0, S[5] rz (current), S[6] scratch for dots, S[7] αs computed, S[8] βs computed
//   S[LZ_A + it] alpha_it, S[LZ_B(steps) + it] beta_it, S[LZ_PQ(steps)+it] pᵀAp, S[LZ_RZ(steps)+it] rᵀz
// A step that finds the state not running leaves every vector and scalar unchanged.

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

// lz_alpha: alpha = rz / pᵀAp (pᵀAp in S[6]) for step it (1-based), stored at
// S[a0 + it - 1]; pᵀAp stored at S[pq0 + it - 1].
extern "C" __global__ void lz_alpha(double* S, int it, int a0, int pq0)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    if (S[0] != 0) return;
    const double pq = S[6];
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

// lz_beta: with rzNew in S[6], stop when rzNew ≤ 1e-24·rz0 (exhausted space),
// breakdown when not finite, else beta = rzNew/rz at S[b0 + it - 1] and rz = rzNew.
extern "C" __global__ void lz_beta(double* S, int it, int b0)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    if (S[0] != 0) return;
    const double rzNew = S[6];
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
