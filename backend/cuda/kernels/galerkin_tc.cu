// The tensor-core Galerkin kernels of galerkin_tc.cuh for each shape: tc-block's A·P
// (gal_w_tcb) and Pᵀ·W (gal_ac_tcb, also smem-tiles' and tc-pairs' second stage) and
// tc-pairs' A·P (gal_w_tcp). A unit of their own because the device-planned product
// (galerkin_device.go) runs them in every device set-up, which should not wait for
// galerkin.cu's other variants to compile.

#include "galerkin_tc.cuh"

#define GAL_TCB_SHAPE(R, C, TAG)                                                                              \
    extern "C" __global__ void __launch_bounds__(THREADS, 6) gal_w_tcb_##TAG(                                 \
        int rr, int cc, i64 n, const int* sel, const i64* wptr, const int2* wabs, const double* aval,         \
        const double* pval, double* wval, double aper, double lper, double pper, int ahead, int plead)      \
    {                                                                                                         \
        gal_w_tcb<R, C>(rr, cc, n, sel, wptr, wabs, aval, pval, wval, aper, lper, pper, ahead, plead);      \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(THREADS, 6) gal_ac_tcb_##TAG(                                \
        int rr, int cc, i64 n, const int2* sel, const i64* acptr, const int2* acabs, const double* wval,      \
        const double* pval, double* acval)                                                                    \
    {                                                                                                         \
        gal_ac_tcb<R, C>(rr, cc, n, sel, acptr, acabs, wval, pval, acval);                                   \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(THREADS, 8) gal_w_tcp_##TAG(                                \
        int rr, int cc, i64 n, const int2* pw, const i64* pwptr, const int* plist, const double* aval,        \
        const double* pval, double* wval, double aper, double lper, double pper, int ahead, int plead)      \
    {                                                                                                         \
        gal_w_tcp<R, C>(rr, cc, n, pw, pwptr, plist, aval, pval, wval, aper, lper, pper, ahead, plead);     \
    }

GAL_TCB_SHAPE(3, 6, 3x6)
GAL_TCB_SHAPE(6, 6, 6x6)
GAL_TCB_SHAPE(0, 0, generic)
