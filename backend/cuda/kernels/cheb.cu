// The smoother's fused kernels (backend/cuda/cheb.go): one Chebyshev step and the
// residual r = b − A·x, each fused into one of bsr.cu's row products (bsr.cuh), for
// the square shapes, and blockdiag_apply2. As in bsr.cu, the element-to-lane map and
// the order of every sum are fixed by the pattern alone, so results are bitwise
// reproducible from run to run.

#include "common.cuh"
#include "bsr.cuh"

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
    const double t = blockdiag_row(B, d, x, i) * s;
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
