// Re-setup kernels: the numeric parts of a smoothed-aggregation set-up that run on the
// device when a matrix gets new values on its old pattern (backend/cuda/resetup.go): the
// block-diagonal inverse and the transposes' values; the prolongator smoothing is in
// smooth.cu (and smoothsearch.cu).
// Every output is written by one thread in an order fixed by the pattern, so results
// are bitwise reproducible from run to run.

#include "common.cuh"
#include "resetup.cuh"

// resetup_invert_diag: dinv[i] = inverse of the diagonal block of block row i (bs×bs,
// bs ≤ RS_MAX), one thread per block row, by Gauss-Jordan elimination with partial
// pivoting. A missing or singular block leaves NaN in its slot and lowers *bad to the
// smallest such row (the host keeps it above every row between calls), so the host names the lowest one
// whatever the scheduling.
// BS_ > 0 fixes the block size at compile time: every loop unrolls and the row swap
// selects rows by comparison, so the two blocks stay in registers (BS_ = 0 takes bs
// at run time and keeps them in local memory). The same operations in the same order
// either way.
template <int BS_>
__device__ __forceinline__ void rs_invert(int nb, int bs_, const i64* __restrict__ rowptr,
                                          const int* __restrict__ col, const double* __restrict__ val,
                                          double* __restrict__ dinv, int* __restrict__ bad)
{
    const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nb) return;
    const int bs = BS_ ? BS_ : bs_;
    constexpr int M = BS_ ? BS_ : RS_MAX;
    const int bb = bs * bs;
    double a[M * M], v[M * M];
    i64 d = -1;
    for (i64 k = rowptr[i]; k < rowptr[i + 1]; k++) {
        if (col[k] == (int)i) {
            d = k;
            break;
        }
    }
    double* out = dinv + i * bb;
    bool ok = d >= 0;
#pragma unroll
    for (int e = 0; e < M * M; e++) a[e] = (ok && e < bb) ? val[d * bb + e] : 0.0;
#pragma unroll
    for (int r = 0; r < M; r++)
#pragma unroll
        for (int c = 0; c < M; c++) v[r * M + c] = r == c ? 1.0 : 0.0;
    // a and v are stored with row stride M (= bs when BS_ > 0).
    if (!BS_ && ok) {
        // Re-lay the run-time block from stride bs to stride M.
        for (int r = bs - 1; r >= 0; r--)
            for (int c = bs - 1; c >= 0; c--) a[r * M + c] = a[r * bs + c];
    }
    // Scale for the singularity test: the largest entry of the block.
    double amax = 0;
#pragma unroll
    for (int r = 0; r < M; r++)
#pragma unroll
        for (int c = 0; c < M; c++)
            if (ok && r < bs && c < bs) amax = fmax(amax, fabs(a[r * M + c]));
    ok = ok && amax > 0 && isfinite(amax);
#pragma unroll
    for (int k = 0; k < M; k++) {
        if (!ok || k >= bs) continue;
        int p = k;
        double pv = fabs(a[k * M + k]);
#pragma unroll
        for (int r = k + 1; r < M; r++) {
            if (r >= bs) continue;
            const double t = fabs(a[r * M + k]);
            if (t > pv) {
                pv = t;
                p = r;
            }
        }
        if (!(pv > 1e-14 * amax)) {
            ok = false;
            continue;
        }
#pragma unroll
        for (int r = k + 1; r < M; r++) {
            if (r != p) continue;
#pragma unroll
            for (int c = 0; c < M; c++) {
                double t = a[k * M + c];
                a[k * M + c] = a[r * M + c];
                a[r * M + c] = t;
                t = v[k * M + c];
                v[k * M + c] = v[r * M + c];
                v[r * M + c] = t;
            }
        }
        const double inv = 1.0 / a[k * M + k];
#pragma unroll
        for (int c = 0; c < M; c++) {
            if (c >= bs) continue;
            a[k * M + c] *= inv;
            v[k * M + c] *= inv;
        }
#pragma unroll
        for (int r = 0; r < M; r++) {
            if (r == k || r >= bs) continue;
            const double f = a[r * M + k];
            if (f == 0) continue;
#pragma unroll
            for (int c = 0; c < M; c++) {
                if (c >= bs) continue;
                a[r * M + c] -= f * a[k * M + c];
                v[r * M + c] -= f * v[k * M + c];
            }
        }
    }
    if (!ok) {
        for (int e = 0; e < bb; e++) out[e] = __longlong_as_double(0x7ff8000000000000LL);
        atomicMin(bad, (int)i);
        return;
    }
#pragma unroll
    for (int r = 0; r < M; r++)
#pragma unroll
        for (int c = 0; c < M; c++)
            if (r < bs && c < bs) out[r * bs + c] = v[r * M + c];
}

#define RS_INVERT(NAME, BS)                                                                              \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(                                          \
        int nb, int bs, const i64* __restrict__ rowptr, const int* __restrict__ col,                     \
        const double* __restrict__ val, double* __restrict__ dinv, int* __restrict__ bad)                \
    {                                                                                                    \
        rs_invert<BS>(nb, bs, rowptr, col, val, dinv, bad);                                              \
    }
RS_INVERT(resetup_invert_diag_3, 3)
RS_INVERT(resetup_invert_diag_6, 6)
RS_INVERT(resetup_invert_diag, 0)

// resetup_transpose_values: dst block q (C×R) = transpose of src block perm[q] (R×C),
// one thread per value of dst. perm is fixed by the patterns (built at upload), so the
// stored transpose of a prolongator follows its new values with a gather.
extern "C" __global__ void __launch_bounds__(THREADS) resetup_transpose_values(
    i64 nvals, int r, int c, const i64* __restrict__ perm, const double* __restrict__ src,
    double* __restrict__ dst)
{
    const i64 g = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= nvals) return;
    const int rc = r * c;
    const i64 q = g / rc;
    const int e = (int)(g - q * rc); // dst entry (ci, ri), row-major C×R
    const int ci = e / r, ri = e - ci * r;
    dst[g] = src[perm[q] * rc + ri * c + ci];
}
