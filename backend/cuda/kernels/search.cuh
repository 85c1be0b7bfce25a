// Searches of a sorted pattern row that several units share (coarsen.cu, devproduct.cu).
#ifndef BLOCKAMG_SEARCH_CUH
#define BLOCKAMG_SEARCH_CUH

#include "common.cuh"

// find_col returns the position of column j in col[lo, hi) (sorted), or −1.
__device__ __forceinline__ i64 find_col(const int* __restrict__ col, i64 lo, i64 hi, int j)
{
    while (lo < hi) {
        const i64 mid = lo + (hi - lo) / 2;
        const int c = col[mid];
        if (c == j) return mid;
        if (c < j) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

#endif
