// Numeric phase of prolongator filtering (package filter) on the device.
//
// One thread per scalar row (i, q) of the fine block rows: q in [0, b) is the row
// inside the b×k blocks of fine block row i. The b rows of the correction
// Δ = E·M⁻¹·G_Sᵀ are independent (see package filter), so a thread needs only row q
// of E (k values, in registers), the row's packed Cholesky factor and the coarse
// blocks B_cJ; no shared memory, no atomics, every output value written by exactly
// one thread in a fixed order: deterministic.
//
// The sums are taken in the order of the CPU's Plan.Numeric (filter/filter.go,
// filter/kernels.go, bsr.GemmAcc) with __dmul_rn/__dadd_rn/__dsub_rn, which the
// compiler never contracts into FMAs, so the device P_f equals the CPU's bit for bit
// where Go does not fuse either (amd64, GOAMD64 < v3).
//
// A row's surviving blocks are found by merging its P and P_f columns (P_f's are an
// ordered subset of P's); rows with rowfac < 0 (nothing dropped, or left unfiltered)
// have P's blocks exactly and are copied.

#include "common.cuh"

// FILTER_KMAX bounds k for the generic kernel (its arrays are unrolled into
// registers); mirrored by filterKMax in filter.go.
#define FILTER_KMAX 8

// KT > 0: k is the compile-time KT (loops unrolled, e and y in registers); KT = 0:
// runtime k ≤ FILTER_KMAX.
template <int KT>
__device__ __forceinline__ void filter_row(i64 g, int b, int krt, const i64* __restrict__ prp,
                                           const int* __restrict__ pcol, const double* __restrict__ pval,
                                           const i64* __restrict__ frp, const int* __restrict__ fcol,
                                           double* __restrict__ fval, const int* __restrict__ rowfac,
                                           const double* __restrict__ fac, const double* __restrict__ bc)
{
    const int k = KT > 0 ? KT : krt;
    const i64 i = g / b;
    const int q = (int)(g - i * b);
    const i64 s0 = prp[i], s1 = prp[i + 1];
    const i64 t0 = frp[i], t1 = frp[i + 1];
    const i64 bk = (i64)b * k, kk = (i64)k * k;
    const int f = rowfac[i];
    if (f < 0) {
        // P_f's row is P's: copy row q of each block.
        for (i64 s = s0, t = t0; s < s1; s++, t++) {
            const double* src = pval + s * bk + (i64)q * k;
            double* dst = fval + t * bk + (i64)q * k;
#pragma unroll
            for (int c = 0; c < (KT > 0 ? KT : FILTER_KMAX); c++) {
                if (KT == 0 && c >= k) break;
                dst[c] = src[c];
            }
        }
        return;
    }
    constexpr int KA = KT > 0 ? KT : FILTER_KMAX;
    double e[KA], y[KA];
#pragma unroll
    for (int c = 0; c < KA; c++) e[c] = 0.0;
    // E_q = Σ over dropped blocks of P_iJ[q,:]·B_cJ, blocks in column order, each
    // column's sum continuing from E's value (bsr.GemmAcc).
    i64 t = t0;
    for (i64 s = s0; s < s1; s++) {
        const int J = pcol[s];
        if (t < t1 && fcol[t] == J) {
            t++;
            continue;
        }
        const double* p = pval + s * bk + (i64)q * k;
        const double* B = bc + (i64)J * kk;
        double pr[KA];
#pragma unroll
        for (int l = 0; l < KA; l++) {
            if (KT == 0 && l >= k) break;
            pr[l] = p[l];
        }
#pragma unroll
        for (int c = 0; c < KA; c++) {
            if (KT == 0 && c >= k) break;
            double acc = e[c];
#pragma unroll
            for (int l = 0; l < KA; l++) {
                if (KT == 0 && l >= k) break;
                acc = __dadd_rn(acc, __dmul_rn(pr[l], B[l * k + c]));
            }
            e[c] = acc;
        }
    }
    // y = M⁻¹·e through the packed factor (reciprocal diagonal): forward, then
    // backward, in place in y (filter.solveRows).
    const double* L = fac + (i64)f * (k * (k + 1) / 2);
#pragma unroll
    for (int j = 0; j < KA; j++) {
        if (KT == 0 && j >= k) break;
        const int rj = j * (j + 1) / 2;
        double s = e[j];
#pragma unroll
        for (int l = 0; l < j; l++) s = __dsub_rn(s, __dmul_rn(L[rj + l], y[l]));
        y[j] = __dmul_rn(s, L[rj + j]);
    }
#pragma unroll
    for (int j = KA - 1; j >= 0; j--) {
        if (KT == 0 && j >= k) continue;
        double s = y[j];
#pragma unroll
        for (int l = j + 1; l < KA; l++) {
            if (KT == 0 && l >= k) break;
            s = __dsub_rn(s, __dmul_rn(L[l * (l + 1) / 2 + j], y[l]));
        }
        y[j] = __dmul_rn(s, L[j * (j + 1) / 2 + j]);
    }
    // Survivors: P_f,iJ[q,c] = P_iJ[q,c] + (0 + Σ_l y_l·B_cJ[c,l]) (filter.gemmNTAcc).
    t = t0;
    for (i64 s = s0; s < s1 && t < t1; s++) {
        const int J = pcol[s];
        if (fcol[t] != J) continue;
        const double* p = pval + s * bk + (i64)q * k;
        double* o = fval + t * bk + (i64)q * k;
        const double* B = bc + (i64)J * kk;
#pragma unroll
        for (int c = 0; c < KA; c++) {
            if (KT == 0 && c >= k) break;
            double acc = 0.0;
#pragma unroll
            for (int l = 0; l < KA; l++) {
                if (KT == 0 && l >= k) break;
                acc = __dadd_rn(acc, __dmul_rn(y[l], B[c * k + l]));
            }
            o[c] = __dadd_rn(p[c], acc);
        }
        t++;
    }
}

// filter_numeric_k6: k = 6 (3D rigid-body modes), any b. rows = n·b scalar rows.
extern "C" __global__ void __launch_bounds__(THREADS) filter_numeric_k6(i64 rows, int b, const i64* __restrict__ prp,
                                             const int* __restrict__ pcol, const double* __restrict__ pval,
                                             const i64* __restrict__ frp, const int* __restrict__ fcol,
                                             double* __restrict__ fval, const int* __restrict__ rowfac,
                                             const double* __restrict__ fac, const double* __restrict__ bc)
{
    const i64 g = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= rows) return;
    filter_row<6>(g, b, 6, prp, pcol, pval, frp, fcol, fval, rowfac, fac, bc);
}

// filter_numeric_generic: any k ≤ FILTER_KMAX, any b.
extern "C" __global__ void __launch_bounds__(THREADS) filter_numeric_generic(i64 rows, int b, int k, const i64* __restrict__ prp,
                                                  const int* __restrict__ pcol, const double* __restrict__ pval,
                                                  const i64* __restrict__ frp, const int* __restrict__ fcol,
                                                  double* __restrict__ fval, const int* __restrict__ rowfac,
                                                  const double* __restrict__ fac, const double* __restrict__ bc)
{
    const i64 g = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= rows) return;
    filter_row<0>(g, b, k, prp, pcol, pval, frp, fcol, fval, rowfac, fac, bc);
}
