// Re-setup kernels: the numeric parts of a smoothed-aggregation set-up that run on the
// device when a matrix gets new values on its old pattern (backend/cuda/resetup.go).
// Every output is written by one thread in an order fixed by the pattern, so results
// are bitwise reproducible from run to run.

#define RS_MAX 6 // largest block dimension the re-setup kernels take

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

// rs_find returns the position of column c in the sorted columns col[lo..hi), or -1.
__device__ __forceinline__ i64 rs_find(const int* __restrict__ col, i64 lo, i64 hi, int c)
{
    while (lo < hi) {
        const i64 m = (lo + hi) >> 1;
        const int v = col[m];
        if (v == c) return m;
        if (v < c) lo = m + 1;
        else hi = m;
    }
    return -1;
}

// rs_row returns the block row of block s: the largest i with rowptr[i] <= s.
__device__ __forceinline__ int rs_row(const i64* __restrict__ rowptr, int n, i64 s)
{
    int lo = 0, hi = n; // rowptr[lo] <= s < rowptr[hi]
    while (hi - lo > 1) {
        const int m = (lo + hi) >> 1;
        if (rowptr[m] <= s) lo = m;
        else hi = m;
    }
    return lo;
}

// rs_acc adds A·X to acc (A b×b, X and acc b×k, row-major); B = 0 takes b and k at
// run time. The order of the additions is the smoothing kernels' common order.
template <int B, int K>
__device__ __forceinline__ void rs_acc(int b, int k, const double* __restrict__ A, const double* __restrict__ X,
                                       double* acc)
{
#pragma unroll
    for (int r = 0; r < (B > 0 ? B : RS_MAX); r++) {
        if (B == 0 && r >= b) break;
#pragma unroll
        for (int q = 0; q < (B > 0 ? B : RS_MAX); q++) {
            if (B == 0 && q >= b) break;
            const double av = A[r * b + q];
#pragma unroll
            for (int e = 0; e < (B > 0 ? K : RS_MAX); e++) {
                if (B == 0 && e >= k) break;
                acc[r * k + e] += av * X[q * k + e];
            }
        }
    }
}

// rs_store writes Y = X0 − ω·D·acc (X0 null: zero), D b×b.
template <int B, int K>
__device__ __forceinline__ void rs_store(int b, int k, const double* __restrict__ D, const double* __restrict__ X0,
                                         double omega, const double* acc, double* __restrict__ Y)
{
#pragma unroll
    for (int r = 0; r < (B > 0 ? B : RS_MAX); r++) {
        if (B == 0 && r >= b) break;
#pragma unroll
        for (int e = 0; e < (B > 0 ? K : RS_MAX); e++) {
            if (B == 0 && e >= k) break;
            double t = 0;
#pragma unroll
            for (int q = 0; q < (B > 0 ? B : RS_MAX); q++) {
                if (B == 0 && q >= b) break;
                t += D[r * b + q] * acc[q * k + e];
            }
            const double x0 = X0 != nullptr ? X0[r * k + e] : 0.0;
            Y[r * k + e] = x0 - omega * t;
        }
    }
}

// rs_smooth computes block s of Y = X − ω·D⁻¹·(A·X): B×B blocks of A and D⁻¹, B×K
// blocks of X and Y, on Y's pattern (which contains those of A·X and X). The thread
// finds its block row by bisection, walks row i of A in storage order and, for each
// A block (i, j), looks up column c of Y in row j of X (sorted columns, bisection), so
// the sum over j runs in A's storage order as on the CPU. B = 0 takes the sizes at run
// time.
template <int B, int K>
__device__ __forceinline__ void rs_smooth(int n, int b_, int k_, i64 nY, const i64* __restrict__ arp,
                                          const int* __restrict__ acol, const double* __restrict__ aval,
                                          const i64* __restrict__ xrp, const int* __restrict__ xcol,
                                          const double* __restrict__ xval, const double* __restrict__ dinv,
                                          double omega, const i64* __restrict__ yrp,
                                          const int* __restrict__ ycol, double* __restrict__ yval)
{
    const i64 s = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nY) return;
    const int b = B > 0 ? B : b_;
    const int k = B > 0 ? K : k_;
    const int bk = b * k, bb = b * b;
    const int i = rs_row(yrp, n, s);
    const int c = ycol[s];
    double acc[RS_MAX * RS_MAX];
#pragma unroll
    for (int e = 0; e < (B > 0 ? B * K : RS_MAX * RS_MAX); e++) acc[e] = 0;
    for (i64 a = arp[i]; a < arp[i + 1]; a++) {
        const int j = acol[a];
        const i64 t = rs_find(xcol, xrp[j], xrp[j + 1], c);
        if (t < 0) continue;
        const double* A = aval + a * bb;
        const double* X = xval + t * bk;
        rs_acc<B, K>(b, k, A, X, acc);
    }
    const i64 ts = rs_find(xcol, xrp[i], xrp[i + 1], c);
    rs_store<B, K>(b, k, dinv + (i64)i * bb, ts >= 0 ? xval + ts * bk : nullptr, omega, acc, yval + s * bk);
}

#define RS_SMOOTH(NAME, B, K)                                                                          \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(                                        \
        int n, int b, int k, i64 nY, const i64* __restrict__ arp, const int* __restrict__ acol,        \
        const double* __restrict__ aval, const i64* __restrict__ xrp, const int* __restrict__ xcol,    \
        const double* __restrict__ xval, const double* __restrict__ dinv, double omega,                \
        const i64* __restrict__ yrp, const int* __restrict__ ycol, double* __restrict__ yval)           \
    {                                                                                                  \
        rs_smooth<B, K>(n, b, k, nY, arp, acol, aval, xrp, xcol, xval, dinv, omega, yrp, ycol, yval); \
    }
RS_SMOOTH(resetup_smooth_3x6, 3, 6)
RS_SMOOTH(resetup_smooth_6x6, 6, 6)
RS_SMOOTH(resetup_smooth_generic, 0, 0)

// ---- Smoothing with a precomputed product list (the default; backend/cuda/smooth.go).
// rs_smooth above has every thread walk all of row i of A and test each block against
// its own column: the threads of a warp (different Y blocks) match different A
// blocks, so the warp runs the product for nearly every A block of the row. The plan
// lists, per Y block, the (A block, X block) pairs that match, in A's storage order,
// so a thread runs only its own products, in the same order (the same bits).

// rs_plan_count: per Y block s: its row, the position of its column in X's row (−1
// when absent) and the number of matching A blocks.
extern "C" __global__ void __launch_bounds__(THREADS) rs_plan_count(int n, i64 nY, const i64* __restrict__ arp,
                                                                    const int* __restrict__ acol,
                                                                    const i64* __restrict__ xrp,
                                                                    const int* __restrict__ xcol,
                                                                    const i64* __restrict__ yrp,
                                                                    const int* __restrict__ ycol, int* __restrict__ row,
                                                                    i64* __restrict__ xpos, int* __restrict__ cnt)
{
    const i64 s = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nY) return;
    const int i = rs_row(yrp, n, s);
    const int c = ycol[s];
    int k = 0;
    for (i64 a = arp[i]; a < arp[i + 1]; a++) {
        const int j = acol[a];
        if (rs_find(xcol, xrp[j], xrp[j + 1], c) >= 0) k++;
    }
    row[s] = i;
    xpos[s] = rs_find(xcol, xrp[i], xrp[i + 1], c);
    cnt[s] = k;
}

// rs_plan_fill writes the pairs of Y block s from ptr[s] (the exclusive sums of the
// counts).
extern "C" __global__ void __launch_bounds__(THREADS) rs_plan_fill(i64 nY, const i64* __restrict__ arp,
                                                                   const int* __restrict__ acol,
                                                                   const i64* __restrict__ xrp,
                                                                   const int* __restrict__ xcol,
                                                                   const int* __restrict__ ycol,
                                                                   const int* __restrict__ row,
                                                                   const i64* __restrict__ ptr, int2* __restrict__ pairs)
{
    const i64 s = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nY) return;
    const int i = row[s];
    const int c = ycol[s];
    i64 o = ptr[s];
    for (i64 a = arp[i]; a < arp[i + 1]; a++) {
        const int j = acol[a];
        const i64 t = rs_find(xcol, xrp[j], xrp[j + 1], c);
        if (t >= 0) pairs[o++] = make_int2((int)a, (int)t);
    }
}

// rs_smooth_plan: block s of Y = X − ω·D⁻¹·(A·X) from its product list; B = 0 takes
// the sizes at run time.
template <int B, int K>
__device__ __forceinline__ void rs_smooth_plan(int b_, int k_, i64 nY, const i64* __restrict__ ptr,
                                               const int2* __restrict__ pairs, const int* __restrict__ row,
                                               const i64* __restrict__ xpos, const double* __restrict__ aval,
                                               const double* __restrict__ xval, const double* __restrict__ dinv,
                                               double omega, double* __restrict__ yval)
{
    const i64 s = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nY) return;
    const int b = B > 0 ? B : b_;
    const int k = B > 0 ? K : k_;
    const int bk = b * k, bb = b * b;
    double acc[RS_MAX * RS_MAX];
#pragma unroll
    for (int e = 0; e < (B > 0 ? B * K : RS_MAX * RS_MAX); e++) acc[e] = 0;
    const i64 p1 = ptr[s + 1];
    for (i64 p = ptr[s]; p < p1; p++) {
        const int2 e2 = pairs[p];
        const double* A = aval + (i64)e2.x * bb;
        const double* X = xval + (i64)e2.y * bk;
        rs_acc<B, K>(b, k, A, X, acc);
    }
    const i64 ts = xpos[s];
    rs_store<B, K>(b, k, dinv + (i64)row[s] * bb, ts >= 0 ? xval + ts * bk : nullptr, omega, acc, yval + s * bk);
}

#define RS_SMOOTH_PLAN(NAME, B, K)                                                                       \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(                                          \
        int b, int k, i64 nY, const i64* __restrict__ ptr, const int2* __restrict__ pairs,               \
        const int* __restrict__ row, const i64* __restrict__ xpos, const double* __restrict__ aval,      \
        const double* __restrict__ xval, const double* __restrict__ dinv, double omega,                  \
        double* __restrict__ yval)                                                                       \
    {                                                                                                    \
        rs_smooth_plan<B, K>(b, k, nY, ptr, pairs, row, xpos, aval, xval, dinv, omega, yval);            \
    }
RS_SMOOTH_PLAN(resetup_smooth_plan_generic, 0, 0)

// rs_smooth_rows is rs_smooth_plan for fixed shapes with L ≥ B lanes per Y block: lane
// r < B owns row r of the block (K accumulators instead of B·K, so more threads stay
// resident), reading row r of each A block and the whole X block (the same addresses
// as its group's other lanes). D⁻¹ mixes the rows through shuffles within the group.
// Each value is the same sum in the same order as rs_smooth's, so the bits are equal.
template <int B, int K, int L>
__device__ __forceinline__ void rs_smooth_rows(i64 nY, const i64* __restrict__ ptr, const int2* __restrict__ pairs,
                                               const int* __restrict__ row, const i64* __restrict__ xpos,
                                               const double* __restrict__ aval, const double* __restrict__ xval,
                                               const double* __restrict__ dinv, double omega,
                                               double* __restrict__ yval)
{
    static_assert(B <= L && 32 % L == 0, "lanes per Y block");
    const i64 s = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / L;
    const int r = threadIdx.x & (L - 1);
    const bool active = s < nY; // the same for the whole group; every lane still shuffles
    const bool own = active && r < B;
    double acc[K];
#pragma unroll
    for (int e = 0; e < K; e++) acc[e] = 0;
    if (own) {
        const i64 p1 = ptr[s + 1];
        for (i64 p = ptr[s]; p < p1; p++) {
            const int2 e2 = pairs[p];
            const double* A = aval + (i64)e2.x * B * B + r * B;
            const double* X = xval + (i64)e2.y * B * K;
#pragma unroll
            for (int q = 0; q < B; q++) {
                const double av = A[q];
#pragma unroll
                for (int e = 0; e < K; e++) acc[e] += av * X[q * K + e];
            }
        }
    }
    const double* D = dinv + (own ? (i64)row[s] * B * B + r * B : 0);
    double t[K];
#pragma unroll
    for (int e = 0; e < K; e++) t[e] = 0;
#pragma unroll
    for (int q = 0; q < B; q++) {
        const double dq = own ? D[q] : 0.0;
#pragma unroll
        for (int e = 0; e < K; e++) t[e] += dq * __shfl_sync(0xffffffffu, acc[e], q, L);
    }
    if (!own) return;
    const i64 ts = xpos[s];
    double* Y = yval + s * B * K + r * K;
#pragma unroll
    for (int e = 0; e < K; e++) {
        const double x0 = ts >= 0 ? xval[ts * B * K + r * K + e] : 0.0;
        Y[e] = x0 - omega * t[e];
    }
}

#define RS_SMOOTH_ROWS(NAME, B, K, L)                                                                    \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(                                          \
        int b, int k, i64 nY, const i64* __restrict__ ptr, const int2* __restrict__ pairs,               \
        const int* __restrict__ row, const i64* __restrict__ xpos, const double* __restrict__ aval,      \
        const double* __restrict__ xval, const double* __restrict__ dinv, double omega,                  \
        double* __restrict__ yval)                                                                       \
    {                                                                                                    \
        rs_smooth_rows<B, K, L>(nY, ptr, pairs, row, xpos, aval, xval, dinv, omega, yval);               \
    }
RS_SMOOTH_ROWS(resetup_smooth_plan_3x6, 3, 6, 4)
RS_SMOOTH_ROWS(resetup_smooth_plan_6x6, 6, 6, 8)

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
