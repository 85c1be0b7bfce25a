package cuda

import (
	"fmt"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/lru"
)

// fused-recompute's traffic by replay.
//
// fused-recompute reads A and P many times: every W block is recomputed once per P
// block of its fine row (ProdAPFused ≈ 4.6 ProdAP on ex56), and whether a re-read
// hits L2 depends on when the threads that share a block run. A formula over the
// pattern statistics (the in-flight bytes against the L2) predicted 35% and 25% of
// what Nsight Compute measured on the ex56 fine level at ne = 64 and 100. So the
// model replays the kernel's loads instead, through an idealised L2:
//
//   - the schedule of gal_fused: thread b of the launch is Ac block b, it walks its
//     product list (aclist) and recomputes each W block from W's list, reading
//     the same arrays in the same order as the kernel;
//   - the execution of the H200: CTAs of 256 threads, fusedResidentCTAs of
//     them per SM at once, a finished CTA replaced by the next; each warp moves one
//     step a round, the lanes of a warp in lockstep (SIMT: the lanes walk their k-th
//     W blocks together, a lane whose W block is done waits for the warp's longest);
//   - the cache: fully associative LRU of 32-byte sectors (DRAM's access unit) with
//     half the L2, as gapMisses: a line every SM reads sits in both L2 partitions.
//
// Nothing is fitted. To keep the replay affordable it follows only the 128-byte lines
// whose hash falls in one of fusedSimSample buckets (set sampling, with the cache
// scaled down alike) and scales the misses back up; it still walks every recomputed
// product, about 6 s per 10⁸ on one core of the development VM (8–12 s at ex56 ne = 64,
// 37 s at ne = 100), so GalerkinStatsOf leaves it out and SimulateFused runs it on
// request.

// fusedSimSample is the set-sampling factor of the replay: one 128-byte line in this
// many is followed.
const fusedSimSample = 64

// fusedResidentCTAs is the CTAs of 256 threads gal_fused keeps resident per SM
// on sm_90, from ptxas's register counts (TestPtxasReport with -cuda.ptxas gal_fused):
// 176 registers for 3×6 and 252 for 6×6 allow one CTA of 256 in 64K registers; the
// generic kernel's 32 registers allow eight.
func fusedResidentCTAs(R, C int) int {
	if _, ok := galerkinShapes[[2]int{R, C}]; ok {
		return 1
	}
	return 8
}

// SimulateFused returns the DRAM bytes (read and written) of one fused-recompute
// product Ac = PᵀAP on a device like mc, by replaying the kernel's loads (see above).
// Set GalerkinStats.FusedSimBytes to it for PredictGalerkin to use it. Its cost is a
// walk over the ProdAPFused products (seconds at ne = 64).
func SimulateFused(A, P *bsr.Matrix, mc GalerkinMachine) (int64, error) {
	if err := checkGalerkin(A, P); err != nil {
		return 0, fmt.Errorf("SimulateFused: %w", err)
	}
	s, err := galerkinSchedule(A, P)
	if err != nil {
		return 0, err
	}
	resident := max(mc.SMs, 1) * fusedResidentCTAs(P.R, P.C)
	return replayFused(s, A, P, mc.L2Bytes/2, fusedSimSample, resident), nil
}

// sectorCache is the replay's L2: an LRU of 32-byte sectors (internal/lru) that
// follows only the sectors of sampled lines.
type sectorCache struct {
	lru     *lru.Cache
	sample  uint64
	touches int64 // accesses to followed sectors
	misses  int64
}

func newSectorCache(bytes int64, sample int) *sectorCache {
	return &sectorCache{lru: lru.New(int(min(max(bytes/32/int64(sample), 1), 1<<28))), sample: uint64(sample)}
}

func mix(x uint64) uint64 { return (x * 0x9e3779b97f4a7c15) >> 32 }

// touch accesses sector sec (already known to be sampled).
func (c *sectorCache) touch(sec uint64) {
	c.touches++
	if _, hit, _ := c.lru.Access(sec); !hit {
		c.misses++
	}
}

// sectors calls f with each sector of bytes [addr, addr+n) that lies in a sampled
// line.
func (c *sectorCache) sectors(addr, n uint64, f func(uint64)) {
	last := (addr + n - 1) >> 5
	for line := addr >> 7; line <= last>>2; line++ {
		if mix(line^0x5bd1e995)%c.sample != 0 {
			continue
		}
		for q := max(line<<2, addr>>5); q <= min(line<<2+3, last); q++ {
			f(q)
		}
	}
}

// read accesses the sampled sectors of bytes [addr, addr+n).
func (c *sectorCache) read(addr, n uint64) { c.sectors(addr, n, c.touch) }

// fusedLane is one thread of the replayed gal_fused launch.
type fusedLane struct {
	t, t1   int64 // its next and end position in aclist
	e0      int64 // its coarse row's first Pᵀ entry
	o, n    int32 // the product it is at in the W block being recomputed, and their count
	ev, ev1 int64 // the W block's sampled loads not yet made (fusedLoads)
	p       int64 // the P block of the W block's Pᵀ entry
	live    bool
}

// fusedLoads are the sampled sectors each W block's recomputation reads, the same
// every time: for W block w, entries ptr[w] to ptr[w+1] of off (the product, within
// the block's list, that reads the sector) and sec, in order. Listing them once (one
// pass over W's products) spares the replay a walk of W's list, A's column indices
// and P's row pointers per recomputed product, which set its cost.
type fusedLoads struct {
	ptr []int64
	off []int32
	sec []uint64
}

// replayFused runs the replay of gal_fused over schedule s with a cache of cacheBytes,
// following one line in sample, resident CTAs at once, and returns the DRAM bytes:
// the sampled misses × 32 × sample, plus Ac written once.
func replayFused(s *hostSchedule, A, P *bsr.Matrix, cacheBytes int64, sample, resident int) int64 {
	c := newSectorCache(cacheBytes, sample)
	replayFusedInto(c, s, A, P, resident)
	return c.misses*32*int64(sample) + int64(len(s.acrow))*int64(8*P.C*P.C)
}

// replayFusedInto replays gal_fused's loads through cache c.
func replayFusedInto(c *sectorCache, s *hostSchedule, A, P *bsr.Matrix, resident int) {
	R, C := uint64(P.R), uint64(P.C)
	base := uint64(0)
	alloc := func(n int) uint64 { a := base; base += (uint64(n) + 4095) &^ 4095; return a }
	nAc := int64(len(s.acrow))
	bAcrow, bAcptr, bAclist := alloc(4*len(s.acrow)), alloc(8*len(s.acptr)), alloc(4*len(s.aclist))
	bPtrp, bPtidx, bPtrow := alloc(8*len(s.ptrp)), alloc(8*len(s.ptidx)), alloc(4*len(s.ptrow))
	bWrp, bWptr, bWlist := alloc(8*len(s.wrp)), alloc(8*len(s.wptr)), alloc(4*len(s.wlist))
	bArp, bAcol, bAval := alloc(8*len(A.RowPtr)), alloc(4*len(A.ColIdx)), alloc(8*len(A.Val))
	bPrp, bPval := alloc(8*len(P.RowPtr)), alloc(8*len(P.Val))
	sample := int(c.sample)

	// The W blocks' loads: per product its list entry, A's column index, P's row
	// pointer, the A block and the P block.
	var ld fusedLoads
	ld.ptr = make([]int64, len(s.wptr))
	// About 0.35 sampled sectors a product (21 sectors of 32 bytes in 1/64 of the
	// lines, for 3×3 and 3×6 blocks); append grows it when more.
	ld.off = make([]int32, 0, len(s.wlist)*21/(2*sample)+16)
	ld.sec = make([]uint64, 0, cap(ld.off))
	emit := func(o int32, addr, n uint64) {
		c.sectors(addr, n, func(q uint64) {
			ld.off = append(ld.off, o)
			ld.sec = append(ld.sec, q)
		})
	}
	for i := 0; i < A.BlockRows; i++ {
		a0 := A.RowPtr[i]
		for w := s.wrp[i]; w < s.wrp[i+1]; w++ {
			for g := s.wptr[w]; g < s.wptr[w+1]; g++ {
				o := int32(g - s.wptr[w])
				u := s.wlist[g]
				a := a0 + int64(u>>16)
				j := A.ColIdx[a]
				p := P.RowPtr[j] + int64(u&0xffff)
				emit(o, bWlist+4*uint64(g), 4)
				emit(o, bAcol+4*uint64(a), 4)
				emit(o, bPrp+8*uint64(j), 8)
				emit(o, bAval+uint64(a)*8*R*R, 8*R*R)
				emit(o, bPval+uint64(p)*8*R*C, 8*R*C)
			}
			ld.ptr[w+1] = int64(len(ld.sec))
		}
	}

	// next starts a lane on its list's following W block: the loads of the outer
	// loop of gal_fused (list entry, Pᵀ entry, W block and A row pointers).
	next := func(x *fusedLane) {
		if x.t == x.t1 {
			x.live = false
			return
		}
		c.read(bAclist+4*uint64(x.t), 4)
		u := s.aclist[x.t]
		e := x.e0 + int64(u>>16)
		c.read(bPtidx+8*uint64(e), 8)
		c.read(bPtrow+4*uint64(e), 4)
		i := s.ptrow[e]
		c.read(bWrp+8*uint64(i), 8)
		w := s.wrp[i] + int64(u&0xffff)
		c.read(bWptr+8*uint64(w), 16)
		c.read(bArp+8*uint64(i), 8)
		x.o, x.n, x.ev, x.ev1, x.p = 0, int32(s.wptr[w+1]-s.wptr[w]), ld.ptr[w], ld.ptr[w+1], s.ptidx[e]
		x.t++
	}
	// step does one A·P product of a lane, and the Pᵀ·W product after its last.
	step := func(x *fusedLane) {
		for x.ev < x.ev1 && ld.off[x.ev] == x.o {
			c.touch(ld.sec[x.ev])
			x.ev++
		}
		x.o++
		if x.o == x.n {
			c.read(bPval+uint64(x.p)*8*R*C, 8*R*C)
		}
	}

	slots := make([][]fusedLane, resident)
	first := int64(0)
	launch := func(k int) bool {
		if first >= nAc {
			slots[k] = nil
			return false
		}
		n := min(threads, nAc-first)
		ls := slots[k][:0]
		for b := first; b < first+n; b++ {
			c.read(bAcrow+4*uint64(b), 4)
			I := s.acrow[b]
			c.read(bPtrp+8*uint64(I), 8)
			c.read(bAcptr+8*uint64(b), 16)
			ls = append(ls, fusedLane{t: s.acptr[b], t1: s.acptr[b+1], e0: s.ptrp[I], live: true})
		}
		first += n
		// Each lane's first W block, as the first outer step of its warp.
		for q := range ls {
			next(&ls[q])
		}
		slots[k] = ls
		return true
	}
	for k := range slots {
		slots[k] = make([]fusedLane, 0, threads)
		launch(k)
	}
	for running := true; running; {
		running = false
		for k, ls := range slots {
			if ls == nil {
				continue
			}
			busy := false
			for w0 := 0; w0 < len(ls); w0 += 32 {
				warp := ls[w0:min(w0+32, len(ls))]
				did, alive := false, false
				for q := range warp {
					x := &warp[q]
					if x.live {
						alive = true
						if x.o < x.n {
							step(x)
							did = true
						}
					}
				}
				if alive && !did { // every lane's W block done: the warp's next outer step
					for q := range warp {
						if warp[q].live {
							next(&warp[q])
						}
					}
				}
				busy = busy || alive
			}
			if busy || launch(k) {
				running = true
			}
		}
	}
}
