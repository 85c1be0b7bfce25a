// Numeric assembly of the ex56 elasticity matrix (package fem) straight into a device
// BSR matrix with the 27-point block pattern of fem.Assembly.
//
// Work split. One thread per (block row n, stencil position s): it owns block s of row
// n and sums, over the (up to) eight elements around node n in ascending element
// order, modulus[e] times one 3×3 block of the reference element matrix, exactly as
// fem's Numeric sums that block. Each product is rounded before it is added
// (__dmul_rn, __dadd_rn: NVRTC would otherwise contract them into fused multiply-adds),
// so the values are bitwise those of the CPU. No atomics: every value has one writer.
//
// A thread block takes ASM_GROUPS groups of ASM_ROWS consecutive rows in turn
// (27·ASM_ROWS threads of THREADS), loading the tables once for all of them. A group's
// rows' blocks are contiguous in the matrix; the threads stage them in shared memory
// and then write the whole range with consecutive threads on consecutive doubles, so
// the stores coalesce (a thread's own 9 values are 72 bytes apart from its neighbour's).
//
// Tables (fem.GatherTables, uploaded once): tabF = Ref (8·8·9 doubles, Ref[la][lb][e])
// then Diag (8·3); tabI = Local (8) then inv (8·27), inv[p][s] the local node of the
// element at position p that sits at stencil position s, or −1.

#include "common.cuh"

#define ASM_ROWS 9
#define ASM_GROUPS 4
#define ASM_NREF (8 * 8 * 9)
#define ASM_NF (ASM_NREF + 8 * 3)
#define ASM_NI (8 + 8 * 27)

// asm_box is node n's grid position (i, j, k) on the nn³ grid and, per axis, the
// stencil offsets [l, h] ⊂ [−1, 1] whose neighbour lies in the grid.
struct asm_box {
    int i, j, k, lx, hx, ly, hy, lz, hz;
};

__device__ __forceinline__ asm_box asm_box_of(int n, int nn)
{
    const int i = n % nn, j = (n / nn) % nn, k = n / nn / nn;
    return {i, j, k, i > 0 ? -1 : 0, i < nn - 1 ? 1 : 0, j > 0 ? -1 : 0, j < nn - 1 ? 1 : 0, k > 0 ? -1 : 0, k < nn - 1 ? 1 : 0};
}

static_assert(ASM_ROWS * 27 <= THREADS, "asm_numeric: one thread per stencil block of a thread block's rows");

// bad, when not null, is asm_check_modulus's flag: a thread block whose flag shows a
// bad modulus (below the element count) writes nothing, so a rejected step leaves the
// matrix as it was.
extern "C" __global__ void __launch_bounds__(THREADS) asm_numeric(int nn, int ne, int nodes,
                                                                  const i64* __restrict__ rowPtr,
                                                                  const double* __restrict__ modulus,
                                                                  const double* __restrict__ tabF,
                                                                  const int* __restrict__ tabI,
                                                                  const int* __restrict__ bad, int elements,
                                                                  double* __restrict__ val)
{
    if (bad != nullptr && *bad < elements) return;
    __shared__ double sf[ASM_NF];
    __shared__ int si[ASM_NI];
    __shared__ double sv[ASM_ROWS * 27 * 9];
    for (int t = threadIdx.x; t < ASM_NF; t += THREADS) sf[t] = tabF[t];
    for (int t = threadIdx.x; t < ASM_NI; t += THREADS) si[t] = tabI[t];
    __syncthreads();
    // ASM_GROUPS groups of ASM_ROWS rows in turn: the tables are loaded once for all.
    for (int grp = 0; grp < ASM_GROUPS; grp++) {
        const int n0 = (blockIdx.x * ASM_GROUPS + grp) * ASM_ROWS; // < 2^31 (NewAssembly's bound)
        if (n0 >= nodes) break;
        const int n1 = min(n0 + ASM_ROWS, nodes);
        const i64 base = rowPtr[n0];
        const int span = (int)(rowPtr[n1] - base); // blocks of the group's rows

        const int r = threadIdx.x / 27, s = threadIdx.x % 27;
        const int n = n0 + r;
        if (r < ASM_ROWS && n < n1) {
            // The row's grid position and the stencil offsets that stay in the grid.
            const auto [i, j, k, lx, hx, ly, hy, lz, hz] = asm_box_of(n, nn);
            const int dx = s % 3 - 1, dy = (s / 3) % 3 - 1, dz = s / 9 - 1;
            if (dx >= lx && dx <= hx && dy >= ly && dy <= hy && dz >= lz && dz <= hz) {
                // Rank of s among the row's stored stencil positions (z, y, x order).
                const int rank = ((dz - lz) * (hy - ly + 1) + (dy - ly)) * (hx - lx + 1) + (dx - lx);
                const int o = (int)(rowPtr[n] - base) + rank;
                double acc[9];
    #pragma unroll
                for (int e = 0; e < 9; e++) acc[e] = 0.0;
                for (int p = 0; p < 8; p++) {
                    const int ei = i - 1 + (p & 1), ej = j - 1 + ((p >> 1) & 1), ek = k - 1 + (p >> 2);
                    if (ei < 0 || ei >= ne || ej < 0 || ej >= ne || ek < 0 || ek >= ne) continue;
                    const double m = modulus[(i64)ei + (i64)ne * ((i64)ej + (i64)ne * (i64)ek)];
                    const int la = si[p];
                    if (k == 0) {
                        // Clamped node: 0.1 × each element's own diagonal, in block 13 only.
                        if (s == 13) {
                            const double* d = sf + ASM_NREF + 3 * la;
    #pragma unroll
                            for (int c = 0; c < 3; c++) acc[4 * c] = __dadd_rn(acc[4 * c], __dmul_rn(m, d[c]));
                        }
                        continue;
                    }
                    const int lb = si[8 + 27 * p + s];
                    // fem.FirstNode: a row just above the clamp skips the clamped (bottom)
                    // nodes of the bottom-layer elements; lb < 0: the element misses s.
                    const int first = (k == 1 && ek == 0) ? 4 : 0;
                    if (lb < first) continue;
                    const double* kb = sf + 72 * la + 9 * lb;
    #pragma unroll
                    for (int e = 0; e < 9; e++) acc[e] = __dadd_rn(acc[e], __dmul_rn(m, kb[e]));
                }
                // A matrix without the assembly's pattern (the Go side checks only its
                // sizes) must not make this write leave the staging array.
                if (o >= 0 && o < span && o < ASM_ROWS * 27) {
    #pragma unroll
                    for (int e = 0; e < 9; e++) sv[9 * o + e] = acc[e];
                }
            }
        }
        __syncthreads();
        const int count = 9 * min(span, ASM_ROWS * 27);
        double* out = val + 9 * base;
        for (int t = threadIdx.x; t < count; t += THREADS) out[t] = sv[t];
        __syncthreads(); // sv is the next group's
    }
}

// asm_check_modulus: *bad becomes the least element whose modulus is not finite and
// non-negative (fem.Assembly.CheckModulus's rule), and is left alone when there is
// none: the host keeps it at the element count between calls, so no reset launch
// precedes each check.
extern "C" __global__ void __launch_bounds__(THREADS) asm_check_modulus(int elements,
                                                                        const double* __restrict__ modulus,
                                                                        int* __restrict__ bad)
{
    for (int e = blockIdx.x * THREADS + threadIdx.x; e < elements; e += gridDim.x * THREADS) {
        const double m = modulus[e];
        if (!(m >= 0.0) || isinf(m)) atomicMin(bad, e);
    }
}

// asm_check_pattern: one thread per block row; *bad becomes the least row whose stored
// columns are not the 27-point stencil of fem.Assembly (its initial value, the row
// count, when there is none). Row n checks rowPtr[n+1] − rowPtr[n] against its stencil
// (and row 0 that rowPtr[0] = 0), so together the rows check all of rowPtr; a row whose
// extent leaves [0, nnz) is reported before its columns are read.
extern "C" __global__ void __launch_bounds__(THREADS) asm_check_pattern(int nn, int nodes, i64 nnz,
                                                                        const i64* __restrict__ rowPtr,
                                                                        const int* __restrict__ col,
                                                                        int* __restrict__ bad)
{
    const int n = blockIdx.x * THREADS + threadIdx.x;
    if (n >= nodes) return;
    const auto [i, j, k, lx, hx, ly, hy, lz, hz] = asm_box_of(n, nn);
    const i64 want = (i64)(hx - lx + 1) * (hy - ly + 1) * (hz - lz + 1);
    i64 q = rowPtr[n];
    bool ok = (n > 0 || q == 0) && q >= 0 && rowPtr[n + 1] <= nnz && rowPtr[n + 1] - q == want;
    for (int dz = lz; ok && dz <= hz; dz++)
        for (int dy = ly; ok && dy <= hy; dy++)
            for (int dx = lx; ok && dx <= hx; dx++, q++)
                ok = col[q] == n + dx + nn * (dy + nn * dz);
    if (!ok) atomicMin(bad, n);
}

// asm_stencil_before: the stencil blocks of the rows before index t along one axis of
// nn nodes: a node keeps 2 neighbours (itself and one) at either end and 3 inside.
__device__ __forceinline__ i64 asm_stencil_before(int t) { return t == 0 ? 0 : 3 * (i64)t - 1; }

// asm_pattern: fem.Box.Symbolic's pattern made on the device, one thread per block
// row: the 27-point stencil of every node clipped at the faces, columns ascending.
// Row n's start is a closed form (the rows before it, layer by layer, line by line),
// so no prefix sum is needed; the last row writes rowPtr[nodes].
extern "C" __global__ void __launch_bounds__(THREADS) asm_pattern(int nn, int nodes, i64* __restrict__ rowPtr,
                                                                  int* __restrict__ col)
{
    const int n = blockIdx.x * THREADS + threadIdx.x;
    if (n >= nodes) return;
    const auto [i, j, k, lx, hx, ly, hy, lz, hz] = asm_box_of(n, nn);
    const i64 line = 3 * (i64)nn - 2; // stencil blocks of a whole line of nodes, per neighbour line
    i64 q = asm_stencil_before(k) * line * line +
            (i64)(hz - lz + 1) * (asm_stencil_before(j) * line + (i64)(hy - ly + 1) * asm_stencil_before(i));
    rowPtr[n] = q;
    if (n == nodes - 1) rowPtr[nodes] = line * line * line;
    for (int dz = lz; dz <= hz; dz++)
        for (int dy = ly; dy <= hy; dy++)
            for (int dx = lx; dx <= hx; dx++) col[q++] = n + dx + nn * (dy + nn * dz);
}
