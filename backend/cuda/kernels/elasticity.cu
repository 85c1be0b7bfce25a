// Numeric assembly of isotropic linear elasticity on an unstructured mesh (package
// fem's Elasticity) straight into a device BSR matrix, from the symbolic phase's
// arrays (fem.ElasticityLayout, uploaded once) and per-element materials.
//
// Work split. One thread per stored block t of the matrix (block row a, position s
// in the row): it visits a's incident elements in ascending element order, finds the
// element's local node b whose block lies at s (none: the element does not couple
// a to that column), integrates that element's block (a, b) point by point and adds
// it to its accumulator — exactly the sums fem's Numeric makes for that block, in the
// same order. Every product and sum is rounded on its own (__dmul_rn, __dadd_rn,
// __ddiv_rn: NVRTC would otherwise contract them into fused multiply-adds, which Go
// does not do), so the values are bitwise those of the CPU. No atomics: every value
// has one writer. The elimination of fixed degrees of freedom follows in the same
// thread: the block is saved (for the right-hand side's correction) when the layout
// lists it, then the entries of fixed rows and columns other than the diagonal are
// zeroed.
//
// A thread block's THREADS blocks are contiguous in the matrix: the threads stage
// their values in shared memory and write the range with consecutive threads on
// consecutive doubles, so the stores coalesce.

#include "common.cuh"

// ELA_KINDS bounds the element kinds (volume sets) of one mesh; kinds[3·K + 0, 1, 2]
// = nodes, quadrature points and the offset of kind K's reference gradients in grad.
#define ELA_KINDS 8
#define ELA_QREC 10
static_assert(ELA_QREC % 2 == 0, "elas_staged loads a record 16 bytes at a time");

// ela_lame is one element's Lamé parameters as fem's lame computes them:
// μ = E / (2(1+ν)), λ = Eν / ((1+ν)(1−2ν)), each operation rounded.
__device__ __forceinline__ void ela_lame(double E, double nu, double& mu, double& lambda)
{
    const double t = __dadd_rn(1.0, nu);
    mu = __ddiv_rn(E, __dmul_rn(2.0, t));
    lambda = __ddiv_rn(__dmul_rn(E, nu), __dmul_rn(t, __dsub_rn(1.0, __dmul_rn(2.0, nu))));
}

// elas_lame: per element μ and ρ = λ/μ (ela_lame).
extern "C" __global__ void __launch_bounds__(THREADS) elas_lame(int elements, const double* __restrict__ E,
                                                                const double* __restrict__ nu, double* __restrict__ mu,
                                                                double* __restrict__ rho)
{
    for (int e = blockIdx.x * THREADS + threadIdx.x; e < elements; e += gridDim.x * THREADS) {
        double m, l;
        ela_lame(E[e], nu[e], m, l);
        mu[e] = m, rho[e] = __ddiv_rn(l, m);
    }
}

// elas_check: *bad becomes the least element whose material fem.CheckMaterial rejects
// (E not positive and finite, ν outside (−1, 0.5)); the host keeps it at the element
// count between calls.
extern "C" __global__ void __launch_bounds__(THREADS) elas_check(int elements, const double* __restrict__ E,
                                                                 const double* __restrict__ nu, int* __restrict__ bad)
{
    for (int e = blockIdx.x * THREADS + threadIdx.x; e < elements; e += gridDim.x * THREADS) {
        const double m = E[e], v = nu[e];
        if (!(m > 0.0) || isinf(m) || !(v > -1.0 && v < 0.5)) atomicMin(bad, e);
    }
}

// ela_row returns the block row holding stored block t: the last a with rowPtr[a] ≤ t.
__device__ __forceinline__ int ela_row(const i64* __restrict__ rowPtr, int nodes, i64 t)
{
    int lo = 0, hi = nodes; // rowPtr[lo] ≤ t < rowPtr[hi]
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (rowPtr[mid] <= t) lo = mid;
        else hi = mid;
    }
    return lo;
}

// ela_grad is s = h·J⁻ᵀ∇N̂ for one node: its reference gradient rn (3 values) against
// the point's record rec (J⁻¹ row-major) and the scale h = √(w·detJ·μ), each operation
// rounded on its own.
__device__ __forceinline__ void ela_grad(double s[3], const double* __restrict__ rn, const double* __restrict__ rec, double h)
{
#pragma unroll
    for (int d = 0; d < 3; d++)
        s[d] = __dmul_rn(h, __dadd_rn(__dadd_rn(__dmul_rn(rn[0], rec[d]), __dmul_rn(rn[1], rec[3 + d])), __dmul_rn(rn[2], rec[6 + d])));
}

// ela_scale is h = √(w·detJ·μ) of a point whose record ends in w·detJ.
__device__ __forceinline__ double ela_scale(const double* __restrict__ rec, double mu) { return __dsqrt_rn(__dmul_rn(rec[9], mu)); }

// ela_point adds one quadrature point's products s_a s_bᵀ to M (first: sets them).
__device__ __forceinline__ void ela_point(double M[9], const double sa[3], const double sb[3], bool first)
{
#pragma unroll
    for (int i = 0; i < 3; i++)
#pragma unroll
        for (int j = 0; j < 3; j++) {
            const double p = __dmul_rn(sa[i], sb[j]);
            M[3 * i + j] = first ? p : __dadd_rn(M[3 * i + j], p);
        }
}

// ela_finish is element block kb from its point sums M and ρ = λ/μ: entry (i, j) is
// M_ji (+ tr M on the diagonal) + ρ·M_ij, in fem's Numeric's order.
__device__ __forceinline__ void ela_finish(double kb[9], const double M[9], double rho)
{
    const double tr = __dadd_rn(__dadd_rn(M[0], M[4]), M[8]);
#pragma unroll
    for (int i = 0; i < 3; i++)
#pragma unroll
        for (int j = 0; j < 3; j++) {
            const double m = i == j ? __dadd_rn(M[4 * i], tr) : M[3 * j + i];
            kb[3 * i + j] = __dadd_rn(m, __dmul_rn(rho, M[3 * i + j]));
        }
}

// ela_block is element block (a, b) of one element: with s = √(w·detJ·μ)·J⁻ᵀ∇N̂ from
// the point's record (J⁻¹ row-major, then w·detJ) and the reference gradients
// gr[(q·n + node)·3 + k], M = Σ over its nq points, in order, of s_a s_bᵀ, and kb =
// ela_finish(M, ρ) — fem's Numeric's operations in its order.
__device__ __forceinline__ void ela_block(double kb[9], double m_e, double rho_e, int nq, int n, int la, int b,
                                          const double* __restrict__ gr, const double* __restrict__ recs)
{
    double M[9];
    for (int q = 0; q < nq; q++) {
        const double* rec = recs + q * ELA_QREC;
        const double h = ela_scale(rec, m_e);
        double sa[3], sb[3];
        ela_grad(sa, gr + (q * n + la) * 3, rec, h);
        ela_grad(sb, gr + (q * n + b) * 3, rec, h);
        ela_point(M, sa, sb, q == 0);
    }
    ela_finish(kb, M, rho_e);
}

// ela_contrib is contribution d's element block from the quadrature records
// (uniformQ > 0: one element kind, whose gradients are gr0).
__device__ __forceinline__ void ela_contrib(double kb[9], int d, int uniformQ, int n0, const double* __restrict__ gr0,
                                            const int* __restrict__ elemKind, const int* __restrict__ kinds,
                                            const double* __restrict__ grad, const i64* __restrict__ qptr,
                                            const double* __restrict__ qdata, const double* __restrict__ mu,
                                            const double* __restrict__ rho)
{
    const int e = d >> 8, la = (d >> 4) & 15, b = d & 15;
    if (uniformQ > 0)
        ela_block(kb, mu[e], rho[e], uniformQ, n0, la, b, gr0, qdata + (i64)e * uniformQ * ELA_QREC);
    else {
        const int K = elemKind[e];
        ela_block(kb, mu[e], rho[e], kinds[3 * K + 1], kinds[3 * K], la, b, grad + kinds[3 * K + 2], qdata + qptr[e] * ELA_QREC);
    }
}

// ela_eliminate applies the elimination to block t = (a, c) with value acc: saved
// (for the right-hand side) when the layout lists it, then the entries of fixed rows
// and columns other than the diagonal zeroed.
__device__ __forceinline__ void ela_eliminate(double acc[9], i64 t, int a, int c, const int* __restrict__ fixed,
                                              const i64* __restrict__ elimPtr, const i64* __restrict__ elimSlot,
                                              double* __restrict__ saved)
{
    const int ma = fixed[a], mc = fixed[c];
    if ((ma | mc) == 0) return;
    for (i64 u = elimPtr[a]; u < elimPtr[a + 1]; u++)
        if (elimSlot[u] == t) {
#pragma unroll
            for (int r = 0; r < 9; r++) saved[9 * u + r] = acc[r];
        }
#pragma unroll
    for (int i = 0; i < 3; i++)
#pragma unroll
        for (int j = 0; j < 3; j++)
            if (((ma >> i | mc >> j) & 1) != 0 && (c != a || i != j)) acc[3 * i + j] = 0.0;
}

// ela_write_blocks writes the 3×3 blocks a thread block staged in sv (one per thread)
// to val from stored block t0 on, consecutive threads on consecutive doubles so that
// the stores coalesce (a thread's own 9 values are 72 bytes from its neighbour's).
__device__ __forceinline__ void ela_write_blocks(const double* sv, double* __restrict__ val, i64 t0, i64 nnzb)
{
    __syncthreads();
    const i64 span = min((i64)THREADS, nnzb - t0);
    double* out = val + 9 * t0;
    for (int x = threadIdx.x; x < 9 * span; x += THREADS) out[x] = sv[x];
}

// elas_numeric writes every value of the matrix. inc[k] = element·16 + local node of
// incidence k; fixed (per node, null when nothing is fixed), elimPtr, elimSlot and
// saved are the elimination's. bad, when not null, is elas_check's flag: a thread
// block that sees a bad material writes nothing, so a rejected step leaves the matrix
// as it was.
extern "C" __global__ void __launch_bounds__(THREADS)
    elas_numeric(i64 nnzb, int nodes, const i64* __restrict__ rowPtr, const int* __restrict__ col,
                 const i64* __restrict__ incPtr, const int* __restrict__ inc, const int* __restrict__ elemKind,
                 const int* __restrict__ kinds, const double* __restrict__ grad, const i64* __restrict__ qptr,
                 const double* __restrict__ qdata, const i64* __restrict__ slotPtr, const int* __restrict__ slot,
                 const double* __restrict__ mu, const double* __restrict__ rho, const int* __restrict__ fixed,
                 const i64* __restrict__ elimPtr, const i64* __restrict__ elimSlot, double* __restrict__ saved,
                 const int* __restrict__ bad, int elements, double* __restrict__ val)
{
    if (bad != nullptr && *bad < elements) return;
    __shared__ double sv[9 * THREADS];
    const i64 t0 = (i64)blockIdx.x * THREADS;
    const i64 t = t0 + threadIdx.x;
    if (t < nnzb) {
        const int a = ela_row(rowPtr, nodes, t);
        const int s = (int)(t - rowPtr[a]);
        double acc[9];
#pragma unroll
        for (int r = 0; r < 9; r++) acc[r] = 0.0;
        for (i64 k = incPtr[a]; k < incPtr[a + 1]; k++) {
            const int e = inc[k] >> 4, la = inc[k] & 15;
            const int K = elemKind[e];
            const int n = kinds[3 * K], nq = kinds[3 * K + 1];
            const double* gr = grad + kinds[3 * K + 2];
            const int* sl = slot + slotPtr[k];
            int b = -1;
            for (int j = 0; j < n; j++)
                if (sl[j] == s) {
                    b = j;
                    break;
                }
            if (b < 0) continue;
            double kb[9];
            ela_block(kb, mu[e], rho[e], nq, n, la, b, gr, qdata + qptr[e] * ELA_QREC);
#pragma unroll
            for (int r = 0; r < 9; r++) acc[r] = __dadd_rn(acc[r], kb[r]);
        }
        if (fixed != nullptr) ela_eliminate(acc, t, a, col[t], fixed, elimPtr, elimSlot, saved);
#pragma unroll
        for (int r = 0; r < 9; r++) sv[9 * threadIdx.x + r] = acc[r];
    }
    ela_write_blocks(sv, val, t0, nnzb);
}

// ela_sum leaves in acc the sum, in order, of the element blocks of contributions
// pairs[u … u1), each computed by block(kb, contribution). With two set (one
// quadrature point an element: a contribution is mostly its loads) it takes two a
// round, both integrated before either is added (in order), so that the loads of the
// second are in flight with the first's. With Sym (a diagonal block's sums) only the
// six entries on and above the diagonal are added.
template <bool Sym = false, class Block>
__device__ __forceinline__ void ela_sum(double acc[9], const int* __restrict__ pairs, i64 u, i64 u1, bool two, Block block)
{
    // Sym: every element block is symmetric bitwise, so the sums below the diagonal
    // are those above it, term for term: they are copied, not added.
    constexpr unsigned upper = Sym ? 0x137u : 0x1ffu; // entries 0, 1, 2, 4, 5, 8
#pragma unroll
    for (int r = 0; r < 9; r++) acc[r] = 0.0;
    if (two) {
        // The next pair's codes are loaded while this pair is integrated.
        int d0 = u + 1 < u1 ? pairs[u] : 0, d1 = u + 1 < u1 ? pairs[u + 1] : 0;
        for (; u + 1 < u1; u += 2) {
            const int n0 = u + 3 < u1 ? pairs[u + 2] : 0, n1 = u + 3 < u1 ? pairs[u + 3] : 0;
            double k0[9], k1[9];
            block(k0, d0);
            block(k1, d1);
#pragma unroll
            for (int r = 0; r < 9; r++)
                if (upper >> r & 1) acc[r] = __dadd_rn(acc[r], k0[r]);
#pragma unroll
            for (int r = 0; r < 9; r++)
                if (upper >> r & 1) acc[r] = __dadd_rn(acc[r], k1[r]);
            d0 = n0, d1 = n1;
        }
    }
    for (; u < u1; u++) {
        double kb[9];
        block(kb, pairs[u]);
#pragma unroll
        for (int r = 0; r < 9; r++)
            if (upper >> r & 1) acc[r] = __dadd_rn(acc[r], kb[r]);
    }
    if (Sym) acc[3] = acc[1], acc[6] = acc[2], acc[7] = acc[5];
}

// elas_pairs writes the same values as elas_numeric, one thread per stored block t,
// from the inverse of the element→slot map made once on the host: the block's
// contributions pairs[pairPtr[t] … pairPtr[t+1]), each element·256 + la·16 + b (the
// row's local node la in the element, the column's b), in ascending element order.
// The thread neither walks the row's incidences nor scans their slots: each
// contribution costs its element's quadrature records and materials. uniformQ > 0
// says every element is of the one kind and has uniformQ quadrature points
// (qptr[e] = e·uniformQ), so a contribution does not look its kind up.
extern "C" __global__ void __launch_bounds__(THREADS)
    elas_pairs(i64 nnzb, int nodes, const i64* __restrict__ rowPtr, const int* __restrict__ col,
               const i64* __restrict__ pairPtr, const int* __restrict__ pairs, const int* __restrict__ elemKind,
               const int* __restrict__ kinds, const double* __restrict__ grad, int uniformQ, const i64* __restrict__ qptr,
               const double* __restrict__ qdata, const double* __restrict__ mu, const double* __restrict__ rho,
               const int* __restrict__ fixed, const i64* __restrict__ elimPtr, const i64* __restrict__ elimSlot,
               double* __restrict__ saved, const int* __restrict__ bad, int elements, double* __restrict__ val)
{
    if (bad != nullptr && *bad < elements) return;
    // One element kind (uniformQ > 0): its node count and reference gradients, once.
    const int n0 = kinds[0];
    const double* gr0 = grad + kinds[2];
    __shared__ double sv[9 * THREADS];
    const i64 t0 = (i64)blockIdx.x * THREADS;
    const i64 t = t0 + threadIdx.x;
    if (t < nnzb) {
        double acc[9];
        ela_sum(acc, pairs, pairPtr[t], pairPtr[t + 1], uniformQ == 1, [&](double kb[9], int d) {
            ela_contrib(kb, d, uniformQ, n0, gr0, elemKind, kinds, grad, qptr, qdata, mu, rho);
        });
        if (fixed != nullptr) {
            const int a = ela_row(rowPtr, nodes, t);
            ela_eliminate(acc, t, a, col[t], fixed, elimPtr, elimSlot, saved);
        }
#pragma unroll
        for (int r = 0; r < 9; r++) sv[9 * threadIdx.x + r] = acc[r];
    }
    ela_write_blocks(sv, val, t0, nnzb);
}

// ELA_WINDOW is the contributions elas_pairs integrates a round (its shared memory
// holds their blocks: 36 KiB, also the staging of the written blocks).
#define ELA_WINDOW 512

// ela_rounds leaves in acc the sum, in order, of this thread's contributions
// [m0, m1) of the thread block's range [u0, u1): the range is integrated W at a time,
// spread evenly over the threads, each element block (block(kb, u)) alone into the
// window win (9·W doubles) at u − w0 (the round starting at w0); after a barrier each
// thread adds its own, in order, to its accumulator, contribution u's block read at
// slot(u, w0). The two orders may differ within a round (elas_staged integrates a
// round's contributions by element, and its blocks sum them by block). Every thread
// of the block must call it (the barriers); a thread that owns no block passes an
// empty [m0, m1).
//
// The index type I is elas_pairs_rounds' i64 (offsets into the whole map) or
// elas_staged's int (a group's own contributions, fewer registers).
template <int W, class I, class Block, class Slot>
__device__ __forceinline__ void ela_rounds(double acc[9], double* win, I u0, I u1, I m0, I m1, Block block, Slot slot)
{
#pragma unroll
    for (int r = 0; r < 9; r++) acc[r] = 0.0;
    for (I w0 = u0; w0 < u1; w0 += W) {
        const I w1 = min(w0 + W, u1);
        // A window of THREADS (elas_staged) is one pass: unrolling it only holds
        // registers.
#pragma unroll(W == THREADS ? 1 : 2)
        for (I u = w0 + (I)threadIdx.x; u < w1; u += THREADS) {
            double kb[9];
            block(kb, u);
            double* o = win + 9 * (u - w0);
#pragma unroll
            for (int r = 0; r < 9; r++) o[r] = kb[r];
        }
        __syncthreads();
        // Two contributions a step: both slots, then both blocks, are loaded before
        // their adds (in order), so that a long sum (a vertex's diagonal block, two
        // dozen) waits on its chain of shared loads half as often.
        const I e = min(m1, w1);
        I u = max(m0, w0);
        for (; u + 1 < e; u += 2) {
            const double* k0 = win + 9 * (int)slot(u, w0);
            const double* k1 = win + 9 * (int)slot(u + 1, w0);
            double b0[9], b1[9];
#pragma unroll
            for (int r = 0; r < 9; r++) b0[r] = k0[r], b1[r] = k1[r];
#pragma unroll
            for (int r = 0; r < 9; r++) acc[r] = __dadd_rn(__dadd_rn(acc[r], b0[r]), b1[r]);
        }
        if (u < e) {
            const double* k = win + 9 * (int)slot(u, w0);
#pragma unroll
            for (int r = 0; r < 9; r++) acc[r] = __dadd_rn(acc[r], k[r]);
        }
        __syncthreads();
    }
}

// elas_pairs_rounds writes the same values as elas_pairs, from the same inverse slot
// map, for elements whose blocks cost several quadrature points each.
//
// Work split. A thread block owns THREADS consecutive stored blocks, whose
// contributions are one contiguous range of pairs. Blocks differ in their counts
// (a diagonal block sums every element around its node, about 24 for a tetrahedral
// mesh, an off-diagonal one the few on its edge), so one thread per block left most
// lanes of a warp waiting for its diagonal block. Here the range is integrated in
// rounds of ELA_WINDOW contributions spread evenly over the threads, each element
// block into shared memory; then each block's thread adds its own, in order, to its
// accumulator. The sums are elas_numeric's, term for term and in the same order (each
// element block is computed alone and added as before), so the bits are the CPU's.
// It pays where a contribution is expensive (several quadrature points) and not where
// it is mostly loads (one point), which keeps elas_pairs. Both serve meshes of mixed
// element shapes; a one-shape mesh takes elas_staged.
extern "C" __global__ void __launch_bounds__(THREADS)
    elas_pairs_rounds(i64 nnzb, int nodes, const i64* __restrict__ rowPtr, const int* __restrict__ col,
               const i64* __restrict__ pairPtr, const int* __restrict__ pairs, const int* __restrict__ elemKind,
               const int* __restrict__ kinds, const double* __restrict__ grad, int uniformQ, const i64* __restrict__ qptr,
               const double* __restrict__ qdata, const double* __restrict__ mu, const double* __restrict__ rho,
               const int* __restrict__ fixed, const i64* __restrict__ elimPtr, const i64* __restrict__ elimSlot,
               double* __restrict__ saved, const int* __restrict__ bad, int elements, double* __restrict__ val)
{
    if (bad != nullptr && *bad < elements) return;
    // One element kind (uniformQ > 0): its node count and reference gradients, once.
    const int n0 = kinds[0];
    const double* gr0 = grad + kinds[2];
    __shared__ double kbs[9 * ELA_WINDOW];
    const i64 t0 = (i64)blockIdx.x * THREADS;
    const i64 t = t0 + threadIdx.x;
    const bool own = t < nnzb;
    const i64 u0 = pairPtr[t0], u1 = pairPtr[min(t0 + THREADS, nnzb)];
    const i64 m0 = own ? pairPtr[t] : 0, m1 = own ? pairPtr[t + 1] : 0;
    double acc[9];
    ela_rounds<ELA_WINDOW, i64>(
        acc, kbs, u0, u1, m0, m1,
        [&](double kb[9], i64 u) { ela_contrib(kb, pairs[u], uniformQ, n0, gr0, elemKind, kinds, grad, qptr, qdata, mu, rho); },
        [](i64 u, i64 w0) { return u - w0; });
    if (own) {
        if (fixed != nullptr) {
            const int a = ela_row(rowPtr, nodes, t);
            ela_eliminate(acc, t, a, col[t], fixed, elimPtr, elimSlot, saved);
        }
#pragma unroll
        for (int r = 0; r < 9; r++) kbs[9 * threadIdx.x + r] = acc[r];
    }
    ela_write_blocks(kbs, val, t0, nnzb);
}

// ela_cp_async4 copies 4 bytes from global to shared memory asynchronously (sm_80
// on); ela_cp_async_wait waits for this thread's copies.
__device__ __forceinline__ void ela_cp_async4(void* dst, const void* src)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src));
}
__device__ __forceinline__ void ela_cp_async_wait() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

// ela_staged_stride is the doubles of one staged point (elas_staged): its element's
// ρ = λ/μ and the n scaled gradients s = √(w·detJ·μ)·J⁻ᵀ∇N̂, rounded up to an odd
// count so that consecutive records start in different shared memory banks.
__device__ __forceinline__ int ela_staged_stride(int n) { return (1 + 3 * n) | 1; }

// ela_staged_block is element block (la, b) of the element staged at rec (nq points
// of R doubles): ela_block's sums from the staged gradients.
__device__ __forceinline__ void ela_staged_block(double kb[9], const double* rec, int nq, int R, int la, int b)
{
    double M[9];
    const double rho = rec[0];
    for (int q = 0; q < nq; q++, rec += R) ela_point(M, rec + 1 + 3 * la, rec + 1 + 3 * b, q == 0);
    ela_finish(kb, M, rho);
}

// ela_staged_diag is ela_staged_block(kb, rec, nq, R, la, la) for a diagonal element
// block: s_i s_j is s_j s_i, so M is symmetric bitwise and so is the block (entry
// (i, j) is M_ji + ρ·M_ij): only the upper triangles are computed.
__device__ __forceinline__ void ela_staged_diag(double kb[9], const double* rec, int nq, int R, int la)
{
    // M's diagonal, then entries 01, 02, 12.
    double h[6];
    const double rho = rec[0];
    for (int q = 0; q < nq; q++, rec += R) {
        const double* g = rec + 1 + 3 * la;
        const double p[6] = {__dmul_rn(g[0], g[0]), __dmul_rn(g[1], g[1]), __dmul_rn(g[2], g[2]),
                             __dmul_rn(g[0], g[1]), __dmul_rn(g[0], g[2]), __dmul_rn(g[1], g[2])};
#pragma unroll
        for (int k = 0; k < 6; k++) h[k] = q == 0 ? p[k] : __dadd_rn(h[k], p[k]);
    }
    const double tr = __dadd_rn(__dadd_rn(h[0], h[1]), h[2]);
#pragma unroll
    for (int i = 0; i < 3; i++) kb[4 * i] = __dadd_rn(__dadd_rn(h[i], tr), __dmul_rn(rho, h[i]));
    kb[1] = kb[3] = __dadd_rn(h[3], __dmul_rn(rho, h[3]));
    kb[2] = kb[6] = __dadd_rn(h[4], __dmul_rn(rho, h[4]));
    kb[5] = kb[7] = __dadd_rn(h[5], __dmul_rn(rho, h[5]));
}

// ELA_STAGED_PARAMS is the parameter list of elas_staged and ela_staged_run, the
// shape and rounds named N_, NQ_ and R_; ELA_STAGED_ARGS passes it on.
#define ELA_STAGED_PARAMS(N_, NQ_, R_) \
    int N_, int NQ_, int slice, int R_, const double* __restrict__ grad, const double* __restrict__ qdata, \
    const double* __restrict__ E, const double* __restrict__ nu, const i64* __restrict__ gw, \
    const i64* __restrict__ ge, const int* __restrict__ elems, const i64* __restrict__ work, \
    const i64* __restrict__ mirror, const i64* __restrict__ lptr, const int* __restrict__ lpairs, \
    const unsigned char* __restrict__ lslot, const int* __restrict__ wperm, int nodes, \
    const i64* __restrict__ rowPtr, const int* __restrict__ col, const int* __restrict__ fixed, \
    const i64* __restrict__ elimPtr, const i64* __restrict__ elimSlot, double* __restrict__ saved, \
    const int* __restrict__ bad, int elements, double* __restrict__ val
#define ELA_STAGED_ARGS                                                                                        \
    n, nq, slice, rounds, grad, qdata, E, nu, gw, ge, elems, work, mirror, lptr, lpairs, lslot, wperm, nodes, \
        rowPtr, col, fixed, elimPtr, elimSlot, saved, bad, elements, val

// elas_staged writes the same values as elas_pairs for a mesh whose elements are all
// of one shape (n nodes, nq quadrature points), a thread block per group of blocks on
// and above the diagonal, from element data it stages in shared memory (slice
// doubles).
//
// Symmetry. The assembled matrix is bitwise symmetric: an element's block (b, a) is
// its block (a, b) transposed, product for product (the products commute and each
// entry's terms are added in the same order), and block (c, a) sums the same elements
// as (a, c) in the same ascending order. So each upper block (a, c) is integrated
// once and written with, off the diagonal, its transpose at mirror[v], the stored
// block (c, a): half the arithmetic. The elimination is applied to each written block
// on its own (its row's and column's masks, its own saved slot).
//
// Work split. The host cuts the upper blocks into groups of whole block rows that
// share most of their elements (fem/cudafem's rowGrouper), at most THREADS blocks
// each, whose records fit in shared memory: group g's blocks are work[gw[g] …
// gw[g+1]) (their stored positions; without rounds listed in its threads' order,
// below; thread i takes the i-th), its elements elems[ge[g] … ge[g+1]) (in ascending
// element order: a warp stages records that lie close together), and each
// block's contributions lpairs[lptr[v] … lptr[v+1]) are elas_pairs' (ascending
// element order) with the element's index in its group's list in place of the
// element (with rounds, reordered within each round, below). The thread block first
// stages, per element of its list and quadrature point, the element's ρ = λ/μ and
// the n scaled gradients s = √(w·detJ·μ)·J⁻ᵀ∇N̂ (ela_block's operations, so the
// bits are the same) from the compact quadrature records, the
// shape's reference gradients grad and the materials, and copies the group's
// contributions; a group's rows share most of their elements, so an element's record
// is read by the few groups around its nodes (about 2 for tet4, 4 for tet10) instead
// of once for each of its blocks, and no sum waits on a global load. Then the blocks
// are summed from shared memory, and they and their transposes are written through
// shared memory in the write order wperm (two bytes a block: the group's threads by
// their block's position, and by their transpose's), consecutive threads on
// consecutive doubles of runs of consecutive blocks — a row's blocks in the group,
// a later row's transposes of them — so that the stores coalesce.
//
// The sums. Without rounds a thread integrates one block's contributions, the group's
// blocks listed by descending contribution count (so that a warp's lanes sum about as
// many). That leaves the thread block waiting on its diagonal blocks
// (a vertex of a tetrahedral mesh sums about 24 elements, an edge 4 to 6), which
// costs little when a contribution is one quadrature point and much when it is
// several. A diagonal block's element blocks are symmetric bitwise, so its thread
// computes their upper triangles only (ela_staged_diag), which shortens the longest
// sums. With rounds the group's contributions are integrated THREADS at a time,
// one a thread, each element block into shared memory, and each block's thread adds
// its own, in order, to its accumulator. A round integrates its contributions in the
// order of their codes (lpairs, by element, then row node, then column node: a warp's
// lanes read the records of a few elements, mostly the same addresses, instead of
// as many elements' records as lanes with their bank conflicts), permuted within
// each half-warp so that the blocks' threads read the window without bank conflicts
// (fem/cudafem's colorRounds), and lslot[u] is the place in its round of the
// block-ordered contribution u, where its block's thread reads it. Either way each
// element block is computed alone and added in ascending element order, as fem's
// Numeric does.
//
// Three thread blocks a multiprocessor (the registers allow two otherwise; four
// spill): the groups are cut for about a third of its shared memory (stagedBudget
// of fem/cudafem), and a block's phases (staging, sums, writes) overlap the
// others'. ela_staged_run is its body: Rounds (1 or 0; −1 for the argument
// rounds_) and, when positive, N and NQ fix the shape at compile time, so that
// an instantiation for one shape unrolls its loops over nodes and points and
// holds fewer registers (elas_staged_tet4).
template <int Rounds, int N = 0, int NQ = 0>
__device__ __forceinline__ void ela_staged_run(ELA_STAGED_PARAMS(n_, nq_, rounds_))
{
    const int rounds = Rounds < 0 ? rounds_ : Rounds;
    const int n = N > 0 ? N : n_, nq = NQ > 0 ? NQ : nq_;
    if (bad != nullptr && *bad < elements) return;
    extern __shared__ double sh[];
    const int R = ela_staged_stride(n);
    const i64 w0 = gw[blockIdx.x], w1 = gw[blockIdx.x + 1], e0 = ge[blockIdx.x], e1 = ge[blockIdx.x + 1];
    const int nw = (int)(w1 - w0), ne = (int)(e1 - e0);
    // Every load that depends on the group's bounds alone is issued at once, so that
    // they wait together: its contributions' range, each thread's first two
    // elements (most groups of one-point elements stage between one and two a
    // thread), and the thread's block (the group's threadIdx.x-th, at t, its
    // transpose at m) and its contributions [v0, v1).
    const i64 u0 = lptr[w0], u1 = lptr[w1];
    const int ef = threadIdx.x < ne * nq ? elems[e0 + threadIdx.x / nq] : 0;
    const int es = threadIdx.x + THREADS < ne * nq ? elems[e0 + (threadIdx.x + THREADS) / nq] : 0;
    const bool own = threadIdx.x < nw;
    int v0 = 0, v1 = 0;
    i64 t = 0, m = 0;
    if (own) {
        const i64 v = w0 + threadIdx.x;
        t = work[v], m = mirror[v];
        v0 = (int)(lptr[v] - u0), v1 = (int)(lptr[v + 1] - u0);
    }
    // The slice: the records, the group's contributions and (rounds) a round's
    // element blocks; then the blocks, their transposes and their stored positions.
    const int np = (int)(u1 - u0);
    const int recs = ne * nq * R;
    int* sp = reinterpret_cast<int*>(sh + recs);
    unsigned char* ss = reinterpret_cast<unsigned char*>(sp + np);
    // The slots' bytes take room for the 4-byte words around them (below).
    double* win = sh + recs + (np + 1) / 2 + (rounds ? (np + 15) / 8 : 0);
    // The lists go to shared memory without passing through registers (cp.async),
    // so that no thread waits for them before the barrier after the staging; the
    // slots' bytes as the 4-byte words that hold them, ss offset to the first.
    for (int x = threadIdx.x; x < np; x += THREADS) ela_cp_async4(sp + x, lpairs + u0 + x);
    // The write order (two bytes a block, as the 4-byte words that hold them) past
    // the slice, where the blocks staged for the writes do not reach.
    const unsigned short* so;
    {
        const i64 p0 = w0 >> 1, p1 = (w1 + 1) >> 1;
        int* dst = reinterpret_cast<int*>(sh + slice);
        for (int x = threadIdx.x; x < (int)(p1 - p0); x += THREADS) ela_cp_async4(dst + x, wperm + p0 + x);
        so = reinterpret_cast<const unsigned short*>(dst) + (w0 & 1);
    }
    if (rounds) {
        const i64 b0 = u0 >> 2, b1 = (u0 + np + 3) >> 2;
        const int* src = reinterpret_cast<const int*>(lslot) + b0;
        int* dst = reinterpret_cast<int*>(ss);
        for (int x = threadIdx.x; x < (int)(b1 - b0); x += THREADS) ela_cp_async4(dst + x, src + x);
        ss += u0 & 3;
    }
    // A task per element and point: its gradients and coefficients.
    for (int p = threadIdx.x; p < ne * nq; p += THREADS) {
        const int i = p / nq, q = p - i * nq;
        const int e = p == threadIdx.x ? ef : p == threadIdx.x + THREADS ? es : elems[e0 + i];
        // A record is 80 bytes from a 16-byte boundary: five 16-byte loads, half the
        // L1 requests of ten 8-byte ones.
        double J[ELA_QREC];
        const double2* rec = reinterpret_cast<const double2*>(qdata + ((i64)e * nq + q) * ELA_QREC);
#pragma unroll
        for (int k = 0; k < ELA_QREC / 2; k++) {
            const double2 v = rec[k];
            J[2 * k] = v.x, J[2 * k + 1] = v.y;
        }
        double m, l;
        ela_lame(E[e], nu[e], m, l);
        double* o = sh + p * R;
        o[0] = __ddiv_rn(l, m);
        const double h = ela_scale(J, m);
        for (int b = 0; b < n; b++) ela_grad(o + 1 + 3 * b, grad + (q * n + b) * 3, J, h);
    }
    ela_cp_async_wait();
    __syncthreads();
    double acc[9];
    if (rounds) {
        ela_rounds<THREADS, int>(
            acc, win, 0, np, v0, v1,
            [&](double kb[9], int u) {
                const int d = sp[u];
                ela_staged_block(kb, sh + (d >> 8) * nq * R, nq, R, (d >> 4) & 15, d & 15);
            },
            [&](int u, int) { return (int)ss[u]; });
    } else if (own) {
        if (t == m)
            // A diagonal block: every element block is symmetric, bitwise.
            ela_sum<true>(acc, sp, v0, v1, nq == 1, [&](double kb[9], int d) {
                ela_staged_diag(kb, sh + (d >> 8) * nq * R, nq, R, (d >> 4) & 15);
            });
        else
            ela_sum(acc, sp, v0, v1, nq == 1, [&](double kb[9], int d) {
                ela_staged_block(kb, sh + (d >> 8) * nq * R, nq, R, (d >> 4) & 15, d & 15);
            });
    }
    double tr[9];
    if (own) {
#pragma unroll
        for (int i = 0; i < 3; i++)
#pragma unroll
            for (int j = 0; j < 3; j++) tr[3 * j + i] = acc[3 * i + j];
        if (fixed != nullptr) {
            const int a = ela_row(rowPtr, nodes, t), c = col[t];
            ela_eliminate(acc, t, a, c, fixed, elimPtr, elimSlot, saved);
            if (m != t) ela_eliminate(tr, m, c, a, fixed, elimPtr, elimSlot, saved);
        }
    }
    // The staged records are dead: the blocks take their place, in the group's order
    // (each thread's at its own place: no bank conflicts).
    __syncthreads();
    double* sa = sh;
    double* st = sh + 9 * THREADS;
    i64* sw = reinterpret_cast<i64*>(sh + 18 * THREADS);
    if (own) {
#pragma unroll
        for (int r = 0; r < 9; r++) {
            sa[9 * threadIdx.x + r] = acc[r];
            st[9 * threadIdx.x + r] = tr[r];
        }
        sw[threadIdx.x] = t;
        sw[THREADS + threadIdx.x] = m;
    }
    __syncthreads();
    // Entry k of the write order: the thread of the group's block with the k-th
    // least position, and of the transpose with the k-th least (the diagonal's
    // transposes are the blocks themselves, not written twice).
    for (int x = threadIdx.x; x < 9 * nw; x += THREADS) {
        const int k = x / 9, r = x - 9 * k;
        const int o = so[k], jt = o & 255, jm = o >> 8;
        val[9 * sw[jt] + r] = sa[9 * jt + r];
        const i64 mj = sw[THREADS + jm];
        if (mj != sw[jm]) val[9 * mj + r] = st[9 * jm + r];
    }
}

// ELA_STAGED_ENTRY defines an instantiation of ela_staged_run: its kernel name,
// its thread blocks a multiprocessor and the template's arguments.
#define ELA_STAGED_ENTRY(name, perSM, Rounds, N, NQ)                                                    \
    extern "C" __global__ void __launch_bounds__(THREADS, perSM) name(ELA_STAGED_PARAMS(n, nq, rounds)) \
    {                                                                                                   \
        ela_staged_run<Rounds, N, NQ>(ELA_STAGED_ARGS);                                                 \
    }

// elas_staged: any one shape, rounds as the argument says.
ELA_STAGED_ENTRY(elas_staged, 3, -1, 0, 0)

// elas_staged_tet4 is elas_staged for one-point elements of four nodes (P1
// tetrahedra, no rounds): with the shape constant the kernel holds 64 registers
// without spilling, so four thread blocks share a multiprocessor instead of three
// (their groups cut for fem/cudafem's stagedBudget).
ELA_STAGED_ENTRY(elas_staged_tet4, 4, 0, 4, 1)
