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

#include "common.cuh"
#include "bsr.cuh"

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
    y[i] = blockdiag_row(B, d, x, i);
}
