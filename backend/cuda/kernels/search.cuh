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

// SEARCH_WAYS is how many independent searches find_cols interleaves.
#define SEARCH_WAYS 4

// find_cols is find_col for SEARCH_WAYS rows at once: pos[w] = the position of column j
// in col[lo[w], hi[w]) or −1 (an empty range gives −1). The searches advance in step,
// so their loads are in flight together instead of one chain after another: a product
// whose operands are found by a search per term is bound by that latency.
__device__ __forceinline__ void find_cols(const int* __restrict__ col, i64 lo[SEARCH_WAYS], i64 hi[SEARCH_WAYS], int j,
                                          i64 pos[SEARCH_WAYS])
{
    bool open = true;
#pragma unroll
    for (int w = 0; w < SEARCH_WAYS; w++) pos[w] = -1;
    while (open) {
        open = false;
#pragma unroll
        for (int w = 0; w < SEARCH_WAYS; w++) {
            if (lo[w] >= hi[w]) continue;
            const i64 mid = lo[w] + (hi[w] - lo[w]) / 2;
            const int c = col[mid];
            if (c == j) {
                pos[w] = mid;
                lo[w] = hi[w];
                continue;
            }
            if (c < j) lo[w] = mid + 1;
            else hi[w] = mid;
            open = open || lo[w] < hi[w];
        }
    }
}

#endif
