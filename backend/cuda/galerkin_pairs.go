package cuda

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// The tc-pairs schedule. One mma.m8n8k4 takes an 8×4 left operand, of which tc-block's
// R×R A block fills R rows (3 of 8 for elasticity). Fine rows 2q and 2q+1 are
// neighbours in any mesh numbering, so they meet mostly the same A columns k and, for
// a coarse column J, the same P blocks P_kJ: stacking A_{2q,k} over A_{2q+1,k} in one
// left operand computes both rows' products with P_kJ in one mma. A pair entry, the W
// blocks (2q, J) and (2q+1, J) (either may be absent), is one warp's work: it walks
// the union of their product lists, merged by k; a product that only one row has
// leaves the other half of the operand zero. At ex56 ne = 64 the union is 0.67 of the
// products, and the pairs 1.9M entries for 3.3M W blocks (a warp computes
// pairEntriesPerWarp of them in turn). The sums are tc-block's, term for term and in
// the same order (an absent half adds exact zeros to the other row's accumulators), so
// the W blocks are bitwise tc-block's.

// pairsOffered reports whether R×R blocks stack two to an 8-row operand.
func pairsOffered(r int) bool { return 2*r <= 8 }

// pairCounts counts the tc-pairs schedule: pair entries (the W columns of row pairs,
// their union) and merged products, from the W pattern and the packed lists. It keeps
// each pair's first entry and product (pairEnt, pairProd) for pairLists, so the
// symbolic phase walks the merged lists once to count and once to fill.
func (s *hostSchedule) pairCounts(A, P *bsr.Matrix) (entries, prods int64) {
	np := (A.BlockRows + 1) / 2
	ents := make([]int64, np+1)
	pr := make([]int64, np+1)
	par.For(np, 0, 1024, func(lo, hi int) {
		for q := lo; q < hi; q++ {
			s.walkPair(A, P, q, func(_, _, merged int64) {
				ents[q+1]++
				pr[q+1] += merged
			}, nil)
		}
	})
	for q := range np {
		ents[q+1] += ents[q]
		pr[q+1] += pr[q]
	}
	s.pairEnt, s.pairProd = ents, pr
	return ents[np], pr[np]
}

// pairGroup is the number of consecutive fine-row pairs whose entries pairLists orders
// by W column: the eight warps of a thread block then mostly share P blocks across
// row pairs (neighbouring rows meet the same P rows) where, in row-pair order, they
// shared A blocks across columns, which L1 already kept. On the H200 (ex56 fine level,
// BENCHMARKS.md) the A·P kernel runs 2.5–3% faster with groups of 2 to 16 than in
// row-pair order, and with each block's warps balanced (balanceBlocks) about 1% faster
// with groups of 4 than of 8, on two machines (ne = 64: 0.906–0.914 ms against
// 0.917–0.930; 2: 0.910; 16 and 32: as 8).
const pairGroup = 4

// pairLists builds the tc-pairs schedule: per pair entry its two W blocks (pw, −1
// where absent; each named by where it lies in W's values, slotOf) and the start of
// its merged products (pwptr), per product its two A blocks (−1 where absent) and P
// block (plist, triples). The entries of each group of pairGroup row pairs are
// ordered by W column, then row pair; then the entries each thread block computes
// are rearranged among its warps by length (balanceBlocks). Groups are filled in
// parallel at the offsets pairCounts found (it runs first when it has not).
func (s *hostSchedule) pairLists(A, P *bsr.Matrix) {
	np := (A.BlockRows + 1) / 2
	if s.pairEnt == nil {
		s.pairCounts(A, P)
	}
	ents, pr := s.pairEnt, s.pairProd
	pw, pwptr, plist := make([]int32, 2*ents[np]), make([]int64, ents[np]+1), make([]int32, 3*pr[np])
	ng := (np + pairGroup - 1) / pairGroup
	type entry struct {
		J, w0, w1 int32
		first     int // its triples in buf
		n         int
	}
	par.For(ng, 0, 64, func(lo, hi int) {
		var group []entry
		var buf []int32
		for gi := lo; gi < hi; gi++ {
			q0, q1 := gi*pairGroup, min((gi+1)*pairGroup, np)
			group, buf = group[:0], buf[:0]
			for q := q0; q < q1; q++ {
				start := len(buf)
				s.walkPair(A, P, q, func(w0, w1, _ int64) {
					w := w0
					if w < 0 {
						w = w1
					}
					group = append(group, entry{J: s.wcol[w], w0: int32(w0), w1: int32(w1), first: start, n: (len(buf) - start) / 3})
					start = len(buf)
				}, func(a0, a1, p int64) {
					buf = append(buf, int32(a0), int32(a1), int32(p))
				})
			}
			// Stable: row pairs stay in order within a column.
			slices.SortStableFunc(group, func(a, b entry) int { return int(a.J - b.J) })
			e, t := ents[q0], pr[q0]
			for _, en := range group {
				pw[2*e], pw[2*e+1] = int32(s.slotOf(int64(en.w0))), int32(s.slotOf(int64(en.w1)))
				pwptr[e] = t
				copy(plist[3*t:], buf[en.first:en.first+3*en.n])
				t += int64(en.n)
				e++
				pwptr[e] = t
			}
		}
	})
	balanceBlocks(pw, pwptr, plist)
	s.pw, s.pwptr, s.plist = pw, pwptr, plist
	s.pairEnt, s.pairProd = nil, nil
}

// blockEntries is the number of consecutive pair entries one thread block of the
// tc-pairs kernel computes: pairEntriesPerWarp rounds of one entry for each of its
// warps (kernels/galerkin_tc.cuh, gal_w_tcp: block x, round k, warp w computes entry
// (x·pairEntriesPerWarp + k)·warps + w).
const blockEntries = pairEntriesPerWarp * threads / 32

// balanceBlocks reorders the entries within each full window of blockEntries (one
// thread block's) so that its warps get about equal work: sorted by falling list length
// (stable), round k takes the next warps-many entries, in order for even k and reversed
// for odd k, so with two rounds warp w does the w-th longest and the w-th shortest. A
// block holds its multiprocessor slot until its slowest warp is done; at ex56 ne = 40
// this raises the useful share of that time from 0.67 to 0.87. Which entries share a
// block, and so what its warps share in L1, is unchanged; sorting whole groups by
// length instead reached 0.86 but lost that sharing (H200, ex56 ne = 64 fine level:
// A·P 0.956 → 0.915 ms with this, 0.941 with the group sort; BENCHMARKS.md). Each
// window's products stay in the window's range of plist, so the windows are
// rearranged in place, in parallel. A last, partial window stays as it is.
func balanceBlocks(pw []int32, pwptr []int64, plist []int32) {
	const warps = threads / 32
	n := len(pwptr) - 1
	par.For(n/blockEntries, 0, 256, func(lo, hi int) {
		var order [blockEntries]int
		var start, length [blockEntries]int64
		var pws [2 * blockEntries]int32
		var buf []int32
		for x := lo; x < hi; x++ {
			e0 := x * blockEntries
			t0 := pwptr[e0]
			for i := range order {
				order[i] = i
				start[i], length[i] = pwptr[e0+i]-t0, pwptr[e0+i+1]-pwptr[e0+i]
			}
			slices.SortStableFunc(order[:], func(a, b int) int { return cmp.Compare(length[b], length[a]) })
			buf = append(buf[:0], plist[3*t0:3*pwptr[e0+blockEntries]]...)
			copy(pws[:], pw[2*e0:2*(e0+blockEntries)])
			t := t0
			for slot := range blockEntries {
				k, w := slot/warps, slot%warps
				if k%2 == 1 {
					w = warps - 1 - w
				}
				src := order[k*warps+w]
				pw[2*(e0+slot)], pw[2*(e0+slot)+1] = pws[2*src], pws[2*src+1]
				copy(plist[3*t:], buf[3*start[src]:3*(start[src]+length[src])])
				pwptr[e0+slot] = t
				t += length[src]
			}
		}
	})
}

// pairColumns visits the W columns of fine rows 2q and 2q+1 in order, calling f with
// the two rows' W blocks in the column: −1 where a row lacks it, or where wSkip leaves
// the block out (the symmetric half never reads it; it is never written). A column
// with neither is not visited.
func (s *hostSchedule) pairColumns(q int, f func(w0, w1 int64)) {
	n := len(s.wrp) - 1
	x0, e0 := s.wrp[2*q], s.wrp[2*q+1]
	x1, e1 := e0, e0 // row 2q+1, empty past the last row
	if 2*q+1 < n {
		e1 = s.wrp[2*q+2]
	}
	for x0 < e0 || x1 < e1 {
		w0, w1 := int64(-1), int64(-1)
		switch {
		case x1 >= e1 || (x0 < e0 && s.wcol[x0] < s.wcol[x1]):
			w0 = x0
			x0++
		case x0 >= e0 || s.wcol[x1] < s.wcol[x0]:
			w1 = x1
			x1++
		default:
			w0, w1 = x0, x1
			x0++
			x1++
		}
		if s.wSkip != nil {
			if w0 >= 0 && s.wSkip[w0] {
				w0 = -1
			}
			if w1 >= 0 && s.wSkip[w1] {
				w1 = -1
			}
			if w0 < 0 && w1 < 0 {
				continue
			}
		}
		f(w0, w1)
	}
}

// walkPair visits the pair entries of fine rows 2q and 2q+1 (pairColumns), calling
// entry with the two W blocks (−1 where absent or left out) and the length of their
// merged product list after the list's products, which emit (when non-nil) gets in
// order: the two A blocks (−1 where absent) and the P block.
func (s *hostSchedule) walkPair(A, P *bsr.Matrix, q int, entry func(w0, w1, merged int64), emit func(a0, a1, p int64)) {
	i0, i1 := 2*q, 2*q+1
	// Product t of fine row i's W block: its A block, A column and P block.
	abs := func(i int, t int64) (a int64, k int32, p int64) {
		u := s.wlist[t]
		a = A.RowPtr[i] + int64(u>>16)
		k = A.ColIdx[a]
		return a, k, P.RowPtr[k] + int64(u&0xffff)
	}
	s.pairColumns(q, func(w0, w1 int64) {
		var t0, f0, t1, f1 int64
		if w0 >= 0 {
			t0, f0 = s.wptr[w0], s.wptr[w0+1]
		}
		if w1 >= 0 {
			t1, f1 = s.wptr[w1], s.wptr[w1+1]
		}
		merged := int64(0)
		for t0 < f0 || t1 < f1 {
			a0, a1, p := int64(-1), int64(-1), int64(0)
			var k0, k1 int32
			if t0 < f0 {
				a0, k0, p = abs(i0, t0)
			}
			if t1 < f1 {
				var p1 int64
				a1, k1, p1 = abs(i1, t1)
				switch {
				case t0 >= f0 || k1 < k0:
					a0, p = -1, p1
				case k0 < k1:
					a1 = -1
				}
			}
			if a0 >= 0 {
				t0++
			}
			if a1 >= 0 {
				t1++
			}
			merged++
			if emit != nil {
				emit(a0, a1, p)
			}
		}
		entry(w0, w1, merged)
	})
}

// tcPairs is GalerkinTCPairs: tc-block with the A blocks of fine rows 2q and 2q+1
// stacked in one mma operand (pairLists), then tc-block's Pᵀ·W.
type tcPairs struct{}

func (tcPairs) reads(sym bool) bufSet { return bufs(bufPW, bufPList, bufPWPtr) | acTCBReads(sym) }

func (tcPairs) launch(r *galerkinRun) {
	b := r.b
	if r.doAP {
		ne := r.st.PairEntries
		pw, pwptr, plist := r.ptr(bufPW), r.ptr(bufPWPtr), r.ptr(bufPList)
		// A warp (32 threads) per pairEntriesPerWarp entries.
		nb := blocksFor((ne + pairEntriesPerWarp - 1) / pairEntriesPerWarp * 32)
		aper, lper, pper, plead := r.st.l2Shares(nb, r.st.PairProds*12)
		b.run("gal_w_tcp_"+r.tag, nb, func() {
			b.args.I32(r.rr).I32(r.cc).I64(ne).Ptr(pw).Ptr(pwptr).Ptr(plist).Ptr(r.aval).Ptr(r.pval).Ptr(r.wval).
				F64(aper).F64(lper).F64(pper).I32(prefetchAhead).I32(plead)
		})
	}
	if r.doPW {
		launchAcTCB(r)
	}
}

// predict: A·P |A| + |P| + |W| + 12 B per merged product (its triple) + 16 B per pair
// entry (with the symmetric half only the share of |W| it reads, wHalf); Pᵀ·W as
// tc-block's. L1 lines per merged product: two A blocks and a P block. Its time adds
// tcPairsCycles SM cycles per merged mma step of A·P, tc-block's per step of Pᵀ·W.
func (tcPairs) predict(s GalerkinStats, mc GalerkinMachine, stage Stage) GalerkinPrediction {
	A, P, W := s.bytesA(), s.bytesP(), s.bytesWVal()
	wWritten := W
	if s.Symmetric {
		wWritten = s.wHalf(W) // only the W blocks the half reads
	}
	k := int64((s.R + 3) / 4)
	kf := float64((s.R + 3) / 4)
	lA, lP := lines(8*s.R*s.R), lines(8*s.R*s.C)
	t := galerkinTerms{tc: true, flopsAP: s.flopsAP(), flopsPW: s.flopsPW(),
		bytesAP: A + P + wWritten + 12*s.PairProds + 16*s.PairEntries + 8 + s.pGapMisses(mc),
		bytesPW: tcBlock{}.predict(s, mc, StagePW).Bytes, // the same kernel
		prodAP:  float64(s.PairProds), lineAP: 1 + 2*lA + lP, prodPW: float64(s.ProdPW), linePW: 1 + 2*kf*lP,
		mAP: s.PairProds, mPW: s.ProdPW * k}
	cyclesPW := tcbCyclesPW
	if s.Symmetric {
		t.prodPW = float64(s.ProdPWUpper)
		t.mPW = s.ProdPWUpper * k
		cyclesPW = tcbCyclesPWSym
	}
	return s.roofline(mc, stage, t, s.mmaStepBound(mc, stage, tcPairsCycles*float64(t.mAP), cyclesPW*float64(t.mPW))...)
}

// pairsOfferedFor: A blocks that stack two to an 8-row operand (pairCounts counts
// none otherwise).
func pairsOfferedFor(s GalerkinStats) bool { return s.PairEntries > 0 }

func pairsWhyNot(s GalerkinStats) string {
	return fmt.Sprintf("A blocks of %d×%d: two do not stack in an 8-row mma operand", s.R, s.R)
}

// pairEntriesPerWarp is the number of pair entries a tc-pairs warp computes in turn
// (kernels/galerkin_tc.cuh's GAL_PAIR_ENTRIES must match): a thread block holds its
// multiprocessor slot until its longest warp is done, and two entries a warp even out
// their lengths (H200, ex56 ne = 64 fine level 1.45 → 1.34 ms; BENCHMARKS.md).
const pairEntriesPerWarp = 2
