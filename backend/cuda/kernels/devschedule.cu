// Product schedules built on the device (galerkin_devtc.go) for the tensor-core
// kernels of galerkin_tc.cu, from patterns that never leave the device: the tc-pairs
// and tc-block lists of W = A·P and tc-block's lists of Ac = Pᵀ·W, with the symmetric
// half's selection. Each list is counted (one count per output), prefix-summed and
// filled by the same walk, so what a fill writes is exactly what its count reserved.
// The lists hold the products in the order the host's schedules hold them (A's row
// order; Pᵀ's rows by fine row), so the kernels sum the same terms in the same order
// and give the host plan's bits.
//
// Patterns: A's rows (arp, acol), P's (prp, pcol), W's (wrp, wcol), Pᵀ's (tp, tcol:
// fine rows, tperm: P's block), Ac's (crow, ccol, crp), every row sorted by column.

#include "common.cuh"
#include "search.cuh"

#define DSC_NONE 0x7fffffff

// dsc_wread marks the W blocks the symmetric half of Pᵀ·W reads: the upper block
// (I, J), J ≥ I, reads W_iJ for each P block (i, I), so W_iJ is read exactly when P's
// row i has a column I ≤ J, i.e. when its first column (rows are sorted) is at most J.
extern "C" __global__ void __launch_bounds__(THREADS) dsc_wread(int n, const i64* __restrict__ prp, const int* __restrict__ pcol,
                                                                const i64* __restrict__ wrp, const int* __restrict__ wcol,
                                                                int* __restrict__ read)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    const int first = prp[i] < prp[i + 1] ? pcol[prp[i]] : DSC_NONE;
    for (i64 w = wrp[i]; w < wrp[i + 1]; w++) read[w] = wcol[w] >= first;
}

// dsc_select lists the marked positions in order (off: the marks' prefix sums).
extern "C" __global__ void __launch_bounds__(THREADS) dsc_select(i64 n, const int* __restrict__ mark, const i64* __restrict__ off,
                                                                 int* __restrict__ sel)
{
    const i64 t = (i64)blockIdx.x * THREADS + threadIdx.x;
    if (t < n && mark[t]) sel[off[t]] = (int)t;
}

// dsc_slot is W block w's place in W's values: its rank among the read blocks
// (slot: their prefix sums), −1 for a block not read; without a selection
// (slot null) the block itself.
__device__ __forceinline__ int dsc_slot(const int* __restrict__ read, const i64* __restrict__ slot, i64 w)
{
    if (w < 0) return -1;
    if (!slot) return (int)w;
    return read[w] ? (int)slot[w] : -1;
}

// dsc_band: *band = the largest k − i over A's blocks (i, k), A's upper bandwidth
// (the lead of the P rows a fine row reads, for the kernels' L2 prefetch).
extern "C" __global__ void __launch_bounds__(THREADS) dsc_band(int n, const i64* __restrict__ arp, const int* __restrict__ acol,
                                                               int* __restrict__ band)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n || arp[i] == arp[i + 1]) return;
    const int d = acol[arp[i + 1] - 1] - i;
    if (d > 0) atomicMax(band, d);
}

// dsc_pair_walk visits the W columns of fine rows 2q and 2q+1 in order (the pair
// entries of tc-pairs), calling f(w0, w1, J) with the two rows' W blocks in column J,
// −1 where a row lacks it or the half does not read it; a column with neither is not
// visited (the host's pairColumns).
template <typename F>
__device__ __forceinline__ void dsc_pair_walk(int q, int n, const i64* __restrict__ wrp, const int* __restrict__ wcol,
                                              const int* __restrict__ read, F f)
{
    i64 x0 = wrp[2 * q], e0 = wrp[2 * q + 1], x1 = e0, e1 = e0;
    if (2 * q + 1 < n) e1 = wrp[2 * q + 2];
    while (x0 < e0 || x1 < e1) {
        const int c0 = x0 < e0 ? wcol[x0] : DSC_NONE, c1 = x1 < e1 ? wcol[x1] : DSC_NONE;
        const int J = min(c0, c1);
        i64 w0 = -1, w1 = -1;
        if (c0 == J) w0 = x0++;
        if (c1 == J) w1 = x1++;
        if (read) {
            if (w0 >= 0 && !read[w0]) w0 = -1;
            if (w1 >= 0 && !read[w1]) w1 = -1;
            if (w0 < 0 && w1 < 0) continue;
        }
        f(w0, w1, J);
    }
}

// dsc_pair_count: cnt[q] = the pair entries of fine rows 2q and 2q+1.
extern "C" __global__ void __launch_bounds__(THREADS) dsc_pair_count(int np, int n, const i64* __restrict__ wrp,
                                                                     const int* __restrict__ wcol, const int* __restrict__ read,
                                                                     int* __restrict__ cnt)
{
    const int q = blockIdx.x * THREADS + threadIdx.x;
    if (q >= np) return;
    int c = 0;
    dsc_pair_walk(q, n, wrp, wcol, read, [&](i64, i64, int) { c++; });
    cnt[q] = c;
}

// dsc_pair_fill writes the entries of pair q from off[q]: their two W blocks' slots
// (pw, −1 where absent), column (ecol) and pair (epair).
extern "C" __global__ void __launch_bounds__(THREADS) dsc_pair_fill(int np, int n, const i64* __restrict__ wrp,
                                                                    const int* __restrict__ wcol, const int* __restrict__ read,
                                                                    const i64* __restrict__ slot, const i64* __restrict__ off,
                                                                    int2* __restrict__ pw, int* __restrict__ ecol, int* __restrict__ epair)
{
    const int q = blockIdx.x * THREADS + threadIdx.x;
    if (q >= np) return;
    i64 e = off[q];
    dsc_pair_walk(q, n, wrp, wcol, read, [&](i64 w0, i64 w1, int J) {
        pw[e] = make_int2(dsc_slot(read, slot, w0), dsc_slot(read, slot, w1));
        ecol[e] = J;
        epair[e] = q;
        e++;
    });
}

// dsc_merged_walk visits the merged products of pair entry (rows 2q and 2q+1,
// column J; has0/has1: whether each row's W block is computed): the A columns k of
// the rows taken, in order, where P's row k holds J, calling f(a0, a1, p) with the
// two rows' A blocks (−1 where absent) and P's block (the host's walkPair).
template <typename F>
__device__ __forceinline__ void dsc_merged_walk(int q, int n, int J, bool has0, bool has1, const i64* __restrict__ arp,
                                                const int* __restrict__ acol, const i64* __restrict__ prp,
                                                const int* __restrict__ pcol, F f)
{
    i64 x0 = arp[2 * q], e0 = has0 ? arp[2 * q + 1] : x0;
    i64 x1 = 0, e1 = 0;
    if (has1 && 2 * q + 1 < n) x1 = arp[2 * q + 1], e1 = arp[2 * q + 2];
    while (x0 < e0 || x1 < e1) {
        const int k0 = x0 < e0 ? acol[x0] : DSC_NONE, k1 = x1 < e1 ? acol[x1] : DSC_NONE;
        const int k = min(k0, k1);
        i64 a0 = -1, a1 = -1;
        if (k0 == k) a0 = x0++;
        if (k1 == k) a1 = x1++;
        const i64 p = find_col(pcol, prp[k], prp[k + 1], J);
        if (p >= 0) f(a0, a1, p);
    }
}

// dsc_pairprod_count: cnt[e] = the merged products of pair entry e.
extern "C" __global__ void __launch_bounds__(THREADS) dsc_pairprod_count(i64 ne, int n, const int2* __restrict__ pw,
                                                                         const int* __restrict__ ecol, const int* __restrict__ epair,
                                                                         const i64* __restrict__ arp, const int* __restrict__ acol,
                                                                         const i64* __restrict__ prp, const int* __restrict__ pcol,
                                                                         int* __restrict__ cnt)
{
    const i64 e = (i64)blockIdx.x * THREADS + threadIdx.x;
    if (e >= ne) return;
    const int2 w = pw[e];
    int c = 0;
    dsc_merged_walk(epair[e], n, ecol[e], w.x >= 0, w.y >= 0, arp, acol, prp, pcol, [&](i64, i64, i64) { c++; });
    cnt[e] = c;
}

// DSC_STAGE is the ints of dsc_pairprod_fill's shared-memory staging (48 KiB).
#define DSC_STAGE 12288

// dsc_pairprod_fill writes entry e's merged products from pwptr[e] as (A block of
// row 2q, A block of row 2q+1, P block) triples, −1 for an absent A block. A thread
// block's entries are consecutive and so are their products: where they fit, each
// thread writes its triples into shared memory and the block copies them out in
// coalesced stores, instead of each thread storing into its own distant stretch.
extern "C" __global__ void __launch_bounds__(THREADS) dsc_pairprod_fill(i64 ne, int n, const int2* __restrict__ pw,
                                                                        const int* __restrict__ ecol, const int* __restrict__ epair,
                                                                        const i64* __restrict__ arp, const int* __restrict__ acol,
                                                                        const i64* __restrict__ prp, const int* __restrict__ pcol,
                                                                        const i64* __restrict__ pwptr, int* __restrict__ plist)
{
    __shared__ int stage[DSC_STAGE];
    const i64 e0 = (i64)blockIdx.x * THREADS, e = e0 + threadIdx.x;
    const i64 t0 = pwptr[e0], t1 = pwptr[min(e0 + THREADS, ne)];
    const bool staged = 3 * (t1 - t0) <= DSC_STAGE; // the same for the whole block
    if (e < ne) {
        const int2 w = pw[e];
        int* out = staged ? stage + 3 * (pwptr[e] - t0) : plist + 3 * pwptr[e];
        dsc_merged_walk(epair[e], n, ecol[e], w.x >= 0, w.y >= 0, arp, acol, prp, pcol, [&](i64 a0, i64 a1, i64 p) {
            out[0] = (int)a0;
            out[1] = (int)a1;
            out[2] = (int)p;
            out += 3;
        });
    }
    if (!staged) return;
    __syncthreads();
    int* dst = plist + 3 * t0;
    for (int x = threadIdx.x; x < (int)(3 * (t1 - t0)); x += THREADS) dst[x] = stage[x];
}

// dsc_wprod: W block t's products for tc-block, (A block, P block) over A's row i in
// order where P's row k holds J; a block the half does not read (read[t] 0) has none.
// fill null: cnt[t] = their number; else they are written from fill[t].
extern "C" __global__ void __launch_bounds__(THREADS) dsc_wprod(i64 nw, const int* __restrict__ wrow, const int* __restrict__ wcol,
                                                                const int* __restrict__ read, const i64* __restrict__ arp,
                                                                const int* __restrict__ acol, const i64* __restrict__ prp,
                                                                const int* __restrict__ pcol, int* __restrict__ cnt,
                                                                const i64* __restrict__ fill, int2* __restrict__ wabs)
{
    const i64 t = (i64)blockIdx.x * THREADS + threadIdx.x;
    if (t >= nw) return;
    int c = 0;
    if (!read || read[t]) {
        const int i = wrow[t], J = wcol[t];
        int2* out = fill ? wabs + fill[t] : nullptr;
        for (i64 a = arp[i]; a < arp[i + 1]; a++) {
            const int k = acol[a];
            const i64 p = find_col(pcol, prp[k], prp[k + 1], J);
            if (p < 0) continue;
            if (out) *out++ = make_int2((int)a, (int)p);
            c++;
        }
    }
    if (!fill) cnt[t] = c;
}

// dsc_acprod: Ac block b's products for tc-block's Pᵀ·W, (P block, W block's slot)
// over Pᵀ's row I (fine rows i ascending) where W's row i holds J. Warp u takes
// block sel[u] (the symmetric half's upper blocks) or u (sel null), its lanes 32
// entries of the row at a time, each product written at its rank among the round's
// (a ballot), so the list keeps the row's order. fill null: cnt[u] = their number,
// and with sel the block and its mirror (J, I) in acsel[u] (−1 on the diagonal); else
// they are written from fill[u].
extern "C" __global__ void __launch_bounds__(THREADS) dsc_acprod(i64 nu, const i64* __restrict__ sel, const int* __restrict__ crow,
                                                                 const int* __restrict__ ccol, const i64* __restrict__ crp,
                                                                 const i64* __restrict__ tp, const int* __restrict__ tcol,
                                                                 const i64* __restrict__ tperm, const i64* __restrict__ wrp,
                                                                 const int* __restrict__ wcol, const int* __restrict__ read,
                                                                 const i64* __restrict__ slot, int* __restrict__ cnt,
                                                                 int2* __restrict__ acsel, const i64* __restrict__ fill,
                                                                 int2* __restrict__ acabs)
{
    const i64 u = ((i64)blockIdx.x * THREADS + threadIdx.x) >> 5; // the same for the warp
    const int lane = threadIdx.x & 31;
    if (u >= nu) return;
    const i64 b = sel ? sel[u] : u;
    const int I = crow[b], J = ccol[b];
    int2* out = fill ? acabs + fill[u] : nullptr;
    int c = 0;
    const i64 e1 = tp[I + 1];
    for (i64 e0 = tp[I]; e0 < e1; e0 += 32) {
        const i64 e = e0 + lane;
        i64 s = -1;
        if (e < e1) {
            const int i = tcol[e];
            s = find_col(wcol, wrp[i], wrp[i + 1], J);
        }
        const unsigned m = __ballot_sync(0xffffffffu, s >= 0);
        if (out && s >= 0) out[c + __popc(m & ((1u << lane) - 1u))] = make_int2((int)tperm[e], dsc_slot(read, slot, s));
        c += __popc(m);
    }
    if (fill || lane != 0) return;
    cnt[u] = c;
    if (sel) acsel[u] = make_int2((int)b, I == J ? -1 : (int)find_col(ccol, crp[J], crp[J + 1], I));
}
