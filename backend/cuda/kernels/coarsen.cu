// The symbolic set-up of one level on the device: the strength graph, the maximal
// independent set and aggregates, the tentative prolongator by per-aggregate QR and
// the smoothed prolongator's pattern — package amg's algorithms (strength.go,
// mis.go, aggregate.go, tentative.go, qr.go, smooth.go) kernel by kernel, so that the
// device builds the very graph, aggregates and P_tent the CPU builds.
//
// Floating-point work uses __dmul_rn/__dadd_rn/__dsub_rn/__ddiv_rn, which are never
// contracted into FMAs, in the CPU's order; frexp and ldexp are Go's algorithms
// (go_frexp, go_ldexp), so that even the scale-safe paths of bsr.SumSquares and the
// strength test round as Go rounds. Every output is written by one thread; where
// threads append to a shared list (members, transposes) the list is sorted after,
// so the result does not depend on scheduling.

#include "common.cuh"
#include "search.cuh"

#define UNSCALED (-32768)
#define SUMSQ_TINY 0x1p-900
#define ROW_SPREAD_LOG2 24
#define MIS_OUT 0ULL
#define MIS_UNDECIDED 1ULL
#define MIS_IN 2ULL
// TENT_KMAX bounds the near-null vectors of the device QR (tau lives in registers);
// mirrored by tentKMax in coarsen.go.
#define TENT_KMAX 8

__device__ __forceinline__ bool is_tiny(double a) { return fabs(a) < 2.2250738585072014e-308; }

// go_frexp is Go's math.Frexp: f = frac·2^exp, frac in [0.5, 1).
__device__ double go_frexp(double f, int* e)
{
    *e = 0;
    if (f == 0.0 || isinf(f) || isnan(f)) return f;
    int x0 = 0;
    if (is_tiny(f)) {
        f = __dmul_rn(f, 4503599627370496.0); // 2^52
        x0 = -52;
    }
    unsigned long long x = (unsigned long long)__double_as_longlong(f);
    *e = x0 + (int)((x >> 52) & 0x7ff) - 1023 + 1;
    x &= ~(0x7ffULL << 52);
    x |= 1022ULL << 52;
    return __longlong_as_double((long long)x);
}

// go_ldexp is Go's math.Ldexp: frac·2^exp with Go's rounding of subnormal results.
__device__ double go_ldexp(double frac, int exp)
{
    if (frac == 0.0 || isinf(frac) || isnan(frac)) return frac;
    if (is_tiny(frac)) {
        frac = __dmul_rn(frac, 4503599627370496.0);
        exp -= 52;
    }
    unsigned long long x = (unsigned long long)__double_as_longlong(frac);
    exp += (int)((x >> 52) & 0x7ff) - 1023;
    if (exp < -1075) return copysign(0.0, frac);
    if (exp > 1023) return frac < 0 ? -__longlong_as_double(0x7ff0000000000000LL) : __longlong_as_double(0x7ff0000000000000LL);
    double m = 1.0;
    if (exp < -1022) {
        exp += 53;
        m = 1.0 / 9007199254740992.0; // 2^-53
    }
    x &= ~(0x7ffULL << 52);
    x |= (unsigned long long)(exp + 1023) << 52;
    return __dmul_rn(m, __longlong_as_double((long long)x));
}

// sum_squares is bsr.SumSquares: returns s with Σ v_i² = s·4^e, strided by st.
__device__ double sum_squares(const double* v, int n, int st, int* e)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s = __dadd_rn(s, __dmul_rn(v[i * st], v[i * st]));
    *e = 0;
    if ((s >= SUMSQ_TINY && !isinf(s)) || isnan(s)) return s;
    double amax = 0.0;
    for (int i = 0; i < n; i++) {
        const double x = v[i * st];
        if (isnan(x)) return __longlong_as_double(0x7ff8000000000001LL);
        amax = fmax(amax, fabs(x));
    }
    if (amax == 0.0 || isinf(amax)) return amax;
    int ex;
    go_frexp(amax, &ex);
    s = 0.0;
    for (int i = 0; i < n; i++) {
        const double x = go_ldexp(v[i * st], -ex);
        s = __dadd_rn(s, __dmul_rn(x, x));
    }
    *e = ex;
    return s;
}

// diag_exp is amg's diagExp: the binary exponent of √a, UNSCALED for a ≤ 0 or not finite.
__device__ __forceinline__ int diag_exp(double a)
{
    if (!(a > 0) || isinf(a)) return UNSCALED;
    int e;
    go_frexp(a, &e);
    return e >> 1;
}

// strength_diag: per block row i, ‖A_ii‖ as diag[i]·2^dexp[i], the scale exponent of
// each of its b unknowns, and the lowest row whose diagonal block is missing, zero
// or not finite (atomicMin into bad, which starts at n).
extern "C" __global__ void __launch_bounds__(THREADS) strength_diag(int n, int b, const i64* __restrict__ rp,
                                                                    const int* __restrict__ col, const double* __restrict__ val,
                                                                    double* __restrict__ diag, int* __restrict__ dexp,
                                                                    int* __restrict__ uexp, int* __restrict__ bad)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    const int bs = b * b;
    double d = 0.0;
    int de = 0;
    for (int p = 0; p < b; p++) uexp[(i64)i * b + p] = UNSCALED;
    const i64 k = find_col(col, rp[i], rp[i + 1], i);
    if (k >= 0) {
        const double* blk = val + k * bs;
        d = sqrt(sum_squares(blk, bs, 1, &de));
        for (int p = 0; p < b; p++) uexp[(i64)i * b + p] = diag_exp(blk[p * b + p]);
    }
    diag[i] = d;
    dexp[i] = de;
    if (!(d > 0) || isinf(d)) atomicMin(bad, i);
}

// strong is amg's strong: s·2^es > th2·(di·2^ei)·(dj·2^ej) on mantissas and exponents.
__device__ bool strong(double s, int es, double th2, double di, int ei, double dj, int ej)
{
    int xs, xt, xi, xj;
    const double ms = go_frexp(s, &xs);
    const double mt = go_frexp(th2, &xt);
    const double mi = go_frexp(di, &xi);
    const double mj = go_frexp(dj, &xj);
    return ms > go_ldexp(__dmul_rn(__dmul_rn(mt, mi), mj), xt + xi + xj + ei + ej - xs - es);
}

// strength_keep is the test of amg.Strength for the off-diagonal block k = (i, j).
__device__ __forceinline__ bool strength_keep(i64 k, int i, int j, int bs, const double* __restrict__ val,
                                              const double* __restrict__ diag, const int* __restrict__ dexp,
                                              double th2, int all)
{
    if (all) return true;
    int e;
    const double s = sum_squares(val + k * bs, bs, 1, &e);
    const double r = __dmul_rn(__dmul_rn(th2, diag[i]), diag[j]);
    if (e == 0 && dexp[i] == 0 && dexp[j] == 0 && !isinf(r)) return s > r;
    return strong(s, 2 * e, th2, diag[i], dexp[i], diag[j], dexp[j]);
}

// strength_edges counts (fill = 0) or writes (fill = 1, at sp[i]) the strong
// off-diagonal blocks of row i; all keeps every stored block (a negative threshold).
extern "C" __global__ void __launch_bounds__(THREADS) strength_edges(int n, int b, const i64* __restrict__ rp,
                                                                     const int* __restrict__ col, const double* __restrict__ val,
                                                                     const double* __restrict__ diag, const int* __restrict__ dexp,
                                                                     double th2, int all, int fill, int* __restrict__ cnt,
                                                                     const i64* __restrict__ sp, int* __restrict__ adj)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    const int bs = b * b;
    int c = 0;
    i64 o = fill ? sp[i] : 0;
    for (i64 k = rp[i]; k < rp[i + 1]; k++) {
        const int j = col[k];
        if (j == i || !strength_keep(k, i, j, bs, val, diag, dexp, th2, all)) continue;
        if (fill) adj[o++] = j;
        c++;
    }
    if (!fill) cnt[i] = c;
}

// graph_asym sets *flag when some edge i→j has no j→i.
extern "C" __global__ void __launch_bounds__(THREADS) graph_asym(int n, const i64* __restrict__ gp,
                                                                 const int* __restrict__ adj, int* __restrict__ flag)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    for (i64 k = gp[i]; k < gp[i + 1]; k++) {
        const int j = adj[k];
        if (find_col(adj, gp[j], gp[j + 1], i) < 0) {
            atomicOr(flag, 1);
            return;
        }
    }
}

// graph_tcount counts the edges into each node (the rows of Sᵀ).
extern "C" __global__ void __launch_bounds__(THREADS) graph_tcount(int n, const i64* __restrict__ gp,
                                                                   const int* __restrict__ adj, int* __restrict__ tcnt)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    for (i64 k = gp[i]; k < gp[i + 1]; k++) atomicAdd(&tcnt[adj[k]], 1);
}

// graph_tfill appends i to row j of Sᵀ for each edge i→j (next counts each row's
// entries so far); graph_sortrows then sorts every row.
extern "C" __global__ void __launch_bounds__(THREADS) graph_tfill(int n, const i64* __restrict__ gp,
                                                                  const int* __restrict__ adj, const i64* __restrict__ tp,
                                                                  int* __restrict__ next, int* __restrict__ tadj)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    for (i64 k = gp[i]; k < gp[i + 1]; k++) {
        const int j = adj[k];
        tadj[tp[j] + atomicAdd(&next[j], 1)] = i;
    }
}

// sort_segments sorts each segment [ptr[r], ptr[r+1]) of v ascending (insertion sort:
// the rows of a graph and the member lists of aggregates are short).
extern "C" __global__ void __launch_bounds__(THREADS) sort_segments(int rows, const i64* __restrict__ ptr,
                                                                    int* __restrict__ v)
{
    const int r = blockIdx.x * THREADS + threadIdx.x;
    if (r >= rows) return;
    const i64 lo = ptr[r], hi = ptr[r + 1];
    for (i64 a = lo + 1; a < hi; a++) {
        const int x = v[a];
        i64 b = a - 1;
        while (b >= lo && v[b] > x) {
            v[b + 1] = v[b];
            b--;
        }
        v[b + 1] = x;
    }
}

// graph_union counts (fill = 0) or writes (fill = 1) the sorted union of row i of S
// and of Sᵀ: amg's symmetrize.
extern "C" __global__ void __launch_bounds__(THREADS) graph_union(int n, const i64* __restrict__ gp, const int* __restrict__ adj,
                                                                  const i64* __restrict__ tp, const int* __restrict__ tadj,
                                                                  int fill, int* __restrict__ cnt, const i64* __restrict__ up,
                                                                  int* __restrict__ uadj)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    i64 a = gp[i], ae = gp[i + 1], t = tp[i], te = tp[i + 1];
    i64 o = fill ? up[i] : 0;
    int c = 0;
    while (a < ae || t < te) {
        int v;
        if (t == te || (a < ae && adj[a] < tadj[t])) v = adj[a++];
        else if (a == ae || tadj[t] < adj[a]) v = tadj[t++];
        else {
            v = adj[a++];
            t++;
        }
        if (fill) uadj[o++] = v;
        c++;
    }
    if (!fill) cnt[i] = c;
}

// mis_key is amg.MISKey.
__device__ __forceinline__ unsigned long long mis_key(unsigned long long state, int i)
{
    return state << 62 | (unsigned long long)(~(unsigned)i);
}

// mis_init: nodes with neighbours start undecided, the others out.
extern "C" __global__ void __launch_bounds__(THREADS) mis_init(int n, const i64* __restrict__ gp, int* __restrict__ state,
                                                               unsigned long long* __restrict__ key)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    const unsigned long long s = gp[i + 1] > gp[i] ? MIS_UNDECIDED : MIS_OUT;
    state[i] = (int)s;
    key[i] = mis_key(s, i);
}

// mis_sweep: dst[i] = the largest key over i and its neighbours. A node whose
// neighbourhood is all decided has its final maximum (decided keys never change): it
// is marked done and skipped from then on, so the sweeps' work follows the undecided
// front instead of the whole graph.
extern "C" __global__ void __launch_bounds__(THREADS) mis_sweep(int n, const i64* __restrict__ gp, const int* __restrict__ adj,
                                                                const unsigned long long* __restrict__ src,
                                                                unsigned long long* __restrict__ dst, int* __restrict__ done)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n || done[i]) return;
    unsigned long long m = src[i];
    bool und = (m >> 62) == MIS_UNDECIDED;
    for (i64 k = gp[i]; k < gp[i + 1]; k++) {
        const unsigned long long x = src[adj[k]];
        m = max(m, x);
        und |= (x >> 62) == MIS_UNDECIDED;
    }
    dst[i] = m;
    if (!und) done[i] = 1;
}

// mis_choose is the decision of an undecided node i from t, the largest key within
// the distance: join the set when it is i's own, leave it when it is a member's.
__device__ __forceinline__ void mis_choose(int i, unsigned long long t, int* __restrict__ state,
                                           unsigned long long* __restrict__ key, int* __restrict__ left)
{
    unsigned long long s;
    if (t == key[i]) s = MIS_IN;
    else if (t >> 62 == MIS_IN) s = MIS_OUT;
    else {
        atomicAdd(left, 1);
        return;
    }
    state[i] = (int)s;
    key[i] = mis_key(s, i);
}

// mis_decide: the distance-1 decision, t = mis_sweep's maximum.
extern "C" __global__ void __launch_bounds__(THREADS) mis_decide(int n, int* __restrict__ state,
                                                                 unsigned long long* __restrict__ key,
                                                                 const unsigned long long* __restrict__ t, int* __restrict__ left)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n || state[i] != (int)MIS_UNDECIDED) return;
    mis_choose(i, t[i], state, key, left);
}

// mis_decide2: the distance-2 decision, the second sweep fused in: only undecided
// nodes need their maximum over the neighbours' distance-1 maxima t1 (which this
// kernel does not write, while the keys it writes are read by the next round).
extern "C" __global__ void __launch_bounds__(THREADS) mis_decide2(int n, const i64* __restrict__ gp, const int* __restrict__ adj,
                                                                  int* __restrict__ state, unsigned long long* __restrict__ key,
                                                                  const unsigned long long* __restrict__ t1, int* __restrict__ left)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n || state[i] != (int)MIS_UNDECIDED) return;
    unsigned long long m = t1[i];
    for (i64 k = gp[i]; k < gp[i + 1]; k++) m = max(m, t1[adj[k]]);
    mis_choose(i, m, state, key, left);
}

// agg_isroot: flag[i] = 1 for the members of the set.
extern "C" __global__ void __launch_bounds__(THREADS) agg_isroot(int n, const int* __restrict__ state, int* __restrict__ flag)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i < n) flag[i] = state[i] == (int)MIS_IN;
}

// agg_roots numbers the roots in node order (off: the prefix sums of agg_isroot).
extern "C" __global__ void __launch_bounds__(THREADS) agg_roots(int n, const int* __restrict__ state, const i64* __restrict__ off,
                                                                int* __restrict__ of, int* __restrict__ roots)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    if (state[i] == (int)MIS_IN) {
        of[i] = (int)off[i];
        roots[off[i]] = i;
    } else {
        of[i] = -1;
    }
}

// agg_lowest: a node without an aggregate in src takes the lowest one among its
// neighbours' (or keeps −1).
extern "C" __global__ void __launch_bounds__(THREADS) agg_lowest(int n, const i64* __restrict__ gp, const int* __restrict__ adj,
                                                                 const int* __restrict__ src, int* __restrict__ dst)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    int a = src[i];
    if (a < 0) {
        for (i64 k = gp[i]; k < gp[i + 1]; k++) {
            const int c = src[adj[k]];
            if (c >= 0 && (a < 0 || c < a)) a = c;
        }
    }
    dst[i] = a;
}

// agg_count: size[a] = the nodes of aggregate a; flag[i] = 1 when node i has one.
extern "C" __global__ void __launch_bounds__(THREADS) agg_count(int n, const int* __restrict__ of, int* __restrict__ size,
                                                                int* __restrict__ flag)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    const int a = of[i];
    flag[i] = a >= 0;
    if (a >= 0) atomicAdd(&size[a], 1);
}

// agg_small sets *small when an aggregate has fewer than min nodes.
extern "C" __global__ void __launch_bounds__(THREADS) agg_small(int m, const int* __restrict__ size, int min_nodes,
                                                                int* __restrict__ small)
{
    const int a = blockIdx.x * THREADS + threadIdx.x;
    if (a < m && size[a] < min_nodes) atomicOr(small, 1);
}

// agg_place appends each node to its aggregate's member list (sort_segments orders it).
extern "C" __global__ void __launch_bounds__(THREADS) agg_place(int n, const int* __restrict__ of, const i64* __restrict__ ptr,
                                                                int* __restrict__ next, int* __restrict__ nodes)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    const int a = of[i];
    if (a >= 0) nodes[ptr[a] + atomicAdd(&next[a], 1)] = i;
}

// tent_pattern: P_tent's one block per aggregated node (prp: prefix sums of agg_count's
// flags), in column of[i].
extern "C" __global__ void __launch_bounds__(THREADS) tent_pattern(int n, const int* __restrict__ of, const i64* __restrict__ prp,
                                                                   int* __restrict__ pcol)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i < n && of[i] >= 0) pcol[prp[i]] = of[i];
}

// tent_weight is rowWeights' w_p for row p of an aggregate (hi the largest exponent).
__device__ __forceinline__ double tent_weight(int p, int rows, int b, const int* __restrict__ nodes, const int* __restrict__ uexp,
                                              int hi)
{
    if (p >= rows) return 1.0;
    const int e = uexp[(i64)nodes[p / b] * b + p % b];
    return e == UNSCALED ? 1.0 : go_ldexp(1.0, e - hi);
}

// tent_qr: amg.Tentative with a group of TENT_KMAX lanes per aggregate, lane c owning
// column c: gather the aggregate's rows of B into its scratch (row-major, k values a
// row, padded to k rows, so that the group's lanes read one segment per row), weight
// them where the unknowns' scales spread by more than 2^ROW_SPREAD_LOG2, Householder
// QR (amg's thinQR), R into Bc, W⁻¹·Q into P_tent's blocks. Each reflector is made
// by its column's lane and applied by each later column's lane to its own column,
// every sum in the CPU's order: the columns are independent between two reflectors,
// so the result is the serial QR's, bit for bit.
extern "C" __global__ void __launch_bounds__(THREADS) tent_qr(int m, int b, int k, const i64* __restrict__ ptr,
                                                              const int* __restrict__ nodes, const double* __restrict__ B,
                                                              const int* __restrict__ uexp, const i64* __restrict__ prp,
                                                              double* __restrict__ scratch, double* __restrict__ pval,
                                                              double* __restrict__ bc)
{
    __shared__ double tau_s[THREADS];
    __shared__ int skip_s[THREADS];
    const int g = threadIdx.x & ~(TENT_KMAX - 1); // the group's first lane
    const int c = threadIdx.x & (TENT_KMAX - 1);  // this lane's column
    const int a = (blockIdx.x * THREADS + threadIdx.x) / TENT_KMAX;
    const bool active = a < m;
    const bool mine = active && c < k;
    int len = 0, rows = 0, md = k;
    const int* nd = nodes;
    double* q = scratch;
    const int bk = b * k;
    if (active) {
        nd = nodes + ptr[a];
        len = (int)(ptr[a + 1] - ptr[a]);
        rows = len * b;
        md = max(rows, k);
        q = scratch + ptr[a] * bk + (i64)a * k * k;
    }
    // Element (p, j) of the aggregate's md×k matrix is q[p·k + j].
#define Q(p, j) q[(i64)(p) * k + (j)]
    if (mine) {
        for (int p = rows; p < md; p++) Q(p, c) = 0.0;
        for (int t = 0; t < len; t++) {
            const double* blk = B + (i64)nd[t] * bk;
            for (int p = 0; p < b; p++) Q(t * b + p, c) = blk[p * k + c];
        }
    }
    bool weighted = false;
    int hi = -2147483647;
    if (mine && uexp) {
        int lo = 2147483647;
        for (int p = 0; p < rows; p++) {
            const int e = uexp[(i64)nd[p / b] * b + p % b];
            if (e != UNSCALED) {
                lo = min(lo, e);
                hi = max(hi, e);
            }
        }
        weighted = !(hi < lo || hi - lo <= ROW_SPREAD_LOG2);
    }
    if (mine && weighted)
        for (int p = 0; p < md; p++) Q(p, c) = __dmul_rn(Q(p, c), tent_weight(p, rows, b, nd, uexp, hi));
    __syncwarp();
    for (int j = 0; j < k; j++) {
        if (mine && c == j) {
            const double alpha = Q(j, j);
            double xx = 0.0;
            for (int p = j + 1; p < md; p++) xx = __dadd_rn(xx, __dmul_rn(Q(p, j), Q(p, j)));
            const double nn = __dadd_rn(__dmul_rn(alpha, alpha), xx);
            int skip = 0;
            double tj;
            if (xx > 0 && nn >= SUMSQ_TINY && !isinf(nn)) {
                const double beta = -copysign(sqrt(nn), alpha);
                tj = __ddiv_rn(__dsub_rn(beta, alpha), beta);
                const double s = __ddiv_rn(1.0, __dsub_rn(alpha, beta));
                for (int p = j + 1; p < md; p++) Q(p, j) = __dmul_rn(Q(p, j), s);
                Q(j, j) = beta;
            } else {
                int e;
                if (sum_squares(&Q(j + 1, j), md - j - 1, k, &e) == 0.0) {
                    tj = 0.0;
                    skip = 1;
                } else {
                    const double ss = sum_squares(&Q(j, j), md - j, k, &e);
                    const double beta = -copysign(go_ldexp(sqrt(ss), e), alpha);
                    tj = __ddiv_rn(__dsub_rn(beta, alpha), beta);
                    const double d = __dsub_rn(alpha, beta);
                    for (int p = j + 1; p < md; p++) Q(p, j) = __ddiv_rn(Q(p, j), d);
                    Q(j, j) = beta;
                }
            }
            tau_s[g + j] = tj;
            skip_s[g + j] = skip;
        }
        __syncwarp();
        if (mine && c > j && !skip_s[g + j]) {
            const double tj = tau_s[g + j];
            double w = Q(j, c);
            for (int p = j + 1; p < md; p++) w = __dadd_rn(w, __dmul_rn(Q(p, j), Q(p, c)));
            w = __dmul_rn(w, tj);
            Q(j, c) = __dsub_rn(Q(j, c), w);
            for (int p = j + 1; p < md; p++) Q(p, c) = __dsub_rn(Q(p, c), __dmul_rn(w, Q(p, j)));
        }
        __syncwarp();
    }
    if (mine) {
        double* r = bc + (i64)a * k * k;
        for (int i = 0; i < k; i++) r[i * k + c] = c >= i ? Q(i, c) : 0.0;
    }
    __syncwarp();
    for (int j = k - 1; j >= 0; j--) {
        if (mine && c > j) {
            const double tj = tau_s[g + j];
            double w = 0.0;
            for (int p = j + 1; p < md; p++) w = __dadd_rn(w, __dmul_rn(Q(p, j), Q(p, c)));
            w = __dmul_rn(w, tj);
            Q(j, c) = -w;
            for (int p = j + 1; p < md; p++) Q(p, c) = __dsub_rn(Q(p, c), __dmul_rn(w, Q(p, j)));
        }
        __syncwarp();
        if (mine && c == j) {
            const double t = tau_s[g + j];
            for (int p = j + 1; p < md; p++) Q(p, j) = __dmul_rn(Q(p, j), -t);
            Q(j, j) = __dsub_rn(1.0, t);
            for (int p = 0; p < j; p++) Q(p, j) = 0.0;
        }
        __syncwarp();
    }
    if (mine && weighted)
        for (int p = 0; p < md; p++) Q(p, c) = __ddiv_rn(Q(p, c), tent_weight(p, rows, b, nd, uexp, hi));
    if (mine)
        for (int t = 0; t < len; t++) {
            double* blk = pval + prp[nd[t]] * bk;
            for (int p = 0; p < b; p++) blk[p * k + c] = Q(t * b + p, c);
        }
#undef Q
}

// smooth_pattern: the pattern of (I − ωD⁻¹A)·P_tent, row i: the sorted distinct
// aggregates of i and of A's columns in row i (amg's newSmoothPlan for a prolongator
// with at most one block per row). Row i is sorted into its scratch at rp[i] + i
// (room for A's row and the node itself); fill = 0 counts, fill = 1 copies to yp[i].
extern "C" __global__ void __launch_bounds__(THREADS) smooth_pattern(int n, const i64* __restrict__ rp, const int* __restrict__ col,
                                                                     const int* __restrict__ of, int fill, int* __restrict__ scratch,
                                                                     int* __restrict__ cnt, const i64* __restrict__ yp,
                                                                     int* __restrict__ ycol)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    int* s = scratch + rp[i] + i;
    int c = 0;
    if (!fill) {
        // Insert each aggregate into the sorted list unless present.
        const i64 k0 = rp[i] - 1, k1 = rp[i + 1];
        for (i64 k = k0; k < k1; k++) {
            const int a = of[k < rp[i] ? i : col[k]];
            if (a < 0) continue;
            int p = c;
            while (p > 0 && s[p - 1] > a) p--;
            if (p > 0 && s[p - 1] == a) continue;
            for (int q = c; q > p; q--) s[q] = s[q - 1];
            s[p] = a;
            c++;
        }
        cnt[i] = c;
        return;
    }
    const int len = (int)(yp[i + 1] - yp[i]);
    for (int p = 0; p < len; p++) ycol[yp[i] + p] = s[p];
}

// start_vector: krylov.StartVector with offset 0, v[i] = noise(i) (splitmix64 of
// i + 1, its top 53 bits scaled into [−1, 1)).
extern "C" __global__ void __launch_bounds__(THREADS) start_vector(i64 n, double* __restrict__ v)
{
    const i64 i = (i64)blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    unsigned long long z = ((unsigned long long)i + 1ULL) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    v[i] = __dsub_rn(__ddiv_rn((double)(z >> 11), 4503599627370496.0), 1.0);
}
