// Package galerkin computes the coarse operator Ac = PᵀAP of algebraic multigrid for
// block sparse operators: A is n×n blocks of b×b, P is n×m blocks of b×k, Ac is m×m
// blocks of k×k (3×3, 3×6 and 6×6 for 3D elasticity with six rigid-body modes; any
// b and k work).
//
// Symbolic computes the pattern of Ac, and whatever its algorithm needs, once;
// Numeric recomputes the values whenever A and P change with the same patterns, which
// is what AMG re-setup spends most of its time on.
//
//	plan, err := galerkin.Symbolic(A, P, galerkin.Auto)
//	…
//	err = plan.Numeric(A, P, workers) // plan.Ac holds PᵀAP
//
// # Arithmetic
//
// With W = A·P (n×m blocks of b×k), every variant computes
//
//	W(i,:)  = Σ_{j ∈ A row i, increasing} A(i,j)·P(j,:)
//	Ac(I,:) = Σ_{i ∈ Pᵀ row I, increasing} P(i,I)ᵀ·W(i,:)
//
// through the same two block kernels, so all variants and all worker counts give
// bitwise identical Ac. The kernels are specialised for (b, k) = (3, 6) and (6, 6)
// (a 3×3 block held in registers times 3×6 slabs; AVX2 with fused multiply-adds on
// amd64 when the processor has it) and generic loops otherwise.
//
// The build tag noasm (go build -tags noasm) leaves the assembly kernel out: the
// 3×3·3×6 products then run the pure Go kernel on amd64 too, about three times
// slower, and round differently in the last bits (no fused multiply-adds). Results are
// still bitwise identical across variants and worker counts within either build, but
// not between a noasm build and a default one on a processor with AVX2 and FMA.
//
// # Variants
//
//   - two-pass: W stored (fine rows in parallel), then Ac by coarse rows through an
//     explicit Pᵀ pattern and a value permutation built at Symbolic (coarse rows in
//     parallel).
//   - fused-row: W rows in a local buffer, scattered into the Ac rows of their P rows;
//     W is never stored. The scatter goes by batches of fine rows whose W rows fill
//     96 KiB: an Ac row gets the batch's contributions together, in increasing fine
//     row, and comes into the private cache once per batch instead of once per row. Fine rows are cut into one chunk per worker; an Ac
//     row is written directly only by the first chunk that touches it, and the W rows
//     that also touch it from later chunks are kept and added by a second pass over
//     those Ac rows, in increasing fine row. Chunks are cut by the work they leave to
//     the first pass; an Ac row is zeroed by its first contribution.
//   - fused-recompute: coarse rows cut into one chunk per worker; each worker walks the
//     fine rows its coarse rows need, recomputing the W rows that two chunks share, and
//     writes only its own Ac rows (batched as fused-row).
//   - inspector: two-pass whose numeric phase streams precomputed output slots (one
//     int32 per block product) instead of looking columns up.
//   - auto: the variant Choose picks for DefaultMachine.
//
// # Traffic model
//
// Stats (ComputeStats, or Plan.Stats) holds pattern statistics: block counts nnz(X) of
// A, P, W, Ac; the block products p_AP = Σ_{(i,j)∈A} |P_j| and p_PW = Σ_i |P_i||W_i|;
// and, for each sweep, the bytes live between two uses of the data it reuses (L_P: P
// rows over the A·P sweep by fine rows; L_W: W rows over the Pᵀ·W sweep by coarse
// rows; L_Ac: Ac rows over the fused sweep by fine rows). With v_X the bytes of one
// block's values (8·b·b for A, 8·b·k for P and W, 8·k·k for Ac), 4-byte column indices
// and 8-byte row pointers, the bytes a variant moves past a cache of C bytes are
//
//	reuse(L, C, u)   = 1 if L ≤ C, else 1 + (u−1)·(L−C)/L     (data used u times)
//	A   = nnz(A)(v_A+4) + 8n
//	P   = (nnz(P)(v_P+4) + 8n) · reuse(L_P, C, nnz(A)/n)
//	Ac  = nnz(Ac)(2v_Ac+4) + 8m                                (read for ownership + write-back)
//	Wp  = 4·nnz(W) + 8n                                        (W pattern)
//
//	two-pass  = A + P + Wp + 2·nnz(W)v_W                       (W written)
//	            + (nnz(W)(v_W+4) + 8n)·(μ + reuse(L_W, C, nnz(P)/n) − 1)  (W read back)
//	            + nnz(P)(12+v_P) + 8m + Ac                      (Pᵀ pattern, permutation, P)
//	inspector = two-pass − Wp + 4(p_AP + p_PW) + 8(n+m)         (slot lists)
//	fused     = A + P + Wp + 8m + 2·min(nnz(W)v_W, 96 KiB)  (batch buffer)
//	            + nnz(Ac)(2v_Ac+4)·reuse(L_Ac, C, V_Ac/m)      (Ac rows updated in place)
//
// where V_Ac is the Ac row visits of the batched scatter (Σ over batches of the
// distinct Ac rows they touch: each visit updates the row with all of the batch's
// contributions), and
//
//	fused-row       += (w−1)·2·v_W·D₂        D₂: W blocks deferred by a two-way split
//	fused-recompute += (w−1)·(A + P + Wp)·R₂/n, flops += (w−1)·2b²k·p₂
//	                                          R₂, p₂: rows and block products computed twice
//
// μ is the fraction of W rows evicted between their write and their first read
// back: for the row at fraction x of the two sweeps the data touched in between is
// about D(x) = W + P + (1−x)·A + x·Ac (plus the slot lists each sweep streams, for
// inspector), and μ is the fraction of x ∈ [0,1] with D(x) > C (0 when W stays in
// the cache, as on mid-size coarse levels; 1 on the fine level).
//
// Flops are 2(p_AP·b²k + p_PW·bk²) for every variant (plus recomputation). Predict
// evaluates the traffic at C = CacheBytes/w (memory bytes, Prediction.Bytes) and at
// C = PrivateCacheBytes (minus the memory bytes: shared-cache bytes), counts the rows
// each variant starts reading at a place no cache or prefetcher holds (fetches: the
// W and P rows of the stored-W variants' coarse-row sweep, the Ac rows of the fused
// sweep, each weighted by the fraction of its reuses the cache misses), and returns
//
//	compute = (flops + w(w−1)·E₂)/(FlopRate·w) + (p·τ[c][v] + q·κ[c][v])/w
//	stream  = memory bytes/Bandwidth + cache bytes/(CacheBandwidth·w)
//	seconds = max(compute, stream) + fetches·MemoryLatency/w
//
// p = p_AP + p_PW is the block products and q = nnz(A) + nnz(P) the kernel calls (one
// per A block sweeps a P row into W, one per P block sweeps a W row into Ac);
// fused-recompute adds its recomputed products (w−1)·p₂ and their calls. E₂
// (fused-row only) is the flops on the critical path of a two-way split beyond half
// of all: the longer chunk's first pass plus half the deferred contributions.
//
// τ[c][v] and κ[c][v] (Machine.PerProduct, Machine.PerCall) are what a block product
// and a kernel call cost variant v beyond the flops when the data is in cache: kernel
// set-up (the 6×6 products are four 3×3 register sweeps), the column lookups pos[col]
// that two-pass and the fused variants make and inspector reads from its slot list,
// the per-row set-up of column maps and row clears, and the private-cache traffic of
// where the output block lives. They are calibrated per shape class c (0: b < k as
// the fine level's 3×3·3×6; 1: the coarse levels' 6×6) by timing every variant on two
// cache-resident synthetic products with short and long rows and solving for τ and κ.
// FlopRate is the bare kernel's rate on first-level-cache data, so τ, κ ≥ 0. On the
// development VM κ dominates on the coarse levels (about 60–70 ns a call against 11
// ns of flops per 6×6 product; rows of 4–9 blocks), and it is what sets the variants
// apart there: the fused variants' calls cost 10–15% less than the stored-W
// variants'. Without κ the model would predict every variant equal on the
// compute-bound coarse levels.
//
// Choose takes the variant with the least predicted time; predictions within 2% of it
// (the spread of κ between calibrations) count as equal and go to the one that moves
// the least data. Every machine dependence is in Machine: DefaultMachine holds the
// development VM's figures, Calibrate measures them (a streaming sweep for the
// bandwidths, random row reads for the latency, the bare kernel for the flop rate,
// every variant on the calibration products for τ and κ), and a GPU backend can reuse
// the formulas with its own parameters.
//
// # Checking the model
//
// The development VM exposes no hardware cache counters (perf reports every hardware
// event, cache-misses and LLC-load-misses included, as not supported). Plan.SimulateTraffic
// stands in for them: it replays one worker's numeric phase of the plan's variant, the
// arrays in the order the loops touch them, through a fully associative LRU cache of
// 64-byte lines (write-allocate, write-back, cold start as after the benchmark's cache
// flush) and counts the lines read and written back. It measures the traffic of the
// variant's address stream in that idealised cache, not a real cache's (limited
// associativity, prefetchers, other tenants); what it checks is the model's summary of
// the stream (reuse interpolation, live-bytes averages, the scratch data it leaves
// out). `blockamg galerkin --simulate` prints both per level and variant, at the
// model's shared and private cache sizes.
package galerkin
