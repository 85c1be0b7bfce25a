package cuda

import (
	"fmt"
	"math"
	"strings"

	"github.com/blockamg/blockamg/internal/cudadrv"
)

// GalerkinMachine holds the device rates the Galerkin traffic model uses.
type GalerkinMachine struct {
	L2Bytes   int64   // L2 cache size
	Bandwidth float64 // DRAM bandwidth, bytes/s (the measured copy bandwidth)
	FMARate   float64 // FP64 flop/s on the CUDA cores (2 flops per FMA), measured by FMARate
	SMs       int     // multiprocessors
	// TCRate is the FP64 tensor-core rate in flop/s of mma.m8n8k4 (512 flops each),
	// measured by DMMARate; 0 leaves the term out.
	TCRate float64
	// L1Rate is the rate at which the multiprocessors' L1 caches serve 128-byte lines
	// to load instructions: one line per clock per SM (SMs × SM clock); 0 leaves the
	// term out.
	L1Rate float64
}

// GalerkinPrediction is the model's estimate for one variant (or one stage).
type GalerkinPrediction struct {
	Bytes int64 // DRAM bytes read and written
	Flops int64 // floating-point operations (2 per multiply-add), padding excluded
	MMAs  int64 // mma.m8n8k4 instructions (tensor-core variants)
	Lines int64 // 128-byte L1 lines the load instructions touch
	// Seconds is the largest of Bytes/Bandwidth, Flops/FMARate (scalar variants) or
	// 512·MMAs/TCRate (tensor-core variants), and Lines/L1Rate: a roofline with the
	// three overlapped.
	Seconds float64
}

// Byte counts of the operands (values, column indices, row pointers).
func (s GalerkinStats) bytesA() int64 {
	return s.NnzA*int64(s.R*s.R*8+4) + int64(s.N+1)*8
}
func (s GalerkinStats) bytesP() int64 {
	return s.NnzP*int64(s.R*s.C*8+4) + int64(s.N+1)*8
}
func (s GalerkinStats) bytesWVal() int64  { return s.NnzW * int64(s.R*s.C*8) }
func (s GalerkinStats) bytesAcVal() int64 { return s.NnzAc * int64(s.C*s.C*8) }

// flopsAP and flopsPW count 2 flops per multiply-add of the block products.
func (s GalerkinStats) flopsAP() int64 { return s.ProdAP * int64(2*s.R*s.R*s.C) }
func (s GalerkinStats) flopsPW() int64 { return s.ProdPW * int64(2*s.R*s.C*s.C) }

// FloorBytes is the streaming floor's traffic: A and P read once (values, indices,
// row pointers) and Ac's values written once.
func (s GalerkinStats) FloorBytes() int64 { return s.bytesA() + s.bytesP() + s.bytesAcVal() }

// FloorFlops is the flops of the block products, each done once.
func (s GalerkinStats) FloorFlops() int64 { return s.flopsAP() + s.flopsPW() }

// Floor returns the roofline floor of the whole product in seconds:
// max(FloorBytes/Bandwidth, FloorFlops/FMARate).
func (s GalerkinStats) Floor(mc GalerkinMachine) float64 {
	return math.Max(float64(s.FloorBytes())/mc.Bandwidth, float64(s.FloorFlops())/mc.FMARate)
}

// FloorAP is the floor of the A·P stage alone: A and P read once, W's values
// written once, or the A·P flops.
func (s GalerkinStats) FloorAP(mc GalerkinMachine) float64 {
	return math.Max(float64(s.bytesA()+s.bytesP()+s.bytesWVal())/mc.Bandwidth, float64(s.flopsAP())/mc.FMARate)
}

// wRereads is the W traffic of the Pᵀ·W pass beyond one read: each W block is read by
// u = ProdPW/NnzW Ac blocks, and a re-read misses L2 with probability
// μ_W = max(0, 1 − L/D_W), D_W = rows·|W|/M the share of W under the coarse rows in
// flight (rows = those the resident threads or warps work on). The first version
// counted NnzP/M fine rows per coarse row without their overlap (each fine row lies
// under NnzP/N coarse rows), which for the thread-per-block variants, with every
// coarse row in flight, differs by under 10%; for a warp per coarse row it
// overstated D_W 4.5-fold on ex56.
//
// Of the re-reads that term keeps in L2, those of a W row whose next coarse row
// comes far later in the walk miss too (wGapMisses, gapMisses): a fine row's P row spans
// coarse rows in neighbouring coarse z-planes of a 3D mesh, a plane of coarse rows
// apart, and the Pᵀ·W pass streams about ProdPW/M·(2·8RC + 8) bytes a coarse row in
// between. Added after Nsight Compute measured tc-block's Pᵀ·W at 1024 MB (ne = 64)
// and 4278 MB (ne = 100) where the model said 840 and 3208 (μ_W = 0 with a warp per
// Ac block): the gap term predicts +269 and +1032 MB, without a fitted constant.
func (s GalerkinStats) wRereads(mc GalerkinMachine, rows float64) int64 {
	if s.NnzW == 0 || s.NnzAc == 0 || s.M == 0 || s.N == 0 {
		return 0
	}
	u := float64(s.ProdPW) / float64(s.NnzW)
	rows = math.Min(float64(s.M), rows)
	dw := rows * float64(s.bytesWVal()) / float64(s.M)
	mu := math.Max(0, 1-float64(mc.L2Bytes)/math.Max(dw, 1))
	return int64(float64(s.bytesWVal())*math.Max(0, u-1)*mu + float64(s.wGapMisses(mc))*(1-mu))
}

// wGapMisses is the W bytes re-read after a gap of coarse rows whose streamed bytes
// (ProdPW/M·(2·8RC + 8) a coarse row) pass the L2 a shared line can use, from the
// histogram WRereadGaps.
func (s GalerkinStats) wGapMisses(mc GalerkinMachine) int64 {
	if s.M == 0 {
		return 0
	}
	return gapMisses(s.WRereadGaps, float64(s.ProdPW)*float64(2*8*s.R*s.C+8)/float64(s.M), mc)
}

// pGapMisses is the same for the A·P pass and P's rows: a P row is read again by the
// next fine row whose A row has it as a column, often a fine z-plane later, and the
// pass brings about (|A| + |W| + |P| + 4·ProdAP)/N new bytes into L2 a fine row
// (PRereadGaps). Added after Nsight Compute measured the A·P kernels of smem-tiles and
// tc-pairs at ne = 100 1.2–1.3 GB above the model (within 2% at ne = 64): it predicts
// +1370 MB at ne = 100, where a plane is ~10⁴ fine rows, and nothing at ne = 64.
func (s GalerkinStats) pGapMisses(mc GalerkinMachine) int64 {
	if s.N == 0 {
		return 0
	}
	perRow := float64(s.bytesA()+s.bytesWVal()+s.bytesP()+4*s.ProdAP) / float64(s.N)
	return gapMisses(s.PRereadGaps, perRow, mc)
}

// gapMisses sums the bytes of a gap histogram (bucket b: gaps in [2^b, 2^(b+1)),
// counted at 2^b) whose gap times perRow bytes streamed in between passes half the
// L2: the H100-class L2 is two partitions, each caching the lines its own SMs read,
// so a line every SM reads occupies both. The measurements agree: the ne = 100 P
// re-reads, about 49 MB of streamed data apart, miss; those of ne = 64, 20 MB apart,
// hit; the whole 60 MB would keep both.
func gapMisses(h [32]int64, perRow float64, mc GalerkinMachine) int64 {
	miss := int64(0)
	for b, bytes := range h {
		if float64(int64(1)<<b)*perRow > float64(mc.L2Bytes)/2 {
			miss += bytes
		}
	}
	return miss
}

// Coarse rows in flight: resident threads (or warps) over the Ac blocks (or rows)
// each takes. tcRowsWarps is the warps per SM the tc-rows kernels keep resident
// (16 for 16 accumulators at 128 registers, 8 for 32 at about 200: 256-thread blocks).
func (s GalerkinStats) rowsThreadPerBlock(mc GalerkinMachine) float64 {
	return float64(max(mc.SMs, 1)*2048) / math.Max(1, float64(s.NnzAc)/float64(max(s.M, 1)))
}
func (s GalerkinStats) rowsWarpPerBlock(mc GalerkinMachine) float64 {
	return float64(max(mc.SMs, 1)*64) / math.Max(1, float64(s.NnzAc)/float64(max(s.M, 1)))
}
func tcRowsWarps(v GalerkinVariant) int {
	if v == GalerkinTCRows32 {
		return 8
	}
	return 16
}

// lines is the expected number of 128-byte lines a run of b bytes starting at a
// random 8-byte boundary touches.
func lines(b int) float64 { return float64(b+120) / 128 }

// scalarLineFactor is the lines a thread-per-output-block kernel's warp-wide load
// touches per lane: each lane reads a different block, so a load instruction touches
// about 20 distinct lines of 32 lanes. Fitted to the first H200 run (ne = 64 fine
// level: inspector A·P 2.06 ms for 3.0·10⁷ products of 27 loads each, at one line per
// SM clock), and the same for every scalar kernel.
const scalarLineFactor = 0.63

// linesPerProduct returns the L1 lines per block product of each stage:
//
//	scalar kernels (thread per output block): 0.63 × the loads per product,
//	  R² + RC (A·P, for every product computed: ProdAPFused for fused-recompute) and
//	  2RC (Pᵀ·W).
//	tc-block (warp per output block): per product the list entry (one line), then per
//	  K chunk of four one load instruction per operand, each touching the lines of
//	  its block: 1 + k·(ℓ(8R²) + ℓ(8RC)) and 1 + 2k·ℓ(8RC), k = ⌈R/4⌉, ℓ = lines.
//	tc-rows: the B operand of each product, k·ℓ(8RC), plus, per A block (Pᵀ entry),
//	  its own fragment and a slot word, shared by its ProdAP/NnzA (ProdPW/NnzP)
//	  products; rows16 loads the fragment and word again per window of 16 output
//	  blocks beyond the first (Rewalk; a product outside the window loads nothing).
//	smem-rows: per product a lane's R loads of one column of the B operand, each
//	  touching ℓ(8C) lines, R·ℓ(8C); per A block (Pᵀ entry) its R² (RC) broadcast
//	  loads and a slot word, one line each, shared by its products, once per window
//	  (SmemRewalk).
//
// Stores (one ℓ(8RC) per W block, ℓ(8C²) per Ac block) are added by PredictGalerkin.
func (s GalerkinStats) linesPerProduct(v GalerkinVariant) (ap, pw float64) {
	R, C := s.R, s.C
	k := float64((R + 3) / 4)
	lA, lP := lines(8*R*R), lines(8*R*C)
	switch v {
	case GalerkinTCBlock:
		return 1 + k*(lA+lP), 1 + 2*k*lP
	case GalerkinTCPairs: // per merged product: two A blocks and a P block
		return 1 + 2*lA + lP, 1 + 2*k*lP
	case GalerkinTCRows16, GalerkinTCRows32:
		perA := float64(s.ProdAP) / math.Max(1, float64(s.NnzA))
		perE := float64(s.ProdPW) / math.Max(1, float64(s.NnzP))
		fa, fe := 1.0, 1.0
		if v == GalerkinTCRows16 {
			fa += float64(s.RewalkW16) / math.Max(1, float64(s.ProdAP))
			fe += float64(s.RewalkAc16) / math.Max(1, float64(s.ProdPW))
		}
		return k*lP + fa*(k*lA+1)/math.Max(1, perA), k*lP + fe*(k*lP+1)/math.Max(1, perE)
	case GalerkinSmemRows:
		perA := float64(s.ProdAP) / math.Max(1, float64(s.NnzA))
		perE := float64(s.ProdPW) / math.Max(1, float64(s.NnzP))
		fa := 1 + float64(s.SmemRewalkW)/math.Max(1, float64(s.NnzA))
		fe := 1 + float64(s.SmemRewalkAc)/math.Max(1, float64(s.NnzP))
		col := float64(R) * lines(8*C)
		return col + fa*float64(R*R+1)/math.Max(1, perA), col + fe*float64(R*C+1)/math.Max(1, perE)
	}
	return scalarLineFactor * float64(R*R+R*C), scalarLineFactor * float64(2*R*C)
}

// PredictGalerkin returns the model's DRAM traffic, flops and time for variant v and
// stage. With |X| the bytes of X (values + column indices + row pointers for A and P,
// values only for W and Ac), L the L2 size; every A·P pass but fused-recompute's adds
// the P rows read again across fine planes (pGapMisses), and the W re-read term
// wRereads includes those across coarse planes (wGapMisses):
//
//	two-pass (atomic, nondeterministic)
//	  A·P:  |A| + |P| + |W| (written) + 8·nnzW (W's row and column indices)
//	  Pᵀ·W: |W| + 8·nnzW + |P| + |Ac| (zeroing) + |Ac| (final write-back)
//	        + |Ac| · (ProdPW/nnzAc) · max(0, 1 − L/D_Ac) (atomic updates that miss L2;
//	        D_Ac = |Ac| · min(1, F/N), F = SMs·2048/(nnzW/N) the fine rows in flight:
//	        the first version took D_Ac = |Ac| and predicted 0.6 GB (ne = 64) and 11.6 GB
//	        (ne = 100) of misses where Nsight Compute measured the update kernel at 0.8
//	        and 3.2 GB in all, with 97% of its L2 sectors hits)
//	        + |Ac pattern| (the binary searches; read once when it fits L2)
//	inspector-block, inspector-rows (packed lists), inspector (absolute lists)
//	  A·P:  |A| + |P| + |W| + S_W   (S_W: W list, 4 B per product (8 for inspector),
//	        + 16 B per W block (8 for inspector))
//	  Pᵀ·W: |W| + |P| + |Ac| + S_Ac + |W|·(u − 1)·μ_W (S_Ac: Ac list, 4 B per product
//	        (8), + 12 B per Ac block, + Pᵀ's index arrays; the last term the W re-reads
//	        that miss L2, see wRereads; added after the first Nsight Compute
//	        measurement showed the Pᵀ·W pass reading W about three times)
//	tc-block: as inspector, with the W re-reads of a warp per Ac block (64 resident
//	  warps per SM).
//	tc-pairs: A·P |A| + |P| + |W| + 12 B per merged product (its triple) + 16 B per
//	  pair entry; Pᵀ·W as tc-block.
//	the symmetric half (Symmetric: tc-block, tc-pairs, smem-tiles): Pᵀ·W's lists are
//	  the upper blocks' (8 B a product, 16 B a block), and both stages move only the
//	  share of |W| in the blocks the half reads (wHalf; smem-tiles adds 4 B a W block,
//	  its slot). Nsight Compute, ne = 64 (run105): +7.8%, +9.9%, +12.0%; before W's
//	  read share was counted, +12.9%, +15.0%, +22.3%.
//	tc-rows16, tc-rows32 (slot words, no product lists)
//	  A·P:  |A| + |P| + |W| + 8·(slot words of W) + 8·(N+1)
//	  Pᵀ·W: |W| + |P| + |Ac| + 8·(slot words of Ac) + 12·NnzP (Pᵀ's P index and fine
//	        row) + 16·(M+1) + |W|·(u − 1)·μ_W with the coarse rows of 16 (8)
//	        resident warps per SM in flight.
//	smem-rows: as tc-rows, plus 8 bytes per window (the window list), with the coarse
//	  rows of 24 resident warps per SM over the windows per coarse row in flight.
//	fused-recompute
//	  FusedSimBytes, the replay of its loads through half the L2 (SimulateFused),
//	  when the statistics carry it; without it the estimate
//	  (|A| + |P| + S_W)·(1 + (ρ − 1)·μ) + S_Ac + |P| + |Ac|,
//	  ρ = ProdAPFused/ProdAP the recompute factor (each W block is recomputed once per
//	  P block of its fine row), μ = max(0, 1 − L/D) the fraction of the re-reads that
//	  miss L2, D the data the threads in flight touch between two uses of a fine row:
//	  (|A| + |P| + S_W)/N bytes per fine row × the fine rows the resident coarse rows
//	  cover, SMs·2048 threads / (nnzAc/M) blocks per coarse row × (NnzP/M) fine rows
//	  per coarse row. It underestimates: Nsight Compute measured 2.9× and 4.0× more
//	  on the ex56 fine level at ne = 64 and 100 (the replay: within 6% and 14%). The
//	  chooser makes do with it, because fused-recompute loses even so.
//
// Flops: 2R²C per A·P product (ρ times for fused-recompute) and 2RC² per Pᵀ·W product;
// the tensor-core variants issue ⌈R/4⌉ mma.m8n8k4 (512 flops with the padding) per
// product instead. L1 lines: see linesPerProduct. The time is the roofline
// max(Bytes/Bandwidth, Flops/FMARate or 512·MMAs/TCRate, Lines/L1Rate): it assumes the
// kernel overlaps memory, arithmetic and load issue and ignores latency, so it is a
// lower bound whose ranking of variants is what the chooser uses. The row kernels
// (tc-rows, smem-rows) add a fitted latency path (tcRowsPath, smemRowsPath), the
// larger of the two being the time; tc-block and tc-pairs a fitted cost in SM cycles
// per mma step (tcbCyclesAP, tcbCyclesPW, tcPairsCycles).
func PredictGalerkin(s GalerkinStats, mc GalerkinMachine, v GalerkinVariant, stage Stage) GalerkinPrediction {
	if v == GalerkinSmemTiles {
		return s.predictTiles(mc, stage)
	}
	A, P, W, Ac := s.bytesA(), s.bytesP(), s.bytesWVal(), s.bytesAcVal()
	acPattern := s.NnzAc*4 + int64(s.M+1)*8
	var bytesAP, bytesPW, flopsAP, flopsPW int64
	flopsAP, flopsPW = s.flopsAP(), s.flopsPW()
	L := float64(mc.L2Bytes)
	switch v {
	case GalerkinTwoPassND:
		bytesAP = A + P + W + 8*s.NnzW
		miss := 0.0
		if Ac > 0 && s.N > 0 && s.NnzW > 0 {
			// The Ac blocks under update at once: those of the fine rows in flight
			// (one thread per W block), a share rows/N of Ac, since the fine rows that
			// add into an Ac block are neighbours in the fine ordering.
			rows := float64(max(mc.SMs, 1)*2048) / (float64(s.NnzW) / float64(s.N))
			live := math.Min(1, rows/float64(s.N)) * float64(Ac)
			miss = math.Max(0, 1-L/live)
		}
		upd := 0.0
		if s.NnzAc > 0 {
			upd = float64(s.ProdPW) / float64(s.NnzAc)
		}
		bytesPW = W + 8*s.NnzW + P + 2*Ac + int64(float64(Ac)*upd*miss) + acPattern
	case GalerkinInspector, GalerkinInspectorBlock, GalerkinInspectorRows, GalerkinTCBlock:
		sw, sa := s.ScheduleW, s.ScheduleAc
		if v == GalerkinInspector || v == GalerkinTCBlock {
			sw, sa = s.ScheduleWAbs, s.ScheduleAcAbs+s.NnzAc*4
		}
		rows := s.rowsThreadPerBlock(mc)
		if v == GalerkinTCBlock {
			rows = s.rowsWarpPerBlock(mc)
			if s.Symmetric {
				// The symmetric half: the upper blocks' lists, (block, mirror) pairs and
				// pointers; a warp per upper block, so more coarse rows in flight.
				sa = 8*s.ProdPWUpper + 16*s.NnzAcUpper
				rows *= float64(s.NnzAc) / math.Max(1, float64(s.NnzAcUpper))
			}
		}
		wWritten, wRead := W, W
		if v == GalerkinTCBlock && s.Symmetric {
			// The half reads only some W blocks; the A·P computes only those, picked
			// by a list (4 bytes a block).
			wRead = s.wHalf(W)
			wWritten = wRead + 4*(s.NnzW-s.WUnread)
		}
		bytesAP = A + P + wWritten + sw
		bytesPW = wRead + P + Ac + sa + s.wRereads(mc, rows)
	case GalerkinTCPairs:
		wWritten := W
		if s.Symmetric {
			wWritten = s.wHalf(W) // only the W blocks the half reads
		}
		bytesAP = A + P + wWritten + 12*s.PairProds + 16*s.PairEntries + 8
		bytesPW = PredictGalerkin(s, mc, GalerkinTCBlock, StagePW).Bytes // the same kernel
	case GalerkinTCRows16, GalerkinTCRows32:
		bytesAP = A + P + W + 8*s.SlotWordsW + 8*int64(s.N+1)
		rows := float64(max(mc.SMs, 1) * tcRowsWarps(v))
		bytesPW = W + P + Ac + 8*s.SlotWordsAc + 12*s.NnzP + 16*int64(s.M+1) + s.wRereads(mc, rows)
	case GalerkinSmemRows:
		bytesAP = A + P + W + 8*s.SlotWordsW + 8*int64(s.N+1) + 8*s.SmemWinW
		// Coarse rows in flight: 24 resident warps per SM (three 256-thread blocks,
		// the kernel's launch bounds) over the windows of a row.
		rows := float64(max(mc.SMs, 1)*24) / math.Max(1, float64(s.SmemWinAc)/math.Max(1, float64(s.M)))
		bytesPW = W + P + Ac + 8*s.SlotWordsAc + 12*s.NnzP + 16*int64(s.M+1) + 8*s.SmemWinAc + s.wRereads(mc, rows)
	case GalerkinFused:
		rho := 1.0
		if s.ProdAP > 0 {
			rho = float64(s.ProdAPFused) / float64(s.ProdAP)
		}
		perRow := float64(A+P+s.ScheduleW) / math.Max(1, float64(s.N))
		acPerRow := float64(s.NnzAc) / math.Max(1, float64(s.M))
		ptPerRow := float64(s.NnzP) / math.Max(1, float64(s.M))
		inflight := float64(max(mc.SMs, 1)*2048) / math.Max(1, acPerRow) * ptPerRow * perRow
		mu := 0.0
		if inflight > 0 {
			mu = math.Max(0, 1-L/inflight)
		}
		bytesAP = int64(float64(A+P+s.ScheduleW) * (1 + (rho-1)*mu))
		bytesPW = s.ScheduleAc + P + Ac
		if s.FusedSimBytes > 0 { // one kernel: its reads, then Ac written
			bytesAP, bytesPW = max(s.FusedSimBytes-Ac, 0), min(Ac, s.FusedSimBytes)
		}
		flopsAP = int64(float64(flopsAP) * rho)
	}
	if v != GalerkinFused {
		bytesAP += s.pGapMisses(mc) // every A·P pass but fused-recompute's walks the fine rows in order
	}
	lap, lpw := s.linesPerProduct(v)
	prodAP := float64(s.ProdAP)
	switch v {
	case GalerkinFused:
		prodAP = float64(s.ProdAPFused)
	case GalerkinTCPairs:
		prodAP = float64(s.PairProds)
	}
	linesAP := int64(prodAP*lap + float64(s.NnzW)*lines(8*s.R*s.C))
	prodPW := float64(s.ProdPW)
	symHalf := s.Symmetric && (v == GalerkinTCBlock || v == GalerkinTCPairs)
	if symHalf {
		prodPW = float64(s.ProdPWUpper)
	}
	linesPW := int64(prodPW*lpw + float64(s.NnzAc)*lines(8*s.C*s.C))
	tc := v == GalerkinTCBlock || v == GalerkinTCRows16 || v == GalerkinTCRows32 || v == GalerkinTCPairs
	k := int64((s.R + 3) / 4)
	var pr GalerkinPrediction
	var mAP, mPW int64
	if tc {
		mAP, mPW = s.ProdAP*k, s.ProdPW*k
	}
	if v == GalerkinTCPairs {
		mAP = s.PairProds
	}
	if symHalf {
		mPW = s.ProdPWUpper * k
		if v == GalerkinTCBlock {
			mAP = (s.ProdAP - s.ProdAPUnread) * k
		}
	}
	switch stage {
	case StageAP:
		pr.Bytes, pr.Flops, pr.MMAs, pr.Lines = bytesAP, flopsAP, mAP, linesAP
	case StagePW:
		pr.Bytes, pr.Flops, pr.MMAs, pr.Lines = bytesPW, flopsPW, mPW, linesPW
	default:
		pr.Bytes, pr.Flops, pr.MMAs, pr.Lines = bytesAP+bytesPW, flopsAP+flopsPW, mAP+mPW, linesAP+linesPW
	}
	pr.Seconds = float64(pr.Bytes) / mc.Bandwidth
	switch {
	case !tc:
		pr.Seconds = math.Max(pr.Seconds, float64(pr.Flops)/mc.FMARate)
	case mc.TCRate > 0:
		pr.Seconds = math.Max(pr.Seconds, 512*float64(pr.MMAs)/mc.TCRate)
	}
	if mc.L1Rate > 0 {
		pr.Seconds = math.Max(pr.Seconds, float64(pr.Lines)/mc.L1Rate)
	}
	if v == GalerkinTCRows16 || v == GalerkinTCRows32 {
		pr.Seconds = math.Max(pr.Seconds, s.tcRowsPath(mc, stage))
	}
	if v == GalerkinSmemRows {
		pr.Seconds = math.Max(pr.Seconds, s.smemRowsPath(mc, stage))
	}
	if (v == GalerkinTCBlock || v == GalerkinTCPairs) && mc.L1Rate > 0 {
		ap, pw := tcbCyclesAP, tcbCyclesPW
		if v == GalerkinTCPairs {
			ap = tcPairsCycles
		}
		if symHalf {
			pw = tcbCyclesPWSym
		}
		// L1Rate is SMs × clock: SM cycles a second.
		pr.Seconds = math.Max(pr.Seconds, pickStage(stage, ap*float64(mAP), pw*float64(mPW))/mc.L1Rate)
	}
	return pr
}

// wHalf returns the share of W's bytes w (of its NnzW blocks) in the blocks the
// symmetric half reads: what it reads, and what tc-block, tc-pairs and smem-tiles
// write with it.
func (s GalerkinStats) wHalf(w int64) int64 {
	if s.NnzW == 0 {
		return w
	}
	return int64(float64(w) * float64(s.NnzW-s.WUnread) / float64(s.NnzW))
}

// SM cycles a tensor-core warp kernel spends per mma.m8n8k4 step of its product walk
// when the device is full, fitted on the H200 (ex56 ne = 64 fine level, 2026-11-30,
// eighth pass: tc-block's A·P 1.91 ms for 3.25·10⁷ steps, its Pᵀ·W 0.554 ms for
// 1.26·10⁷, tc-pairs' A·P 1.428 ms for 2.17·10⁷ merged steps, over 132 SMs at 1.98
// GHz). Nsight Compute shows these kernels issuing on under half the cycles and
// waiting on each step's operand loads: neither their bytes nor their L1 lines bound
// them, and without this term the two roofline terms, within 10% of each other, put
// tc-block or tc-pairs first depending on the measured bandwidth (a solve picked
// tc-block, 25% slower at ne = 100, once). Out of sample, ne = 100 fine level: tc-pairs
// A·P 5.47 ms predicted, 5.61 measured; Pᵀ·W 2.12 and 2.14; ne = 64 6×6 level 1 (two
// steps a product): A·P 0.223 and 0.182, Pᵀ·W 0.151 and 0.147. Both A·P kernels
// refitted after their L2 prefetch (eleventh pass, with the symmetric half's skip):
// tc-pairs 0.981 ms for 1.92·10⁷ merged steps, with two pair entries a warp (17.2
// before the prefetch, 14.4 with it and one entry a warp), tc-block 1.594 ms for
// 2.86·10⁷ products (15.3 before). Out of sample, ne = 64 6×6 level 1: tc-block A·P
// 0.16 ms measured. tc-pairs refitted again after balancing each block's warps
// (twelfth pass): 0.904 ms for the same steps (13.4 before). Refitted after the rounds
// of four (tc-pairs) and eight (the one-chunk walk) products (thirteenth pass, run108):
// tc-pairs 0.837 ms for 1.917·10⁷ merged steps (12.3 before), tc-block's A·P with the
// half 1.529 ms for 2.86·10⁷ products (14.6 before). Out of sample, ne = 64 6×6 level
// 1, whose kernels did not change: tc-block A·P 0.155 ms measured, 0.178 predicted.
// tcbCyclesPW (the full Pᵀ·W) was not measured again since the eighth pass.
const (
	tcbCyclesAP   = 14.0
	tcbCyclesPW   = 11.4
	tcPairsCycles = 11.4
	// tcbCyclesPWSym: the symmetric half (gal_ac_tcb with sel), per product, fitted
	// on the same level (ninth pass: 0.356 ms for 6.94·10⁶ products, Nsight
	// Compute, 13.4; thirteenth pass, rounds of eight: 0.317 ms). More than the full
	// kernel's: each warp also stores the mirror, and a warp per upper block leaves
	// fewer warps a coarse row.
	tcbCyclesPWSym = 11.9
)

// tcRowsStep is the time one warp of a tc-rows kernel spends per block product of its
// output row, fitted on the H200 (ex56 ne = 64, levels 2 and 3, where few long rows
// leave the device idle: 0.70 µs per A·P product, 0.64 µs per Pᵀ·W product).
const tcRowsStep = 0.68e-6

// tcRowsPath is the critical path of a tc-rows kernel: one warp walks the products of
// an output row in sequence, SMs × 64 warps are resident at once, so a stage takes
// ⌈rows / (SMs·64)⌉ waves of (products per row) × tcRowsStep. On levels with few
// output rows this, not traffic, is the time: the bandwidth terms alone predicted
// 0.057 ms where 3.77 ms was measured (ne = 64, level 2).
func (s GalerkinStats) tcRowsPath(mc GalerkinMachine, stage Stage) float64 {
	return pickStage(stage, wavePath(mc, int64(s.N), s.ProdAP, 64, tcRowsStep), wavePath(mc, int64(s.M), s.ProdPW, 64, tcRowsStep))
}

// wavePath is the time of units (rows, windows) that one warp each walks in steps
// steps in all, warps resident per SM: ⌈units/(SMs·warps)⌉ waves of (steps per unit)
// × step.
func wavePath(mc GalerkinMachine, units, steps int64, warps int, step float64) float64 {
	if units <= 0 || steps <= 0 {
		return 0
	}
	slots := float64(max(mc.SMs, 1) * warps)
	return math.Ceil(float64(units)/slots) * float64(steps) / float64(units) * step
}

// pickStage returns the A·P time, the Pᵀ·W time or their sum, as stage asks.
func pickStage(stage Stage, ap, pw float64) float64 {
	switch stage {
	case StageAP:
		return ap
	case StagePW:
		return pw
	}
	return ap + pw
}

// predictTiles is the model of smem-tiles, stage by stage (two kernels; the whole
// product is their sum):
//
//	A·P:  |A| + |P| + |W| + S_W (4 B per product, its tile-local pair, + W's row and
//	      list pointers) + 12 B per tile + P's re-reads across fine planes
//	      (pGapMisses, as every variant's); L1 lines: every product's A block, ℓ(8R²),
//	      and every staged P block once per tile, ℓ(8RC); flops 2R²C per product on
//	      the CUDA cores; the time the roofline of the three, the L1 term at least
//	      tileCycles per product (fitted).
//	Pᵀ·W: tc-block's.
func (s GalerkinStats) predictTiles(mc GalerkinMachine, stage Stage) GalerkinPrediction {
	var ap GalerkinPrediction
	wWritten := s.bytesWVal()
	if s.Symmetric {
		// With the half, only the W blocks it reads, each at its slot (4 bytes a block).
		// The time terms keep every product: the skipped blocks' threads saved about
		// 1% of the kernel's time (H200, ne = 64: 1.634 → 1.622 ms).
		wWritten = s.wHalf(wWritten) + 4*s.NnzW
	}
	ap.Bytes = s.bytesA() + s.bytesP() + wWritten + s.ProdAP*4 + (s.NnzW+1)*8 + int64(s.N+1)*8 + 12*s.Tiles + s.pGapMisses(mc)
	ap.Flops = s.flopsAP()
	ap.Lines = int64(float64(s.ProdAP)*lines(8*s.R*s.R) + float64(s.TileBlocks)*lines(8*s.R*s.C))
	ap.Seconds = math.Max(float64(ap.Bytes)/mc.Bandwidth, float64(ap.Flops)/mc.FMARate)
	if mc.L1Rate > 0 {
		ap.Seconds = math.Max(ap.Seconds, math.Max(float64(ap.Lines), tileCycles*float64(s.ProdAP))/mc.L1Rate)
	}
	if stage == StageAP {
		return ap
	}
	pw := PredictGalerkin(s, mc, GalerkinTCBlock, StagePW)
	if stage == StagePW {
		return pw
	}
	return GalerkinPrediction{Bytes: ap.Bytes + pw.Bytes, Flops: ap.Flops + pw.Flops, MMAs: pw.MMAs, Lines: ap.Lines + pw.Lines,
		Seconds: ap.Seconds + pw.Seconds}
}

// tileCycles is the SM cycles the smem-tiles A·P kernel spends per block product,
// fitted on the H200 (ex56 ne = 64 fine level, 2026-11-30: 1.643 ms for 3.25·10⁷
// products over 132 SMs at 1.98 GHz = 13.2; ne = 100, out of sample, 13.5). Its limit
// is L1 (84% busy in Nsight Compute: the shared loads of the staged P blocks, 6.8
// wavefronts a product with bank conflicts, and the A loads), which the lines term,
// counting one line per A block, put 5× lower; without it the chooser ranked
// smem-tiles ahead of tc-pairs, which is 4–6% faster.
const tileCycles = 13.2

// smem-rows step times: the time one warp spends on one step (an A block of W's row,
// a Pᵀ entry of Ac's row) when the device is full, fitted on the H200 (ex56 ne = 64,
// fine level, 2026-11-30: A·P 2.12 ms for 7.19·10⁶ steps over 132 SMs × 32 warps;
// Pᵀ·W 1.48 ms for 2.45·10⁶ steps, each about 2.3 rounds of a W row, over 132 × 24).
// ncu measured the A·P kernel issuing on 43% of cycles with 30 warps resident: it is
// bound by the latency of each step's dependent loads, which the byte and flop terms
// do not see.
const (
	smemStepW  = 1.25e-6
	smemStepAc = 1.9e-6
)

// smemRowsPath is the smem-rows time as steps over warp slots: a stage takes
// ⌈windows/(SMs·w)⌉ waves (w the resident warps per SM its launch bounds allow: 32
// for A·P, 24 for Pᵀ·W) of (steps per window) × the step time; with many waves that
// is the total steps (the first walk plus the re-walks) over SMs·w warp slots.
func (s GalerkinStats) smemRowsPath(mc GalerkinMachine, stage Stage) float64 {
	return pickStage(stage, wavePath(mc, s.SmemWinW, s.NnzA+s.SmemRewalkW, 32, smemStepW),
		wavePath(mc, s.SmemWinAc, s.NnzP+s.SmemRewalkAc, 24, smemStepAc))
}

// ChooseGalerkin returns the deterministic variant with the smallest predicted time
// among those the pattern offers (see GalerkinPlan.Available; the nondeterministic
// baseline is never picked); ties go to the earlier of GalerkinVariants.
func ChooseGalerkin(s GalerkinStats, mc GalerkinMachine) GalerkinVariant {
	best, bt := GalerkinInspector, math.Inf(1)
	for _, v := range GalerkinVariants {
		if !v.Deterministic() || !s.offers(v) {
			continue
		}
		if t := PredictGalerkin(s, mc, v, StageAll).Seconds; t < bt {
			best, bt = v, t
		}
	}
	return best
}

// FMARate measures the FP64 rate of the CUDA cores with kernels/galerkin.cu's
// gal_fma_rate: 8 independent FMA chains per thread, 64 thread blocks per SM, the
// median of reps timed launches after one warm-up; flop/s counting 2 per FMA.
func (b *Backend) FMARate(reps int) (float64, error) {
	f, err := b.fnGlobal("gal_fma_rate")
	if err != nil {
		return 0, err
	}
	const iters = 4096
	blocks := uint32(max(b.info.SMs, 1) * 64)
	y, z := 0.999999, 1e-7
	ms, err := b.TimeMedian(1, reps, func() {
		b.enqueue(func() error {
			b.args.I32(iters).F64(y).F64(z).I32(0).Ptr(0)
			return b.launch("gal_fma_rate", f, blocks)
		})
	})
	if err != nil {
		return 0, fmt.Errorf("cuda: timing gal_fma_rate: %w", err)
	}
	flops := float64(blocks) * threads * iters * 8 * 2
	return flops / (ms * 1e-3), nil
}

// DMMARate measures the FP64 tensor-core rate with kernels/galerkin.cu's
// gal_dmma_rate: 8 independent chains of mma.m8n8k4 per warp,
// 8 thread blocks of 8 warps per SM, the median of reps timed launches after one
// warm-up; flop/s counting 512 per mma (8·8·4 multiply-adds).
func (b *Backend) DMMARate(reps int) (float64, error) {
	return b.mmaRate(reps, "gal_dmma_rate", 512)
}

// DMMA16Rate measures the sm_90 shape mma.m16n8kK (k = 4, 8 or 16) as DMMARate does
// m8n8k4 (kernels/galerkin.cu's gal_dmma16_rate_k*): flop/s counting 2·16·8·k per mma.
// It fails on devices before sm_90, which lack these shapes.
func (b *Backend) DMMA16Rate(reps, k int) (float64, error) {
	if k != 4 && k != 8 && k != 16 {
		return 0, fmt.Errorf("cuda: DMMA16Rate: k = %d, want 4, 8 or 16", k)
	}
	return b.mmaRate(reps, fmt.Sprintf("gal_dmma16_rate_k%d", k), 2*16*8*k)
}

// mmaRate times a rate probe kernel (8 chains of 64 mma per warp, 8 thread blocks of
// 8 warps per SM) and returns flop/s at flops per mma.
func (b *Backend) mmaRate(reps int, name string, flops int) (float64, error) {
	f, err := b.fnGlobal(name)
	if err != nil {
		return 0, err
	}
	const iters = 64
	blocks := uint32(max(b.info.SMs, 1) * 8)
	ms, err := b.TimeMedian(1, reps, func() {
		b.enqueue(func() error {
			b.args.I32(iters).F64(0.5).I32(0).Ptr(0)
			return b.launch(name, f, blocks)
		})
	})
	if err != nil {
		return 0, fmt.Errorf("cuda: timing %s: %w", name, err)
	}
	return float64(blocks) * (threads / 32) * iters * 8 * float64(flops) / (ms * 1e-3), nil
}

// smClockHz returns the device's maximum SM clock (CU_DEVICE_ATTRIBUTE_CLOCK_RATE).
func (b *Backend) smClockHz() (float64, error) {
	var khz int
	err := b.call(func() error {
		var err error
		khz, err = cudadrv.DeviceAttr(b.dev, cudadrv.DeviceAttribute(13))
		return err
	})
	return float64(khz) * 1e3, err
}

// fnGlobal resolves a kernel by name on the worker.
func (b *Backend) fnGlobal(name string) (cudadrv.Function, error) {
	var f cudadrv.Function
	err := b.call(func() error {
		var err error
		f, err = b.function(name)
		return err
	})
	return f, err
}

// function resolves a kernel of the module once and keeps it (a lookup is a driver
// call; the cycle's and the Galerkin plans' launchers ask on every launch). It runs on
// the device thread, which alone touches the cache.
func (b *Backend) function(name string) (cudadrv.Function, error) {
	if f, ok := b.fns[name]; ok {
		return f, nil
	}
	f, err := cudadrv.ModuleGetFunction(b.mod, name)
	if err != nil {
		return 0, fmt.Errorf("cuda: kernel %s: %w", name, err)
	}
	if strings.Contains(name, "_smr_") {
		// The smem-rows kernels keep 36 KiB of shared memory a block: ask for the
		// largest carveout so that their launch bounds' four (A·P) or three (Pᵀ·W)
		// blocks fit on a multiprocessor.
		if err := cudadrv.FuncSetAttribute(f, cudadrv.FuncAttrPreferredSharedCarveout, 100); err != nil {
			return 0, fmt.Errorf("cuda: kernel %s: %w", name, err)
		}
	}
	if b.fns == nil {
		b.fns = map[string]cudadrv.Function{}
	}
	b.fns[name] = f
	return f, nil
}

// GalerkinMachineOf measures the copy bandwidth (cuMemcpyDtoD over 1 GiB buffers, 10
// runs), the FMA and tensor-core rates, reads the SM clock, and returns the model's
// parameters for this device. A device that does not report its clock leaves L1Rate
// zero (the term out of the model) rather than failing.
func (b *Backend) GalerkinMachineOf() (GalerkinMachine, Bandwidth, error) {
	return b.galerkinMachine(1<<30, 10)
}

// galerkinMachine is GalerkinMachineOf with copy buffers of bytes and reps timed runs
// of each measurement.
func (b *Backend) galerkinMachine(bytes int64, reps int) (GalerkinMachine, Bandwidth, error) {
	bw, err := b.CopyBandwidth(bytes, reps)
	if err != nil {
		return GalerkinMachine{}, bw, err
	}
	fr, err := b.FMARate(reps)
	if err != nil {
		return GalerkinMachine{}, bw, err
	}
	tr, err := b.DMMARate(reps)
	if err != nil {
		return GalerkinMachine{}, bw, err
	}
	clk, err := b.smClockHz()
	if err != nil {
		clk = 0
	}
	return GalerkinMachine{L2Bytes: int64(b.info.L2Bytes), Bandwidth: max(bw.MemcpyGBs, bw.KernelGBs) * 1e9, FMARate: fr, SMs: b.info.SMs,
		TCRate: tr, L1Rate: float64(b.info.SMs) * clk}, bw, nil
}
