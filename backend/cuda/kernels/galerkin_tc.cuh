// The tensor-core Galerkin kernels the device-planned product and the host-planned
// variants share (tc-block, tc-pairs; galerkin.cu's header comment describes the
// shapes and schedules): the FP64 mma, the tc-block walk, gal_w_tcb, gal_w_tcp and
// gal_ac_tcb as templates. galerkin_tc.cu instantiates them, so a run that plans its
// product on the device loads them without compiling galerkin.cu's other variants.
#ifndef BLOCKAMG_GALERKIN_TC_CUH
#define BLOCKAMG_GALERKIN_TC_CUH

#include "common.cuh"

__device__ __forceinline__ void gal_dmma(double& c0, double& c1, double a, double b)
{
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
        : "+d"(c0), "+d"(c1)
        : "d"(a), "d"(b));
}

// KC chunks of four along K (kch of them used).
template <int KC>
__device__ __forceinline__ void gal_dmma_k(double& c0, double& c1, const double (&a)[KC], const double (&b)[KC],
                                           int kch)
{
#pragma unroll
    for (int q = 0; q < KC; q++)
        if (q < kch) gal_dmma(c0, c1, a[q], b[q]);
}

// Lane offsets of the fragments of an X (rows × K, row-major, stride K) · Y (K × cols,
// row-major, stride cols) product: X[g][4q+t] and Y[4q+t][g], zero where outside.
template <int KC>
struct GalFrag {
    int xoff[KC], yoff[KC];
    bool xok[KC], yok[KC];
    __device__ __forceinline__ GalFrag(int rows, int K, int cols, int kch, int g, int t, bool xTransposed)
    {
#pragma unroll
        for (int q = 0; q < KC; q++) {
            const int k = 4 * q + t;
            // xTransposed: X = Zᵀ with Z K×rows row-major (Pᵀ from a P block), X[g][k] = Z[k][g].
            xok[q] = q < kch && g < rows && k < K;
            xoff[q] = xTransposed ? k * rows + g : g * K + k;
            yok[q] = q < kch && k < K && g < cols;
            yoff[q] = k * cols + g;
        }
    }
};

// gal_tcb_round: one round of the walk, RS products (8, 4, or the last ones one at a
// time): every operand loaded, then the RS mma in list order.
template <int KC, int RS>
__device__ __forceinline__ void gal_tcb_round(const int2* __restrict__ pe, const double* __restrict__ xs, i64 sx,
                                              const double* __restrict__ ys, i64 sy, const GalFrag<KC>& f, int kch,
                                              double& c0, double& c1)
{
    double av[RS][KC], bv[RS][KC];
#pragma unroll
    for (int v = 0; v < RS; v++) {
        const int2 e = __ldg(pe + v);
        const double* __restrict__ xp = (const double*)((const char*)xs + e.x * sx);
        const double* __restrict__ yp = (const double*)((const char*)ys + e.y * sy);
#pragma unroll
        for (int q = 0; q < KC; q++) {
            av[v][q] = f.xok[q] ? __ldg(xp + f.xoff[q]) : 0.0;
            bv[v][q] = f.yok[q] ? __ldg(yp + f.yoff[q]) : 0.0;
        }
    }
#pragma unroll
    for (int v = 0; v < RS; v++) gal_dmma_k<KC>(c0, c1, av[v], bv[v], kch);
}

// The tc-block product walk: c += Σ X_e.x · Y_e.y over a warp's np list entries pe
// (X blocks of sx bytes from xs, Y blocks of sy bytes from ys; fragment offsets f), four
// products' operands loaded before their mma. Written for few instructions a product,
// which set the pace of these kernels (Nsight Compute, ex56 ne = 64, Pᵀ·W: 33 → 18
// warp instructions a product, 0.67 → 0.55 ms with six blocks a multiprocessor):
// 32-bit counts, the list pointer advanced a round at a time, each operand address a
// wide multiply-add onto its base, the last np mod 4 products outside the loop so no
// per-product bounds test. The products are summed in list order.
//
// With one k chunk (R ≤ 4: the 3×6 fine level) rounds of eight products come first,
// not unrolled further (#pragma unroll 1), as in tc-pairs' A·P, whose SASS showed
// the device's compiler (CUDA 13) keeping few loads in flight otherwise (this walk's
// SASS was not read). H200, ex56 ne = 64 fine level, the half's Pᵀ·W: 0.356 → 0.322
// ms; four to a round not unrolled: 0.39 (bench/HISTORY.md). Two k
// chunks (6×6) keep rounds of four, which would need twice the operand registers.
template <int KC>
__device__ __forceinline__ void gal_tcb_walk(const int2* __restrict__ pe, int np, const double* __restrict__ xs,
                                             i64 sx, const double* __restrict__ ys, i64 sy, const GalFrag<KC>& f,
                                             int kch, double& c0, double& c1)
{
    int u = 0;
    if (KC == 1) {
#pragma unroll 1
        for (; u + 8 <= np; u += 8, pe += 8) gal_tcb_round<KC, 8>(pe, xs, sx, ys, sy, f, kch, c0, c1);
    }
    for (; u + 4 <= np; u += 4, pe += 4) gal_tcb_round<KC, 4>(pe, xs, sx, ys, sy, f, kch, c0, c1);
    for (; u < np; u++, pe++) gal_tcb_round<KC, 1>(pe, xs, sx, ys, sy, f, kch, c0, c1);
}

// gal_prefetch_share asks L2 for thread block j's linear share of an array that a
// kernel's blocks read roughly in order, per bytes a block from x: bytes
// [per·j, per·(j+1)), a prefetch.global.L2 a 128-byte line from the first warp's lanes.
// Nothing waits on a prefetch. j past the last block, or per 0, asks nothing.
__device__ __forceinline__ void gal_prefetch_share(const void* x, double per, i64 j)
{
    if (threadIdx.x >= 32 || per <= 0.0 || j >= (i64)gridDim.x) return;
    const i64 x0 = (i64)(per * (double)j) & ~(i64)127, x1 = (i64)(per * (double)(j + 1));
    for (i64 o = x0 + 128 * (i64)threadIdx.x; o < x1; o += 128 * 32)
        asm volatile("prefetch.global.L2 [%0];" ::"l"((const char*)x + o));
}

// W = A·P, warp per W block: its list of (A block, P block) global indices
// (gal_tcb_walk). Deterministic. With sel (the symmetric half) warp u computes W block
// sel[u], one of the n blocks the half reads, and stores it at slot u (the host's
// halfSlots); without (null) warp w computes block w and stores it there.
// Each block first asks L2 for the lines of A, the list and P that block `ahead` will
// read first, as tc-pairs does (gal_prefetch_share; H200, ex56 ne = 64: fine level
// 2.21 → 1.95 ms, 6×6 level 1 0.267 → 0.250; ne = 100 level 1 0.984 → 0.908).
template <int R_, int C_>
__device__ __forceinline__ void gal_w_tcb(int rr, int cc, i64 n, const int* __restrict__ sel,
                                          const i64* __restrict__ wptr, const int2* __restrict__ wabs,
                                          const double* __restrict__ aval, const double* __restrict__ pval,
                                          double* __restrict__ wval, double aper, double lper, double pper, int ahead, int plead)
{
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    constexpr int KC = R_ ? (R_ + 3) / 4 : 2;
    const int kch = (R + 3) >> 2;
    gal_prefetch_share(aval, aper, blockIdx.x + ahead);
    gal_prefetch_share(wabs, lper, blockIdx.x + ahead);
    gal_prefetch_share(pval, pper, blockIdx.x + ahead + plead);
    const i64 u = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (u >= n) return;
    const i64 w = sel ? (i64)__ldg(sel + u) : u;
    const int lane = threadIdx.x & 31, g = lane >> 2, tg = lane & 3;
    const GalFrag<KC> f(R, R, C, kch, g, tg, false);
    double c0 = 0.0, c1 = 0.0;
    const i64 t0 = wptr[w];
    // The output address first, so only it stays live through the walk.
    double* __restrict__ out = wval + u * (R * C) + g * C;
    gal_tcb_walk<KC>(wabs + t0, (int)(wptr[w + 1] - t0), aval, 8 * R * R, pval, 8 * R * C, f, kch, c0, c1);
    if (g < R) {
        if (2 * tg < C) out[2 * tg] = c0;
        if (2 * tg + 1 < C) out[2 * tg + 1] = c1;
    }
}

// GAL_PAIR_ENTRIES: the pair entries a tc-pairs warp computes (gal_w_tcp); Go's
// pairEntriesPerWarp (galerkin.go) must match.
#define GAL_PAIR_ENTRIES 2

// W = A·P, tc-pairs: a warp per pair entry (GAL_PAIR_ENTRIES of them in turn), the W
// blocks (pw.x of fine row 2q, pw.y of row 2q+1; −1 where absent) whose merged product
// list holds (A block of row 2q, A block of row 2q+1, P block) triples, −1 for an
// absent A block (galerkin_pairs.go).
// The left operand stacks the two A blocks (rows 0..R−1 and R..2R−1 of the 8, R ≤ 4:
// one k chunk), the right one is P's block as in tc-block, so each W block's entries
// get tc-block's terms in tc-block's order (an absent block's rows add exact zeros).
// Deterministic; the same bits as tc-block.
//
// The loop is written for few instructions a product, which set its speed once the
// list loads were cheap (Nsight Compute, ex56 ne = 64: 46 warp instructions a merged
// product, issue 63% busy; now 30 and 44%, A·P 1.54 → 1.43 ms): 32-bit counts, the list
// pointer advanced a round at a time, each operand's address one wide multiply-add of
// the block index by the block's bytes onto a per-lane base, and the last products
// outside the loop, so no per-product bounds test.
//
// A round loads four products' operands, then runs their four mma, and is not
// unrolled further (#pragma unroll 1). Left to itself, the device's compiler (CUDA 13)
// unrolled the earlier two-product round four times at the 32-register cap and
// issued each product's loads only one product ahead. Four to a round keep 32
// registers and no spills and put four products' loads in flight (H200, ex56 fine
// level A·P: ne = 64 0.905 → 0.837 ms, ne = 100 3.98 → 3.53; six or eight to a round
// ran 1–2% slower at ne = 64; bench/HISTORY.md). 40 registers kept
// fewer warps and ran slower.
//
// Each block first asks L2 (gal_prefetch_share) for the linear shares of A's values and
// of the product lists of the block `ahead` blocks on, and of P's values `plead`
// blocks further (the P rows a fine row reads lie up to A's bandwidth rows ahead of
// it). Blocks run in row-pair order, so these are about the lines that block will
// miss on first touch; asked for at once, in order, they cost less than the warps'
// scattered misses. H200, ex56 fine level, A·P: ne = 64 1.20 → 1.06–1.09 ms; ne = 100
// 4.70–4.81 → 4.62–4.71, within the spread between leases. `ahead` 8 or 32 the same,
// 2048 no gain; the same for W and the lists of Pᵀ·W gained nothing (bench/HISTORY.md).
//
// Each warp computes GAL_PAIR_ENTRIES entries in turn, the block's warps on
// consecutive entries each round (block x, round k, warp w: entry (x·K + k)·8 + w). A
// block keeps its multiprocessor slot until its longest warp is done, and entries
// differ in length; two entries a warp even that out (H200, ex56 ne = 64 fine level:
// 1.45 → 1.34 ms; four: 1.41 (ne = 100: 6.18 → 5.95); eight: 1.62; blocks of 128
// threads instead: 1.42, of 64: 1.51). The host then arranges each block's entries
// so its warps' totals come out about equal, the w-th longest with the w-th shortest
// (balanceBlocks, galerkin_pairs.go; ne = 64: A·P 0.956 → 0.915 ms).
//
// gal_w_tcp_entry computes pair entry b's two W blocks; gal_w_tcp, after it, runs
// GAL_PAIR_ENTRIES of them a warp.
template <int R_, int C_>
__device__ __forceinline__ void gal_w_tcp_entry(int rr, int cc, i64 b, const int2* __restrict__ pw,
                                                const i64* __restrict__ pwptr, const int* __restrict__ plist,
                                                const double* __restrict__ aval, const double* __restrict__ pval,
                                                double* __restrict__ wval)
{
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    const int lane = threadIdx.x & 31, g = lane >> 2, tg = lane & 3;
    const int half = g < R ? 0 : 1;
    const bool xok = g < 2 * R && tg < R;
    const bool yok = tg < R && g < C;
    const i64 sa = 8 * R * R, sp = 8 * R * C;
    const char* __restrict__ ax = (const char*)(aval + (xok ? (g - half * R) * R + tg : 0));
    const char* __restrict__ py = (const char*)(pval + (yok ? tg * C + g : 0));
    const i64 t0 = pwptr[b];
    const int np = (int)(pwptr[b + 1] - t0);
    const int* __restrict__ pl = plist + 3 * t0;
    double c0 = 0.0, c1 = 0.0;
    int u = 0;
#pragma unroll 1
    for (; u + 4 <= np; u += 4, pl += 12) {
        double x[4], y[4];
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int a = __ldg(pl + 3 * j + half), p = __ldg(pl + 3 * j + 2);
            x[j] = (xok && a >= 0) ? __ldg((const double*)(ax + a * sa)) : 0.0;
            y[j] = yok ? __ldg((const double*)(py + p * sp)) : 0.0;
        }
#pragma unroll
        for (int j = 0; j < 4; j++) gal_dmma(c0, c1, x[j], y[j]);
    }
    if (u + 2 <= np) {
        const int a0 = __ldg(pl + half), p0 = __ldg(pl + 2);
        const int a1 = __ldg(pl + 3 + half), p1 = __ldg(pl + 5);
        double x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0;
        if (xok && a0 >= 0) x0 = __ldg((const double*)(ax + a0 * sa));
        if (yok) y0 = __ldg((const double*)(py + p0 * sp));
        if (xok && a1 >= 0) x1 = __ldg((const double*)(ax + a1 * sa));
        if (yok) y1 = __ldg((const double*)(py + p1 * sp));
        gal_dmma(c0, c1, x0, y0);
        gal_dmma(c0, c1, x1, y1);
        u += 2;
        pl += 6;
    }
    if (u < np) {
        const int a0 = __ldg(pl + half), p0 = __ldg(pl + 2);
        double x0 = 0.0, y0 = 0.0;
        if (xok && a0 >= 0) x0 = __ldg((const double*)(ax + a0 * sa));
        if (yok) y0 = __ldg((const double*)(py + p0 * sp));
        gal_dmma(c0, c1, x0, y0);
    }
    if (g < 2 * R) {
        const int2 wb = __ldg(pw + b);
        const int w = half ? wb.y : wb.x;
        if (w >= 0) {
            double* __restrict__ out = wval + (i64)w * (R * C) + (g - half * R) * C;
            if (2 * tg < C) out[2 * tg] = c0;
            if (2 * tg + 1 < C) out[2 * tg + 1] = c1;
        }
    }
}

// gal_w_tcp: the L2 prefetch, then GAL_PAIR_ENTRIES entries a warp (see above).
template <int R_, int C_>
__device__ __forceinline__ void gal_w_tcp(int rr, int cc, i64 n, const int2* __restrict__ pw,
                                          const i64* __restrict__ pwptr, const int* __restrict__ plist,
                                          const double* __restrict__ aval, const double* __restrict__ pval,
                                          double* __restrict__ wval, double aper, double lper, double pper, int ahead, int plead)
{
    gal_prefetch_share(aval, aper, blockIdx.x + ahead);
    gal_prefetch_share(plist, lper, blockIdx.x + ahead);
    gal_prefetch_share(pval, pper, blockIdx.x + ahead + plead);
    const int wib = threadIdx.x >> 5, nwb = blockDim.x >> 5;
    for (int k = 0; k < GAL_PAIR_ENTRIES; k++) {
        const i64 b = ((i64)blockIdx.x * GAL_PAIR_ENTRIES + k) * nwb + wib;
        if (b >= n) return;
        gal_w_tcp_entry<R_, C_>(rr, cc, b, pw, pwptr, plist, aval, pval, wval);
    }
}

// Ac = Pᵀ·W, warp per Ac block: its list of (P block, W block) global indices
// (gal_tcb_walk, X = Pᵀ from P's block). Deterministic.
//
// With sel (the symmetric half, Options.Symmetric) the warps cover only the Ac blocks
// on and above the diagonal: warp w computes block sel[w].x from its list acabs[acptr[w]
// .. acptr[w+1]) (compact: the upper blocks' lists in order) and stores it also
// transposed into its mirror sel[w].y (−1 on the diagonal). The upper blocks get the
// full product's bits; the lower ones their exact transposes. Without sel (null) warp
// w computes block w.
template <int R_, int C_>
__device__ __forceinline__ void gal_ac_tcb(int rr, int cc, i64 n, const int2* __restrict__ sel,
                                           const i64* __restrict__ acptr, const int2* __restrict__ acabs,
                                           const double* __restrict__ wval, const double* __restrict__ pval,
                                           double* __restrict__ acval)
{
    const int R = R_ ? R_ : rr;
    const int C = C_ ? C_ : cc;
    constexpr int KC = R_ ? (R_ + 3) / 4 : 2;
    const int kch = (R + 3) >> 2;
    const i64 w = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (w >= n) return;
    const int lane = threadIdx.x & 31, g = lane >> 2, tg = lane & 3;
    const GalFrag<KC> f(C, R, C, kch, g, tg, true);
    double c0 = 0.0, c1 = 0.0;
    const i64 t0 = acptr[w];
    gal_tcb_walk<KC>(acabs + t0, (int)(acptr[w + 1] - t0), pval, 8 * R * C, wval, 8 * R * C, f, kch, c0, c1);
    if (g < C) {
        const int2 bm = sel ? __ldg(sel + w) : make_int2((int)w, -1);
        double* __restrict__ out = acval + (i64)bm.x * C * C + g * C;
        if (2 * tg < C) out[2 * tg] = c0;
        if (2 * tg + 1 < C) out[2 * tg + 1] = c1;
        if (bm.y >= 0) {
            double* __restrict__ mir = acval + (i64)bm.y * C * C + g;
            if (2 * tg < C) mir[2 * tg * C] = c0;
            if (2 * tg + 1 < C) mir[(2 * tg + 1) * C] = c1;
        }
    }
}

#endif
