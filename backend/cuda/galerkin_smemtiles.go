package cuda

import (
	"fmt"
	"math"
	"slices"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/cudadrv"
	"github.com/blockamg/blockamg/internal/par"
)

// smemTiles is GalerkinSmemTiles: W = A·P by tiles of consecutive fine rows, their
// P rows staged in shared memory (tileCut), then tc-block's Pᵀ·W.
type smemTiles struct{}

func (smemTiles) reads(sym bool) bufSet {
	s := bufs(bufTRow, bufTRun, bufTRuns, bufTList, bufWRp, bufWPtr) | acTCBReads(sym)
	if sym {
		s |= bufs(bufWSlot)
	}
	return s
}

func (smemTiles) launch(r *galerkinRun) {
	b := r.b
	if r.doAP {
		nt := int32(r.st.Tiles)
		trow, trun, truns, tlist := r.ptr(bufTRow), r.ptr(bufTRun), r.ptr(bufTRuns), r.ptr(bufTList)
		wrp, wptr := r.ptr(bufWRp), r.ptr(bufWPtr)
		// With the symmetric half, W's blocks at their slots, the unread ones left out
		// (wslot; null: every block at its index).
		wslot := cudadrv.DevPtr(0)
		if r.pl.Symmetric {
			wslot = r.ptr(bufWSlot)
		}
		b.run("gal_w_tile_"+r.tag, uint32(nt), func() {
			b.args.I32(r.rr).I32(r.cc).I32(nt).Ptr(trow).Ptr(trun).Ptr(truns).Ptr(r.arp).Ptr(r.aval).Ptr(r.pval).Ptr(wrp).Ptr(wptr).Ptr(tlist).Ptr(wslot).Ptr(r.wval)
		})
	}
	if r.doPW {
		launchAcTCB(r)
	}
}

// tilesOffered: every fine row's P union fits the tile buffer (tileCut).
func tilesOffered(s GalerkinStats) bool { return s.Tiles > 0 }

func tilesWhyNot(GalerkinStats) string {
	return fmt.Sprintf("the P rows one fine row meets pass the %d-double tile buffer", tileDoubles)
}

// predict is the model of smem-tiles, stage by stage (two kernels; the whole
// product is their sum):
//
//	A·P:  |A| + |P| + |W| + S_W (4 B per product, its tile-local pair, + W's row and
//	      list pointers) + 12 B per tile + P's re-reads across fine planes
//	      (pGapMisses, as every variant's); L1 lines: every product's A block, ℓ(8R²),
//	      and every staged P block once per tile, ℓ(8RC); flops 2R²C per product on
//	      the CUDA cores; the time the roofline of the three, the L1 term at least
//	      tileCycles per product (fitted).
//	Pᵀ·W: tc-block's.
func (smemTiles) predict(s GalerkinStats, mc GalerkinMachine, stage Stage) GalerkinPrediction {
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
	pw := tcBlock{}.predict(s, mc, StagePW)
	if stage == StagePW {
		return pw
	}
	return GalerkinPrediction{Bytes: ap.Bytes + pw.Bytes, Flops: ap.Flops + pw.Flops, MMAs: pw.MMAs, Lines: ap.Lines + pw.Lines,
		Seconds: ap.Seconds + pw.Seconds}
}

// tileCycles is the SM cycles the smem-tiles A·P kernel spends per block product,
// fitted on the H200 (ex56 ne = 64 fine level: 1.643 ms for 3.25·10⁷
// products over 132 SMs at 1.98 GHz = 13.2; ne = 100, out of sample, 13.5). Its limit
// is L1 (84% busy in Nsight Compute: the shared loads of the staged P blocks, 6.8
// wavefronts a product with bank conflicts, and the A loads), which the lines term,
// counting one line per A block, put 5× lower; without it the chooser ranked
// smem-tiles ahead of tc-pairs, which is 4–6% faster.
const tileCycles = 13.2

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
