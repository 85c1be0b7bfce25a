package cuda

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/galerkin"
	"github.com/blockamg/blockamg/internal/cudadrv"
	"github.com/blockamg/blockamg/internal/par"
)

// GalerkinVariant names a device algorithm for the numeric phase of Ac = PᵀAP.
type GalerkinVariant string

// The device variants (kernels/galerkin.cu). Each output block is summed by one
// thread (one warp for the tensor-core variants) in an order fixed by the host
// schedule, so every variant but GalerkinTwoPassND gives bitwise identical Ac from run
// to run.
const (
	// GalerkinTwoPassND is the classical two-pass product, the portable team-kernel
	// baseline: W = A·P on W's precomputed pattern (each W block searches P's rows
	// for its column), then Ac += Pᵀ·W with a binary search for the Ac column and
	// atomicAdd. NONDETERMINISTIC: the atomics' order varies from run to run, so Ac
	// differs in the last bits between runs.
	GalerkinTwoPassND GalerkinVariant = "twopass-atomic-nd"
	// GalerkinInspector is the inspector–executor, schedule-reordered product: the
	// host sorts, once, every W block's (A block, P block) products and every Ac
	// block's (P block, W block) products; the executor streams them with no search
	// and no atomics, W stored between its two passes. Its lists hold global block
	// indices (8 bytes a product), so each product's operands are one load away from
	// the list, and one thread owns one output block.
	GalerkinInspector GalerkinVariant = "inspector"
	// GalerkinInspectorBlock is GalerkinInspector on the packed lists (4 bytes a
	// product: offsets within the rows, so a chain of three dependent loads per
	// product), one thread per output block.
	GalerkinInspectorBlock GalerkinVariant = "inspector-block"
	// GalerkinInspectorRows is GalerkinInspectorBlock with one thread per output
	// block row (R threads per W block, C per Ac block), which share the block's
	// operand loads and write it contiguously.
	GalerkinInspectorRows GalerkinVariant = "inspector-rows"
	// GalerkinFused is fused-recompute: one pass over Ac blocks (a coarse row's blocks
	// on consecutive threads), each W block recomputed from its products where it is
	// needed, W never stored.
	GalerkinFused GalerkinVariant = "fused-recompute"
	// GalerkinTCBlock is GalerkinInspector with the block products on the FP64 tensor
	// cores (mma.m8n8k4): one warp per output block, so each product's operands are
	// one load instruction each, spread over the lanes, instead of R·R + R·C serial
	// loads of one thread.
	GalerkinTCBlock GalerkinVariant = "tc-block"
	// GalerkinTCRows16 is the register-tiled, search-free tensor-core product: one
	// warp per fine row of W = A·P and per coarse row of Ac = Pᵀ·W, 16 output blocks
	// of the row held in registers (longer rows in windows of 16, re-walking the row),
	// the operands streamed in storage order (A's row and the P rows it meets; Pᵀ's
	// row and the W rows it meets), the output position of each product precomputed
	// by the host as a byte (no product list, no search). Offered when no W or Ac row
	// has more than 256 blocks (Available).
	GalerkinTCRows16 GalerkinVariant = "tc-rows16"
	// GalerkinTCRows32 is GalerkinTCRows16 with 32 output blocks in registers: fewer
	// windows, fewer resident warps.
	GalerkinTCRows32 GalerkinVariant = "tc-rows32"
	// GalerkinSmemRows is the shared-memory-tiled product with a sorted, search-free
	// schedule: one warp per window of an output row (32 blocks of 3×6, 16 of 6×6:
	// 4.5 KiB of shared memory a warp), the window's blocks accumulated in shared
	// memory on the CUDA cores, the operands streamed in storage order as in
	// tc-rows, each product's output position read from the same slot bytes, the
	// lanes of a step spread over the (P block, column) pairs of one P row (one W
	// row for Pᵀ·W). Offered where tc-rows is (Available).
	GalerkinSmemRows GalerkinVariant = "smem-rows"
	// GalerkinSmemTiles computes W = A·P by tiles of consecutive fine rows, a thread
	// block per tile: the union of the P rows the tile's rows meet is copied once into
	// shared memory (coalesced), then one thread per row of each W block sums its
	// products on the CUDA cores in registers, reading the P blocks from shared memory
	// at precomputed tile-local positions (search-free). Ac = Pᵀ·W as in tc-block.
	// Offered when every fine row's P union fits the tile buffer (Available).
	GalerkinSmemTiles GalerkinVariant = "smem-tiles"
	// GalerkinTCPairs is tc-block with fine rows paired in W = A·P: one warp computes a
	// pair entry, the W blocks (2q, J) and (2q+1, J), with one mma.m8n8k4 per product
	// of their merged list, the two rows' A blocks stacked in its left operand (see
	// galerkin_pairs.go); the W blocks are bitwise tc-block's. Ac = Pᵀ·W as in
	// tc-block. Offered for A blocks of at most 4×4.
	GalerkinTCPairs GalerkinVariant = "tc-pairs"
)

// GalerkinVariants lists the device variants in a fixed order.
var GalerkinVariants = []GalerkinVariant{GalerkinTwoPassND, GalerkinInspector, GalerkinInspectorBlock, GalerkinInspectorRows, GalerkinFused,
	GalerkinTCBlock, GalerkinTCRows16, GalerkinTCRows32, GalerkinSmemRows, GalerkinSmemTiles, GalerkinTCPairs}

// Deterministic reports whether the variant gives the same bits on every run.
func (v GalerkinVariant) Deterministic() bool { return v != GalerkinTwoPassND }

// ErrGalerkinSchedule is wrapped when a pattern does not fit the packed schedules
// (a row of A, Pᵀ or W with more than 65536 blocks).
var ErrGalerkinSchedule = errors.New("cuda: pattern too large for the packed Galerkin schedule")

// galerkinShapes are the shapes (R, C) with specialised kernels; others run the
// generic kernels (R, C ≤ 6).
var galerkinShapes = map[[2]int]string{{3, 6}: "3x6", {6, 6}: "6x6"}

// galerkinMax mirrors GAL_MAX in kernels/galerkin.cu.
const galerkinMax = 6

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

// GalerkinPlan holds the symbolic phase of Ac = PᵀAP on the device: Ac's pattern, W's
// pattern, Pᵀ's pattern and the two product schedules, uploaded once by
// GalerkinSymbolic; Numeric then recomputes Ac's values on the device from device A
// and P with the patterns given to GalerkinSymbolic, with no host copies.
type GalerkinPlan struct {
	b     *Backend
	Stats GalerkinStats
	// Ac is the coarse operator's pattern on the host (Val nil): RowPtr and ColIdx as
	// on the device.
	Ac *bsr.Matrix
	// Generic forces the generic kernels even where a specialised shape exists.
	Generic bool

	wrow, wcol, acrow, accol, ptrow *Buffer[int32]
	wrp, wptr, acrp, acptr, ptrp    *Buffer[int64]
	ptidx                           *Buffer[int64]
	wlist, aclist                   *Buffer[int32] // packed uint32 offsets
	wabs, acabs                     *Buffer[int32] // (A, P) and (P, W) global block index pairs
	wsw0, wslw, asw0, aslw          *Buffer[int64] // tc-rows slot words and each row's first word
	wwin, acwin                     *Buffer[int32] // smem-rows windows: (row, first slot) pairs
	trow, trun, truns, tlist        *Buffer[int32] // smem-tiles: first rows, first runs, (P block, count) runs, tile-local products
	pw, plist                       *Buffer[int32] // tc-pairs: W block pairs, (A, A, P) product triples
	pwptr                           *Buffer[int64] // tc-pairs: each pair entry's first product
	acsel, acabsU                   *Buffer[int32] // symmetric half: (Ac block, mirror) pairs, their (P, W) lists
	acptrU                          *Buffer[int64] // symmetric half: each upper block's first product
	wsel                            *Buffer[int32] // symmetric half: the W blocks it reads, by slot (tc-block's A·P computes only them)
	wslot                           *Buffer[int32] // symmetric half: each W block's slot (smem-tiles' A·P writes there)
	wval, acval                     *Buffer[float64]
	freed                           bool
	// prepared: the variants whose schedules were uploaded (GalerkinSymbolicFor).
	prepared map[GalerkinVariant]bool
	// Symmetric: the plan was made with Options.Symmetric, so the Pᵀ·W stage of
	// tc-block, smem-tiles and tc-pairs computes the blocks of Ac on and above the
	// diagonal and mirrors them (galerkin_sym.go).
	Symmetric bool
}

// hostSchedule is the host side of the symbolic phase.
type hostSchedule struct {
	wrp       []int64 // W row pointers
	wcol      []int32
	wrow      []int32 // fine row of each W block
	wptr      []int64 // per W block, start of its products in wlist
	wlist     []uint32
	ptrp      []int64 // Pᵀ row pointers
	ptidx     []int64 // P block index of each Pᵀ entry
	ptrow     []int32 // fine row of each Pᵀ entry
	acrp      []int64
	accol     []int32
	acrow     []int32
	acptr     []int64
	aclist    []uint32
	prodFused int64
	wabs      []int32 // (A block, P block) per W product, global indices
	acabs     []int32 // (P block, W block) per Ac product, global indices
	// tc-rows slot words (nil when a row is longer than 256 blocks): byte u of word
	// wsw0[i] + (words of the earlier A blocks of row i) + q is the position in W row
	// i of the product with P block 8q+u of the A block's P row; likewise aslw/asw0
	// with Pᵀ row I's entries, W row blocks and Ac row I positions.
	wsw0, wslw, asw0, aslw []int64
	rewalkW16, rewalkAc16  int64
	// smem-rows windows, (row, first slot) pairs, and the A blocks (Pᵀ entries) their
	// windows beyond the first walk again.
	wwin, acwin               []int32
	smemRewalkW, smemRewalkAc int64
	// smem-tiles: per tile its first fine row (and one past the last) and first run,
	// the runs (first P block, count) it stages, and per A·P product (in wlist's
	// order) its tile-local A block << 16 | tile-local P block; nil when not offered.
	trow, trun, truns []int32
	tlist             []uint32
	tileBlocks        int64
	tks               []int32 // between tileCut and tileLists: the P rows each tile stages
	tkp               []int
	// tc-pairs (galerkin_pairs.go): per pair entry its W blocks and first product, per
	// product its two A blocks and P block; −1 for an absent block.
	pw, plist []int32
	pwptr     []int64
	// Between pairCounts and pairLists: each fine-row pair's first entry and product.
	pairEnt, pairProd []int64
	// wSkip (symmetric plans, galerkin_sym.go): per W block, whether the symmetric
	// half of Pᵀ·W never reads it, so tc-pairs and tc-block need not compute it; nil:
	// all are read. wsel: the others in slot order, tc-block's list of W blocks (fill).
	wSkip []bool
	wsel  []int32
	// wslot (fill, when a plan runs the half): per W block its place in W's values
	// for the variants that run the half (halfSlots); nil: every block at its index.
	wslot []int32
	// The symmetric half (galerkin_sym.go): per upper Ac block its index and mirror,
	// its first product and the (P block, W block) pairs of its products.
	acsel, acabsU []int32
	acptrU        []int64
}

// galerkinSchedule computes, on the host, the patterns of W = A·P and Ac = PᵀW, Pᵀ,
// and the two packed product lists (see kernels/galerkin.cu). Rows are processed in
// parallel; every output is independent of the worker count.
func galerkinSchedule(A, P *bsr.Matrix) (*hostSchedule, error) {
	n, m := A.BlockRows, P.BlockCols
	s := &hostSchedule{}
	rowLen := func(rp []int64, i int) int64 { return rp[i+1] - rp[i] }
	for i := 0; i < n; i++ {
		if rowLen(A.RowPtr, i) > 1<<16 || rowLen(P.RowPtr, i) > 1<<16 {
			return nil, fmt.Errorf("%w: block row %d of A or P", ErrGalerkinSchedule, i)
		}
	}
	const grain = 256
	// W pattern: row i is the union of P rows j over A row i, sorted (galerkin's
	// symbolic product, the same patterns as the CPU plans).
	s.wrp, s.wcol = galerkin.ProductPattern(n, A.RowPtr, A.ColIdx, P.RowPtr, P.ColIdx, m, 0)
	nnzW := s.wrp[n]
	if mr := maxRow(s.wrp); mr > 1<<16 {
		return nil, fmt.Errorf("%w: a W row has %d blocks", ErrGalerkinSchedule, mr)
	}
	s.wrow = make([]int32, nnzW)
	s.wptr = make([]int64, nnzW+1)
	par.For(n, 0, grain, func(lo, hi int) {
		pos := make([]int32, m)
		for i := lo; i < hi; i++ {
			w0 := s.wrp[i]
			row := s.wcol[w0:s.wrp[i+1]]
			for q, c := range row {
				pos[c] = int32(q)
				s.wrow[w0+int64(q)] = int32(i)
			}
			for a := A.RowPtr[i]; a < A.RowPtr[i+1]; a++ {
				j := A.ColIdx[a]
				for p := P.RowPtr[j]; p < P.RowPtr[j+1]; p++ {
					s.wptr[w0+int64(pos[P.ColIdx[p]])+1]++
				}
			}
		}
	})
	for w := int64(0); w < nnzW; w++ {
		s.wptr[w+1] += s.wptr[w]
	}
	s.wlist = make([]uint32, s.wptr[nnzW])
	par.For(n, 0, grain, func(lo, hi int) {
		pos := make([]int32, m)
		fill := []int64{}
		for i := lo; i < hi; i++ {
			w0, w1 := s.wrp[i], s.wrp[i+1]
			for q, c := range s.wcol[w0:w1] {
				pos[c] = int32(q)
			}
			fill = append(fill[:0], s.wptr[w0:w1]...)
			for a := A.RowPtr[i]; a < A.RowPtr[i+1]; a++ {
				ka := uint32(a - A.RowPtr[i])
				j := A.ColIdx[a]
				for p := P.RowPtr[j]; p < P.RowPtr[j+1]; p++ {
					q := pos[P.ColIdx[p]]
					s.wlist[fill[q]] = ka<<16 | uint32(p-P.RowPtr[j])
					fill[q]++
				}
			}
		}
	})

	// Pᵀ: entries of a coarse row in fine-row order.
	s.ptrp, s.ptrow, s.ptidx = galerkin.TransposePattern(n, m, P.RowPtr, P.ColIdx)
	for I := 0; I < m; I++ {
		if rowLen(s.ptrp, I) > 1<<16 {
			return nil, fmt.Errorf("%w: column %d of P has %d blocks", ErrGalerkinSchedule, I, rowLen(s.ptrp, I))
		}
	}

	// Ac pattern: row I is the union of W rows i over Pᵀ row I; its list per block
	// (I,J) holds (entry of Pᵀ row I, offset of J in W row i) in fine-row order.
	s.acrp, s.accol = galerkin.ProductPattern(m, s.ptrp, s.ptrow, s.wrp, s.wcol, m, 0)
	nnzAc := s.acrp[m]
	s.acrow = make([]int32, nnzAc)
	s.acptr = make([]int64, nnzAc+1)
	par.For(m, 0, 16, func(lo, hi int) {
		pos := make([]int32, m)
		for I := lo; I < hi; I++ {
			b0 := s.acrp[I]
			for q, c := range s.accol[b0:s.acrp[I+1]] {
				pos[c] = int32(q)
				s.acrow[b0+int64(q)] = int32(I)
			}
			for e := s.ptrp[I]; e < s.ptrp[I+1]; e++ {
				i := s.ptrow[e]
				for _, c := range s.wcol[s.wrp[i]:s.wrp[i+1]] {
					s.acptr[b0+int64(pos[c])+1]++
				}
			}
		}
	})
	for b := int64(0); b < nnzAc; b++ {
		s.acptr[b+1] += s.acptr[b]
	}
	s.aclist = make([]uint32, s.acptr[nnzAc])
	fused := make([]int64, m)
	par.For(m, 0, 16, func(lo, hi int) {
		pos := make([]int32, m)
		fill := []int64{}
		for I := lo; I < hi; I++ {
			b0, b1 := s.acrp[I], s.acrp[I+1]
			for q, c := range s.accol[b0:b1] {
				pos[c] = int32(q)
			}
			fill = append(fill[:0], s.acptr[b0:b1]...)
			for e := s.ptrp[I]; e < s.ptrp[I+1]; e++ {
				i := s.ptrow[e]
				ke := uint32(e - s.ptrp[I])
				for kw, c := range s.wcol[s.wrp[i]:s.wrp[i+1]] {
					q := pos[c]
					s.aclist[fill[q]] = ke<<16 | uint32(kw)
					fill[q]++
					w := s.wrp[i] + int64(kw)
					fused[I] += s.wptr[w+1] - s.wptr[w]
				}
			}
		}
	})
	for _, f := range fused {
		s.prodFused += f
	}
	return s, nil
}

// absolute expands the packed lists into global block index pairs.
func (s *hostSchedule) absolute(A, P *bsr.Matrix) {
	s.absoluteW(A, P)
	s.absoluteAc()
}

// absoluteW expands W's packed list into (A block, P block) pairs.
func (s *hostSchedule) absoluteW(A, P *bsr.Matrix) {
	s.wabs = make([]int32, 2*len(s.wlist))
	par.For(len(s.wcol), 0, 4096, func(lo, hi int) {
		for w := lo; w < hi; w++ {
			i := s.wrow[w]
			for t := s.wptr[w]; t < s.wptr[w+1]; t++ {
				u := s.wlist[t]
				a := A.RowPtr[i] + int64(u>>16)
				s.wabs[2*t] = int32(a)
				s.wabs[2*t+1] = int32(P.RowPtr[A.ColIdx[a]] + int64(u&0xffff))
			}
		}
	})
}

// absoluteAc expands Ac's packed list into (P block, W block) pairs.
func (s *hostSchedule) absoluteAc() {
	s.acabs = make([]int32, 2*len(s.aclist))
	par.For(len(s.accol), 0, 1024, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			I := s.acrow[b]
			for t := s.acptr[b]; t < s.acptr[b+1]; t++ {
				u := s.aclist[t]
				e := s.ptrp[I] + int64(u>>16)
				s.acabs[2*t] = int32(s.ptidx[e])
				s.acabs[2*t+1] = int32(s.wrp[s.ptrow[e]] + int64(u&0xffff))
			}
		}
	})
}

// slotCounts is the first half of the tc-rows slot words: each row's first slot word
// (wsw0, asw0), the re-walks and the smem-rows windows, all the statistics need;
// slotWords fills the words. It returns false (and leaves them nil) when a W or Ac row
// has more than 256 blocks, which a byte cannot address.
func (s *hostSchedule) slotCounts(A, P *bsr.Matrix) bool {
	if maxRow(s.wrp) > 256 || maxRow(s.acrp) > 256 {
		return false
	}
	n, m := A.BlockRows, P.BlockCols
	words := func(k int64) int64 { return (k + 7) / 8 }
	s.wsw0 = make([]int64, n+1)
	rewW := make([]int64, n)
	par.For(n, 0, 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			c, prods := int64(0), int64(0)
			for a := A.RowPtr[i]; a < A.RowPtr[i+1]; a++ {
				j := A.ColIdx[a]
				c += words(P.RowPtr[j+1] - P.RowPtr[j])
				prods += P.RowPtr[j+1] - P.RowPtr[j]
			}
			s.wsw0[i+1] = c
			rewW[i] = prods * ((s.wrp[i+1]-s.wrp[i]+15)/16 - 1)
		}
	})
	for i := 0; i < n; i++ {
		s.wsw0[i+1] += s.wsw0[i]
		s.rewalkW16 += max(rewW[i], 0)
	}
	s.asw0 = make([]int64, m+1)
	rewAc := make([]int64, m)
	par.For(m, 0, 64, func(lo, hi int) {
		for I := lo; I < hi; I++ {
			c := int64(0)
			for e := s.ptrp[I]; e < s.ptrp[I+1]; e++ {
				i := s.ptrow[e]
				c += words(s.wrp[i+1] - s.wrp[i])
			}
			s.asw0[I+1] = c
			rewAc[I] = (s.acptr[s.acrp[I+1]] - s.acptr[s.acrp[I]]) * ((s.acrp[I+1]-s.acrp[I]+15)/16 - 1)
		}
	})
	for I := 0; I < m; I++ {
		s.asw0[I+1] += s.asw0[I]
		s.rewalkAc16 += max(rewAc[I], 0)
	}
	s.wwin, s.smemRewalkW = smemWindows(s.wrp, smemSlots(P.R*P.C), A.RowPtr)
	s.acwin, s.smemRewalkAc = smemWindows(s.acrp, smemSlots(P.C*P.C), s.ptrp)
	return true
}

// slotWords fills the slot words of the rows slotCounts laid out: W row i's entries
// are A row i's blocks, each meeting the P row of its column; Ac row I's are Pᵀ row
// I's entries, each meeting the W row of its fine row.
func (s *hostSchedule) slotWords(A, P *bsr.Matrix) {
	n, m := A.BlockRows, P.BlockCols
	s.wslw = fillSlotWords(n, m, 1024, s.wrp, s.wcol, s.wsw0, func(i int, meet func([]int32)) {
		for _, j := range A.ColIdx[A.RowPtr[i]:A.RowPtr[i+1]] {
			meet(P.ColIdx[P.RowPtr[j]:P.RowPtr[j+1]])
		}
	})
	s.aslw = fillSlotWords(m, m, 64, s.acrp, s.accol, s.asw0, func(I int, meet func([]int32)) {
		for _, i := range s.ptrow[s.ptrp[I]:s.ptrp[I+1]] {
			meet(s.wcol[s.wrp[i]:s.wrp[i+1]])
		}
	})
}

// fillSlotWords returns the slot words of rows output rows (pattern outRp, outCol, m
// columns; row r's words from sw0[r] on, in chunks of grain rows in parallel): entries
// calls meet, in order, with the columns of the row each of row r's entries meets, and
// byte k of that entry's words (eight a word) is the position in row r of its k-th
// column.
func fillSlotWords(rows, m, grain int, outRp []int64, outCol []int32, sw0 []int64, entries func(r int, meet func(cols []int32))) []int64 {
	dst := make([]int64, sw0[rows])
	par.For(rows, 0, grain, func(lo, hi int) {
		pos := make([]int32, m)
		var w int64
		meet := func(cols []int32) {
			for k, c := range cols {
				dst[w+int64(k/8)] |= int64(uint64(pos[c]) << (8 * (k % 8)))
			}
			w += (int64(len(cols)) + 7) / 8
		}
		for r := lo; r < hi; r++ {
			for q, c := range outCol[outRp[r]:outRp[r+1]] {
				pos[c] = int32(q)
			}
			w = sw0[r]
			entries(r, meet)
		}
	})
	return dst
}

// tileDoubles mirrors GAL_TILE_DOUBLES in kernels/galerkin.cu: the shared memory (in
// doubles) of an smem-tiles thread block's P rows.
const tileDoubles = 6144

// tileCut is the smem-tiles schedule's first pass, in row order: consecutive fine rows
// are added to a tile while the union of the P rows they meet fits tileDoubles (and
// the tile-local indices their 16-bit fields); it records the tiles, their runs and
// the sorted P rows each stages (tks, tile t's at tkp[t]..tkp[t+1]), all the
// statistics need, and returns false, leaving them unset, when one row's union alone
// does not fit. tileLists fills the product list from them.
func (s *hostSchedule) tileCut(A, P *bsr.Matrix) bool {
	n := A.BlockRows
	rc := int64(P.R * P.C)
	budget := int64(tileDoubles) / rc
	mark := make([]int32, P.BlockRows)
	for i := range mark {
		mark[i] = -1
	}
	s.trow, s.trun, s.truns = []int32{0}, []int32{0}, nil
	s.tileBlocks = 0
	var tks []int32
	tkp := []int{0}
	var fresh []int32
	for r0 := 0; r0 < n; {
		k0 := len(tks)
		blocks := int64(0)
		r1 := r0
		for ; r1 < n; r1++ {
			add := int64(0)
			fresh = fresh[:0]
			for a := A.RowPtr[r1]; a < A.RowPtr[r1+1]; a++ {
				if k := A.ColIdx[a]; mark[k] != int32(r0) {
					mark[k] = int32(r0)
					fresh = append(fresh, k)
					add += P.RowPtr[k+1] - P.RowPtr[k]
				}
			}
			if blocks+add > budget || A.RowPtr[r1+1]-A.RowPtr[r0] > 1<<16 {
				for _, k := range fresh {
					mark[k] = -1
				}
				break
			}
			blocks += add
			tks = append(tks, fresh...)
		}
		if r1 == r0 {
			s.trow, s.trun, s.truns, s.tlist = nil, nil, nil, nil
			return false
		}
		ks := tks[k0:]
		slices.Sort(ks)
		for q, k := range ks {
			cnt := int32(P.RowPtr[k+1] - P.RowPtr[k])
			if q > 0 && ks[q-1] == k-1 {
				s.truns[len(s.truns)-1] += cnt // P row k follows P row k-1
			} else {
				s.truns = append(s.truns, int32(P.RowPtr[k]), cnt)
			}
		}
		s.tileBlocks += blocks
		s.trow = append(s.trow, int32(r1))
		s.trun = append(s.trun, int32(len(s.truns)/2))
		tkp = append(tkp, len(tks))
		r0 = r1
	}
	s.tks, s.tkp = tks, tkp
	return true
}

// tileLists is the smem-tiles schedule's second pass, tiles in parallel: each product's tile-local
// (A block, P block).
func (s *hostSchedule) tileLists(A, P *bsr.Matrix) {
	tks, tkp := s.tks, s.tkp
	s.tlist = make([]uint32, len(s.wlist))
	tiles := len(s.trow) - 1
	par.For(tiles, 0, 64, func(lo, hi int) {
		local := make([]int32, P.BlockRows) // tile-local first P block of a staged P row
		for tile := lo; tile < hi; tile++ {
			loc := int32(0)
			for _, k := range tks[tkp[tile]:tkp[tile+1]] {
				local[k] = loc
				loc += int32(P.RowPtr[k+1] - P.RowPtr[k])
			}
			r0, r1 := int(s.trow[tile]), int(s.trow[tile+1])
			for i := r0; i < r1; i++ {
				for w := s.wrp[i]; w < s.wrp[i+1]; w++ {
					for t := s.wptr[w]; t < s.wptr[w+1]; t++ {
						u := s.wlist[t]
						a := A.RowPtr[i] + int64(u>>16)
						s.tlist[t] = uint32(a-A.RowPtr[r0])<<16 | uint32(local[A.ColIdx[a]]+int32(u&0xffff))
					}
				}
			}
		}
	})
	s.tks, s.tkp = nil, nil
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

// smemDoubles mirrors GAL_SMR_DOUBLES in kernels/galerkin.cu: the doubles of shared
// memory one smem-rows warp accumulates in.
const smemDoubles = 576

// smemSlots is the output blocks of b values one smem-rows window holds.
func smemSlots(b int) int { return smemDoubles / b }

// smemWindows splits every output row (row pointers orp) into windows of ns blocks
// and returns them as (row, first slot) pairs, with the operand entries (row pointers
// wrp of the walked row: A's for W, Pᵀ's for Ac) that the windows beyond a row's first
// walk again. An empty row has no window (its output is empty).
func smemWindows(orp []int64, ns int, wrp []int64) ([]int32, int64) {
	var win []int32
	rewalk := int64(0)
	for i := 0; i+1 < len(orp); i++ {
		n := int(orp[i+1] - orp[i])
		for s0 := 0; s0 < n; s0 += ns {
			win = append(win, int32(i), int32(s0))
			if s0 > 0 {
				rewalk += wrp[i+1] - wrp[i]
			}
		}
	}
	return win, rewalk
}

func maxRow(rp []int64) int {
	mx := int64(0)
	for i := 0; i+1 < len(rp); i++ {
		mx = max(mx, rp[i+1]-rp[i])
	}
	return int(mx)
}

// GalerkinSymbolic checks the shapes of A (n×n blocks of R×R) and P (n×m blocks of
// R×C, R, C ≤ 6), computes on the host the patterns of W = A·P and Ac = PᵀAP and the
// product schedules of every variant, and uploads them (counted under the current
// phase). Ac's values on the device are left zero. A plan for one variant holds far
// less device memory: see GalerkinSymbolicFor.
func (b *Backend) GalerkinSymbolic(A, P *bsr.Matrix) (*GalerkinPlan, error) {
	return b.GalerkinSymbolicFor(A, P, nil)
}

// GalerkinSymbolicFor is GalerkinSymbolic uploading only the schedules of the
// variants choose returns for the product's statistics (every variant when choose is
// nil); the plan offers (Available) only those. The schedules of all variants
// together are several times W's size (5.9 GB on the ex56 ne = 100 fine level, where
// smem-tiles alone needs 1.3 GB), so a recurring solve prepares just the variant it
// runs. An error from choose is returned as is.
func (b *Backend) GalerkinSymbolicFor(A, P *bsr.Matrix, choose func(GalerkinStats) ([]GalerkinVariant, error)) (*GalerkinPlan, error) {
	sym := b.opt.Symmetric
	s, mir, st, err := symbolicHost(A, P, sym)
	if err != nil {
		return nil, err
	}
	m := P.BlockCols
	pl := &GalerkinPlan{b: b, Ac: &bsr.Matrix{BlockRows: m, BlockCols: m, R: P.C, C: P.C, RowPtr: s.acrp, ColIdx: s.accol}, Stats: st,
		Symmetric: sym}
	vs := GalerkinVariants
	if choose != nil {
		if vs, err = choose(st); err != nil {
			return nil, err
		}
	}
	pl.prepared = map[GalerkinVariant]bool{}
	for _, v := range vs {
		if !slices.Contains(GalerkinVariants, v) {
			return nil, fmt.Errorf("cuda: Galerkin: unknown variant %q", v)
		}
		pl.prepared[v] = st.offers(v)
	}
	s.fill(A, P, pl, mir)
	if err := pl.upload(s); err != nil {
		pl.Free()
		return nil, err
	}
	return pl, nil
}

func upload[T Elem](b *Backend, dst **Buffer[T], src []T) error {
	u, err := Alloc[T](b, len(src))
	if err != nil {
		return err
	}
	*dst = u
	return u.Upload(src)
}

// asInt32 views packed uint32 lists as the int32 the device buffers hold (the same
// bits, no copy: a copy of the W list alone is 0.5 GB at ne = 100).
func asInt32(u []uint32) []int32 {
	if len(u) == 0 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(u))), len(u))
}

// prefetchAhead is how many thread blocks ahead of itself a tc-pairs or tc-block A·P
// block asks L2 for the lines of A, the list and P that block will read first
// (gal_prefetch_share in kernels/galerkin.cu, l2Shares). H200, ex56 fine level: 8, 32
// and 512 gave the same times; at 2048 the gain was gone.
const prefetchAhead = 8

// l2Shares returns the arguments of gal_prefetch_share (kernels/galerkin.cu) for an
// A·P kernel of nb thread blocks that reads A's values, a product list of listBytes
// and P's values in about fine-row order: the bytes of each a block, and P's lead in
// blocks (A's bandwidth in rows, scaled to blocks: the P rows a fine row reads lie up
// to that far past it).
func (st GalerkinStats) l2Shares(nb uint32, listBytes int64) (aper, lper, pper float64, plead int32) {
	per := func(bytes int64) float64 { return float64(bytes) / float64(max(nb, 1)) }
	plead = int32(float64(st.ABand) * float64(nb) / float64(max(st.N, 1)))
	return per(st.NnzA * int64(st.R*st.R*8)), per(listBytes), per(st.NnzP * int64(st.R*st.C*8)), plead
}

// pairEntriesPerWarp is the number of pair entries a tc-pairs warp computes in turn
// (kernels/galerkin.cu's GAL_PAIR_ENTRIES must match): a thread block holds its
// multiprocessor slot until its longest warp is done, and two entries a warp even out
// their lengths (H200, ex56 ne = 64 fine level 1.45 → 1.34 ms; BENCHMARKS.md).
const pairEntriesPerWarp = 2

// Who reads each schedule buffer (kernels/galerkin.cu, NumericStage).
var (
	usersListed  = []GalerkinVariant{GalerkinInspectorBlock, GalerkinInspectorRows, GalerkinFused} // packed lists with their rows
	usersAbs     = []GalerkinVariant{GalerkinInspector, GalerkinTCBlock}                           // absolute lists
	usersSlots   = []GalerkinVariant{GalerkinTCRows16, GalerkinTCRows32, GalerkinSmemRows}         // slot words
	usersPT      = append(slices.Clip(usersListed), usersSlots...)                                 // Pᵀ's entries
	usersWptr    = append(slices.Clip(usersListed), GalerkinInspector, GalerkinTCBlock, GalerkinSmemTiles)
	usersAcptr   = append(slices.Clip(usersListed), GalerkinInspector)
	usersAcAbs   = []GalerkinVariant{GalerkinInspector}
	usersTCBPW   = []GalerkinVariant{GalerkinTCBlock, GalerkinSmemTiles, GalerkinTCPairs} // tc-block's Pᵀ·W kernel, or its symmetric half
	usersWrp     = append(slices.Clip(usersPT), GalerkinSmemTiles)
	usersAcrp    = append(slices.Clip(usersSlots), GalerkinTwoPassND)
	usersWrow    = []GalerkinVariant{GalerkinTwoPassND, GalerkinInspectorBlock, GalerkinInspectorRows}
	usersTwoPass = []GalerkinVariant{GalerkinTwoPassND}
	usersSmemRow = []GalerkinVariant{GalerkinSmemRows}
	usersTiles   = []GalerkinVariant{GalerkinSmemTiles}
	usersPairs   = []GalerkinVariant{GalerkinTCPairs}
	usersTCBAP   = []GalerkinVariant{GalerkinTCBlock} // tc-block's A·P kernel (the half's W list)
)

// fill builds the lists that stats only counted, for the variants needs admits: the
// absolute lists, the slot words, the smem-tiles products (each several bytes per
// product; at ne = 100 the absolute W list alone is 1 GB of host memory).
func (s *hostSchedule) fill(A, P *bsr.Matrix, pl *GalerkinPlan, mir []int64) {
	needs := pl.needs
	if needs(usersAbs) {
		s.absoluteW(A, P)
	}
	if pl.needsFullAc() {
		s.absoluteAc()
	}
	if pl.needsUpper() {
		s.wslot = s.halfSlots()
		s.upperLists(mir, pl.Stats.NnzAcUpper, pl.Stats.ProdPWUpper)
	}
	if pl.needsWsel() {
		s.wsel = s.readW(pl.Stats.WUnread)
	}
	if s.wsw0 != nil && needs(usersSlots) {
		s.slotWords(A, P)
	}
	if s.tks != nil && needs(usersTiles) {
		s.tileLists(A, P)
	}
	if pairsOffered(P.R) && needs(usersPairs) {
		s.pairLists(A, P)
	}
}

// needsFullAc reports whether a prepared variant reads the absolute Pᵀ·W lists of
// every Ac block: the inspector, and tc-block's Pᵀ·W kernel without the symmetric half.
func (pl *GalerkinPlan) needsFullAc() bool {
	return pl.needs(usersAcAbs) || (!pl.Symmetric && pl.needs(usersTCBPW))
}

// needsUpper reports whether a prepared variant runs the symmetric half's Pᵀ·W, over
// the upper blocks' lists; needsWsel whether one runs tc-block's A·P over the list of
// W blocks the half reads; needsWslot whether smem-tiles' A·P writes W at the half's
// slots.
func (pl *GalerkinPlan) needsUpper() bool { return pl.Symmetric && pl.needs(usersTCBPW) }
func (pl *GalerkinPlan) needsWsel() bool  { return pl.Symmetric && pl.needs(usersTCBAP) }
func (pl *GalerkinPlan) needsWslot() bool { return pl.Symmetric && pl.needs(usersTiles) }

// needs reports whether a prepared variant is among users.
func (pl *GalerkinPlan) needs(users []GalerkinVariant) bool {
	for _, v := range users {
		if pl.prepared[v] {
			return true
		}
	}
	return false
}

// upload copies the schedule buffers the prepared variants read; the others stay
// empty.
func (pl *GalerkinPlan) upload(s *hostSchedule) error {
	b := pl.b
	for _, st := range []struct {
		dst  **Buffer[int32]
		src  []int32
		need bool
	}{
		{&pl.wrow, s.wrow, pl.needs(usersWrow)}, {&pl.wcol, s.wcol, pl.needs(usersTwoPass)}, {&pl.acrow, s.acrow, pl.needs(usersListed)},
		{&pl.accol, s.accol, pl.needs(usersTwoPass)}, {&pl.ptrow, s.ptrow, pl.needs(usersPT)}, {&pl.wlist, asInt32(s.wlist), pl.needs(usersListed)},
		{&pl.aclist, asInt32(s.aclist), pl.needs(usersListed)}, {&pl.wabs, s.wabs, pl.needs(usersAbs)}, {&pl.acabs, s.acabs, pl.needsFullAc()},
		{&pl.wwin, s.wwin, pl.needs(usersSmemRow)}, {&pl.acwin, s.acwin, pl.needs(usersSmemRow)},
		{&pl.trow, s.trow, pl.needs(usersTiles)}, {&pl.trun, s.trun, pl.needs(usersTiles)}, {&pl.truns, s.truns, pl.needs(usersTiles)},
		{&pl.tlist, asInt32(s.tlist), pl.needs(usersTiles)}, {&pl.pw, s.pw, pl.needs(usersPairs)}, {&pl.plist, s.plist, pl.needs(usersPairs)},
		{&pl.acsel, s.acsel, pl.needsUpper()}, {&pl.acabsU, s.acabsU, pl.needsUpper()}, {&pl.wsel, s.wsel, pl.needsWsel()},
		{&pl.wslot, s.wslot, pl.needsWslot()},
	} {
		src := st.src
		if !st.need {
			src = nil
		}
		if err := upload(b, st.dst, src); err != nil {
			return err
		}
	}
	for _, st := range []struct {
		dst  **Buffer[int64]
		src  []int64
		need bool
	}{
		{&pl.wrp, s.wrp, pl.needs(usersWrp)}, {&pl.wptr, s.wptr, pl.needs(usersWptr)}, {&pl.acrp, s.acrp, pl.needs(usersAcrp)},
		{&pl.acptr, s.acptr, pl.needs(usersAcptr) || pl.needsFullAc()}, {&pl.ptrp, s.ptrp, pl.needs(usersPT)}, {&pl.ptidx, s.ptidx, pl.needs(usersPT)},
		{&pl.wsw0, s.wsw0, pl.needs(usersSlots)}, {&pl.wslw, s.wslw, pl.needs(usersSlots)}, {&pl.asw0, s.asw0, pl.needs(usersSlots)}, {&pl.aslw, s.aslw, pl.needs(usersSlots)},
		{&pl.pwptr, s.pwptr, pl.needs(usersPairs)}, {&pl.acptrU, s.acptrU, pl.needsUpper()},
	} {
		src := st.src
		if !st.need {
			src = nil
		}
		if err := upload(b, st.dst, src); err != nil {
			return err
		}
	}
	var err error
	st := pl.Stats
	if pl.wval, err = Alloc[float64](b, int(st.NnzW)*st.R*st.C); err != nil {
		return err
	}
	if pl.acval, err = Alloc[float64](b, int(st.NnzAc)*st.C*st.C); err != nil {
		return err
	}
	return nil
}

// Free releases the plan's device memory.
func (pl *GalerkinPlan) Free() {
	if pl.freed {
		return
	}
	pl.freed = true
	for _, u := range pl.indexBuffers64() {
		if u != nil {
			u.Free()
		}
	}
	for _, u := range pl.indexBuffers32() {
		if u != nil {
			u.Free()
		}
	}
	for _, u := range []*Buffer[float64]{pl.wval, pl.acval} {
		if u != nil {
			u.Free()
		}
	}
}

// indexBuffers32 and indexBuffers64 list the plan's schedule buffers (nil where not
// uploaded), for Free and Bytes.
func (pl *GalerkinPlan) indexBuffers32() []*Buffer[int32] {
	return []*Buffer[int32]{pl.wrow, pl.wcol, pl.acrow, pl.accol, pl.ptrow, pl.wlist, pl.aclist, pl.wabs, pl.acabs, pl.wwin, pl.acwin, pl.trow, pl.trun, pl.truns, pl.tlist, pl.pw, pl.plist, pl.acsel, pl.acabsU, pl.wsel, pl.wslot}
}

func (pl *GalerkinPlan) indexBuffers64() []*Buffer[int64] {
	return []*Buffer[int64]{pl.wrp, pl.wptr, pl.acrp, pl.acptr, pl.ptrp, pl.ptidx, pl.wsw0, pl.wslw, pl.asw0, pl.aslw, pl.pwptr, pl.acptrU}
}

// Bytes returns the device memory the plan holds: schedules, W's and Ac's values.
func (pl *GalerkinPlan) Bytes() int64 {
	t := int64(0)
	for _, u := range pl.indexBuffers32() {
		t += u.Bytes()
	}
	for _, u := range pl.indexBuffers64() {
		t += u.Bytes()
	}
	return t + pl.wval.Bytes() + pl.acval.Bytes()
}

// tag returns the kernel-name suffix for the plan's shape.
func (pl *GalerkinPlan) tag() string {
	if t, ok := galerkinShapes[[2]int{pl.Stats.R, pl.Stats.C}]; ok && !pl.Generic {
		return t
	}
	return "generic"
}

func (pl *GalerkinPlan) check(A, P *Matrix) {
	st := pl.Stats
	if pl.freed {
		panic("cuda: Galerkin plan used after Free")
	}
	ar, ac, arr, acc := A.Dims()
	pr, pc, prr, pcc := P.Dims()
	if ar != st.N || ac != st.N || arr != st.R || acc != st.R || pr != st.N || pc != st.M || prr != st.R || pcc != st.C ||
		A.col.Len() != int(st.NnzA) || P.col.Len() != int(st.NnzP) {
		panic("cuda: Galerkin: A or P does not have the shape or block count given to GalerkinSymbolic")
	}
}

// Stage selects part of a numeric product, for timing.
type Stage int

const (
	StageAll Stage = iota // the whole product
	StageAP               // W = A·P only (variants that store W)
	StagePW               // Ac = Pᵀ·W only, from the W of an earlier run
)

// Numeric queues the numeric phase of variant v: Ac's values on the device (see
// AcValues) from the values of the device matrices A and P, which must have the
// patterns given to GalerkinSymbolic (only their block counts are checked). Nothing
// crosses the bus. Errors of the device work are sticky and reported by Err.
func (pl *GalerkinPlan) Numeric(v GalerkinVariant, A, P *Matrix) error {
	return pl.NumericStage(v, StageAll, A, P)
}

// Available reports whether the plan offers variant v: its schedules were prepared
// (GalerkinSymbolicFor) and the pattern allows it (the tc-rows and smem-rows variants
// need rows of at most 256 blocks in W and Ac, smem-tiles fine rows whose P rows fit
// its tile buffer). Unavailable says why not.
func (pl *GalerkinPlan) Available(v GalerkinVariant) bool {
	return pl.prepared[v] && pl.Stats.offers(v)
}

// offers reports whether a pattern with these statistics allows variant v: the one
// rule behind Available and ChooseGalerkin.
func (s GalerkinStats) offers(v GalerkinVariant) bool {
	switch {
	case v.needsSlots():
		return s.RowSlots
	case v == GalerkinSmemTiles:
		return s.Tiles > 0
	case v == GalerkinTCPairs:
		return s.PairEntries > 0
	}
	return slices.Contains(GalerkinVariants, v)
}

// Unavailable says why the plan does not offer variant v ("" when it does).
func (pl *GalerkinPlan) Unavailable(v GalerkinVariant) string {
	switch {
	case pl.Available(v):
		return ""
	case !slices.Contains(GalerkinVariants, v):
		return "unknown variant"
	case pl.Stats.offers(v):
		return "not prepared: the plan was made for other variants (GalerkinSymbolicFor)"
	case v.needsSlots():
		return fmt.Sprintf("a W or Ac row longer than 256 blocks: W rows up to %d, Ac rows up to %d", pl.Stats.MaxRowW, pl.Stats.MaxRowAc)
	case v == GalerkinTCPairs:
		return fmt.Sprintf("A blocks of %d×%d: two do not stack in an 8-row mma operand", pl.Stats.R, pl.Stats.R)
	}
	return fmt.Sprintf("the P rows one fine row meets pass the %d-double tile buffer", tileDoubles)
}

// needsSlots reports whether v reads the slot bytes (rows of at most 256 blocks).
func (v GalerkinVariant) needsSlots() bool {
	return v == GalerkinTCRows16 || v == GalerkinTCRows32 || v == GalerkinSmemRows
}

// NumericStage is Numeric restricted to one stage (StageAP, StagePW: every variant
// but fused-recompute, which has no stages).
func (pl *GalerkinPlan) NumericStage(v GalerkinVariant, stage Stage, A, P *Matrix) error {
	pl.check(A, P)
	if v == GalerkinFused && stage != StageAll {
		return fmt.Errorf("cuda: Galerkin %s has no separate stages", v)
	}
	if !pl.Available(v) {
		return fmt.Errorf("cuda: Galerkin %s: not offered for this pattern (%s)", v, pl.Unavailable(v))
	}
	b := pl.b
	st := pl.Stats
	rr, cc := int32(st.R), int32(st.C)
	tag := pl.tag()
	nW, nAc := st.NnzW, st.NnzAc
	arp, acol, aval := A.rowPtr.Ptr(), A.col.Ptr(), A.val.Ptr()
	prp, pcol, pval := P.rowPtr.Ptr(), P.col.Ptr(), P.val.Ptr()
	wrow, wcol, wrp, wptr, wlist, wval := pl.wrow.Ptr(), pl.wcol.Ptr(), pl.wrp.Ptr(), pl.wptr.Ptr(), pl.wlist.Ptr(), pl.wval.Ptr()
	acrow, accol, acrp, acptr, aclist, acval := pl.acrow.Ptr(), pl.accol.Ptr(), pl.acrp.Ptr(), pl.acptr.Ptr(), pl.aclist.Ptr(), pl.acval.Ptr()
	ptrp, ptidx, ptrow := pl.ptrp.Ptr(), pl.ptidx.Ptr(), pl.ptrow.Ptr()
	wabs, acabs := pl.wabs.Ptr(), pl.acabs.Ptr()
	nAcVal := int64(pl.acval.Len())
	run := b.run
	doAP, doPW := stage != StagePW, stage != StageAP
	// Ac = Pᵀ·W with a warp per Ac block (tc-block's, also smem-tiles' and tc-pairs'
	// second stage), or per block on and above the diagonal for the symmetric half.
	acTCB := func() {
		if pl.Symmetric {
			nu := st.NnzAcUpper
			sel, ptrU, absU := pl.acsel.Ptr(), pl.acptrU.Ptr(), pl.acabsU.Ptr()
			run("gal_ac_tcb_"+tag, blocksFor(nu*32), func() {
				b.args.I32(rr).I32(cc).I64(nu).Ptr(sel).Ptr(ptrU).Ptr(absU).Ptr(wval).Ptr(pval).Ptr(acval)
			})
			return
		}
		run("gal_ac_tcb_"+tag, blocksFor(nAc*32), func() {
			b.args.I32(rr).I32(cc).I64(nAc).Ptr(0).Ptr(acptr).Ptr(acabs).Ptr(wval).Ptr(pval).Ptr(acval)
		})
	}
	switch v {
	case GalerkinTwoPassND:
		if doAP {
			run("gal_w_search_"+tag, blocksFor(nW), func() {
				b.args.I32(rr).I32(cc).I64(nW).Ptr(wrow).Ptr(wcol).Ptr(arp).Ptr(acol).Ptr(aval).Ptr(prp).Ptr(pcol).Ptr(pval).Ptr(wval)
			})
		}
		if doPW {
			run("gal_zero", stridedBlocks(nAcVal), func() { b.args.I64(nAcVal).Ptr(acval) })
			run("gal_ptw_atomic_nd_"+tag, blocksFor(nW), func() {
				b.args.I32(rr).I32(cc).I64(nW).Ptr(wrow).Ptr(wcol).Ptr(wval).Ptr(prp).Ptr(pcol).Ptr(pval).Ptr(acrp).Ptr(accol).Ptr(acval)
			})
		}
	case GalerkinInspector:
		if doAP {
			run("gal_w_abs_"+tag, blocksFor(nW), func() {
				b.args.I32(rr).I32(cc).I64(nW).Ptr(wptr).Ptr(wabs).Ptr(aval).Ptr(pval).Ptr(wval)
			})
		}
		if doPW {
			run("gal_ac_abs_"+tag, blocksFor(nAc), func() {
				b.args.I32(rr).I32(cc).I64(nAc).Ptr(acptr).Ptr(acabs).Ptr(wval).Ptr(pval).Ptr(acval)
			})
		}
	case GalerkinInspectorRows:
		if doAP {
			run("gal_w_rows_"+tag, blocksFor(nW*int64(rr)), func() {
				b.args.I32(rr).I32(cc).I64(nW).Ptr(wrow).Ptr(wptr).Ptr(wlist).Ptr(arp).Ptr(acol).Ptr(aval).Ptr(prp).Ptr(pval).Ptr(wval)
			})
		}
		if doPW {
			run("gal_ac_rows_"+tag, blocksFor(nAc*int64(cc)), func() {
				b.args.I32(rr).I32(cc).I64(nAc).Ptr(acrow).Ptr(acptr).Ptr(aclist).Ptr(ptrp).Ptr(ptidx).Ptr(ptrow).Ptr(wrp).Ptr(wval).Ptr(pval).Ptr(acval)
			})
		}
	case GalerkinInspectorBlock:
		if doAP {
			run("gal_w_list_"+tag, blocksFor(nW), func() {
				b.args.I32(rr).I32(cc).I64(nW).Ptr(wrow).Ptr(wptr).Ptr(wlist).Ptr(arp).Ptr(acol).Ptr(aval).Ptr(prp).Ptr(pval).Ptr(wval)
			})
		}
		if doPW {
			run("gal_ac_list_"+tag, blocksFor(nAc), func() {
				b.args.I32(rr).I32(cc).I64(nAc).Ptr(acrow).Ptr(acptr).Ptr(aclist).Ptr(ptrp).Ptr(ptidx).Ptr(ptrow).Ptr(wrp).Ptr(wval).Ptr(pval).Ptr(acval)
			})
		}
	case GalerkinTCBlock:
		if doAP {
			// With the symmetric half, only the W blocks it reads (wsel), each at its slot.
			n, sel := nW, cudadrv.DevPtr(0)
			if pl.Symmetric {
				n, sel = int64(pl.wsel.Len()), pl.wsel.Ptr()
			}
			nb := blocksFor(n * 32)
			aper, lper, pper, plead := st.l2Shares(nb, st.ProdAP*8)
			run("gal_w_tcb_"+tag, nb, func() {
				b.args.I32(rr).I32(cc).I64(n).Ptr(sel).Ptr(wptr).Ptr(wabs).Ptr(aval).Ptr(pval).Ptr(wval).
					F64(aper).F64(lper).F64(pper).I32(prefetchAhead).I32(plead)
			})
		}
		if doPW {
			acTCB()
		}
	case GalerkinTCRows16, GalerkinTCRows32:
		nw := "16"
		if v == GalerkinTCRows32 {
			nw = "32"
		}
		n, m := int32(st.N), int32(st.M)
		wsw0, wslw, asw0, aslw := pl.wsw0.Ptr(), pl.wslw.Ptr(), pl.asw0.Ptr(), pl.aslw.Ptr()
		if doAP {
			run("gal_w_tcr"+nw+"_"+tag, blocksFor(int64(n)*32), func() {
				b.args.I32(rr).I32(cc).I32(n).Ptr(arp).Ptr(acol).Ptr(aval).Ptr(prp).Ptr(pval).Ptr(wrp).Ptr(wsw0).Ptr(wslw).Ptr(wval)
			})
		}
		if doPW {
			run("gal_ac_tcr"+nw+"_"+tag, blocksFor(int64(m)*32), func() {
				b.args.I32(rr).I32(cc).I32(m).Ptr(ptrp).Ptr(ptidx).Ptr(ptrow).Ptr(wrp).Ptr(wval).Ptr(pval).Ptr(acrp).Ptr(asw0).Ptr(aslw).Ptr(acval)
			})
		}
	case GalerkinSmemRows:
		wsw0, wslw, asw0, aslw := pl.wsw0.Ptr(), pl.wslw.Ptr(), pl.asw0.Ptr(), pl.aslw.Ptr()
		nww, nwa := st.SmemWinW, st.SmemWinAc
		wwin, acwin := pl.wwin.Ptr(), pl.acwin.Ptr()
		if doAP {
			run("gal_w_smr_"+tag, blocksFor(nww*32), func() {
				b.args.I32(rr).I32(cc).I64(nww).Ptr(wwin).Ptr(arp).Ptr(acol).Ptr(aval).Ptr(prp).Ptr(pval).Ptr(wrp).Ptr(wsw0).Ptr(wslw).Ptr(wval)
			})
		}
		if doPW {
			run("gal_ac_smr_"+tag, blocksFor(nwa*32), func() {
				b.args.I32(rr).I32(cc).I64(nwa).Ptr(acwin).Ptr(ptrp).Ptr(ptidx).Ptr(ptrow).Ptr(wrp).Ptr(wval).Ptr(pval).Ptr(acrp).Ptr(asw0).Ptr(aslw).Ptr(acval)
			})
		}
	case GalerkinSmemTiles:
		if doAP {
			nt := int32(st.Tiles)
			trow, trun, truns, tlist := pl.trow.Ptr(), pl.trun.Ptr(), pl.truns.Ptr(), pl.tlist.Ptr()
			// With the symmetric half, W's blocks at their slots, the unread ones left out
			// (wslot; null: every block at its index).
			wslot := pl.wslot.Ptr()
			run("gal_w_tile_"+tag, uint32(nt), func() {
				b.args.I32(rr).I32(cc).I32(nt).Ptr(trow).Ptr(trun).Ptr(truns).Ptr(arp).Ptr(aval).Ptr(pval).Ptr(wrp).Ptr(wptr).Ptr(tlist).Ptr(wslot).Ptr(wval)
			})
		}
		if doPW {
			acTCB()
		}
	case GalerkinTCPairs:
		if doAP {
			ne := st.PairEntries
			pw, pwptr, plist := pl.pw.Ptr(), pl.pwptr.Ptr(), pl.plist.Ptr()
			// A warp (32 threads) per pairEntriesPerWarp entries.
			nb := blocksFor((ne + pairEntriesPerWarp - 1) / pairEntriesPerWarp * 32)
			aper, lper, pper, plead := st.l2Shares(nb, st.PairProds*12)
			run("gal_w_tcp_"+tag, nb, func() {
				b.args.I32(rr).I32(cc).I64(ne).Ptr(pw).Ptr(pwptr).Ptr(plist).Ptr(aval).Ptr(pval).Ptr(wval).
					F64(aper).F64(lper).F64(pper).I32(prefetchAhead).I32(plead)
			})
		}
		if doPW {
			acTCB()
		}
	case GalerkinFused:
		run("gal_fused_"+tag, blocksFor(nAc), func() {
			b.args.I32(rr).I32(cc).I64(nAc).Ptr(acrow).Ptr(acptr).Ptr(aclist).Ptr(ptrp).Ptr(ptidx).Ptr(ptrow).Ptr(wrp).Ptr(wptr).Ptr(wlist).
				Ptr(arp).Ptr(acol).Ptr(aval).Ptr(prp).Ptr(pval).Ptr(acval)
		})
	default:
		return fmt.Errorf("cuda: unknown Galerkin variant %q", v)
	}
	return nil
}

// PoisonAc fills Ac's device values with NaN, so that a kernel that misses an entry
// shows.
func (pl *GalerkinPlan) PoisonAc() error {
	nan := make([]float64, pl.acval.Len())
	for i := range nan {
		nan[i] = math.NaN()
	}
	return pl.acval.Upload(nan)
}

// AcValues returns the device buffer of Ac's values (row-major C×C blocks in the
// order of Ac's pattern).
func (pl *GalerkinPlan) AcValues() *Buffer[float64] { return pl.acval }

// DownloadAc waits for queued work and returns Ac with its values copied from the
// device (counted under the current phase).
func (pl *GalerkinPlan) DownloadAc() (*bsr.Matrix, error) {
	m := *pl.Ac
	m.Val = make([]float64, pl.acval.Len())
	if err := pl.b.Err(); err != nil {
		return nil, err
	}
	if err := pl.acval.Download(m.Val); err != nil {
		return nil, err
	}
	return &m, nil
}

// checkGalerkin returns an error unless A and P are valid operands of the device
// Galerkin product: A square with square blocks, P with A's block rows and block
// height, blocks no larger than galerkinMax.
func checkGalerkin(A, P *bsr.Matrix) error {
	if err := A.Validate(); err != nil {
		return err
	}
	if err := P.Validate(); err != nil {
		return err
	}
	if A.BlockRows != A.BlockCols || A.R != A.C || P.BlockRows != A.BlockRows || P.R != A.R {
		return fmt.Errorf("cuda: Galerkin: A is %d×%d blocks of %d×%d, P %d×%d of %d×%d: want A square with square blocks and P.R = A.R",
			A.BlockRows, A.BlockCols, A.R, A.C, P.BlockRows, P.BlockCols, P.R, P.C)
	}
	if P.R > galerkinMax || P.C > galerkinMax {
		return fmt.Errorf("cuda: Galerkin: blocks %d×%d larger than %d×%d", P.R, P.C, galerkinMax, galerkinMax)
	}
	return nil
}

// GalerkinStatsOf returns the pattern statistics of Ac = PᵀAP that the device
// traffic model takes (PredictGalerkin), computed on the host from the symbolic phase
// alone: the model can be evaluated without a device.
func GalerkinStatsOf(A, P *bsr.Matrix) (GalerkinStats, error) {
	_, _, st, err := symbolicHost(A, P, false)
	return st, err
}

// GalerkinStatsSymmetric is GalerkinStatsOf for a plan made with Options.Symmetric:
// the model then prices the symmetric half of tc-block's, smem-tiles' and tc-pairs'
// Pᵀ·W. A must pass bsr's CheckSymmetric.
func GalerkinStatsSymmetric(A, P *bsr.Matrix) (GalerkinStats, error) {
	_, _, st, err := symbolicHost(A, P, true)
	return st, err
}

// symbolicHost is the host part of every symbolic entry (GalerkinSymbolicFor and the
// two statistics functions): the operand checks, and with sym A's symmetry; the
// schedules; with sym Ac's mirrors (acMirrors); the statistics.
func symbolicHost(A, P *bsr.Matrix, sym bool) (*hostSchedule, []int64, GalerkinStats, error) {
	if err := checkGalerkin(A, P); err != nil {
		return nil, nil, GalerkinStats{}, err
	}
	if sym {
		if err := A.CheckSymmetric(); err != nil {
			return nil, nil, GalerkinStats{}, fmt.Errorf("cuda: Galerkin, symmetric plan (Options.Symmetric): A is %w", err)
		}
	}
	s, err := galerkinSchedule(A, P)
	if err != nil {
		return nil, nil, GalerkinStats{}, err
	}
	var mir []int64
	if sym {
		if mir, err = s.acMirrors(); err != nil {
			return nil, nil, GalerkinStats{}, err
		}
	}
	st, err := s.stats(A, P, sym)
	return s, mir, st, err
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
