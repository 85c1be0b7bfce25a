// Sparse products whose patterns the device computes itself (galerkin_device.go):
// the pattern of C = A·B row by row (pat_*), the transpose of a pattern with the
// block permutation (tr_*), and the numeric W = A·P and Ac = Pᵀ·W on those patterns,
// one thread per output block, each operand found by a binary search in the row it
// lies in (spg_*). Every output is summed by one thread in a fixed order (A's row
// order; Pᵀ's rows sorted by fine row), so the products are deterministic.

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

// tr_sort sorts each row of the transpose by column (a fine row appears once in it),
// the permutation alongside (insertion sort: rows of a prolongator's transpose hold
// the fine rows of one aggregate's neighbourhood).
extern "C" __global__ void __launch_bounds__(THREADS) tr_sort(int rows, const i64* __restrict__ tp, int* __restrict__ tcol,
                                                              i64* __restrict__ tperm)
{
    const int r = blockIdx.x * THREADS + threadIdx.x;
    if (r >= rows) return;
    const i64 lo = tp[r], hi = tp[r + 1];
    for (i64 a = lo + 1; a < hi; a++) {
        const int x = tcol[a];
        const i64 y = tperm[a];
        i64 b = a - 1;
        while (b >= lo && tcol[b] > x) {
            tcol[b + 1] = tcol[b];
            tperm[b + 1] = tperm[b];
            b--;
        }
        tcol[b + 1] = x;
        tperm[b + 1] = y;
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
    extern "C" __global__ void __launch_bounds__(THREADS) spg_ac_##SUF(i64 nc, int rr, int cr, const int* __restrict__ crow,         \
                                                                       const int* __restrict__ ccol, const i64* __restrict__ tp,      \
                                                                       const int* __restrict__ tcol, const i64* __restrict__ tperm,   \
                                                                       const double* __restrict__ pval, const i64* __restrict__ wrp,  \
                                                                       const int* __restrict__ wcol, const double* __restrict__ wval, \
                                                                       double* __restrict__ cval)                                     \
    {                                                                                                                                 \
        const i64 t = (i64)blockIdx.x * THREADS + threadIdx.x;                                                                        \
        if (t < nc) spg_ac_body<RT, CT>(t, rr, cr, crow, ccol, tp, tcol, tperm, pval, wrp, wcol, wval, cval);                       \
    }

SPG_KERNELS(3x6, 3, 6)
SPG_KERNELS(6x6, 6, 6)
SPG_KERNELS(generic, 0, 0)
