// The row products that bsr.cu's SpMV kernels and cheb.cu's fused smoother steps
// share: rowlane_total, W lanes on one block row (bsr.cu describes the map), and
// cta_total, a thread block on one, with the launch-bounds attributes of their
// variants.
#ifndef BLOCKAMG_BSR_CUH
#define BLOCKAMG_BSR_CUH

#include "common.cuh"

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

// LB is the kernel's launch-bounds attribute. The plain __launch_bounds__(THREADS) lets
// ptxas pick its register budget (it settles on 32 registers: full occupancy); LB4 (TAG
// suffix _b4) asks for 4 resident blocks per multiprocessor, i.e. up to 64 registers
// per thread for more loads in flight at half the occupancy, which pays on very long
// block rows (Pᵀ).
#define LB0 __launch_bounds__(THREADS)
#define LB4 __launch_bounds__(THREADS, 4)

// blockdiag_row is scalar row i of D·x for nb row-major B×B blocks stored
// consecutively in d: the row of its block times that block's part of x.
__device__ __forceinline__ double blockdiag_row(int B, const double* __restrict__ d, const double* __restrict__ x, i64 i)
{
    const i64 br = i / B;
    const int r = (int)(i - br * B);
    const double* row = d + br * B * B + (i64)r * B;
    const double* xx = x + br * B;
    double s = 0.0;
    for (int c = 0; c < B; c++) s += row[c] * xx[c];
    return s;
}

#endif
