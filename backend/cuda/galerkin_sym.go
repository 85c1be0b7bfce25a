package cuda

import (
	"fmt"
	"math"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/galerkin"
	"github.com/blockamg/blockamg/internal/par"
)

// The symmetric half of Ac = Pᵀ·W. When A is symmetric so is Ac (Acᵀ = PᵀAᵀP), so the
// Pᵀ·W stage need only compute the blocks on and above the diagonal, (I, J) with
// J ≥ I, and store each also transposed at its mirror (J, I). On ex56's fine level
// that is 55% of the Pᵀ·W products (ne = 64: 6.94M of 12.65M). The upper blocks are
// summed exactly as by tc-block's kernel (the same list, in the same order), so they
// carry its bits; the lower ones are their exact transposes, where the full product
// would differ from them in the last bits.
//
// Options.Symmetric asks for it; the symbolic phase checks A (bsr's CheckSymmetric) and
// finds each block's mirror in Ac's pattern (acMirrors). The kernel is the full
// product's gal_ac_tcb (kernels/galerkin_tc.cuh) given a sel list: one warp per upper
// block, over compact lists that hold only the upper blocks' products (upperLists).
// The half also leaves W blocks unread (unreadW); tc-pairs and tc-block then skip them
// in their A·P stage, whose W is complete only where the half reads it.

// acMirrors returns, per Ac block (I, J), the index of (J, I) (galerkin's
// MirrorPattern), or an error naming a block whose mirror the pattern lacks.
func (s *hostSchedule) acMirrors() ([]int64, error) {
	mir, err := galerkin.MirrorPattern(len(s.acrp)-1, s.acrp, s.accol)
	if err != nil {
		return nil, fmt.Errorf("cuda: Galerkin: Ac %w: A's pattern is not symmetric", err)
	}
	return mir, nil
}

// upperCounts returns the Ac blocks on and above the diagonal and their products.
func (s *hostSchedule) upperCounts() (blocks, prods int64) {
	for b, J := range s.accol {
		if J >= s.acrow[b] {
			blocks++
			prods += s.acptr[b+1] - s.acptr[b]
		}
	}
	return blocks, prods
}

// upperLists builds the symmetric half's lists: per upper block, in Ac's order, its
// index and mirror (acsel pairs; −1 on the diagonal), its first product (acptrU), and
// its products as (P block, W block) indices (acabsU, tc-block's pairs; W's by slotOf). nu and
// pu are upperCounts' (the statistics hold them), for the lists' capacities.
func (s *hostSchedule) upperLists(mir []int64, nu, pu int64) {
	s.acsel, s.acptrU, s.acabsU = make([]int32, 0, 2*nu), make([]int64, 1, nu+1), make([]int32, 0, 2*pu)
	for b, J := range s.accol {
		I := s.acrow[b]
		if J < I {
			continue
		}
		m := int32(mir[b])
		if J == I {
			m = -1
		}
		s.acsel = append(s.acsel, int32(b), m)
		for t := s.acptr[b]; t < s.acptr[b+1]; t++ {
			u := s.aclist[t]
			e := s.ptrp[I] + int64(u>>16)
			s.acabsU = append(s.acabsU, int32(s.ptidx[e]), int32(s.slotOf(s.wrp[s.ptrow[e]]+int64(u&0xffff))))
		}
		s.acptrU = append(s.acptrU, int64(len(s.acabsU)/2))
	}
}

// unreadW marks the W blocks the symmetric half never reads. Ac block (I, J) with
// J ≥ I sums P_iIᵀ·W_iJ over the fine rows i with a block P_iI, so W_iJ is read
// exactly when row i of P has a column I ≤ J: when P's first column in row i (P's
// rows are sorted) is at most J. The others (ex56 ne = 30: 23% of W's blocks, 12% of
// A·P's products, the far coarse columns of each row) tc-pairs and tc-block leave out.
func (s *hostSchedule) unreadW(P *bsr.Matrix) []bool {
	skip := make([]bool, len(s.wcol))
	par.For(P.BlockRows, 0, 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			first := int32(math.MaxInt32)
			if P.RowPtr[i] < P.RowPtr[i+1] {
				first = P.ColIdx[P.RowPtr[i]]
			}
			for w := s.wrp[i]; w < s.wrp[i+1]; w++ {
				skip[w] = s.wcol[w] < first
			}
		}
	})
	return skip
}

// halfSlots lays out the W blocks the half reads (those unreadW does not mark) for
// the kernels that write and read them: it returns each W block's slot in W's values
// (−1 for an unread block). Slots follow fine-row pairs, then columns, then the row:
// W_{2q,J} and W_{2q+1,J}, the two blocks of a tc-pairs entry, lie side by side,
// and so do the neighbouring rows a Pᵀ·W product list walks. In row order, with the
// unread blocks in place, a block's neighbours in memory are blocks read with it
// less often. H200, ex56, with the half (BENCHMARKS.md), row order → this layout:
// tc-block ne = 64 fine level 1.939 → 1.888 ms, its 6×6 level 1 0.247 → 0.241;
// tc-pairs ne = 100 5.37 → 5.33, ne = 64 1.271 → 1.261 on one machine and within the
// spread on another. The sums are unchanged; only where W's blocks lie.
func (s *hostSchedule) halfSlots() []int32 {
	slot := make([]int32, len(s.wcol))
	for w := range slot {
		slot[w] = -1
	}
	next := int32(0)
	for q := 0; 2*q < len(s.wrp)-1; q++ {
		s.pairColumns(q, func(w0, w1 int64) {
			for _, w := range [2]int64{w0, w1} {
				if w >= 0 {
					slot[w] = next
					next++
				}
			}
		})
	}
	return slot
}

// slotOf is W block w's place in W's values: its halfSlots slot where the half's
// layout is in use, else w itself (−1 stays −1).
func (s *hostSchedule) slotOf(w int64) int64 {
	if s.wslot == nil || w < 0 {
		return w
	}
	return int64(s.wslot[w])
}

// readW returns the W blocks the half reads, in slot order (sel[slot] is the block):
// tc-block's A·P computes only them, warp u the block of slot u. unread is the
// others' count.
func (s *hostSchedule) readW(unread int64) []int32 {
	sel := make([]int32, int64(len(s.wSkip))-unread)
	for w, u := range s.wslot {
		if u >= 0 {
			sel[u] = int32(w)
		}
	}
	return sel
}
