package cuda

import (
	"math/rand/v2"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// TestReplayFused checks the replay of gal_fused on small random products against
// what follows from its definition, computed independently:
//   - every line followed, the accesses are the sector reads of the kernel's loads and
//     with a cache that holds everything, the misses are the distinct sectors among
//     them, both counted here by a plain walk of its loops;
//   - an LRU cache never misses more when larger (the inclusion property);
//   - set sampling keeps the answer near the full replay's.
func TestReplayFused(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 4; trial++ {
		R, C := 3, 6
		if trial == 3 {
			R, C = 2, 5
		}
		A := randomPattern(rng, 300, 300, R, R, 12, true)
		P := randomPattern(rng, 300, 40, R, C, 4, false)
		s, err := galerkinSchedule(A, P)
		if err != nil {
			t.Fatal(err)
		}
		acBytes := int64(len(s.acrow)) * int64(8*C*C)
		distinct, reads := fusedSectors(s, A, P)
		c := newSectorCache(64<<20, 1) // more than all the arrays
		replayFusedInto(c, s, A, P, 4)
		if c.touches != reads {
			t.Errorf("trial %d: the replay made %d sector reads, the kernel's loops %d", trial, c.touches, reads)
		}
		if c.misses != int64(len(distinct)) {
			t.Errorf("trial %d: unbounded cache: %d misses, want the %d distinct sectors read", trial, c.misses, len(distinct))
		}
		if got, want := replayFused(s, A, P, 64<<20, 1, 4), int64(len(distinct))*32+acBytes; got != want {
			t.Errorf("trial %d: %d bytes, want the distinct sectors and Ac's, %d", trial, got, want)
		}
		prev := int64(-1)
		for _, kb := range []int64{256, 64, 16, 4, 1} {
			b := replayFused(s, A, P, kb<<10, 1, 4)
			if prev >= 0 && b < prev {
				t.Errorf("trial %d: %d KiB cache misses %d bytes, fewer than the larger cache's %d", trial, kb, b, prev)
			}
			prev = b
		}
		full := replayFused(s, A, P, 16<<10, 1, 4)
		smp := replayFused(s, A, P, 16<<10, 4, 4)
		if r := float64(smp) / float64(full); r < 0.8 || r > 1.25 {
			t.Errorf("trial %d: sampled replay %d bytes, full replay %d (ratio %.2f)", trial, smp, full, r)
		}
	}
}

// fusedSectors returns the 32-byte sectors gal_fused reads and its count of sector
// reads, with the replay's array
// layout (each array at the next 4096-byte boundary, in the replay's order), by
// walking the kernel's loops directly: per Ac block its row, list, each list entry's
// Pᵀ entry and W block, the W block's products, and the Pᵀ entry's P block.
func fusedSectors(s *hostSchedule, A, P *bsr.Matrix) (map[uint64]bool, int64) {
	R, C := int64(P.R), int64(P.C)
	var base int64
	arr := func(n int) int64 { a := base; base += (int64(n) + 4095) &^ 4095; return a }
	acrow, acptr, aclist := arr(4*len(s.acrow)), arr(8*len(s.acptr)), arr(4*len(s.aclist))
	ptrp, ptidx, ptrow := arr(8*len(s.ptrp)), arr(8*len(s.ptidx)), arr(4*len(s.ptrow))
	wrp, wptr, wlist := arr(8*len(s.wrp)), arr(8*len(s.wptr)), arr(4*len(s.wlist))
	arp, acol, aval := arr(8*len(A.RowPtr)), arr(4*len(A.ColIdx)), arr(8*len(A.Val))
	prp, pval := arr(8*len(P.RowPtr)), arr(8*len(P.Val))
	seen := map[uint64]bool{}
	reads := int64(0)
	rd := func(addr, n int64) {
		for q := addr / 32; q <= (addr+n-1)/32; q++ {
			seen[uint64(q)] = true
			reads++
		}
	}
	for b := range s.acrow {
		I := int64(s.acrow[b])
		rd(acrow+4*int64(b), 4)
		rd(ptrp+8*I, 8)
		rd(acptr+8*int64(b), 16)
		for t := s.acptr[b]; t < s.acptr[b+1]; t++ {
			u := s.aclist[t]
			e := s.ptrp[I] + int64(u>>16)
			i := int64(s.ptrow[e])
			w := s.wrp[i] + int64(u&0xffff)
			rd(aclist+4*t, 4)
			rd(ptidx+8*e, 8)
			rd(ptrow+4*e, 4)
			rd(wrp+8*i, 8)
			rd(wptr+8*w, 16)
			rd(arp+8*i, 8)
			for g := s.wptr[w]; g < s.wptr[w+1]; g++ {
				v := s.wlist[g]
				a := A.RowPtr[i] + int64(v>>16)
				j := int64(A.ColIdx[a])
				p := P.RowPtr[j] + int64(v&0xffff)
				rd(wlist+4*g, 4)
				rd(acol+4*a, 4)
				rd(prp+8*j, 8)
				rd(aval+a*8*R*R, 8*R*R)
				rd(pval+p*8*R*C, 8*R*C)
			}
			rd(pval+s.ptidx[e]*8*R*C, 8*R*C)
		}
	}
	return seen, reads
}

// TestSimulateFusedShapes checks that SimulateFused and GalerkinStatsOf refuse
// operands whose shapes do not make a Galerkin product (without a GPU), and accept a
// valid pair.
func TestSimulateFusedShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	mc := GalerkinMachine{L2Bytes: 1 << 20, SMs: 4}
	A := randomPattern(rng, 50, 50, 3, 3, 6, true)
	P := randomPattern(rng, 50, 8, 3, 6, 3, false)
	if b, err := SimulateFused(A, P, mc); err != nil || b <= 0 {
		t.Fatalf("valid operands: %d bytes, error %v", b, err)
	}
	for name, pair := range map[string][2]*bsr.Matrix{
		"P rows":       {A, randomPattern(rng, 40, 8, 3, 6, 3, false)},
		"P block":      {A, randomPattern(rng, 50, 8, 2, 6, 3, false)},
		"A not square": {randomPattern(rng, 50, 60, 3, 3, 6, false), P},
	} {
		if _, err := SimulateFused(pair[0], pair[1], mc); err == nil {
			t.Errorf("SimulateFused, %s: no error", name)
		}
		if _, err := GalerkinStatsOf(pair[0], pair[1]); err == nil {
			t.Errorf("GalerkinStatsOf, %s: no error", name)
		}
	}
}
