// Block sparse row products y = alpha*A*x + beta*y (beta == 0: y is not read).
//
// The layout is bsr.Matrix's: block row i owns blocks rowptr[i]..rowptr[i+1]-1, block k
// sits in block column col[k] and its R*C values are val[k*R*C ...], row-major. A block
// row's values are therefore one contiguous run of n = nblocks*R*C doubles.
//
// spmv_group: a group of G lanes (G in 8, 16, 32; G >= R) owns one block row. Lane l
// takes the values t = l, l+G, l+2G, ... of the row's run, so the group's loads of val
// are contiguous (coalesced), multiplies each by its x entry, and adds it into one of R
// running sums chosen by the value's row inside its block. A butterfly over the group
// then totals each sum; lane r writes y[i*R + r]. The element-to-lane map and the
// butterfly are fixed by the pattern alone, so results are bitwise reproducible.
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
    const double* __restrict__ v = val + kb * BS;
    const int* __restrict__ c = col + kb;
    double s[R];
#pragma unroll
    for (int r = 0; r < R; r++) s[r] = 0.0;
#pragma unroll U
    for (int t = lane; t < n; t += G) {
        const int kk = t / BS;
        const int rem = t - kk * BS;
        const int rr = rem / C;
        const int cc = rem - rr * C;
        const double p = __ldg(v + t) * __ldg(x + (i64)__ldg(c + kk) * C + cc);
#pragma unroll
        for (int r = 0; r < R; r++) s[r] += (rr == r) ? p : 0.0;
    }
    // Every lane of the warp takes part in the shuffles, active or not.
#pragma unroll
    for (int r = 0; r < R; r++) {
#pragma unroll
        for (int off = G / 2; off > 0; off >>= 1) s[r] += __shfl_xor_sync(0xffffffffu, s[r], off, G);
    }
    if (active) {
#pragma unroll
        for (int r = 0; r < R; r++) {
            if (lane == r) {
                const i64 o = g * R + r;
                double out = alpha * s[r];
                if (beta != 0.0) out += beta * y[o];
                y[o] = out;
            }
        }
    }
}

// SPMV_KERNEL instantiates bsr_spmv_RxC_gG_uU: G lanes per block row, the value loop
// unrolled U times (more loads in flight per lane).
#define SPMV_KERNEL(R, C, G, U)                                                                       \
    extern "C" __global__ void __launch_bounds__(THREADS) bsr_spmv_##R##x##C##_g##G##_u##U(           \
        int nbrows, const i64* __restrict__ rowptr, const int* __restrict__ col,                      \
        const double* __restrict__ val, const double* __restrict__ x, double* __restrict__ y,         \
        double alpha, double beta)                                                                    \
    {                                                                                                 \
        spmv_group<R, C, G, U>(nbrows, rowptr, col, val, x, y, alpha, beta);                             \
    }

SPMV_KERNEL(3, 3, 8, 4)
SPMV_KERNEL(3, 3, 16, 4)
SPMV_KERNEL(3, 3, 32, 4)
SPMV_KERNEL(3, 3, 16, 8)
SPMV_KERNEL(3, 3, 32, 8)
SPMV_KERNEL(3, 3, 32, 2)
SPMV_KERNEL(3, 6, 8, 4)
SPMV_KERNEL(3, 6, 16, 4)
SPMV_KERNEL(3, 6, 32, 4)
SPMV_KERNEL(6, 3, 8, 4)
SPMV_KERNEL(6, 3, 16, 4)
SPMV_KERNEL(6, 3, 32, 4)
SPMV_KERNEL(6, 6, 8, 4)
SPMV_KERNEL(6, 6, 16, 4)
SPMV_KERNEL(6, 6, 32, 4)

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
