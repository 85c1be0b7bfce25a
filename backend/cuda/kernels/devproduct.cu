// Sparse products whose patterns the device computes itself (galerkin_device.go):
// the pattern of C = A·B row by row (pat_*), the transpose of a pattern with the
// block permutation (tr_*), and the numeric W = A·P and Ac = Pᵀ·W on those patterns,
// one thread per output block, each operand found by a binary search in the row it
// lies in (spg_*). Every output is summed by one thread in a fixed order (A's row
// order; Pᵀ's rows sorted by fine row), so the products are deterministic.

#include "common.cuh"
#include "search.cuh"

// pat_cand_count: cnt[i] = the candidates of row i of A·B, Σ over A's row of B's row
// lengths (an upper bound of the row's length, the room its union gets).
extern "C" __global__ void __launch_bounds__(THREADS) pat_cand_count(int n, const i64* __restrict__ arp, const int* __restrict__ acol,
                                                                     const i64* __restrict__ brp, i64* __restrict__ cnt)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    i64 c = 0;
    for (i64 k = arp[i]; k < arp[i + 1]; k++) c += brp[acol[k] + 1] - brp[acol[k]];
    cnt[i] = c;
}

// pat_union: row i of A·B, the sorted distinct columns of B's rows that A's row i
// meets, built in its room scratch[off[i], off[i+1]) by insertion (rows of few
// distinct columns); cnt[i] = its length.
extern "C" __global__ void __launch_bounds__(THREADS) pat_union(int n, const i64* __restrict__ arp, const int* __restrict__ acol,
                                                                const i64* __restrict__ brp, const int* __restrict__ bcol,
                                                                const i64* __restrict__ off, int* __restrict__ scratch,
                                                                int* __restrict__ cnt)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    int* s = scratch + off[i];
    int c = 0;
    for (i64 k = arp[i]; k < arp[i + 1]; k++) {
        const int j = acol[k];
        for (i64 t = brp[j]; t < brp[j + 1]; t++) {
            const int v = bcol[t];
            // Binary search for v's place in s[0, c).
            int lo = 0, hi = c;
            while (lo < hi) {
                const int mid = (lo + hi) >> 1;
                if (s[mid] < v) lo = mid + 1;
                else hi = mid;
            }
            if (lo < c && s[lo] == v) continue;
            for (int q = c; q > lo; q--) s[q] = s[q - 1];
            s[lo] = v;
            c++;
        }
    }
    cnt[i] = c;
}

// pat_copy: row i's union from its room to the pattern at cp[i].
extern "C" __global__ void __launch_bounds__(THREADS) pat_copy(int n, const i64* __restrict__ off, const int* __restrict__ scratch,
                                                               const i64* __restrict__ cp, int* __restrict__ ccol)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    const int len = (int)(cp[i + 1] - cp[i]);
    for (int p = 0; p < len; p++) ccol[cp[i] + p] = scratch[off[i] + p];
}

// tr_count: the blocks of each column (the rows of the transpose).
extern "C" __global__ void __launch_bounds__(THREADS) tr_count(int n, const i64* __restrict__ rp, const int* __restrict__ col,
                                                               int* __restrict__ cnt)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    for (i64 k = rp[i]; k < rp[i + 1]; k++) atomicAdd(&cnt[col[k]], 1);
}

// tr_fill appends (i, k) to row col[k] of the transpose; tr_sort orders each row.
extern "C" __global__ void __launch_bounds__(THREADS) tr_fill(int n, const i64* __restrict__ rp, const int* __restrict__ col,
                                                              const i64* __restrict__ tp, int* __restrict__ next,
                                                              int* __restrict__ tcol, i64* __restrict__ tperm)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    for (i64 k = rp[i]; k < rp[i + 1]; k++) {
        const int c = col[k];
        const i64 q = tp[c] + atomicAdd(&next[c], 1);
        tcol[q] = i;
        tperm[q] = k;
    }
}

// WARP_ROW_MAX: the longest row a warp keeps in shared memory (longer rows are read
// from global memory, the same result).
#define WARP_ROW_MAX 1024
#define WARPS (THREADS / 32)

// tr_sort writes each row of the transpose ordered by column, from tr_fill's
// unordered row (ucol, uperm) into (tcol, tperm): a warp per row, each entry placed at
// its rank (a fine row appears once in a row of the transpose, so ranks are distinct).
extern "C" __global__ void __launch_bounds__(THREADS) tr_sort(int rows, const i64* __restrict__ tp, const int* __restrict__ ucol,
                                                              const i64* __restrict__ uperm, int* __restrict__ tcol,
                                                              i64* __restrict__ tperm)
{
    __shared__ int ks[WARPS][WARP_ROW_MAX];
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int r = blockIdx.x * WARPS + w;
    if (r >= rows) return;
    const i64 lo = tp[r];
    const int m = (int)(tp[r + 1] - lo);
    const int* keys = ucol + lo;
    if (m <= WARP_ROW_MAX) {
        for (int e = lane; e < m; e += 32) ks[w][e] = keys[e];
        __syncwarp();
        keys = ks[w];
    }
    for (int e = lane; e < m; e += 32) {
        const int x = keys[e];
        int rank = 0;
        for (int f = 0; f < m; f++) rank += keys[f] < x;
        tcol[lo + rank] = x;
        tperm[lo + rank] = uperm[lo + e];
    }
}

// HASH_SLOTS: a warp's hash set in shared memory (pat_union_warp); a row with more
// than HASH_SLOTS/2 distinct columns overflows it and the product takes the
// thread-per-row path (pat_union).
#define HASH_SLOTS 512

// warp_union builds the set of the columns of B's rows that A's row i meets in the
// warp's hash set h (−1: empty), returning their number, or −1 when it overflows.
__device__ int warp_union(int i, int lane, const i64* __restrict__ arp, const int* __restrict__ acol, const i64* __restrict__ brp,
                          const int* __restrict__ bcol, int* h, int* count)
{
    for (int e = lane; e < HASH_SLOTS; e += 32) h[e] = -1;
    if (lane == 0) *count = 0;
    __syncwarp();
    for (i64 k = arp[i] + lane; k < arp[i + 1]; k += 32) {
        const int j = acol[k];
        for (i64 t = brp[j]; t < brp[j + 1]; t++) {
            const int v = bcol[t];
            unsigned s = ((unsigned)v * 2654435761u) >> (32 - 9);
            for (int probe = 0; probe < HASH_SLOTS; probe++) {
                const int old = atomicCAS(&h[s], -1, v);
                if (old == -1) {
                    atomicAdd(count, 1);
                    break;
                }
                if (old == v) break;
                s = (s + 1) & (HASH_SLOTS - 1);
            }
        }
    }
    __syncwarp();
    const int c = *count;
    return c > HASH_SLOTS / 2 ? -1 : c;
}

// pat_union_warp: row i of A·B by a warp and a shared hash set. fill = 0: cnt[i] =
// the row's length (and *overflow set where the set overflowed); fill = 1: the row's
// columns at cp[i], each at its rank among them (ascending).
extern "C" __global__ void __launch_bounds__(THREADS) pat_union_warp(int n, const i64* __restrict__ arp, const int* __restrict__ acol,
                                                                     const i64* __restrict__ brp, const int* __restrict__ bcol,
                                                                     int fill, int* __restrict__ cnt, const i64* __restrict__ cp,
                                                                     int* __restrict__ ccol, int* __restrict__ overflow)
{
    __shared__ int hs[WARPS][HASH_SLOTS];
    __shared__ int list[WARPS][HASH_SLOTS / 2];
    __shared__ int counts[WARPS];
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int i = blockIdx.x * WARPS + w;
    if (i >= n) return;
    int* h = hs[w];
    const int c = warp_union(i, lane, arp, acol, brp, bcol, h, &counts[w]);
    if (!fill) {
        if (lane == 0) {
            cnt[i] = max(c, 0);
            if (c < 0) atomicOr(overflow, 1);
        }
        return;
    }
    // Gather the set into a list (in any order), then place each column at its rank.
    __syncwarp();
    if (lane == 0) counts[w] = 0;
    __syncwarp();
    int* l = list[w];
    for (int e = lane; e < HASH_SLOTS; e += 32)
        if (h[e] >= 0) l[atomicAdd(&counts[w], 1)] = h[e];
    __syncwarp();
    const i64 o = cp[i];
    for (int e = lane; e < c; e += 32) {
        const int v = l[e];
        int rank = 0;
        for (int f = 0; f < c; f++) rank += l[f] < v;
        ccol[o + rank] = v;
    }
}

// expand_rows: row[t] = the block row of block t of a pattern.
extern "C" __global__ void __launch_bounds__(THREADS) expand_rows(int n, const i64* __restrict__ rp, int* __restrict__ row)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    for (i64 k = rp[i]; k < rp[i + 1]; k++) row[k] = i;
}

// SPG_MAX bounds R·C of the runtime-shaped products (their accumulator).
#define SPG_MAX 64

// spg_w: W = A·P, one thread per W block (i, J): Σ over A's row i, in order, of
// A_ij·P_jJ where P's row j holds J. A is R×R, P and W R×C (RT, CT: compile-time
// shape, 0: runtime r, c).
template <int RT, int CT>
__device__ __forceinline__ void spg_w_body(i64 t, int rr, int cr, const int* __restrict__ wrow, const int* __restrict__ wcol,
                                           const i64* __restrict__ arp, const int* __restrict__ acol, const double* __restrict__ aval,
                                           const i64* __restrict__ prp, const int* __restrict__ pcol, const double* __restrict__ pval,
                                           double* __restrict__ wval)
{
    const int R = RT > 0 ? RT : rr, C = CT > 0 ? CT : cr;
    constexpr int ACC = RT > 0 ? RT * CT : SPG_MAX;
    double acc[ACC];
#pragma unroll
    for (int q = 0; q < ACC; q++) acc[q] = 0.0;
    const int i = wrow[t], J = wcol[t];
    for (i64 k = arp[i]; k < arp[i + 1]; k++) {
        const int j = acol[k];
        const i64 s = find_col(pcol, prp[j], prp[j + 1], J);
        if (s < 0) continue;
        const double* a = aval + k * R * R;
        const double* p = pval + s * R * C;
        for (int r = 0; r < R; r++)
            for (int q = 0; q < R; q++) {
                const double x = a[r * R + q];
                for (int c = 0; c < C; c++) acc[r * C + c] = fma(x, p[q * C + c], acc[r * C + c]);
            }
    }
    double* w = wval + t * R * C;
    for (int q = 0; q < R * C; q++) w[q] = acc[q];
}

// spg_ac: Ac = Pᵀ·W, one thread per Ac block (I, J): Σ over Pᵀ's row I (fine rows i
// in ascending order, tperm[u] the P block (i, I)) of P_iIᵀ·W_iJ where W's row i holds J.
template <int RT, int CT>
__device__ __forceinline__ void spg_ac_body(i64 t, int rr, int cr, const int* __restrict__ crow, const int* __restrict__ ccol,
                                            const i64* __restrict__ tp, const int* __restrict__ tcol, const i64* __restrict__ tperm,
                                            const double* __restrict__ pval, const i64* __restrict__ wrp, const int* __restrict__ wcol,
                                            const double* __restrict__ wval, double* __restrict__ cval)
{
    const int R = RT > 0 ? RT : rr, C = CT > 0 ? CT : cr;
    constexpr int ACC = CT > 0 ? CT * CT : SPG_MAX;
    double acc[ACC];
#pragma unroll
    for (int q = 0; q < ACC; q++) acc[q] = 0.0;
    const int I = crow[t], J = ccol[t];
    for (i64 u = tp[I]; u < tp[I + 1]; u++) {
        const int i = tcol[u];
        const i64 s = find_col(wcol, wrp[i], wrp[i + 1], J);
        if (s < 0) continue;
        const double* p = pval + tperm[u] * R * C;
        const double* w = wval + s * R * C;
        for (int q = 0; q < R; q++)
            for (int a = 0; a < C; a++) {
                const double x = p[q * C + a];
                for (int c = 0; c < C; c++) acc[a * C + c] = fma(x, w[q * C + c], acc[a * C + c]);
            }
    }
    double* o = cval + t * C * C;
    for (int q = 0; q < C * C; q++) o[q] = acc[q];
}

#define SPG_KERNELS(SUF, RT, CT)                                                                                                      \
    extern "C" __global__ void __launch_bounds__(THREADS) spg_w_##SUF(i64 nw, int rr, int cr, const int* __restrict__ wrow,          \
                                                                      const int* __restrict__ wcol, const i64* __restrict__ arp,      \
                                                                      const int* __restrict__ acol, const double* __restrict__ aval,  \
                                                                      const i64* __restrict__ prp, const int* __restrict__ pcol,      \
                                                                      const double* __restrict__ pval, double* __restrict__ wval)     \
    {                                                                                                                                 \
        const i64 t = (i64)blockIdx.x * THREADS + threadIdx.x;                                                                        \
        if (t < nw) spg_w_body<RT, CT>(t, rr, cr, wrow, wcol, arp, acol, aval, prp, pcol, pval, wval);                              \
    }                                                                                                                                 \
    extern "C" __global__ void __launch_bounds__(THREADS) spg_ac_##SUF(i64 nc, const i64* __restrict__ sel, int rr, int cr,         \
                                                                       const int* __restrict__ crow,                                  \
                                                                       const int* __restrict__ ccol, const i64* __restrict__ tp,      \
                                                                       const int* __restrict__ tcol, const i64* __restrict__ tperm,   \
                                                                       const double* __restrict__ pval, const i64* __restrict__ wrp,  \
                                                                       const int* __restrict__ wcol, const double* __restrict__ wval, \
                                                                       double* __restrict__ cval)                                     \
    {                                                                                                                                 \
        const i64 u = (i64)blockIdx.x * THREADS + threadIdx.x;                                                                        \
        if (u < nc) spg_ac_body<RT, CT>(sel ? sel[u] : u, rr, cr, crow, ccol, tp, tcol, tperm, pval, wrp, wcol, wval, cval);        \
    }

SPG_KERNELS(3x6, 3, 6)
SPG_KERNELS(6x6, 6, 6)
SPG_KERNELS(generic, 0, 0)

// sym_split marks the blocks of Ac on and above the diagonal (up[t] = 1) and gives each
// block below it the index of its mirror (I, J) ↔ (J, I) in mirror[t] (*missing set
// when the pattern is not structurally symmetric).
extern "C" __global__ void __launch_bounds__(THREADS) sym_split(i64 nc, const int* __restrict__ crow, const int* __restrict__ ccol,
                                                                const i64* __restrict__ crp, int* __restrict__ up,
                                                                i64* __restrict__ mirror, int* __restrict__ missing)
{
    const i64 t = (i64)blockIdx.x * THREADS + threadIdx.x;
    if (t >= nc) return;
    const int I = crow[t], J = ccol[t];
    up[t] = J >= I;
    if (J >= I) return;
    const i64 m = find_col(ccol, crp[J], crp[J + 1], I);
    mirror[t] = m;
    if (m < 0) atomicOr(missing, 1);
}

// sym_select lists the blocks up marks (off: its prefix sums), in order.
extern "C" __global__ void __launch_bounds__(THREADS) sym_select(i64 nc, const int* __restrict__ up, const i64* __restrict__ off,
                                                                 i64* __restrict__ sel)
{
    const i64 t = (i64)blockIdx.x * THREADS + threadIdx.x;
    if (t < nc && up[t]) sel[off[t]] = t;
}

// sym_mirror writes each block below the diagonal as the transpose of its mirror
// (c×c blocks): Ac is symmetric exactly, as the CPU's half product makes it.
extern "C" __global__ void __launch_bounds__(THREADS) sym_mirror(i64 nc, int c, const int* __restrict__ up,
                                                                 const i64* __restrict__ mirror, double* __restrict__ val)
{
    const i64 t = (i64)blockIdx.x * THREADS + threadIdx.x;
    if (t >= nc || up[t]) return;
    const double* src = val + mirror[t] * c * c;
    double* dst = val + t * c * c;
    for (int a = 0; a < c; a++)
        for (int b = 0; b < c; b++) dst[a * c + b] = src[b * c + a];
}
