// The Galerkin product Ac = Pᵀ·A·P on BSR operands (see galerkin.go for the plan, the
// schedules and the traffic model).
//
// Shapes: A is N×N blocks of R×R, P is N×M blocks of R×C, W = A·P is N×M blocks of
// R×C, Ac is M×M blocks of C×C. Every kernel is a template on <R_, C_>: non-zero values
// fix the shape at compile time (the accumulators live in registers and every block
// loop is unrolled); <0, 0> is the generic path, which reads R and C from its
// arguments and keeps its accumulators in local memory (R, C <= GAL_MAX).
//
// Every output entry is summed by one owner — a thread (inspector, fused, smem-tiles: one
// thread per block row), a warp (tc-block, tc-rows) or a warp's shared-memory window
// (smem-rows) — in an order fixed by the host schedule, so every kernel but
// gal_ptw_atomic_nd gives the same bits on every run. gal_ptw_atomic_nd adds into Ac with
// atomicAdd, whose order depends on the hardware's scheduling: it is nondeterministic by
// design (it is the portable "team kernel" baseline).
//
// Schedules (built once on the host) are packed 16+16-bit offsets, not global indices,
// so a product costs 4 bytes of schedule:
//   W list, per W block (i,J): (ka << 16 | kp): A block arp[i]+ka, whose column is
//     j = acol[arp[i]+ka], times P block prp[j]+kp (column J);
//   Ac list, per Ac block (I,J): (e << 16 | kw): entry ptrp[I]+e of Pᵀ row I, which is
//     P block ptidx[..] of fine row ptrow[..] = i, times W block wrp[i]+kw (column J).

#include "common.cuh"
#include "galerkin_tc.cuh"

#define GAL_MAX 6

// acc (R×C) += a (R×R) · b (R×C).
template <int R_, int C_>
__device__ __forceinline__ void gal_mul_ab(int rr, int cc, const double* __restrict__ a,
                                           const double* __restrict__ b, double* acc)
{
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    double bv[R_ ? R_ * C_ : GAL_MAX * GAL_MAX];
#pragma unroll
    for (int t = 0; t < R * C; t++) bv[t] = __ldg(b + t);
#pragma unroll
    for (int r = 0; r < R; r++) {
#pragma unroll
        for (int k = 0; k < R; k++) {
            const double av = __ldg(a + r * R + k);
#pragma unroll
            for (int c = 0; c < C; c++) acc[r * C + c] = fma(av, bv[k * C + c], acc[r * C + c]);
        }
    }
}

// acc (C×C) += pᵀ · w, p and w R×C; w already in registers.
template <int R_, int C_>
__device__ __forceinline__ void gal_mul_ptw(int rr, int cc, const double* __restrict__ p, const double* w,
                                            double* acc)
{
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
#pragma unroll
    for (int k = 0; k < R; k++) {
#pragma unroll
        for (int r = 0; r < C; r++) {
            const double pv = __ldg(p + k * C + r);
#pragma unroll
            for (int c = 0; c < C; c++) acc[r * C + c] = fma(pv, w[k * C + c], acc[r * C + c]);
        }
    }
}

// W = A·P, the baseline: thread per W block (i,J); for every A block (i,j) it searches
// P row j for column J (rows are sorted: a linear scan that stops at the first column
// >= J).
template <int R_, int C_>
__device__ __forceinline__ void gal_w_search(int rr, int cc, i64 nnzW, const int* __restrict__ wrow,
                                             const int* __restrict__ wcol, const i64* __restrict__ arp,
                                             const int* __restrict__ acol, const double* __restrict__ aval,
                                             const i64* __restrict__ prp, const int* __restrict__ pcol,
                                             const double* __restrict__ pval, double* __restrict__ wval)
{
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    const i64 w = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nnzW) return;
    const int i = wrow[w];
    const int J = wcol[w];
    double acc[R_ ? R_ * C_ : GAL_MAX * GAL_MAX];
#pragma unroll
    for (int t = 0; t < R * C; t++) acc[t] = 0.0;
    const i64 a1 = arp[i + 1];
    for (i64 a = arp[i]; a < a1; a++) {
        const int j = __ldg(acol + a);
        const i64 p1 = __ldg(prp + j + 1);
        for (i64 p = __ldg(prp + j); p < p1; p++) {
            const int c = __ldg(pcol + p);
            if (c < J) continue;
            if (c == J) gal_mul_ab<R_, C_>(R, C, aval + a * R * R, pval + p * R * C, acc);
            break;
        }
    }
    double* __restrict__ out = wval + w * R * C;
#pragma unroll
    for (int t = 0; t < R * C; t++) out[t] = acc[t];
}

// Ac += Pᵀ·W with atomics, the baseline: thread per W block (i,J); for every P block
// (i,I) it binary-searches Ac row I for column J and adds the C×C product with
// atomicAdd. NONDETERMINISTIC: the order of the additions into an Ac entry varies from
// run to run. Ac must be zero before.
template <int R_, int C_>
__device__ __forceinline__ void gal_ptw_atomic_nd(int rr, int cc, i64 nnzW, const int* __restrict__ wrow,
                                                  const int* __restrict__ wcol, const double* __restrict__ wval,
                                                  const i64* __restrict__ prp, const int* __restrict__ pcol,
                                                  const double* __restrict__ pval, const i64* __restrict__ acrp,
                                                  const int* __restrict__ accol, double* __restrict__ acval)
{
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    const i64 w = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nnzW) return;
    const int i = wrow[w];
    const int J = wcol[w];
    double wv[R_ ? R_ * C_ : GAL_MAX * GAL_MAX];
#pragma unroll
    for (int t = 0; t < R * C; t++) wv[t] = wval[w * R * C + t];
    const i64 p1 = prp[i + 1];
    for (i64 p = prp[i]; p < p1; p++) {
        const int I = __ldg(pcol + p);
        i64 lo = __ldg(acrp + I), hi = __ldg(acrp + I + 1) - 1;
        while (lo < hi) { // first column >= J; J is present by construction
            const i64 mid = (lo + hi) >> 1;
            if (__ldg(accol + mid) < J) lo = mid + 1;
            else hi = mid;
        }
        double acc[C_ ? C_ * C_ : GAL_MAX * GAL_MAX];
#pragma unroll
        for (int t = 0; t < C * C; t++) acc[t] = 0.0;
        gal_mul_ptw<R_, C_>(R, C, pval + p * R * C, wv, acc);
        double* __restrict__ out = acval + lo * C * C;
#pragma unroll
        for (int t = 0; t < C * C; t++) atomicAdd(out + t, acc[t]);
    }
}

// One W block from its schedule: acc = Σ A·P over the list wlist[wptr[w] .. wptr[w+1]).
template <int R_, int C_>
__device__ __forceinline__ void gal_w_from_list(int R, int C, i64 w, int i, const i64* __restrict__ wptr,
                                                const unsigned* __restrict__ wlist, const i64* __restrict__ arp,
                                                const int* __restrict__ acol, const double* __restrict__ aval,
                                                const i64* __restrict__ prp, const double* __restrict__ pval,
                                                double* acc)
{
#pragma unroll
    for (int t = 0; t < R * C; t++) acc[t] = 0.0;
    const i64 a0 = __ldg(arp + i);
    const i64 t1 = __ldg(wptr + w + 1);
    for (i64 t = __ldg(wptr + w); t < t1; t++) {
        const unsigned u = __ldg(wlist + t);
        const i64 a = a0 + (u >> 16);
        const int j = __ldg(acol + a);
        const i64 p = __ldg(prp + j) + (u & 0xffffu);
        gal_mul_ab<R_, C_>(R, C, aval + a * R * R, pval + p * R * C, acc);
    }
}

// W = A·P, inspector–executor: thread per W block, its product list streamed, no
// search. Deterministic.
template <int R_, int C_>
__device__ __forceinline__ void gal_w_list(int rr, int cc, i64 nnzW, const int* __restrict__ wrow,
                                           const i64* __restrict__ wptr, const unsigned* __restrict__ wlist,
                                           const i64* __restrict__ arp, const int* __restrict__ acol,
                                           const double* __restrict__ aval, const i64* __restrict__ prp,
                                           const double* __restrict__ pval, double* __restrict__ wval)
{
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    const i64 w = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nnzW) return;
    double acc[R_ ? R_ * C_ : GAL_MAX * GAL_MAX];
    gal_w_from_list<R_, C_>(R, C, w, wrow[w], wptr, wlist, arp, acol, aval, prp, pval, acc);
    double* __restrict__ out = wval + w * R * C;
#pragma unroll
    for (int t = 0; t < R * C; t++) out[t] = acc[t];
}

// Ac = Pᵀ·W, inspector–executor: thread per Ac block, its (P block, W block) list
// streamed in the order of the fine rows, no search, no atomics. Deterministic.
template <int R_, int C_>
__device__ __forceinline__ void gal_ac_list(int rr, int cc, i64 nnzAc, const int* __restrict__ acrow,
                                            const i64* __restrict__ acptr, const unsigned* __restrict__ aclist,
                                            const i64* __restrict__ ptrp, const i64* __restrict__ ptidx,
                                            const int* __restrict__ ptrow, const i64* __restrict__ wrp,
                                            const double* __restrict__ wval, const double* __restrict__ pval,
                                            double* __restrict__ acval)
{
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    const i64 b = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nnzAc) return;
    const i64 e0 = __ldg(ptrp + acrow[b]);
    double acc[C_ ? C_ * C_ : GAL_MAX * GAL_MAX];
#pragma unroll
    for (int t = 0; t < C * C; t++) acc[t] = 0.0;
    const i64 t1 = acptr[b + 1];
    for (i64 t = acptr[b]; t < t1; t++) {
        const unsigned u = __ldg(aclist + t);
        const i64 e = e0 + (u >> 16);
        const i64 p = __ldg(ptidx + e);
        const i64 w = __ldg(wrp + __ldg(ptrow + e)) + (u & 0xffffu);
        double wv[R_ ? R_ * C_ : GAL_MAX * GAL_MAX];
#pragma unroll
        for (int q = 0; q < R * C; q++) wv[q] = __ldg(wval + w * R * C + q);
        gal_mul_ptw<R_, C_>(R, C, pval + p * R * C, wv, acc);
    }
    double* __restrict__ out = acval + b * C * C;
#pragma unroll
    for (int t = 0; t < C * C; t++) out[t] = acc[t];
}

// Ac = Pᵀ·A·P fused, recomputing W: thread per Ac block (consecutive threads cover
// one coarse row, so a thread block works on a few coarse rows); each (P block, W
// block) pair of its list recomputes the W block from the W list instead of reading
// it. W is never stored; each W block is computed once per P block of its fine row.
// Deterministic.
template <int R_, int C_>
__device__ __forceinline__ void gal_fused(int rr, int cc, i64 nnzAc, const int* __restrict__ acrow,
                                          const i64* __restrict__ acptr, const unsigned* __restrict__ aclist,
                                          const i64* __restrict__ ptrp, const i64* __restrict__ ptidx,
                                          const int* __restrict__ ptrow, const i64* __restrict__ wrp,
                                          const i64* __restrict__ wptr, const unsigned* __restrict__ wlist,
                                          const i64* __restrict__ arp, const int* __restrict__ acol,
                                          const double* __restrict__ aval, const i64* __restrict__ prp,
                                          const double* __restrict__ pval, double* __restrict__ acval)
{
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    const i64 b = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nnzAc) return;
    const i64 e0 = __ldg(ptrp + acrow[b]);
    double acc[C_ ? C_ * C_ : GAL_MAX * GAL_MAX];
#pragma unroll
    for (int t = 0; t < C * C; t++) acc[t] = 0.0;
    const i64 t1 = acptr[b + 1];
    for (i64 t = acptr[b]; t < t1; t++) {
        const unsigned u = __ldg(aclist + t);
        const i64 e = e0 + (u >> 16);
        const i64 p = __ldg(ptidx + e);
        const int i = __ldg(ptrow + e);
        const i64 w = __ldg(wrp + i) + (u & 0xffffu);
        double wv[R_ ? R_ * C_ : GAL_MAX * GAL_MAX];
        gal_w_from_list<R_, C_>(R, C, w, i, wptr, wlist, arp, acol, aval, prp, pval, wv);
        gal_mul_ptw<R_, C_>(R, C, pval + p * R * C, wv, acc);
    }
    double* __restrict__ out = acval + b * C * C;
#pragma unroll
    for (int t = 0; t < C * C; t++) out[t] = acc[t];
}

// W = A·P, inspector–executor with one thread per W block row (R threads per block,
// adjacent): thread (w, r) sums row r of W block w, reading row r of each A block and
// the whole P block (the R threads of a block read the same P block, so the loads
// coalesce), and the R threads write the block's R·C values contiguously.
// Deterministic.
template <int R_, int C_>
__device__ __forceinline__ void gal_w_rows(int rr, int cc, i64 nnzW, const int* __restrict__ wrow,
                                           const i64* __restrict__ wptr, const unsigned* __restrict__ wlist,
                                           const i64* __restrict__ arp, const int* __restrict__ acol,
                                           const double* __restrict__ aval, const i64* __restrict__ prp,
                                           const double* __restrict__ pval, double* __restrict__ wval)
{
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const i64 w = tid / R;
    const int r = (int)(tid - w * R);
    if (w >= nnzW) return;
    double acc[C_ ? C_ : GAL_MAX];
#pragma unroll
    for (int c = 0; c < C; c++) acc[c] = 0.0;
    const i64 a0 = __ldg(arp + wrow[w]);
    const i64 t1 = __ldg(wptr + w + 1);
    for (i64 t = __ldg(wptr + w); t < t1; t++) {
        const unsigned u = __ldg(wlist + t);
        const i64 a = a0 + (u >> 16);
        const int j = __ldg(acol + a);
        const i64 p = __ldg(prp + j) + (u & 0xffffu);
        const double* __restrict__ ap = aval + a * R * R + r * R;
        const double* __restrict__ pp = pval + p * R * C;
#pragma unroll
        for (int k = 0; k < R; k++) {
            const double av = __ldg(ap + k);
#pragma unroll
            for (int c = 0; c < C; c++) acc[c] = fma(av, __ldg(pp + k * C + c), acc[c]);
        }
    }
    double* __restrict__ out = wval + w * R * C + r * C;
#pragma unroll
    for (int c = 0; c < C; c++) out[c] = acc[c];
}

// Ac = Pᵀ·W, inspector–executor with one thread per Ac block row (C threads per
// block, adjacent): thread (b, r) sums row r of Ac block b, reading column r of each P
// block and the whole W block (shared by the block's C threads). Deterministic.
template <int R_, int C_>
__device__ __forceinline__ void gal_ac_rows(int rr, int cc, i64 nnzAc, const int* __restrict__ acrow,
                                            const i64* __restrict__ acptr, const unsigned* __restrict__ aclist,
                                            const i64* __restrict__ ptrp, const i64* __restrict__ ptidx,
                                            const int* __restrict__ ptrow, const i64* __restrict__ wrp,
                                            const double* __restrict__ wval, const double* __restrict__ pval,
                                            double* __restrict__ acval)
{
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const i64 b = tid / C;
    const int r = (int)(tid - b * C);
    if (b >= nnzAc) return;
    const i64 e0 = __ldg(ptrp + acrow[b]);
    double acc[C_ ? C_ : GAL_MAX];
#pragma unroll
    for (int c = 0; c < C; c++) acc[c] = 0.0;
    const i64 t1 = acptr[b + 1];
    for (i64 t = acptr[b]; t < t1; t++) {
        const unsigned u = __ldg(aclist + t);
        const i64 e = e0 + (u >> 16);
        const i64 p = __ldg(ptidx + e);
        const i64 w = __ldg(wrp + __ldg(ptrow + e)) + (u & 0xffffu);
        const double* __restrict__ pp = pval + p * R * C + r;
        const double* __restrict__ wp = wval + w * R * C;
#pragma unroll
        for (int k = 0; k < R; k++) {
            const double pv = __ldg(pp + k * C);
#pragma unroll
            for (int c = 0; c < C; c++) acc[c] = fma(pv, __ldg(wp + k * C + c), acc[c]);
        }
    }
    double* __restrict__ out = acval + b * C * C + r * C;
#pragma unroll
    for (int c = 0; c < C; c++) out[c] = acc[c];
}

// W = A·P, inspector–executor with absolute indices: thread per W block, its list
// holds (A block, P block) global indices (8 bytes a product instead of 4), so a
// product's operand loads depend on one list load instead of a chain of three
// (list → A's column → P's row pointer); the next pair is loaded before the current
// product is computed. Deterministic.
template <int R_, int C_>
__device__ __forceinline__ void gal_w_abs(int rr, int cc, i64 nnzW, const i64* __restrict__ wptr,
                                          const int2* __restrict__ wabs, const double* __restrict__ aval,
                                          const double* __restrict__ pval, double* __restrict__ wval)
{
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    const i64 w = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nnzW) return;
    double acc[R_ ? R_ * C_ : GAL_MAX * GAL_MAX];
#pragma unroll
    for (int t = 0; t < R * C; t++) acc[t] = 0.0;
    i64 t = wptr[w];
    const i64 t1 = wptr[w + 1];
    int2 nx = make_int2(0, 0);
    if (t < t1) nx = __ldg(wabs + t);
    for (; t < t1; t++) {
        const int2 cur = nx;
        if (t + 1 < t1) nx = __ldg(wabs + t + 1);
        gal_mul_ab<R_, C_>(R, C, aval + (i64)cur.x * R * R, pval + (i64)cur.y * R * C, acc);
    }
    double* __restrict__ out = wval + w * R * C;
#pragma unroll
    for (int q = 0; q < R * C; q++) out[q] = acc[q];
}

// Ac = Pᵀ·W, inspector–executor with absolute indices: thread per Ac block, its list
// holds (P block, W block) global indices, next pair prefetched. Deterministic.
template <int R_, int C_>
__device__ __forceinline__ void gal_ac_abs(int rr, int cc, i64 nnzAc, const i64* __restrict__ acptr,
                                           const int2* __restrict__ acabs, const double* __restrict__ wval,
                                           const double* __restrict__ pval, double* __restrict__ acval)
{
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    const i64 b = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nnzAc) return;
    double acc[C_ ? C_ * C_ : GAL_MAX * GAL_MAX];
#pragma unroll
    for (int q = 0; q < C * C; q++) acc[q] = 0.0;
    i64 t = acptr[b];
    const i64 t1 = acptr[b + 1];
    int2 nx = make_int2(0, 0);
    if (t < t1) nx = __ldg(acabs + t);
    for (; t < t1; t++) {
        const int2 cur = nx;
        if (t + 1 < t1) nx = __ldg(acabs + t + 1);
        double wv[R_ ? R_ * C_ : GAL_MAX * GAL_MAX];
#pragma unroll
        for (int q = 0; q < R * C; q++) wv[q] = __ldg(wval + (i64)cur.y * R * C + q);
        gal_mul_ptw<R_, C_>(R, C, pval + (i64)cur.x * R * C, wv, acc);
    }
    double* __restrict__ out = acval + b * C * C;
#pragma unroll
    for (int q = 0; q < C * C; q++) out[q] = acc[q];
}

// GAL_SHAPE instantiates every kernel for one shape; TAG is RxC or "generic".
#define GAL_SHAPE(R, C, TAG)                                                                                  \
    extern "C" __global__ void __launch_bounds__(THREADS) gal_w_search_##TAG(                                \
        int rr, int cc, i64 n, const int* wrow, const int* wcol, const i64* arp, const int* acol,             \
        const double* aval, const i64* prp, const int* pcol, const double* pval, double* wval)               \
    {                                                                                                         \
        gal_w_search<R, C>(rr, cc, n, wrow, wcol, arp, acol, aval, prp, pcol, pval, wval);                   \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(THREADS) gal_ptw_atomic_nd_##TAG(                           \
        int rr, int cc, i64 n, const int* wrow, const int* wcol, const double* wval, const i64* prp,          \
        const int* pcol, const double* pval, const i64* acrp, const int* accol, double* acval)               \
    {                                                                                                         \
        gal_ptw_atomic_nd<R, C>(rr, cc, n, wrow, wcol, wval, prp, pcol, pval, acrp, accol, acval);           \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(THREADS) gal_w_list_##TAG(                                  \
        int rr, int cc, i64 n, const int* wrow, const i64* wptr, const unsigned* wlist, const i64* arp,       \
        const int* acol, const double* aval, const i64* prp, const double* pval, double* wval)               \
    {                                                                                                         \
        gal_w_list<R, C>(rr, cc, n, wrow, wptr, wlist, arp, acol, aval, prp, pval, wval);                    \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(THREADS) gal_ac_list_##TAG(                                 \
        int rr, int cc, i64 n, const int* acrow, const i64* acptr, const unsigned* aclist, const i64* ptrp,   \
        const i64* ptidx, const int* ptrow, const i64* wrp, const double* wval, const double* pval,           \
        double* acval)                                                                                        \
    {                                                                                                         \
        gal_ac_list<R, C>(rr, cc, n, acrow, acptr, aclist, ptrp, ptidx, ptrow, wrp, wval, pval, acval);      \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(THREADS) gal_w_rows_##TAG(                                  \
        int rr, int cc, i64 n, const int* wrow, const i64* wptr, const unsigned* wlist, const i64* arp,       \
        const int* acol, const double* aval, const i64* prp, const double* pval, double* wval)               \
    {                                                                                                         \
        gal_w_rows<R, C>(rr, cc, n, wrow, wptr, wlist, arp, acol, aval, prp, pval, wval);                    \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(THREADS) gal_ac_rows_##TAG(                                 \
        int rr, int cc, i64 n, const int* acrow, const i64* acptr, const unsigned* aclist, const i64* ptrp,   \
        const i64* ptidx, const int* ptrow, const i64* wrp, const double* wval, const double* pval,           \
        double* acval)                                                                                        \
    {                                                                                                         \
        gal_ac_rows<R, C>(rr, cc, n, acrow, acptr, aclist, ptrp, ptidx, ptrow, wrp, wval, pval, acval);      \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(THREADS) gal_w_abs_##TAG(                                   \
        int rr, int cc, i64 n, const i64* wptr, const int2* wabs, const double* aval, const double* pval,     \
        double* wval)                                                                                         \
    {                                                                                                         \
        gal_w_abs<R, C>(rr, cc, n, wptr, wabs, aval, pval, wval);                                            \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(THREADS) gal_ac_abs_##TAG(                                  \
        int rr, int cc, i64 n, const i64* acptr, const int2* acabs, const double* wval, const double* pval,   \
        double* acval)                                                                                        \
    {                                                                                                         \
        gal_ac_abs<R, C>(rr, cc, n, acptr, acabs, wval, pval, acval);                                        \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(THREADS) gal_fused_##TAG(                                   \
        int rr, int cc, i64 n, const int* acrow, const i64* acptr, const unsigned* aclist, const i64* ptrp,   \
        const i64* ptidx, const int* ptrow, const i64* wrp, const i64* wptr, const unsigned* wlist,           \
        const i64* arp, const int* acol, const double* aval, const i64* prp, const double* pval,              \
        double* acval)                                                                                        \
    {                                                                                                         \
        gal_fused<R, C>(rr, cc, n, acrow, acptr, aclist, ptrp, ptidx, ptrow, wrp, wptr, wlist, arp, acol,    \
                        aval, prp, pval, acval);                                                             \
    }

GAL_SHAPE(3, 6, 3x6)
GAL_SHAPE(6, 6, 6x6)
GAL_SHAPE(0, 0, generic)

// ---- FP64 tensor-core (DMMA) kernels -------------------------------------------------
//
// Every block product here is one or two mma.sync.m8n8k4.f64 per warp (the only FP64
// matrix instruction of sm_80/sm_90): D (8×8) = A (8×4) · B (4×8) + C, with the PTX
// fragment layout (lane l, g = l >> 2, t = l & 3): lane l holds A[g][t], B[t][g] and
// C[g][2t], C[g][2t+1]. A block product X (M×K) · Y (K×N), M, N <= 8, is embedded with
// zero padding: lane l loads X[g][4q+t] and Y[4q+t][g] (q = 0.. for the K chunks of
// four, one mma each) and its two outputs are row g, columns 2t and 2t+1. So each
// operand element is loaded by exactly one lane: a block product costs the warp one
// load instruction per operand (one or two 128-byte lines) instead of the R·R + R·C
// serial loads a thread per output block issues, which is what limited the scalar
// kernels above (kernels/../galerkin.go has the counts). The tensor core adds each
// output's four K terms in a fixed order, so the results are bitwise reproducible.
//
// Two schedules:
//   tcb (warp per output block): the absolute-index lists of the inspector, one
//     product after another into one accumulator fragment.
//   tcr (warp per block row; NW = 16 or 32): a warp owns fine row i of W = A·P (or
//     coarse row I of Ac = Pᵀ·W) and keeps NW output blocks in registers as NW
//     accumulator fragments; it walks A row i (Pᵀ row I) and, per A block, the
//     contiguous P row it meets (per Pᵀ entry, the contiguous W row), so the operands
//     stream in storage order with no product list. Where each product lands is a
//     byte (its block's position in the output row) precomputed by the host, eight
//     to a 64-bit word: slot words, one word per eight products of an A block (Pᵀ
//     entry), the words of a row consecutive from wsw0[i] (asw0[I]); products are
//     taken four at a time (half a word), the operands of four loaded before their
//     mma. The slot is
//     warp-uniform, so a switch selects the accumulator with constant register
//     indices. Rows with more than NW output blocks are done in windows of NW blocks,
//     re-walking the row for each (a product outside the window loads no operand). Rows of more than 256 blocks have no slot bytes:
//     the host does not offer the variant then.

#define GAL_FULL 0xffffffffu

__device__ __forceinline__ void gal_prefetch_l2(unsigned long long addr)
{
    asm volatile("prefetch.global.L2 [%0];" ::"l"(addr));
}

// Asks L2 for the 128-byte lines of [p, p+bytes), lane l taking lines l, l+32, ...: a
// warp's row of A streams from memory while its first blocks are multiplied, instead
// of one block (72 bytes) per warp in flight.
__device__ __forceinline__ void gal_prefetch_run(const double* p, i64 bytes, int lane)
{
    const unsigned long long lo = (unsigned long long)p & ~127ull;
    const unsigned long long hi = (unsigned long long)p + (unsigned long long)bytes;
    for (unsigned long long x = lo + (unsigned long long)lane * 128; x < hi; x += 32 * 128) gal_prefetch_l2(x);
}

// acc[s] += a·b for a warp-uniform s < NW (NW <= 32): constant register indices.
template <int NW, int KC>
__device__ __forceinline__ void gal_dmma_at(double (&acc)[NW][2], int s, const double (&a)[KC],
                                            const double (&b)[KC], int kch)
{
#define GAL_CASE(k)                                                                                          \
    case k:                                                                                                   \
        if (k < NW) gal_dmma_k<KC>(acc[k < NW ? k : 0][0], acc[k < NW ? k : 0][1], a, b, kch);                \
        break;
    switch (s) {
        GAL_CASE(0) GAL_CASE(1) GAL_CASE(2) GAL_CASE(3) GAL_CASE(4) GAL_CASE(5) GAL_CASE(6) GAL_CASE(7)
        GAL_CASE(8) GAL_CASE(9) GAL_CASE(10) GAL_CASE(11) GAL_CASE(12) GAL_CASE(13) GAL_CASE(14) GAL_CASE(15)
        GAL_CASE(16) GAL_CASE(17) GAL_CASE(18) GAL_CASE(19) GAL_CASE(20) GAL_CASE(21) GAL_CASE(22)
        GAL_CASE(23) GAL_CASE(24) GAL_CASE(25) GAL_CASE(26) GAL_CASE(27) GAL_CASE(28) GAL_CASE(29)
        GAL_CASE(30) GAL_CASE(31)
    default:
        break;
    }
#undef GAL_CASE
}

// acc[s] += a·b (kch = KC chunks) through an indirect branch: brx.idx jumps straight
// to the mma on accumulator s, where the switch of gal_dmma_at compiles to a tree of
// compares and branches (five levels for 32). The labels are local to the asm block,
// so each inlined copy has its own. Written out for NW = 16, 32 and KC = 1, 2 (the
// operand list names every accumulator); the specialised kernels use these, the
// generic ones the switch. volatile: the block must never be speculated past the
// caller's window test (brx.idx out of range is undefined).
template <int NW, int KC>
__device__ __forceinline__ void gal_dmma_brx(double (&acc)[NW][2], int s, const double (&a)[KC], const double (&b)[KC]);

template <>
__device__ __forceinline__ void gal_dmma_brx<16, 1>(double (&acc)[16][2], int s, const double (&a)[1], const double (&b)[1])
{
    asm volatile("{\n\t"
                 "ts: .branchtargets L0, L1, L2, L3, L4, L5, L6, L7, L8, L9, L10, L11, L12, L13, L14, L15;\n\t"
                 "brx.idx %34, ts;\n\t"
                 "L0: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%32}, {%33}, {%0, %1};\n\t"
                 "bra.uni LE;\n\t"
                 "L1: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%2, %3}, {%32}, {%33}, {%2, %3};\n\t"
                 "bra.uni LE;\n\t"
                 "L2: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%4, %5}, {%32}, {%33}, {%4, %5};\n\t"
                 "bra.uni LE;\n\t"
                 "L3: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%6, %7}, {%32}, {%33}, {%6, %7};\n\t"
                 "bra.uni LE;\n\t"
                 "L4: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%8, %9}, {%32}, {%33}, {%8, %9};\n\t"
                 "bra.uni LE;\n\t"
                 "L5: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%10, %11}, {%32}, {%33}, {%10, %11};\n\t"
                 "bra.uni LE;\n\t"
                 "L6: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%12, %13}, {%32}, {%33}, {%12, %13};\n\t"
                 "bra.uni LE;\n\t"
                 "L7: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%14, %15}, {%32}, {%33}, {%14, %15};\n\t"
                 "bra.uni LE;\n\t"
                 "L8: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%16, %17}, {%32}, {%33}, {%16, %17};\n\t"
                 "bra.uni LE;\n\t"
                 "L9: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%18, %19}, {%32}, {%33}, {%18, %19};\n\t"
                 "bra.uni LE;\n\t"
                 "L10: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%20, %21}, {%32}, {%33}, {%20, %21};\n\t"
                 "bra.uni LE;\n\t"
                 "L11: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%22, %23}, {%32}, {%33}, {%22, %23};\n\t"
                 "bra.uni LE;\n\t"
                 "L12: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%24, %25}, {%32}, {%33}, {%24, %25};\n\t"
                 "bra.uni LE;\n\t"
                 "L13: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%26, %27}, {%32}, {%33}, {%26, %27};\n\t"
                 "bra.uni LE;\n\t"
                 "L14: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%28, %29}, {%32}, {%33}, {%28, %29};\n\t"
                 "bra.uni LE;\n\t"
                 "L15: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%30, %31}, {%32}, {%33}, {%30, %31};\n\t"
                 "LE:\n\t}"
                 : "+d"(acc[0][0]), "+d"(acc[0][1]), "+d"(acc[1][0]), "+d"(acc[1][1]), "+d"(acc[2][0]), "+d"(acc[2][1]), "+d"(acc[3][0]), "+d"(acc[3][1]),
                   "+d"(acc[4][0]), "+d"(acc[4][1]), "+d"(acc[5][0]), "+d"(acc[5][1]), "+d"(acc[6][0]), "+d"(acc[6][1]), "+d"(acc[7][0]), "+d"(acc[7][1]),
                   "+d"(acc[8][0]), "+d"(acc[8][1]), "+d"(acc[9][0]), "+d"(acc[9][1]), "+d"(acc[10][0]), "+d"(acc[10][1]), "+d"(acc[11][0]), "+d"(acc[11][1]),
                   "+d"(acc[12][0]), "+d"(acc[12][1]), "+d"(acc[13][0]), "+d"(acc[13][1]), "+d"(acc[14][0]), "+d"(acc[14][1]), "+d"(acc[15][0]), "+d"(acc[15][1])
                 : "d"(a[0]), "d"(b[0]), "r"(s));
}

template <>
__device__ __forceinline__ void gal_dmma_brx<16, 2>(double (&acc)[16][2], int s, const double (&a)[2], const double (&b)[2])
{
    asm volatile("{\n\t"
                 "ts: .branchtargets L0, L1, L2, L3, L4, L5, L6, L7, L8, L9, L10, L11, L12, L13, L14, L15;\n\t"
                 "brx.idx %36, ts;\n\t"
                 "L0: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%32}, {%34}, {%0, %1};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%33}, {%35}, {%0, %1};\n\t"
                 "bra.uni LE;\n\t"
                 "L1: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%2, %3}, {%32}, {%34}, {%2, %3};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%2, %3}, {%33}, {%35}, {%2, %3};\n\t"
                 "bra.uni LE;\n\t"
                 "L2: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%4, %5}, {%32}, {%34}, {%4, %5};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%4, %5}, {%33}, {%35}, {%4, %5};\n\t"
                 "bra.uni LE;\n\t"
                 "L3: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%6, %7}, {%32}, {%34}, {%6, %7};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%6, %7}, {%33}, {%35}, {%6, %7};\n\t"
                 "bra.uni LE;\n\t"
                 "L4: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%8, %9}, {%32}, {%34}, {%8, %9};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%8, %9}, {%33}, {%35}, {%8, %9};\n\t"
                 "bra.uni LE;\n\t"
                 "L5: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%10, %11}, {%32}, {%34}, {%10, %11};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%10, %11}, {%33}, {%35}, {%10, %11};\n\t"
                 "bra.uni LE;\n\t"
                 "L6: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%12, %13}, {%32}, {%34}, {%12, %13};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%12, %13}, {%33}, {%35}, {%12, %13};\n\t"
                 "bra.uni LE;\n\t"
                 "L7: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%14, %15}, {%32}, {%34}, {%14, %15};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%14, %15}, {%33}, {%35}, {%14, %15};\n\t"
                 "bra.uni LE;\n\t"
                 "L8: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%16, %17}, {%32}, {%34}, {%16, %17};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%16, %17}, {%33}, {%35}, {%16, %17};\n\t"
                 "bra.uni LE;\n\t"
                 "L9: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%18, %19}, {%32}, {%34}, {%18, %19};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%18, %19}, {%33}, {%35}, {%18, %19};\n\t"
                 "bra.uni LE;\n\t"
                 "L10: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%20, %21}, {%32}, {%34}, {%20, %21};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%20, %21}, {%33}, {%35}, {%20, %21};\n\t"
                 "bra.uni LE;\n\t"
                 "L11: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%22, %23}, {%32}, {%34}, {%22, %23};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%22, %23}, {%33}, {%35}, {%22, %23};\n\t"
                 "bra.uni LE;\n\t"
                 "L12: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%24, %25}, {%32}, {%34}, {%24, %25};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%24, %25}, {%33}, {%35}, {%24, %25};\n\t"
                 "bra.uni LE;\n\t"
                 "L13: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%26, %27}, {%32}, {%34}, {%26, %27};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%26, %27}, {%33}, {%35}, {%26, %27};\n\t"
                 "bra.uni LE;\n\t"
                 "L14: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%28, %29}, {%32}, {%34}, {%28, %29};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%28, %29}, {%33}, {%35}, {%28, %29};\n\t"
                 "bra.uni LE;\n\t"
                 "L15: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%30, %31}, {%32}, {%34}, {%30, %31};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%30, %31}, {%33}, {%35}, {%30, %31};\n\t"
                 "LE:\n\t}"
                 : "+d"(acc[0][0]), "+d"(acc[0][1]), "+d"(acc[1][0]), "+d"(acc[1][1]), "+d"(acc[2][0]), "+d"(acc[2][1]), "+d"(acc[3][0]), "+d"(acc[3][1]),
                   "+d"(acc[4][0]), "+d"(acc[4][1]), "+d"(acc[5][0]), "+d"(acc[5][1]), "+d"(acc[6][0]), "+d"(acc[6][1]), "+d"(acc[7][0]), "+d"(acc[7][1]),
                   "+d"(acc[8][0]), "+d"(acc[8][1]), "+d"(acc[9][0]), "+d"(acc[9][1]), "+d"(acc[10][0]), "+d"(acc[10][1]), "+d"(acc[11][0]), "+d"(acc[11][1]),
                   "+d"(acc[12][0]), "+d"(acc[12][1]), "+d"(acc[13][0]), "+d"(acc[13][1]), "+d"(acc[14][0]), "+d"(acc[14][1]), "+d"(acc[15][0]), "+d"(acc[15][1])
                 : "d"(a[0]), "d"(a[1]), "d"(b[0]), "d"(b[1]), "r"(s));
}

template <>
__device__ __forceinline__ void gal_dmma_brx<32, 1>(double (&acc)[32][2], int s, const double (&a)[1], const double (&b)[1])
{
    asm volatile("{\n\t"
                 "ts: .branchtargets L0, L1, L2, L3, L4, L5, L6, L7, L8, L9, L10, L11, L12, L13, L14, L15, L16, L17, L18, L19, L20, L21, L22, L23, L24, L25, L26, L27, L28, L29, L30, L31;\n\t"
                 "brx.idx %66, ts;\n\t"
                 "L0: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%64}, {%65}, {%0, %1};\n\t"
                 "bra.uni LE;\n\t"
                 "L1: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%2, %3}, {%64}, {%65}, {%2, %3};\n\t"
                 "bra.uni LE;\n\t"
                 "L2: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%4, %5}, {%64}, {%65}, {%4, %5};\n\t"
                 "bra.uni LE;\n\t"
                 "L3: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%6, %7}, {%64}, {%65}, {%6, %7};\n\t"
                 "bra.uni LE;\n\t"
                 "L4: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%8, %9}, {%64}, {%65}, {%8, %9};\n\t"
                 "bra.uni LE;\n\t"
                 "L5: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%10, %11}, {%64}, {%65}, {%10, %11};\n\t"
                 "bra.uni LE;\n\t"
                 "L6: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%12, %13}, {%64}, {%65}, {%12, %13};\n\t"
                 "bra.uni LE;\n\t"
                 "L7: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%14, %15}, {%64}, {%65}, {%14, %15};\n\t"
                 "bra.uni LE;\n\t"
                 "L8: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%16, %17}, {%64}, {%65}, {%16, %17};\n\t"
                 "bra.uni LE;\n\t"
                 "L9: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%18, %19}, {%64}, {%65}, {%18, %19};\n\t"
                 "bra.uni LE;\n\t"
                 "L10: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%20, %21}, {%64}, {%65}, {%20, %21};\n\t"
                 "bra.uni LE;\n\t"
                 "L11: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%22, %23}, {%64}, {%65}, {%22, %23};\n\t"
                 "bra.uni LE;\n\t"
                 "L12: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%24, %25}, {%64}, {%65}, {%24, %25};\n\t"
                 "bra.uni LE;\n\t"
                 "L13: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%26, %27}, {%64}, {%65}, {%26, %27};\n\t"
                 "bra.uni LE;\n\t"
                 "L14: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%28, %29}, {%64}, {%65}, {%28, %29};\n\t"
                 "bra.uni LE;\n\t"
                 "L15: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%30, %31}, {%64}, {%65}, {%30, %31};\n\t"
                 "bra.uni LE;\n\t"
                 "L16: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%32, %33}, {%64}, {%65}, {%32, %33};\n\t"
                 "bra.uni LE;\n\t"
                 "L17: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%34, %35}, {%64}, {%65}, {%34, %35};\n\t"
                 "bra.uni LE;\n\t"
                 "L18: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%36, %37}, {%64}, {%65}, {%36, %37};\n\t"
                 "bra.uni LE;\n\t"
                 "L19: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%38, %39}, {%64}, {%65}, {%38, %39};\n\t"
                 "bra.uni LE;\n\t"
                 "L20: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%40, %41}, {%64}, {%65}, {%40, %41};\n\t"
                 "bra.uni LE;\n\t"
                 "L21: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%42, %43}, {%64}, {%65}, {%42, %43};\n\t"
                 "bra.uni LE;\n\t"
                 "L22: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%44, %45}, {%64}, {%65}, {%44, %45};\n\t"
                 "bra.uni LE;\n\t"
                 "L23: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%46, %47}, {%64}, {%65}, {%46, %47};\n\t"
                 "bra.uni LE;\n\t"
                 "L24: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%48, %49}, {%64}, {%65}, {%48, %49};\n\t"
                 "bra.uni LE;\n\t"
                 "L25: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%50, %51}, {%64}, {%65}, {%50, %51};\n\t"
                 "bra.uni LE;\n\t"
                 "L26: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%52, %53}, {%64}, {%65}, {%52, %53};\n\t"
                 "bra.uni LE;\n\t"
                 "L27: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%54, %55}, {%64}, {%65}, {%54, %55};\n\t"
                 "bra.uni LE;\n\t"
                 "L28: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%56, %57}, {%64}, {%65}, {%56, %57};\n\t"
                 "bra.uni LE;\n\t"
                 "L29: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%58, %59}, {%64}, {%65}, {%58, %59};\n\t"
                 "bra.uni LE;\n\t"
                 "L30: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%60, %61}, {%64}, {%65}, {%60, %61};\n\t"
                 "bra.uni LE;\n\t"
                 "L31: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%62, %63}, {%64}, {%65}, {%62, %63};\n\t"
                 "LE:\n\t}"
                 : "+d"(acc[0][0]), "+d"(acc[0][1]), "+d"(acc[1][0]), "+d"(acc[1][1]), "+d"(acc[2][0]), "+d"(acc[2][1]), "+d"(acc[3][0]), "+d"(acc[3][1]),
                   "+d"(acc[4][0]), "+d"(acc[4][1]), "+d"(acc[5][0]), "+d"(acc[5][1]), "+d"(acc[6][0]), "+d"(acc[6][1]), "+d"(acc[7][0]), "+d"(acc[7][1]),
                   "+d"(acc[8][0]), "+d"(acc[8][1]), "+d"(acc[9][0]), "+d"(acc[9][1]), "+d"(acc[10][0]), "+d"(acc[10][1]), "+d"(acc[11][0]), "+d"(acc[11][1]),
                   "+d"(acc[12][0]), "+d"(acc[12][1]), "+d"(acc[13][0]), "+d"(acc[13][1]), "+d"(acc[14][0]), "+d"(acc[14][1]), "+d"(acc[15][0]), "+d"(acc[15][1]),
                   "+d"(acc[16][0]), "+d"(acc[16][1]), "+d"(acc[17][0]), "+d"(acc[17][1]), "+d"(acc[18][0]), "+d"(acc[18][1]), "+d"(acc[19][0]), "+d"(acc[19][1]),
                   "+d"(acc[20][0]), "+d"(acc[20][1]), "+d"(acc[21][0]), "+d"(acc[21][1]), "+d"(acc[22][0]), "+d"(acc[22][1]), "+d"(acc[23][0]), "+d"(acc[23][1]),
                   "+d"(acc[24][0]), "+d"(acc[24][1]), "+d"(acc[25][0]), "+d"(acc[25][1]), "+d"(acc[26][0]), "+d"(acc[26][1]), "+d"(acc[27][0]), "+d"(acc[27][1]),
                   "+d"(acc[28][0]), "+d"(acc[28][1]), "+d"(acc[29][0]), "+d"(acc[29][1]), "+d"(acc[30][0]), "+d"(acc[30][1]), "+d"(acc[31][0]), "+d"(acc[31][1])
                 : "d"(a[0]), "d"(b[0]), "r"(s));
}

template <>
__device__ __forceinline__ void gal_dmma_brx<32, 2>(double (&acc)[32][2], int s, const double (&a)[2], const double (&b)[2])
{
    asm volatile("{\n\t"
                 "ts: .branchtargets L0, L1, L2, L3, L4, L5, L6, L7, L8, L9, L10, L11, L12, L13, L14, L15, L16, L17, L18, L19, L20, L21, L22, L23, L24, L25, L26, L27, L28, L29, L30, L31;\n\t"
                 "brx.idx %68, ts;\n\t"
                 "L0: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%64}, {%66}, {%0, %1};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%65}, {%67}, {%0, %1};\n\t"
                 "bra.uni LE;\n\t"
                 "L1: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%2, %3}, {%64}, {%66}, {%2, %3};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%2, %3}, {%65}, {%67}, {%2, %3};\n\t"
                 "bra.uni LE;\n\t"
                 "L2: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%4, %5}, {%64}, {%66}, {%4, %5};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%4, %5}, {%65}, {%67}, {%4, %5};\n\t"
                 "bra.uni LE;\n\t"
                 "L3: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%6, %7}, {%64}, {%66}, {%6, %7};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%6, %7}, {%65}, {%67}, {%6, %7};\n\t"
                 "bra.uni LE;\n\t"
                 "L4: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%8, %9}, {%64}, {%66}, {%8, %9};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%8, %9}, {%65}, {%67}, {%8, %9};\n\t"
                 "bra.uni LE;\n\t"
                 "L5: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%10, %11}, {%64}, {%66}, {%10, %11};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%10, %11}, {%65}, {%67}, {%10, %11};\n\t"
                 "bra.uni LE;\n\t"
                 "L6: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%12, %13}, {%64}, {%66}, {%12, %13};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%12, %13}, {%65}, {%67}, {%12, %13};\n\t"
                 "bra.uni LE;\n\t"
                 "L7: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%14, %15}, {%64}, {%66}, {%14, %15};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%14, %15}, {%65}, {%67}, {%14, %15};\n\t"
                 "bra.uni LE;\n\t"
                 "L8: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%16, %17}, {%64}, {%66}, {%16, %17};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%16, %17}, {%65}, {%67}, {%16, %17};\n\t"
                 "bra.uni LE;\n\t"
                 "L9: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%18, %19}, {%64}, {%66}, {%18, %19};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%18, %19}, {%65}, {%67}, {%18, %19};\n\t"
                 "bra.uni LE;\n\t"
                 "L10: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%20, %21}, {%64}, {%66}, {%20, %21};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%20, %21}, {%65}, {%67}, {%20, %21};\n\t"
                 "bra.uni LE;\n\t"
                 "L11: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%22, %23}, {%64}, {%66}, {%22, %23};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%22, %23}, {%65}, {%67}, {%22, %23};\n\t"
                 "bra.uni LE;\n\t"
                 "L12: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%24, %25}, {%64}, {%66}, {%24, %25};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%24, %25}, {%65}, {%67}, {%24, %25};\n\t"
                 "bra.uni LE;\n\t"
                 "L13: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%26, %27}, {%64}, {%66}, {%26, %27};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%26, %27}, {%65}, {%67}, {%26, %27};\n\t"
                 "bra.uni LE;\n\t"
                 "L14: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%28, %29}, {%64}, {%66}, {%28, %29};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%28, %29}, {%65}, {%67}, {%28, %29};\n\t"
                 "bra.uni LE;\n\t"
                 "L15: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%30, %31}, {%64}, {%66}, {%30, %31};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%30, %31}, {%65}, {%67}, {%30, %31};\n\t"
                 "bra.uni LE;\n\t"
                 "L16: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%32, %33}, {%64}, {%66}, {%32, %33};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%32, %33}, {%65}, {%67}, {%32, %33};\n\t"
                 "bra.uni LE;\n\t"
                 "L17: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%34, %35}, {%64}, {%66}, {%34, %35};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%34, %35}, {%65}, {%67}, {%34, %35};\n\t"
                 "bra.uni LE;\n\t"
                 "L18: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%36, %37}, {%64}, {%66}, {%36, %37};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%36, %37}, {%65}, {%67}, {%36, %37};\n\t"
                 "bra.uni LE;\n\t"
                 "L19: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%38, %39}, {%64}, {%66}, {%38, %39};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%38, %39}, {%65}, {%67}, {%38, %39};\n\t"
                 "bra.uni LE;\n\t"
                 "L20: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%40, %41}, {%64}, {%66}, {%40, %41};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%40, %41}, {%65}, {%67}, {%40, %41};\n\t"
                 "bra.uni LE;\n\t"
                 "L21: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%42, %43}, {%64}, {%66}, {%42, %43};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%42, %43}, {%65}, {%67}, {%42, %43};\n\t"
                 "bra.uni LE;\n\t"
                 "L22: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%44, %45}, {%64}, {%66}, {%44, %45};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%44, %45}, {%65}, {%67}, {%44, %45};\n\t"
                 "bra.uni LE;\n\t"
                 "L23: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%46, %47}, {%64}, {%66}, {%46, %47};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%46, %47}, {%65}, {%67}, {%46, %47};\n\t"
                 "bra.uni LE;\n\t"
                 "L24: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%48, %49}, {%64}, {%66}, {%48, %49};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%48, %49}, {%65}, {%67}, {%48, %49};\n\t"
                 "bra.uni LE;\n\t"
                 "L25: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%50, %51}, {%64}, {%66}, {%50, %51};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%50, %51}, {%65}, {%67}, {%50, %51};\n\t"
                 "bra.uni LE;\n\t"
                 "L26: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%52, %53}, {%64}, {%66}, {%52, %53};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%52, %53}, {%65}, {%67}, {%52, %53};\n\t"
                 "bra.uni LE;\n\t"
                 "L27: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%54, %55}, {%64}, {%66}, {%54, %55};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%54, %55}, {%65}, {%67}, {%54, %55};\n\t"
                 "bra.uni LE;\n\t"
                 "L28: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%56, %57}, {%64}, {%66}, {%56, %57};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%56, %57}, {%65}, {%67}, {%56, %57};\n\t"
                 "bra.uni LE;\n\t"
                 "L29: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%58, %59}, {%64}, {%66}, {%58, %59};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%58, %59}, {%65}, {%67}, {%58, %59};\n\t"
                 "bra.uni LE;\n\t"
                 "L30: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%60, %61}, {%64}, {%66}, {%60, %61};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%60, %61}, {%65}, {%67}, {%60, %61};\n\t"
                 "bra.uni LE;\n\t"
                 "L31: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%62, %63}, {%64}, {%66}, {%62, %63};\n\t"
                 "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%62, %63}, {%65}, {%67}, {%62, %63};\n\t"
                 "LE:\n\t}"
                 : "+d"(acc[0][0]), "+d"(acc[0][1]), "+d"(acc[1][0]), "+d"(acc[1][1]), "+d"(acc[2][0]), "+d"(acc[2][1]), "+d"(acc[3][0]), "+d"(acc[3][1]),
                   "+d"(acc[4][0]), "+d"(acc[4][1]), "+d"(acc[5][0]), "+d"(acc[5][1]), "+d"(acc[6][0]), "+d"(acc[6][1]), "+d"(acc[7][0]), "+d"(acc[7][1]),
                   "+d"(acc[8][0]), "+d"(acc[8][1]), "+d"(acc[9][0]), "+d"(acc[9][1]), "+d"(acc[10][0]), "+d"(acc[10][1]), "+d"(acc[11][0]), "+d"(acc[11][1]),
                   "+d"(acc[12][0]), "+d"(acc[12][1]), "+d"(acc[13][0]), "+d"(acc[13][1]), "+d"(acc[14][0]), "+d"(acc[14][1]), "+d"(acc[15][0]), "+d"(acc[15][1]),
                   "+d"(acc[16][0]), "+d"(acc[16][1]), "+d"(acc[17][0]), "+d"(acc[17][1]), "+d"(acc[18][0]), "+d"(acc[18][1]), "+d"(acc[19][0]), "+d"(acc[19][1]),
                   "+d"(acc[20][0]), "+d"(acc[20][1]), "+d"(acc[21][0]), "+d"(acc[21][1]), "+d"(acc[22][0]), "+d"(acc[22][1]), "+d"(acc[23][0]), "+d"(acc[23][1]),
                   "+d"(acc[24][0]), "+d"(acc[24][1]), "+d"(acc[25][0]), "+d"(acc[25][1]), "+d"(acc[26][0]), "+d"(acc[26][1]), "+d"(acc[27][0]), "+d"(acc[27][1]),
                   "+d"(acc[28][0]), "+d"(acc[28][1]), "+d"(acc[29][0]), "+d"(acc[29][1]), "+d"(acc[30][0]), "+d"(acc[30][1]), "+d"(acc[31][0]), "+d"(acc[31][1])
                 : "d"(a[0]), "d"(a[1]), "d"(b[0]), "d"(b[1]), "r"(s));
}

// Exclusive warp prefix sum of v (all 32 lanes); total in *tot.
__device__ __forceinline__ int gal_warp_excl(int v, int lane, int* tot)
{
    int incl = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const int x = __shfl_up_sync(GAL_FULL, incl, o);
        if (lane >= o) incl += x;
    }
    *tot = __shfl_sync(GAL_FULL, incl, 31);
    return incl - v;
}

// W = A·P, warp per fine row (see the tcr schedule above). Deterministic: every W
// block sums its products in the order of A's row, then P's row.
template <int R_, int C_, int NW>
__device__ __forceinline__ void gal_w_tcr(int rr, int cc, int n, const i64* __restrict__ arp,
                                          const int* __restrict__ acol, const double* __restrict__ aval,
                                          const i64* __restrict__ prp, const double* __restrict__ pval,
                                          const i64* __restrict__ wrp, const i64* __restrict__ wsw0,
                                          const unsigned long long* __restrict__ wslw, double* __restrict__ wval)
{
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    constexpr int KC = R_ ? (R_ + 3) / 4 : 2;
    const int kch = (R + 3) >> 2;
    const i64 row = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (row >= n) return;
    const int lane = threadIdx.x & 31, g = lane >> 2, tg = lane & 3;
    const GalFrag<KC> f(R, R, C, kch, g, tg, false);
    const i64 RR = R * R, RC = R * C;
    const i64 a0 = arp[row], a1 = arp[row + 1];
    const i64 wb = wrp[row];
    const int nw = (int)(wrp[row + 1] - wb);
    for (int s0 = 0; s0 < nw; s0 += NW) {
        double acc[NW][2];
#pragma unroll
        for (int s = 0; s < NW; s++) acc[s][0] = acc[s][1] = 0.0;
        i64 word = wsw0[row];
        for (i64 ab = a0; ab < a1; ab += 32) {
            const int cnt = (int)min((i64)32, a1 - ab);
            gal_prefetch_run(aval + ab * RR, cnt * RR * 8, lane);
            int pbl = 0, npl = 0;
            if (lane < cnt) {
                const int j = __ldg(acol + ab + lane);
                const i64 pb = __ldg(prp + j);
                pbl = (int)pb;
                npl = (int)(__ldg(prp + j + 1) - pb);
            }
            int total;
            const int excl = gal_warp_excl((npl + 7) >> 3, lane, &total);
            for (int k = 0; k < cnt; k++) {
                const i64 a = ab + k;
                const int pb = __shfl_sync(GAL_FULL, pbl, k);
                const int np = __shfl_sync(GAL_FULL, npl, k);
                const i64 wo = word + __shfl_sync(GAL_FULL, excl, k);
                double av[KC];
#pragma unroll
                for (int q = 0; q < KC; q++) av[q] = f.xok[q] ? __ldg(aval + a * RR + f.xoff[q]) : 0.0;
                for (int pc = 0; pc < np; pc += 4) {
                    const unsigned long long sw = __ldg(wslw + wo + (pc >> 3)) >> (8 * (pc & 7));
                    // Slots first: a product outside the window loads nothing.
                    int ls[4];
#pragma unroll
                    for (int u = 0; u < 4; u++) ls[u] = pc + u < np ? (int)((sw >> (8 * u)) & 0xffu) - s0 : -1;
                    double bv[4][KC];
#pragma unroll
                    for (int u = 0; u < 4; u++)
#pragma unroll
                        for (int q = 0; q < KC; q++)
                            bv[u][q] = (f.yok[q] && (unsigned)ls[u] < (unsigned)NW)
                                           ? __ldg(pval + (i64)(pb + pc + u) * RC + f.yoff[q])
                                           : 0.0;
#pragma unroll
                    for (int u = 0; u < 4; u++) {
                        if ((unsigned)ls[u] < (unsigned)NW) {
                            if constexpr (R_ != 0) gal_dmma_brx<NW, KC>(acc, ls[u], av, bv[u]);
                            else gal_dmma_at<NW, KC>(acc, ls[u], av, bv[u], kch);
                        }
                    }
                }
            }
            word += total;
        }
#pragma unroll
        for (int s = 0; s < NW; s++) {
            if (s0 + s < nw && g < R) {
                double* __restrict__ out = wval + (wb + s0 + s) * RC + g * C;
                if (2 * tg < C) out[2 * tg] = acc[s][0];
                if (2 * tg + 1 < C) out[2 * tg + 1] = acc[s][1];
            }
        }
    }
}

// Ac = Pᵀ·W, warp per coarse row: for each entry of Pᵀ row I in fine-row order, the P
// block (transposed, one load) times each block of its W row. Deterministic.
template <int R_, int C_, int NW>
__device__ __forceinline__ void gal_ac_tcr(int rr, int cc, int m, const i64* __restrict__ ptrp,
                                           const i64* __restrict__ ptidx, const int* __restrict__ ptrow,
                                           const i64* __restrict__ wrp, const double* __restrict__ wval,
                                           const double* __restrict__ pval, const i64* __restrict__ acrp,
                                           const i64* __restrict__ asw0, const unsigned long long* __restrict__ aslw,
                                           double* __restrict__ acval)
{
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    constexpr int KC = R_ ? (R_ + 3) / 4 : 2;
    const int kch = (R + 3) >> 2;
    const i64 row = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (row >= m) return;
    const int lane = threadIdx.x & 31, g = lane >> 2, tg = lane & 3;
    const GalFrag<KC> f(C, R, C, kch, g, tg, true);
    const i64 RC = R * C;
    const i64 e0 = ptrp[row], e1 = ptrp[row + 1];
    const i64 b0 = acrp[row];
    const int nac = (int)(acrp[row + 1] - b0);
    for (int s0 = 0; s0 < nac; s0 += NW) {
        double acc[NW][2];
#pragma unroll
        for (int s = 0; s < NW; s++) acc[s][0] = acc[s][1] = 0.0;
        i64 word = asw0[row];
        for (i64 eb = e0; eb < e1; eb += 32) {
            const int cnt = (int)min((i64)32, e1 - eb);
            int pl = 0, wbl = 0, nwl = 0;
            if (lane < cnt) {
                pl = (int)__ldg(ptidx + eb + lane);
                const int i = __ldg(ptrow + eb + lane);
                const i64 x = __ldg(wrp + i);
                wbl = (int)x;
                nwl = (int)(__ldg(wrp + i + 1) - x);
            }
            int total;
            const int excl = gal_warp_excl((nwl + 7) >> 3, lane, &total);
            for (int k = 0; k < cnt; k++) {
                const int p = __shfl_sync(GAL_FULL, pl, k);
                const int wbk = __shfl_sync(GAL_FULL, wbl, k);
                const int nwk = __shfl_sync(GAL_FULL, nwl, k);
                const i64 wo = word + __shfl_sync(GAL_FULL, excl, k);
                double av[KC];
#pragma unroll
                for (int q = 0; q < KC; q++) av[q] = f.xok[q] ? __ldg(pval + (i64)p * RC + f.xoff[q]) : 0.0;
                for (int wc = 0; wc < nwk; wc += 4) {
                    const unsigned long long sw = __ldg(aslw + wo + (wc >> 3)) >> (8 * (wc & 7));
                    int ls[4];
#pragma unroll
                    for (int u = 0; u < 4; u++) ls[u] = wc + u < nwk ? (int)((sw >> (8 * u)) & 0xffu) - s0 : -1;
                    double bv[4][KC];
#pragma unroll
                    for (int u = 0; u < 4; u++)
#pragma unroll
                        for (int q = 0; q < KC; q++)
                            bv[u][q] = (f.yok[q] && (unsigned)ls[u] < (unsigned)NW)
                                           ? __ldg(wval + (i64)(wbk + wc + u) * RC + f.yoff[q])
                                           : 0.0;
#pragma unroll
                    for (int u = 0; u < 4; u++) {
                        if ((unsigned)ls[u] < (unsigned)NW) {
                            if constexpr (R_ != 0) gal_dmma_brx<NW, KC>(acc, ls[u], av, bv[u]);
                            else gal_dmma_at<NW, KC>(acc, ls[u], av, bv[u], kch);
                        }
                    }
                }
            }
            word += total;
        }
#pragma unroll
        for (int s = 0; s < NW; s++) {
            if (s0 + s < nac && g < C) {
                double* __restrict__ out = acval + (b0 + s0 + s) * C * C + g * C;
                if (2 * tg < C) out[2 * tg] = acc[s][0];
                if (2 * tg + 1 < C) out[2 * tg + 1] = acc[s][1];
            }
        }
    }
}

// smem-rows: one warp per window of an output row, the window's output blocks summed
// in the warp's share of shared memory (GAL_SMR_DOUBLES doubles: 32 blocks of 3×6, 16
// of 6×6), the output position of every product read from the tc-rows slot bytes (no
// search, no list). The warp walks its row's operands in storage order (A's row and
// the P rows it meets; Pᵀ's row and the W rows it meets); for each A block (Pᵀ entry)
// the lanes spread over the (P block, column) pairs of its P row (W row), each lane
// summing one column of one product block into shared memory. Two lanes of one step
// never share an output (a P row holds a coarse column once), and a __syncwarp
// separates the steps, so there are no atomics, and every output entry sums its
// products in the order of the walk: deterministic. Windows (row, first slot) come
// from the host; a row longer than a window is walked once per window.
// The A block (W) or P block (Ac) of a step is held in registers by every lane when it
// has at most 18 values (3×3, 3×6); larger ones (6×6: 72 registers) are staged in a
// per-warp shared array and read from there, which keeps the kernels free of spills.
#define GAL_SMR_DOUBLES 576
#define GAL_SMR_REG 18

// gal_smr_walk is the walk both smem-rows kernels share. The warp's window of slots
// [s0, s0 + ns) of one output row sums in sm, blocks of OR×C values. The row's operand
// entries e ∈ [e0, e1) each give meta(e) = (x, b, nb): the left factor is block x of X
// (NX values, its element (r, m) at r·xr + m·xm), and it multiplies the run of nb
// right-hand blocks (R×C, row-major) of Bv starting at block b; the output slot of
// right-hand block q is byte 8·wo + q of the slot words, wo advancing by ⌈nb/8⌉ words
// per entry from word. Lane l takes column l % C of right-hand blocks l / C,
// l / C + 32 / C, … (32 / C blocks a round, fixed per lane, so no division per
// product); the next entry's first round (slot and column) is loaded before the
// current entry's sums, so their latency overlaps them. NXC is NX when the left factor
// is held in registers (≤ GAL_SMR_REG values), else 0: it is staged in op.
template <int R_, int C_, int OR_, int NXC, typename Meta>
__device__ __forceinline__ void gal_smr_walk(int R, int C, int OR, int NX, int xr, int xm, i64 e0, i64 e1, i64 word,
                                             Meta meta, const double* __restrict__ X,
                                             const double* __restrict__ Bv, const unsigned char* __restrict__ slot,
                                             int s0, int ns, double* __restrict__ sm, double* op, int lane)
{
    constexpr bool REG = NXC > 0;
    const int RC = R * C, OC = OR * C;
    const int qpr = 32 / C, ql = lane / C, cl = lane - ql * C;
    for (i64 eb = e0; eb < e1; eb += 32) {
        const int cnt = (int)min((i64)32, e1 - eb);
        int xl = 0, bl = 0, nl = 0;
        if (lane < cnt) meta(eb + lane, xl, bl, nl);
        int total;
        const int excl = gal_warp_excl((nl + 7) >> 3, lane, &total);
        int ns_s = -1;
        double ns_b[R_ ? R_ : GAL_MAX];
        auto fetch = [&](int k) {
            const int bk = __shfl_sync(GAL_FULL, bl, k);
            const int nk = __shfl_sync(GAL_FULL, nl, k);
            const i64 wo = word + __shfl_sync(GAL_FULL, excl, k);
            ns_s = -1;
            if (ql < qpr && ql < nk) {
                const int sl = (int)__ldg(slot + wo * 8 + ql) - s0;
                if ((unsigned)sl < (unsigned)ns) {
                    ns_s = sl;
                    const double* __restrict__ bp = Bv + (i64)(bk + ql) * RC + cl;
#pragma unroll
                    for (int m = 0; m < R; m++) ns_b[m] = __ldg(bp + m * C);
                }
            }
        };
        fetch(0);
        for (int k = 0; k < cnt; k++) {
            const int cs = ns_s;
            double cb[R_ ? R_ : GAL_MAX];
#pragma unroll
            for (int m = 0; m < R; m++) cb[m] = ns_b[m];
            if (k + 1 < cnt) fetch(k + 1);
            const double* __restrict__ xp = X + (i64)__shfl_sync(GAL_FULL, xl, k) * NX;
            double xv[REG ? NXC : 1];
            if constexpr (REG) {
#pragma unroll
                for (int q = 0; q < NXC; q++) xv[q] = __ldg(xp + q);
            } else {
                for (int q = lane; q < NX; q += 32) op[q] = __ldg(xp + q);
                __syncwarp();
            }
            auto add = [&](int sl, const double* bv) {
                double* o = sm + sl * OC + cl;
#pragma unroll
                for (int r = 0; r < (OR_ ? OR_ : GAL_MAX); r++) {
                    if (r >= OR) break;
                    double acc = o[r * C];
#pragma unroll
                    for (int m = 0; m < R; m++) acc = fma(REG ? xv[r * xr + m * xm] : op[r * xr + m * xm], bv[m], acc);
                    o[r * C] = acc;
                }
            };
            if (cs >= 0) add(cs, cb);
            // Later rounds (runs of more than 32 / C blocks), loaded in place.
            const int nk = __shfl_sync(GAL_FULL, nl, k);
            if (nk > qpr) {
                const int bk = __shfl_sync(GAL_FULL, bl, k);
                const i64 wo = word + __shfl_sync(GAL_FULL, excl, k);
                for (int q = ql + qpr; q < nk; q += qpr) {
                    const int sl = (int)__ldg(slot + wo * 8 + q) - s0;
                    if ((unsigned)sl < (unsigned)ns && ql < qpr) {
                        const double* __restrict__ bp = Bv + (i64)(bk + q) * RC + cl;
                        double bv[R_ ? R_ : GAL_MAX];
#pragma unroll
                        for (int m = 0; m < R; m++) bv[m] = __ldg(bp + m * C);
                        add(sl, bv);
                    }
                }
            }
            __syncwarp();
        }
        word += total;
    }
}

// gal_smr_window opens warp wg's window: its output row and first slot (from win), the
// row's first output block (row pointers orp), and its slot count (at most
// GAL_SMR_DOUBLES / oc for blocks of oc values), returned, with the window's sums in
// sm zeroed.
__device__ __forceinline__ int gal_smr_window(const int2* __restrict__ win, i64 wg, const i64* __restrict__ orp, int oc,
                                              double* __restrict__ sm, int lane, int& row, int& s0, i64& base)
{
    const int2 wn = __ldg(win + wg);
    row = wn.x;
    s0 = wn.y;
    base = __ldg(orp + row);
    const int ns = min(GAL_SMR_DOUBLES / oc, (int)(__ldg(orp + row + 1) - base) - s0);
    for (int t = lane; t < ns * oc; t += 32) sm[t] = 0.0;
    __syncwarp();
    return ns;
}

// W = A·P, smem-rows: the entries are A row i's blocks (left factor A_ij, R×R), each
// meeting P row j.
template <int R_, int C_>
__device__ __forceinline__ void gal_w_smr(int rr, int cc, i64 nwin, const int2* __restrict__ win,
                                          const i64* __restrict__ arp, const int* __restrict__ acol,
                                          const double* __restrict__ aval, const i64* __restrict__ prp,
                                          const double* __restrict__ pval, const i64* __restrict__ wrp,
                                          const i64* __restrict__ wsw0, const unsigned long long* __restrict__ wslw,
                                          double* __restrict__ wval)
{
    __shared__ double smem[(THREADS / 32) * GAL_SMR_DOUBLES];
    __shared__ double sop[(THREADS / 32) * GAL_MAX * GAL_MAX];
    constexpr int NXC = (R_ != 0 && R_ * R_ <= GAL_SMR_REG) ? R_ * R_ : 0;
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    const int RC = R * C;
    const int wid = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const i64 wg = (i64)blockIdx.x * (THREADS / 32) + wid;
    if (wg >= nwin) return; // the whole warp: no block-wide barrier follows
    double* __restrict__ sm = smem + wid * GAL_SMR_DOUBLES;
    int row, s0;
    i64 wb;
    const int ns = gal_smr_window(win, wg, wrp, RC, sm, lane, row, s0, wb);
    auto meta = [&](i64 a, int& x, int& b, int& nb) {
        const int j = __ldg(acol + a);
        const i64 pb = __ldg(prp + j);
        x = (int)a;
        b = (int)pb;
        nb = (int)(__ldg(prp + j + 1) - pb);
    };
    gal_smr_walk<R_, C_, R_, NXC>(R, C, R, R * R, R, 1, __ldg(arp + row), __ldg(arp + row + 1), __ldg(wsw0 + row), meta,
                                  aval, pval, (const unsigned char*)wslw, s0, ns, sm,
                                  sop + wid * GAL_MAX * GAL_MAX, lane);
    double* __restrict__ out = wval + (wb + s0) * RC;
    for (int t = lane; t < ns * RC; t += 32) out[t] = sm[t];
}

// Ac = Pᵀ·W, smem-rows: the entries are Pᵀ row I's (fine row i, P block p); the left
// factor is P_iIᵀ (its element (r, m) is P_p[m][r]), meeting W row i.
template <int R_, int C_>
__device__ __forceinline__ void gal_ac_smr(int rr, int cc, i64 nwin, const int2* __restrict__ win,
                                           const i64* __restrict__ ptrp, const i64* __restrict__ ptidx,
                                           const int* __restrict__ ptrow, const i64* __restrict__ wrp,
                                           const double* __restrict__ wval, const double* __restrict__ pval,
                                           const i64* __restrict__ acrp, const i64* __restrict__ asw0,
                                           const unsigned long long* __restrict__ aslw, double* __restrict__ acval)
{
    __shared__ double smem[(THREADS / 32) * GAL_SMR_DOUBLES];
    __shared__ double sop[(THREADS / 32) * GAL_MAX * GAL_MAX];
    constexpr int NXC = (R_ != 0 && R_ * C_ <= GAL_SMR_REG) ? R_ * C_ : 0;
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    const int CC = C * C;
    const int wid = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const i64 wg = (i64)blockIdx.x * (THREADS / 32) + wid;
    if (wg >= nwin) return;
    double* __restrict__ sm = smem + wid * GAL_SMR_DOUBLES;
    int row, s0;
    i64 b0;
    const int ns = gal_smr_window(win, wg, acrp, CC, sm, lane, row, s0, b0);
    auto meta = [&](i64 e, int& x, int& b, int& nb) {
        x = (int)__ldg(ptidx + e);
        const int i = __ldg(ptrow + e);
        const i64 wb = __ldg(wrp + i);
        b = (int)wb;
        nb = (int)(__ldg(wrp + i + 1) - wb);
    };
    gal_smr_walk<R_, C_, C_, NXC>(R, C, C, R * C, 1, C, __ldg(ptrp + row), __ldg(ptrp + row + 1), __ldg(asw0 + row), meta,
                                  pval, wval, (const unsigned char*)aslw, s0, ns, sm,
                                  sop + wid * GAL_MAX * GAL_MAX, lane);
    double* __restrict__ out = acval + (b0 + s0) * CC;
    for (int t = lane; t < ns * CC; t += 32) out[t] = sm[t];
}

// smem-tiles: W = A·P by tiles of consecutive fine rows (host-made), a thread block
// per tile. The block first copies the P rows its rows meet (their union: runs of
// consecutive P blocks, GAL_TILE_DOUBLES at most) into shared memory with coalesced
// loads; then R threads per W block of the tile, one per row of the block, sum their
// R×C-block row's products on the CUDA cores in registers, each product's A block
// read from global memory (its own row's, cached in L1) and its P block from shared
// memory at a precomputed tile-local position: no search, no atomics, each W entry
// summed in its list's order (deterministic). A P block is read from L2 once per tile
// instead of once per fine row that meets it. With wslot (the symmetric half) each W
// block goes to its slot (the host's halfSlots) and those the half never reads (−1)
// are left out; with null each goes to its index.
#define GAL_TILE_DOUBLES 6144

template <int R_, int C_>
__device__ __forceinline__ void gal_w_tile(int rr, int cc, int ntile, const int* __restrict__ trow,
                                           const int* __restrict__ trun, const int2* __restrict__ runs,
                                           const i64* __restrict__ arp, const double* __restrict__ aval,
                                           const double* __restrict__ pval, const i64* __restrict__ wrp,
                                           const i64* __restrict__ wptr, const unsigned* __restrict__ tlist,
                                           const int* __restrict__ wslot, double* __restrict__ wval)
{
    __shared__ double2 st2[GAL_TILE_DOUBLES / 2];
    double* st = (double*)st2;
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    const int RR = R * R, RC = R * C;
    const int tile = blockIdx.x;
    if (tile >= ntile) return; // the whole block
    const int r0 = __ldg(trow + tile), r1 = __ldg(trow + tile + 1);
    int off = 0;
    for (int q = __ldg(trun + tile); q < __ldg(trun + tile + 1); q++) {
        const int2 rn = __ldg(runs + q);
        const int n = rn.y * RC;
        if ((RC & 1) == 0) {
            const double2* __restrict__ src = (const double2*)(pval + (i64)rn.x * RC);
            for (int x = threadIdx.x; x < n / 2; x += blockDim.x) st2[off / 2 + x] = __ldg(src + x);
        } else {
            const double* __restrict__ src = pval + (i64)rn.x * RC;
            for (int x = threadIdx.x; x < n; x += blockDim.x) st[off + x] = __ldg(src + x);
        }
        off += n;
    }
    __syncthreads();
    const i64 a0 = __ldg(arp + r0);
    const i64 w0 = __ldg(wrp + r0);
    const int nw = (int)(__ldg(wrp + r1) - w0);
    for (int t = threadIdx.x; t < nw * R; t += blockDim.x) {
        const int wl = t / R, r = t - wl * R;
        const i64 w = w0 + wl;
        const i64 ws = wslot ? (i64)__ldg(wslot + w) : w;
        if (ws < 0) continue; // a block the symmetric half never reads
        double acc[C_ ? C_ : GAL_MAX];
#pragma unroll
        for (int c = 0; c < C; c++) acc[c] = 0.0;
        const i64 e1 = __ldg(wptr + w + 1);
        for (i64 e = __ldg(wptr + w); e < e1; e++) {
            const unsigned u = __ldg(tlist + e);
            const double* __restrict__ ap = aval + (a0 + (u >> 16)) * RR + r * R;
            const double* pp = st + (int)(u & 0xffffu) * RC;
#pragma unroll
            for (int m = 0; m < R; m++) {
                const double am = __ldg(ap + m);
#pragma unroll
                for (int c = 0; c < C; c++) acc[c] = fma(am, pp[m * C + c], acc[c]);
            }
        }
        double* __restrict__ out = wval + ws * RC + r * C;
#pragma unroll
        for (int c = 0; c < C; c++) out[c] = acc[c];
    }
}

#define GAL_TILE(R, C, TAG)                                                                                   \
    extern "C" __global__ void __launch_bounds__(THREADS, 4) gal_w_tile_##TAG(                               \
        int rr, int cc, int ntile, const int* trow, const int* trun, const int2* runs, const i64* arp,        \
        const double* aval, const double* pval, const i64* wrp, const i64* wptr, const unsigned* tlist,       \
        const int* wslot, double* wval)                                                                       \
    {                                                                                                         \
        gal_w_tile<R, C>(rr, cc, ntile, trow, trun, runs, arp, aval, pval, wrp, wptr, tlist, wslot, wval);   \
    }

#define GAL_SMR(R, C, TAG)                                                                                    \
    extern "C" __global__ void __launch_bounds__(THREADS, 4) gal_w_smr_##TAG(                                \
        int rr, int cc, i64 nwin, const int2* win, const i64* arp, const int* acol, const double* aval,      \
        const i64* prp, const double* pval, const i64* wrp, const i64* wsw0, const unsigned long long* wslw,  \
        double* wval)                                                                                         \
    {                                                                                                         \
        gal_w_smr<R, C>(rr, cc, nwin, win, arp, acol, aval, prp, pval, wrp, wsw0, wslw, wval);               \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(THREADS, 3) gal_ac_smr_##TAG(                               \
        int rr, int cc, i64 nwin, const int2* win, const i64* ptrp, const i64* ptidx, const int* ptrow,       \
        const i64* wrp, const double* wval, const double* pval, const i64* acrp, const i64* asw0,             \
        const unsigned long long* aslw, double* acval)                                                        \
    {                                                                                                         \
        gal_ac_smr<R, C>(rr, cc, nwin, win, ptrp, ptidx, ptrow, wrp, wval, pval, acrp, asw0, aslw, acval);   \
    }

// The variants of galerkin.cu proper for one shape; tc-block's and tc-pairs' kernels
// are galerkin_tc.cu's.
#define GAL_TC_SHAPE(R, C, TAG)                                                                               \
    GAL_TCR(R, C, TAG, 16)                                                                                    \
    GAL_TCR(R, C, TAG, 32)                                                                                    \
    GAL_SMR(R, C, TAG)                                                                                        \
    GAL_TILE(R, C, TAG)

#define GAL_TCR(R, C, TAG, NW)                                                                                \
    extern "C" __global__ void __launch_bounds__(THREADS) gal_w_tcr##NW##_##TAG(                             \
        int rr, int cc, int n, const i64* arp, const int* acol, const double* aval, const i64* prp,           \
        const double* pval, const i64* wrp, const i64* wsw0, const unsigned long long* wslw, double* wval)    \
    {                                                                                                         \
        gal_w_tcr<R, C, NW>(rr, cc, n, arp, acol, aval, prp, pval, wrp, wsw0, wslw, wval);                   \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(THREADS) gal_ac_tcr##NW##_##TAG(                            \
        int rr, int cc, int m, const i64* ptrp, const i64* ptidx, const int* ptrow, const i64* wrp,           \
        const double* wval, const double* pval, const i64* acrp, const i64* asw0,                             \
        const unsigned long long* aslw, double* acval)                                                        \
    {                                                                                                         \
        gal_ac_tcr<R, C, NW>(rr, cc, m, ptrp, ptidx, ptrow, wrp, wval, pval, acrp, asw0, aslw, acval);       \
    }

GAL_TC_SHAPE(3, 6, 3x6)
GAL_TC_SHAPE(6, 6, 6x6)
GAL_TC_SHAPE(0, 0, generic)

// FP64 tensor-core rate probe: every warp runs 8 independent chains of m8n8k4 mma
// (512 flops each) in registers; stored only when flag is set (never, in practice).
extern "C" __global__ void __launch_bounds__(THREADS) gal_dmma_rate(int iters, double y, int flag,
                                                                    double* __restrict__ out)
{
    double c[8][2];
    const double a = threadIdx.x * 1e-3;
#pragma unroll
    for (int k = 0; k < 8; k++) c[k][0] = c[k][1] = k;
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int k = 0; k < 8; k++) gal_dmma(c[k][0], c[k][1], a, y);
    }
    double s = 0.0;
#pragma unroll
    for (int k = 0; k < 8; k++) s += c[k][0] + c[k][1];
    if (flag) out[(i64)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// The sm_90 FP64 shapes mma.m16n8kK (K = 4, 8, 16): D (16×8) = A (16×K) · B (K×8) + C.
// Fragments (lane l, g = l >> 2, t = l & 3): lane l holds A[g + 8(j & 1)][t + 4(j >> 1)]
// in a[j], B[t + 4j][g] in b[j], and C[g][2t], C[g][2t+1], C[g+8][2t], C[g+8][2t+1] in
// c[0..3]. TestDMMA16Layout checks this layout against dense math on the device. One
// m16n8k4 issues like one m8n8k4 and does twice its work (H200: 57.7 against 26.5
// TFLOP/s).
#if __CUDA_ARCH__ >= 900
template <int K>
__device__ __forceinline__ void gal_dmma16(double (&c)[4], const double (&a)[K / 2], const double (&b)[K / 4]);

template <>
__device__ __forceinline__ void gal_dmma16<4>(double (&c)[4], const double (&a)[2], const double (&b)[1])
{
    asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(b[0]));
}

template <>
__device__ __forceinline__ void gal_dmma16<8>(double (&c)[4], const double (&a)[4], const double (&b)[2])
{
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}

template <>
__device__ __forceinline__ void gal_dmma16<16>(double (&c)[4], const double (&a)[8], const double (&b)[4])
{
    asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, "
        "{%12, %13, %14, %15}, {%0, %1, %2, %3};"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]),
          "d"(b[1]), "d"(b[2]), "d"(b[3]));
}

// Rate probe for mma.m16n8kK: 8 independent chains a warp, as gal_dmma_rate.
template <int K>
__device__ __forceinline__ void gal_dmma16_rate(int iters, double y, int flag, double* __restrict__ out)
{
    double c[8][4], a[K / 2], b[K / 4];
#pragma unroll
    for (int j = 0; j < K / 2; j++) a[j] = threadIdx.x * 1e-3 + j;
#pragma unroll
    for (int j = 0; j < K / 4; j++) b[j] = y;
#pragma unroll
    for (int k = 0; k < 8; k++) c[k][0] = c[k][1] = c[k][2] = c[k][3] = k;
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int k = 0; k < 8; k++) gal_dmma16<K>(c[k], a, b);
    }
    double s = 0.0;
#pragma unroll
    for (int k = 0; k < 8; k++) s += c[k][0] + c[k][1] + c[k][2] + c[k][3];
    if (flag) out[(i64)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// One mma.m16n8kK of the row-major A (16×K) and B (K×8) into the row-major D (16×8)
// by the fragment layout above, one warp.
template <int K>
__device__ __forceinline__ void gal_dmma16_probe(const double* __restrict__ A, const double* __restrict__ B,
                                                 double* __restrict__ D)
{
    if (threadIdx.x >= 32) return; // warp 0 alone: the others would write the same D
    const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    double c[4] = {0.0, 0.0, 0.0, 0.0}, a[K / 2], b[K / 4];
#pragma unroll
    for (int j = 0; j < K / 2; j++) a[j] = A[(g + 8 * (j & 1)) * K + t + 4 * (j >> 1)];
#pragma unroll
    for (int j = 0; j < K / 4; j++) b[j] = B[(t + 4 * j) * 8 + g];
    gal_dmma16<K>(c, a, b);
    D[g * 8 + 2 * t] = c[0];
    D[g * 8 + 2 * t + 1] = c[1];
    D[(g + 8) * 8 + 2 * t] = c[2];
    D[(g + 8) * 8 + 2 * t + 1] = c[3];
}

#define GAL_DMMA16(K)                                                                                         \
    extern "C" __global__ void __launch_bounds__(THREADS) gal_dmma16_rate_k##K(int iters, double y, int flag, \
                                                                                double* __restrict__ out)    \
    {                                                                                                         \
        gal_dmma16_rate<K>(iters, y, flag, out);                                                              \
    }                                                                                                         \
    extern "C" __global__ void gal_dmma16_probe_k##K(const double* A, const double* B, double* D)            \
    {                                                                                                         \
        gal_dmma16_probe<K>(A, B, D);                                                                         \
    }
GAL_DMMA16(4)
GAL_DMMA16(8)
GAL_DMMA16(16)
#endif

// FP64 FMA rate probe: every thread runs 8 independent FMA chains of iters steps
// (16·iters flops) in registers; the sums are stored only when flag is set (never, in
// practice) so that the compiler keeps the chains.
extern "C" __global__ void __launch_bounds__(THREADS) gal_fma_rate(int iters, double y, double z, int flag,
                                                                   double* __restrict__ out)
{
    double x[8];
#pragma unroll
    for (int k = 0; k < 8; k++) x[k] = threadIdx.x * 1e-3 + k;
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int k = 0; k < 8; k++) x[k] = fma(x[k], y, z);
    }
    double s = 0.0;
#pragma unroll
    for (int k = 0; k < 8; k++) s += x[k];
    if (flag) out[(i64)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// x = 0 (the atomic baseline's Ac before its additions).
extern "C" __global__ void __launch_bounds__(THREADS) gal_zero(i64 n, double* __restrict__ x)
{
    const i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) x[i] = 0.0;
}
