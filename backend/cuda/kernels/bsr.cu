// Block sparse row products y = alpha*A*x + beta*y (beta == 0: y is not read).
//
// The layout is bsr.Matrix's: block row i owns blocks rowptr[i]..rowptr[i+1]-1, block k
// sits in block column col[k] and its R*C values are val[k*R*C ...], row-major. A block
// row's values are therefore one contiguous run of n = nblocks*R*C doubles.
//
// Two kernel families share the launch shape (L lanes per block row, 256 threads per
// thread block) and the argument list; they are named bsr_spmv_RxC_TAG.
//
// spmv_rowlane (TAG rW_uU, the default): W lanes (16 or 32) own one block row; lane l
// handles row l % R of the blocks l / R, l / R + P, ... (P = W / R blocks per step,
// lanes past P*R idle). So each lane keeps a single running sum, does C multiply-adds
// per block on contiguous values and contiguous x entries, and loads each column index
// once per block row-row; lane l's values sit at offset l*C of the step's run, so the
// warp still reads one contiguous stretch. U steps are loaded before any x entry they
// need is, with out-of-range blocks predicated off, so a short row costs one round trip
// to memory. The R totals are gathered by shuffles in lane order.
//
// spmv_group (TAG gG_uU, kept as the baseline of the bandwidth report): G lanes own a
// block row and take its values round-robin (lane l: values l, l+G, ...), so the loads
// of val are fully coalesced, but every value needs its own column index, x entry and
// a choice among R sums, and the R sums need a butterfly each. On an H200 it reached
// 80% of copy bandwidth for 3×3 at best where rowlane reaches 98%: it is limited by L2
// throughput and instruction count, not by DRAM.
//
// In every kernel the element-to-lane map and the order of every sum are fixed by the
// pattern alone, so results are bitwise reproducible from run to run.

// store_row writes y[g*R + lane] = alpha*s + beta*y[...] from lanes 0..R-1, each holding
// the total of its row.
template <int R>
__device__ __forceinline__ void store_row(bool active, i64 g, int lane, double s, double* __restrict__ y,
                                          double alpha, double beta)
{
    if (active && lane < R) {
        const i64 o = g * R + lane;
        double out = alpha * s;
        if (beta != 0.0) out += beta * y[o];
        y[o] = out;
    }
}

// rowlane_total runs the rowlane product of block row g (this lane's, from the thread
// index) and returns, in every lane, the total of row lane % R of (A·x)_g; every lane of
// the warp takes part in the shuffles, active or not.
template <int R, int C, int W, int U>
__device__ __forceinline__ double rowlane_total(int nbrows, const i64* __restrict__ rowptr,
                                                const int* __restrict__ col, const double* __restrict__ val,
                                                const double* __restrict__ x, i64& g_out, int& lane_out,
                                                bool& active_out)
{
    constexpr int BS = R * C;
    constexpr int P = W / R; // blocks per step
    const i64 g = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / W;
    const int lane = threadIdx.x & (W - 1);
    const int r = lane % R;
    const int q = lane / R;
    const bool active = g < nbrows;
    int nb = 0;
    i64 kb = 0;
    if (active && q < P) {
        kb = rowptr[g];
        nb = (int)(rowptr[g + 1] - kb);
    }
    const double* __restrict__ vp = val + kb * BS + r * C;
    const int* __restrict__ cp = col + kb;
    double s = 0.0;
    for (int k0 = q; k0 < nb; k0 += P * U) {
        double v[U][C];
        int c[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int k = k0 + u * P;
            c[u] = 0;
#pragma unroll
            for (int j = 0; j < C; j++) v[u][j] = 0.0;
            if (k < nb) {
                c[u] = __ldg(cp + k);
#pragma unroll
                for (int j = 0; j < C; j++) v[u][j] = __ldg(vp + (i64)k * BS + j);
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int k = k0 + u * P;
            if (k < nb) {
                const double* __restrict__ xx = x + (i64)c[u] * C;
#pragma unroll
                for (int j = 0; j < C; j++) s += v[u][j] * __ldg(xx + j);
            }
        }
    }
    // Total of row r: lanes r, r+R, ..., r+(P-1)R, added in that order by every lane.
    double t = 0.0;
#pragma unroll
    for (int qq = 0; qq < P; qq++) t += __shfl_sync(0xffffffffu, s, qq * R + r, W);
    g_out = g;
    lane_out = lane;
    active_out = active;
    return t;
}

template <int R, int C, int W, int U>
__device__ __forceinline__ void spmv_rowlane(int nbrows, const i64* __restrict__ rowptr,
                                             const int* __restrict__ col, const double* __restrict__ val,
                                             const double* __restrict__ x, double* __restrict__ y,
                                             double alpha, double beta)
{
    i64 g;
    int lane;
    bool active;
    const double t = rowlane_total<R, C, W, U>(nbrows, rowptr, col, val, x, g, lane, active);
    store_row<R>(active, g, lane, t, y, alpha, beta);
}

// cheb_store is the Chebyshev step's epilogue for entry o, u = (D⁻¹(b − A·x))_o:
// d = c1·d + c2·u (d not read when c1 is 0) and xout = x + d.
__device__ __forceinline__ void cheb_store(i64 o, double u, const double* __restrict__ x, double* __restrict__ d,
                                           double* __restrict__ xout, double c1, double c2)
{
    double out = c2 * u;
    if (c1 != 0.0) out += c1 * d[o];
    d[o] = out;
    xout[o] = __ldg(x + o) + out;
}

// cheb_rowlane is one Chebyshev step of the smoother fused into the product:
// d = c1·d + c2·D⁻¹(b − A·x) and xout = x + d for square R×R blocks, D⁻¹ stored as
// consecutive R×R blocks. Lanes 0..R-1 of a row's group hold the residual's R entries
// after the product; each gathers the others by shuffles and writes its entry of d and
// of xout (a vector apart from x: other rows' products still read x). d is not read
// when c1 == 0.
template <int R, int W, int U>
__device__ __forceinline__ void cheb_rowlane(int nbrows, const i64* __restrict__ rowptr,
                                             const int* __restrict__ col, const double* __restrict__ val,
                                             const double* __restrict__ x, const double* __restrict__ b,
                                             const double* __restrict__ dinv, double* __restrict__ d,
                                             double* __restrict__ xout, double c1, double c2)
{
    i64 g;
    int lane;
    bool active;
    const double t = rowlane_total<R, R, W, U>(nbrows, rowptr, col, val, x, g, lane, active);
    const int r = lane % R;
    const double res = (active && lane < R) ? __ldg(b + g * R + r) - t : 0.0;
    double u = 0.0;
#pragma unroll
    for (int j = 0; j < R; j++) {
        const double rj = __shfl_sync(0xffffffffu, res, j, W);
        if (active && lane < R) u += __ldg(dinv + (g * R + r) * R + j) * rj;
    }
    if (active && lane < R) cheb_store(g * R + r, u, x, d, xout, c1, c2);
}

template <int R, int C, int G, int U>
__device__ __forceinline__ void spmv_group(int nbrows, const i64* __restrict__ rowptr,
                                           const int* __restrict__ col, const double* __restrict__ val,
                                           const double* __restrict__ x, double* __restrict__ y,
                                           double alpha, double beta)
{
    constexpr int BS = R * C;
    const i64 g = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / G;
    const int lane = threadIdx.x & (G - 1);
    const bool active = g < nbrows;
    int n = 0;
    i64 kb = 0;
    if (active) {
        kb = rowptr[g];
        n = (int)(rowptr[g + 1] - kb) * BS;
    }
    const double* __restrict__ vp = val + kb * BS;
    const int* __restrict__ cp = col + kb;
    double s[R];
#pragma unroll
    for (int r = 0; r < R; r++) s[r] = 0.0;
    for (int base = lane; base < n; base += G * U) {
        double v[U];
        int c[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int t = base + u * G;
            v[u] = 0.0;
            c[u] = 0;
            if (t < n) {
                v[u] = __ldg(vp + t);
                c[u] = __ldg(cp + t / BS);
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int t = base + u * G;
            const int rem = t % BS;
            const int rr = rem / C;
            const int cc = rem - rr * C;
            const double xv = (t < n) ? __ldg(x + (i64)c[u] * C + cc) : 0.0;
            const double p = v[u] * xv;
#pragma unroll
            for (int r = 0; r < R; r++) s[r] += (rr == r) ? p : 0.0;
        }
    }
    // Every lane of the warp takes part in the shuffles, active or not.
#pragma unroll
    for (int r = 0; r < R; r++) {
#pragma unroll
        for (int off = G / 2; off > 0; off >>= 1) s[r] += __shfl_xor_sync(0xffffffffu, s[r], off, G);
    }
    double mine = 0.0;
#pragma unroll
    for (int r = 0; r < R; r++)
        if (lane == r) mine = s[r];
    store_row<R>(active, g, lane, mine, y, alpha, beta);
}

// cta_total is the rowlane product with a whole thread block (THREADS lanes) on one
// block row, for operators of few and long rows (a coarse level: a few hundred rows of
// dozens of 6×6 blocks), where one warp per row leaves most of the device idle and
// walks its row in many dependent steps. Lane l handles row l % R of the blocks l / R,
// l / R + P, ... (P = THREADS / R); the partial sums meet in shared memory and lanes
// 0..R-1 add them in lane order, so the bits are fixed by the pattern. Returns the
// total of row lane in lanes 0..R-1 (0 elsewhere); every thread must call it.
template <int R, int C>
__device__ __forceinline__ double cta_total(int nbrows, const i64* __restrict__ rowptr, const int* __restrict__ col,
                                            const double* __restrict__ val, const double* __restrict__ x, i64& g_out)
{
    constexpr int BS = R * C;
    constexpr int P = THREADS / R;
    __shared__ double part[THREADS];
    const i64 g = blockIdx.x;
    const int lane = threadIdx.x;
    const int r = lane % R, q = lane / R;
    double s = 0.0;
    if (q < P && g < nbrows) {
        const i64 kb = rowptr[g];
        const int nb = (int)(rowptr[g + 1] - kb);
        const double* __restrict__ vp = val + kb * BS + r * C;
        for (int k = q; k < nb; k += P) {
            const double* __restrict__ xx = x + (i64)__ldg(col + kb + k) * C;
#pragma unroll
            for (int j = 0; j < C; j++) s += __ldg(vp + (i64)k * BS + j) * __ldg(xx + j);
        }
    }
    part[lane] = s;
    __syncthreads();
    double t = 0.0;
    if (lane < R)
        for (int qq = 0; qq < P; qq++) t += part[qq * R + lane];
    g_out = g;
    return t;
}

template <int R, int C>
__device__ __forceinline__ void spmv_cta(int nbrows, const i64* __restrict__ rowptr, const int* __restrict__ col,
                                         const double* __restrict__ val, const double* __restrict__ x,
                                         double* __restrict__ y, double alpha, double beta)
{
    i64 g;
    const double t = cta_total<R, C>(nbrows, rowptr, col, val, x, g);
    store_row<R>(g < nbrows, g, threadIdx.x, t, y, alpha, beta);
}

#define SPMV_CTA(R, C)                                                                                \
    extern "C" __global__ void __launch_bounds__(THREADS) bsr_spmv_##R##x##C##_cta(                   \
        int nbrows, const i64* __restrict__ rowptr, const int* __restrict__ col,                      \
        const double* __restrict__ val, const double* __restrict__ x, double* __restrict__ y,         \
        double alpha, double beta)                                                                    \
    {                                                                                                 \
        spmv_cta<R, C>(nbrows, rowptr, col, val, x, y, alpha, beta);                                  \
    }

// LB is the kernel's launch-bounds attribute. The plain __launch_bounds__(THREADS) lets
// ptxas pick its register budget (it settles on 32 registers: full occupancy); LB4 (TAG
// suffix _b4) asks for 4 resident blocks per multiprocessor, i.e. up to 64 registers
// per thread for more loads in flight at half the occupancy, which pays on very long
// block rows (Pᵀ).
#define LB0 __launch_bounds__(THREADS)
#define LB4 __launch_bounds__(THREADS, 4)

#define SPMV_G(R, C, G, U, LB, SUFFIX)                                                                \
    extern "C" __global__ void LB bsr_spmv_##R##x##C##_g##G##_u##U##SUFFIX(                           \
        int nbrows, const i64* __restrict__ rowptr, const int* __restrict__ col,                      \
        const double* __restrict__ val, const double* __restrict__ x, double* __restrict__ y,         \
        double alpha, double beta)                                                                    \
    {                                                                                                 \
        spmv_group<R, C, G, U>(nbrows, rowptr, col, val, x, y, alpha, beta);                          \
    }

#define SPMV_R(R, C, W, U, LB, SUFFIX)                                                                \
    extern "C" __global__ void LB bsr_spmv_##R##x##C##_r##W##_u##U##SUFFIX(                           \
        int nbrows, const i64* __restrict__ rowptr, const int* __restrict__ col,                      \
        const double* __restrict__ val, const double* __restrict__ x, double* __restrict__ y,         \
        double alpha, double beta)                                                                    \
    {                                                                                                 \
        spmv_rowlane<R, C, W, U>(nbrows, rowptr, col, val, x, y, alpha, beta);                        \
    }

// The instantiations; backend/cuda/launch.go lists the same ones (shapeVariants).
#define SPMV_SHAPE(R, C)                                                                              \
    SPMV_G(R, C, 16, 8, LB0, )                                                                        \
    SPMV_R(R, C, 16, 1, LB0, )                                                                        \
    SPMV_R(R, C, 16, 2, LB0, )                                                                        \
    SPMV_R(R, C, 32, 1, LB0, )                                                                        \
    SPMV_R(R, C, 32, 2, LB0, )                                                                        \
    SPMV_R(R, C, 32, 4, LB0, )                                                                        \
    SPMV_R(R, C, 16, 2, LB4, _b4)                                                                     \
    SPMV_R(R, C, 32, 2, LB4, _b4)                                                                     \
    SPMV_R(R, C, 32, 4, LB4, _b4)

SPMV_SHAPE(3, 3)
SPMV_SHAPE(3, 6)
SPMV_SHAPE(6, 3)
SPMV_SHAPE(6, 6)
SPMV_CTA(3, 3)
SPMV_CTA(3, 6)
SPMV_CTA(6, 3)
SPMV_CTA(6, 6)

// res_rowlane: r = b − A·x on the rowlane product (the cycle's residual in one pass).
template <int R, int W, int U>
__device__ __forceinline__ void res_rowlane(int nbrows, const i64* __restrict__ rowptr,
                                            const int* __restrict__ col, const double* __restrict__ val,
                                            const double* __restrict__ x, const double* __restrict__ b,
                                            double* __restrict__ r)
{
    i64 g;
    int lane;
    bool active;
    const double t = rowlane_total<R, R, W, U>(nbrows, rowptr, col, val, x, g, lane, active);
    if (active && lane < R) r[g * R + lane] = __ldg(b + g * R + lane) - t;
}

// blockdiag_apply2: y = z = s·D·x, one thread per scalar row.
extern "C" __global__ void __launch_bounds__(THREADS) blockdiag_apply2(
    int nb, int B, double s, const double* __restrict__ d, const double* __restrict__ x,
    double* __restrict__ y, double* __restrict__ z)
{
    const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (i64)nb * B) return;
    const i64 br = i / B;
    const int r = (int)(i - br * B);
    const double* row = d + br * B * B + (i64)r * B;
    const double* xx = x + br * B;
    double t = 0.0;
    for (int c = 0; c < B; c++) t += row[c] * xx[c];
    t *= s;
    y[i] = t;
    z[i] = t;
}

// Fused Chebyshev steps (cheb_rowlane) for the square shapes, one per rowlane variant of
// the SpMV, named cheb_step_RxR_rW_uUSUFFIX after it (backend/cuda/cheb.go).
#define CHEB_R(R, W, U, LB, SUFFIX)                                                                   \
    extern "C" __global__ void LB cheb_step_##R##x##R##_r##W##_u##U##SUFFIX(                          \
        int nbrows, const i64* __restrict__ rowptr, const int* __restrict__ col,                      \
        const double* __restrict__ val, const double* __restrict__ x, const double* __restrict__ b,   \
        const double* __restrict__ dinv, double* __restrict__ d, double* __restrict__ xout, double c1,  \
        double c2)                                                                                    \
    {                                                                                                 \
        cheb_rowlane<R, W, U>(nbrows, rowptr, col, val, x, b, dinv, d, xout, c1, c2);                 \
    }                                                                                                 \
    extern "C" __global__ void LB res_step_##R##x##R##_r##W##_u##U##SUFFIX(                           \
        int nbrows, const i64* __restrict__ rowptr, const int* __restrict__ col,                      \
        const double* __restrict__ val, const double* __restrict__ x, const double* __restrict__ b,   \
        double* __restrict__ r)                                                                       \
    {                                                                                                 \
        res_rowlane<R, W, U>(nbrows, rowptr, col, val, x, b, r);                                      \
    }
// The fused Chebyshev step and residual on cta_total (one thread block per row).
template <int R>
__device__ __forceinline__ void cheb_cta(int nbrows, const i64* __restrict__ rowptr, const int* __restrict__ col,
                                         const double* __restrict__ val, const double* __restrict__ x,
                                         const double* __restrict__ b, const double* __restrict__ dinv,
                                         double* __restrict__ d, double* __restrict__ xout, double c1, double c2)
{
    __shared__ double res[R];
    i64 g;
    const double t = cta_total<R, R>(nbrows, rowptr, col, val, x, g);
    const int lane = threadIdx.x;
    const bool active = g < nbrows && lane < R;
    if (active) res[lane] = __ldg(b + g * R + lane) - t;
    __syncthreads();
    if (!active) return;
    double u = 0.0;
#pragma unroll
    for (int j = 0; j < R; j++) u += __ldg(dinv + (g * R + lane) * R + j) * res[j];
    cheb_store(g * R + lane, u, x, d, xout, c1, c2);
}

template <int R>
__device__ __forceinline__ void res_cta(int nbrows, const i64* __restrict__ rowptr, const int* __restrict__ col,
                                        const double* __restrict__ val, const double* __restrict__ x,
                                        const double* __restrict__ b, double* __restrict__ r)
{
    i64 g;
    const double t = cta_total<R, R>(nbrows, rowptr, col, val, x, g);
    if (g < nbrows && threadIdx.x < R) r[g * R + threadIdx.x] = __ldg(b + g * R + threadIdx.x) - t;
}

#define CHEB_CTA(R)                                                                                   \
    extern "C" __global__ void __launch_bounds__(THREADS) cheb_step_##R##x##R##_cta(                  \
        int nbrows, const i64* __restrict__ rowptr, const int* __restrict__ col,                      \
        const double* __restrict__ val, const double* __restrict__ x, const double* __restrict__ b,   \
        const double* __restrict__ dinv, double* __restrict__ d, double* __restrict__ xout, double c1,  \
        double c2)                                                                                    \
    {                                                                                                 \
        cheb_cta<R>(nbrows, rowptr, col, val, x, b, dinv, d, xout, c1, c2);                           \
    }                                                                                                 \
    extern "C" __global__ void __launch_bounds__(THREADS) res_step_##R##x##R##_cta(                   \
        int nbrows, const i64* __restrict__ rowptr, const int* __restrict__ col,                      \
        const double* __restrict__ val, const double* __restrict__ x, const double* __restrict__ b,   \
        double* __restrict__ r)                                                                       \
    {                                                                                                 \
        res_cta<R>(nbrows, rowptr, col, val, x, b, r);                                                \
    }
CHEB_CTA(3)
CHEB_CTA(6)

#define CHEB_SHAPE(R)                                                                                 \
    CHEB_R(R, 16, 1, LB0, )                                                                           \
    CHEB_R(R, 16, 2, LB0, )                                                                           \
    CHEB_R(R, 32, 1, LB0, )                                                                           \
    CHEB_R(R, 32, 2, LB0, )                                                                           \
    CHEB_R(R, 32, 4, LB0, )                                                                           \
    CHEB_R(R, 16, 2, LB4, _b4)                                                                        \
    CHEB_R(R, 32, 2, LB4, _b4)                                                                        \
    CHEB_R(R, 32, 4, LB4, _b4)
CHEB_SHAPE(3)
CHEB_SHAPE(6)

// bsr_spmv_generic: any R×C, one thread per scalar row, blocks in column order.
extern "C" __global__ void __launch_bounds__(THREADS) bsr_spmv_generic(
    int nbrows, int R, int C, const i64* __restrict__ rowptr, const int* __restrict__ col,
    const double* __restrict__ val, const double* __restrict__ x, double* __restrict__ y,
    double alpha, double beta)
{
    const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (i64)nbrows * R) return;
    const i64 br = i / R;
    const int r = (int)(i - br * R);
    const i64 bs = (i64)R * C;
    double s = 0.0;
    const i64 ke = rowptr[br + 1];
    for (i64 k = rowptr[br]; k < ke; k++) {
        const double* b = val + k * bs + (i64)r * C;
        const double* xx = x + (i64)col[k] * C;
        for (int c = 0; c < C; c++) s += b[c] * xx[c];
    }
    double out = alpha * s;
    if (beta != 0.0) out += beta * y[i];
    y[i] = out;
}

// blockdiag_apply: y = D*x for nb row-major B×B blocks stored consecutively in d; one
// thread per scalar row. x and y must not alias.
extern "C" __global__ void __launch_bounds__(THREADS) blockdiag_apply(
    int nb, int B, const double* __restrict__ d, const double* __restrict__ x, double* __restrict__ y)
{
    const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (i64)nb * B) return;
    const i64 br = i / B;
    const int r = (int)(i - br * B);
    const double* row = d + br * B * B + (i64)r * B;
    const double* xx = x + br * B;
    double s = 0.0;
    for (int c = 0; c < B; c++) s += row[c] * xx[c];
    y[i] = s;
}
