package cuda

import (
	"fmt"
	"math/bits"

	"github.com/blockamg/blockamg/bsr"
)

// GalerkinStats are the pattern statistics of one product, computed at symbolic time.
type GalerkinStats struct {
	N, M, R, C            int   // fine and coarse block rows; A R×R, P R×C, Ac C×C
	NnzA, NnzP            int64 // stored blocks of A and P
	NnzW, NnzAc           int64 // stored blocks of W = A·P and Ac
	ProdAP                int64 // R×R·R×C block products forming W
	ProdPW                int64 // (R×C)ᵀ·R×C block products forming Ac
	ProdAPFused           int64 // A·P block products fused-recompute does (each W block once per P block of its row)
	MaxRowA, MaxRowP      int
	MaxRowPT, MaxRowW     int
	MaxRowAc              int
	ScheduleW, ScheduleAc int64 // bytes of the two packed product lists and their pointers
	// bytes of the absolute-index lists (8 bytes a product) and their pointers
	ScheduleWAbs, ScheduleAcAbs int64
	// RowSlots: the slot words of the tc-rows variants exist (no W or Ac row longer
	// than 256 blocks); SlotWordsW, SlotWordsAc their 8-byte words (one per eight
	// products of an A block, resp. of a Pᵀ entry).
	RowSlots                bool
	SlotWordsW, SlotWordsAc int64
	// RewalkW16, RewalkAc16: Σ over rows of the row's products times its windows of
	// 16 output blocks beyond the first (the extra products tc-rows16 walks).
	RewalkW16, RewalkAc16 int64
	// SmemWinW, SmemWinAc: the smem-rows windows (warps) of the two stages;
	// SmemRewalkW, SmemRewalkAc: the A blocks (Pᵀ entries) walked again by the
	// windows beyond the first of their row.
	SmemWinW, SmemWinAc       int64
	SmemRewalkW, SmemRewalkAc int64
	// Tiles: the smem-tiles A·P tiles (0: not offered, a fine row's P union does not
	// fit); TileBlocks: the P blocks they stage, Σ over tiles.
	Tiles, TileBlocks int64
	// PairEntries: the tc-pairs entries (W columns of fine-row pairs, each one warp's
	// work; 0 when not offered);
	// PairProds: their merged products (mma steps).
	PairEntries, PairProds int64
	// ABand: A's upper bandwidth, the largest k − i over its blocks (i, k): how far
	// past fine row i lie the P rows that row reads (tc-pairs' P prefetch lead).
	ABand int
	// NnzAcUpper, ProdPWUpper: the Ac blocks on and above the diagonal and their
	// Pᵀ·W products, what the symmetric half computes; Symmetric: the plan computes
	// it (Options.Symmetric) for tc-block, smem-tiles and tc-pairs.
	NnzAcUpper, ProdPWUpper int64
	Symmetric               bool
	// WUnread, ProdAPUnread: with Symmetric, the W blocks the half never reads and
	// their A·P products, which tc-pairs and tc-block leave out (PairEntries and
	// PairProds count without them).
	WUnread, ProdAPUnread int64
	// WRereadGaps[b]: the bytes of W rows that the Pᵀ·W pass reads again for a coarse
	// row 2^b to 2^(b+1)−1 rows after the previous one reading it (the gaps between
	// consecutive block columns of each P row, weighted by its W row's bytes).
	WRereadGaps [32]int64
	// PRereadGaps[b]: the same for the A·P pass and P's rows: the bytes of P rows read
	// again by a fine row 2^b to 2^(b+1)−1 rows after the previous one whose A row has
	// them as a column.
	PRereadGaps [32]int64
	// FusedSimBytes: fused-recompute's DRAM bytes from SimulateFused, for the L2 and
	// SMs it was run with; 0 when not run (GalerkinStatsOf does not: the replay walks
	// every recomputed product).
	FusedSimBytes int64
}

// stats fills GalerkinStats from the schedules, with the counting passes of the
// smem-tiles and slot-word schedules (fill builds the lists themselves).
func (s *hostSchedule) stats(A, P *bsr.Matrix, sym bool) (GalerkinStats, error) {
	m := P.BlockCols
	nnzW, nnzAc := int64(len(s.wcol)), int64(len(s.accol))
	if nnzW*int64(P.R*P.C) >= 1<<50 || nnzAc >= 1<<40 {
		return GalerkinStats{}, fmt.Errorf("cuda: Galerkin: product too large")
	}
	st := GalerkinStats{
		N: A.BlockRows, M: m, R: P.R, C: P.C,
		NnzA: A.NNZBlocks(), NnzP: P.NNZBlocks(), NnzW: nnzW, NnzAc: nnzAc,
		ProdAP: int64(len(s.wlist)), ProdPW: int64(len(s.aclist)), ProdAPFused: s.prodFused,
		MaxRowA: maxRow(A.RowPtr), MaxRowP: maxRow(P.RowPtr), MaxRowPT: maxRow(s.ptrp),
		MaxRowW: maxRow(s.wrp), MaxRowAc: maxRow(s.acrp),
		ScheduleW:  int64(len(s.wlist))*4 + nnzW*(8+4+4) + int64(len(s.wrp))*8,
		ScheduleAc: int64(len(s.aclist))*4 + nnzAc*(8+4) + int64(len(s.ptrp))*8 + int64(len(s.ptidx))*12,
	}
	st.ScheduleWAbs = int64(len(s.wlist))*8 + (nnzW+1)*8
	st.ScheduleAcAbs = int64(len(s.aclist))*8 + (nnzAc+1)*8
	if A.NNZBlocks() >= 1<<31 || P.NNZBlocks() >= 1<<31 || nnzW >= 1<<31 {
		return GalerkinStats{}, fmt.Errorf("%w: more than 2³¹ blocks in A, P or W", ErrGalerkinSchedule)
	}
	if s.tileCut(A, P) {
		st.Tiles, st.TileBlocks = int64(len(s.trow)-1), s.tileBlocks
	}
	if sym {
		s.wSkip = s.unreadW(P)
		for w, sk := range s.wSkip {
			if sk {
				st.WUnread++
				st.ProdAPUnread += s.wptr[w+1] - s.wptr[w]
			}
		}
	}
	if pairsOffered(P.R) {
		st.PairEntries, st.PairProds = s.pairCounts(A, P)
	}
	for i := range A.BlockRows {
		if e := A.RowPtr[i+1]; e > A.RowPtr[i] {
			st.ABand = max(st.ABand, int(A.ColIdx[e-1])-i)
		}
	}
	st.NnzAcUpper, st.ProdPWUpper = s.upperCounts()
	st.Symmetric = sym
	st.WRereadGaps = s.wRereadGaps(P)
	st.PRereadGaps = pRereadGaps(A, P)
	if s.slotCounts(A, P) {
		st.RowSlots = true
		st.SlotWordsW, st.SlotWordsAc = s.wsw0[A.BlockRows], s.asw0[m]
		st.RewalkW16, st.RewalkAc16 = s.rewalkW16, s.rewalkAc16
		st.SmemWinW, st.SmemWinAc = int64(len(s.wwin)/2), int64(len(s.acwin)/2)
		st.SmemRewalkW, st.SmemRewalkAc = s.smemRewalkW, s.smemRewalkAc
	}
	return st, nil
}

// wRereadGaps is GalerkinStats.WRereadGaps: for each fine row i, each gap between
// consecutive block columns of P's row i (the coarse rows that read W row i, in the
// order the Pᵀ·W pass walks them) adds W row i's bytes to the gap's power-of-two
// bucket.
func (s *hostSchedule) wRereadGaps(P *bsr.Matrix) [32]int64 {
	var h [32]int64
	rc := int64(8 * P.R * P.C)
	for i := 0; i < P.BlockRows; i++ {
		bytes := (s.wrp[i+1] - s.wrp[i]) * rc
		for p := P.RowPtr[i] + 1; p < P.RowPtr[i+1]; p++ {
			h[bits.Len32(uint32(P.ColIdx[p]-P.ColIdx[p-1]))-1] += bytes
		}
	}
	return h
}

// pRereadGaps is GalerkinStats.PRereadGaps: walking the fine rows in order, each A
// block (i, k) whose column k an earlier row i' last had adds P row k's bytes (values
// and column indices) to the bucket of i − i'.
func pRereadGaps(A, P *bsr.Matrix) [32]int64 {
	var h [32]int64
	last := make([]int32, A.BlockCols)
	for k := range last {
		last[k] = -1
	}
	rc := int64(8*P.R*P.C + 4)
	for i := 0; i < A.BlockRows; i++ {
		for a := A.RowPtr[i]; a < A.RowPtr[i+1]; a++ {
			k := A.ColIdx[a]
			if l := last[k]; l >= 0 {
				h[bits.Len32(uint32(int32(i)-l))-1] += (P.RowPtr[k+1] - P.RowPtr[k]) * rc
			}
			last[k] = int32(i)
		}
	}
	return h
}

func maxRow(rp []int64) int {
	mx := int64(0)
	for i := 0; i+1 < len(rp); i++ {
		mx = max(mx, rp[i+1]-rp[i])
	}
	return int(mx)
}
