// Vector kernels. Element-wise kernels use grid-stride loops; each element is written
// by one thread, so results do not depend on the grid.

#include "common.cuh"

// y = a*x + b*y; b == 0 does not read y.
extern "C" __global__ void __launch_bounds__(THREADS) vec_axpby(i64 n, double a, const double* __restrict__ x,
                                                                double b, double* __restrict__ y)
{
    const i64 stride = (i64)gridDim.x * blockDim.x;
    if (b == 0.0) {
        for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = a * x[i];
    } else {
        for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = a * x[i] + b * y[i];
    }
}

// x = a*x.
extern "C" __global__ void __launch_bounds__(THREADS) vec_scale(i64 n, double a, double* __restrict__ x)
{
    const i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) x[i] *= a;
}

// z = a*x.*y + b*z; b == 0 does not read z.
extern "C" __global__ void __launch_bounds__(THREADS) vec_vmul(i64 n, double a, const double* __restrict__ x,
                                                               const double* __restrict__ y, double b,
                                                               double* __restrict__ z)
{
    const i64 stride = (i64)gridDim.x * blockDim.x;
    if (b == 0.0) {
        for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) z[i] = a * x[i] * y[i];
    } else {
        for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) z[i] = a * x[i] * y[i] + b * z[i];
    }
}

// Deterministic dot product, stage 1: launched with a fixed grid of DOT_BLOCKS blocks
// (chosen by the Go side, independent of the device). Thread t of the grid sums
// x[i]*y[i] for i = t, t+T, t+2T, ... in order (T threads in all); each block totals
// its threads in a fixed tree and writes partial[blockIdx.x].
extern "C" __global__ void __launch_bounds__(THREADS) dot_partial(i64 n, const double* __restrict__ x,
                                                                  const double* __restrict__ y,
                                                                  double* __restrict__ partial)
{
    __shared__ double s[THREADS];
    const i64 stride = (i64)gridDim.x * blockDim.x;
    double acc = 0.0;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) acc += x[i] * y[i];
    s[threadIdx.x] = acc;
    block_sum(s);
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// Stage 2: one block adds the m partial sums (thread t takes t, t+THREADS, ... in order,
// then the fixed tree) and writes out[0].
extern "C" __global__ void __launch_bounds__(THREADS) dot_final(int m, const double* __restrict__ partial,
                                                                double* __restrict__ out)
{
    __shared__ double s[THREADS];
    double acc = 0.0;
    for (int i = threadIdx.x; i < m; i += THREADS) acc += partial[i];
    s[threadIdx.x] = acc;
    block_sum(s);
    if (threadIdx.x == 0) out[0] = s[0];
}

// copy_kernel: y = x, the read+write bandwidth probe of gpu-info and the benchmarks
// (cuMemcpyDtoD is the other).
extern "C" __global__ void __launch_bounds__(THREADS) copy_kernel(i64 n, const double* __restrict__ x,
                                                                  double* __restrict__ y)
{
    const i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = x[i];
}
