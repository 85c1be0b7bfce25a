package cuda

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// smemTiles builds the whole smem-tiles schedule (tileCut, then tileLists); false when
// it is not offered.
func (s *hostSchedule) smemTiles(A, P *bsr.Matrix) bool {
	if !s.tileCut(A, P) {
		return false
	}
	s.tileLists(A, P)
	return true
}

// rowSlots builds the tc-rows slot words (slotCounts, then slotWords); false when a W
// or Ac row has more than 256 blocks.
func (s *hostSchedule) rowSlots(A, P *bsr.Matrix) bool {
	if !s.slotCounts(A, P) {
		return false
	}
	s.slotWords(A, P)
	return true
}

// scheduleCase is a random pattern: A n×n blocks of r×r with up to perA a row (and
// its diagonal), P n×m blocks of r×c with up to perP a row.
type scheduleCase struct{ n, m, r, c, perA, perP int }

// randomSchedule draws tc's A and P (random values) and returns them with their host
// schedule, absolute lists included.
func randomSchedule(t *testing.T, rng *rand.Rand, tc scheduleCase) (A, P *bsr.Matrix, s *hostSchedule) {
	t.Helper()
	A = randomPattern(rng, tc.n, tc.n, tc.r, tc.r, tc.perA, true)
	P = randomPattern(rng, tc.n, tc.m, tc.r, tc.c, tc.perP, false)
	s, err := galerkinSchedule(A, P)
	if err != nil {
		t.Fatal(err)
	}
	s.absolute(A, P)
	return A, P, s
}

// TestSmemTilesSchedule checks the smem-tiles schedule on the host, against the
// absolute product lists of the inspector: the tiles cover the fine rows in order,
// each stages at most the tile buffer, and every product's tile-local pair names the
// same A block and, through the tile's runs, the same P block. No GPU needed.
func TestSmemTilesSchedule(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, tc := range []scheduleCase{
		{500, 40, 3, 6, 20, 5}, {300, 300, 6, 6, 8, 4}, {200, 17, 2, 3, 30, 7}, {64, 64, 1, 1, 64, 64},
	} {
		A, P, s := randomSchedule(t, rng, tc)
		if !s.smemTiles(A, P) {
			t.Logf("%dx%d blocks, rows of %d: not offered", tc.r, tc.c, tc.perA)
			continue
		}
		budget := int32(tileDoubles / (tc.r * tc.c))
		if s.trow[0] != 0 || int(s.trow[len(s.trow)-1]) != tc.n || len(s.trun) != len(s.trow) {
			t.Fatalf("tiles %v do not cover rows 0..%d", s.trow, tc.n)
		}
		for tile := 0; tile+1 < len(s.trow); tile++ {
			r0, r1 := int(s.trow[tile]), int(s.trow[tile+1])
			if r1 <= r0 {
				t.Fatalf("tile %d is empty", tile)
			}
			// Tile-local P block → global P block through the runs.
			var global []int32
			for q := s.trun[tile]; q < s.trun[tile+1]; q++ {
				for b := int32(0); b < s.truns[2*q+1]; b++ {
					global = append(global, s.truns[2*q]+b)
				}
			}
			if int32(len(global)) > budget {
				t.Errorf("tile %d stages %d P blocks, buffer holds %d", tile, len(global), budget)
			}
			for i := r0; i < r1; i++ {
				for w := s.wrp[i]; w < s.wrp[i+1]; w++ {
					for e := s.wptr[w]; e < s.wptr[w+1]; e++ {
						u := s.tlist[e]
						la, lp := int64(u>>16), int(u&0xffff)
						if a := A.RowPtr[r0] + la; a != int64(s.wabs[2*e]) {
							t.Fatalf("tile %d product %d: A block %d, want %d", tile, e, a, s.wabs[2*e])
						}
						if lp >= len(global) || global[lp] != s.wabs[2*e+1] {
							t.Fatalf("tile %d product %d: local P block %d does not name P block %d", tile, e, lp, s.wabs[2*e+1])
						}
					}
				}
			}
		}
		t.Logf("%dx%d blocks: %d rows in %d tiles", tc.r, tc.c, tc.n, len(s.trow)-1)
	}
}

// TestGalerkinScheduleLists checks the host schedule of every device variant against
// a brute-force enumeration of the block products: each W block's packed list holds
// exactly the (A block, P block) pairs of its row and column, in A-row order, and
// each Ac block's list exactly the (Pᵀ entry, W block) pairs of its row and column, in
// fine-row order; the absolute lists name the same blocks. No GPU needed.
func TestGalerkinScheduleLists(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for _, tc := range []scheduleCase{
		{300, 30, 3, 6, 15, 5}, {120, 120, 6, 6, 6, 3}, {80, 9, 2, 5, 40, 9},
	} {
		A, P, s := randomSchedule(t, rng, tc)
		// W: for each row i and column J, the products in A-row order.
		for i := 0; i < tc.n; i++ {
			for w := s.wrp[i]; w < s.wrp[i+1]; w++ {
				J := s.wcol[w]
				var want [][2]int64
				for a := A.RowPtr[i]; a < A.RowPtr[i+1]; a++ {
					j := A.ColIdx[a]
					for p := P.RowPtr[j]; p < P.RowPtr[j+1]; p++ {
						if P.ColIdx[p] == J {
							want = append(want, [2]int64{a, p})
						}
					}
				}
				if got := s.wptr[w+1] - s.wptr[w]; got != int64(len(want)) || len(want) == 0 {
					t.Fatalf("W block (%d,%d): %d products listed, want %d (> 0)", i, J, got, len(want))
				}
				for q, pr := range want {
					e := s.wptr[w] + int64(q)
					u := s.wlist[e]
					if a := A.RowPtr[i] + int64(u>>16); a != pr[0] || P.RowPtr[A.ColIdx[a]]+int64(u&0xffff) != pr[1] {
						t.Fatalf("W block (%d,%d) product %d: packed entry names (%d, %d), want (%d, %d)", i, J, q, a, P.RowPtr[A.ColIdx[a]]+int64(u&0xffff), pr[0], pr[1])
					}
					if int64(s.wabs[2*e]) != pr[0] || int64(s.wabs[2*e+1]) != pr[1] {
						t.Fatalf("W block (%d,%d) product %d: absolute entry (%d, %d), want (%d, %d)", i, J, q, s.wabs[2*e], s.wabs[2*e+1], pr[0], pr[1])
					}
				}
			}
		}
		// Ac: for each coarse row I and column J, the (P block (i,I), W block (i,J))
		// pairs in fine-row order.
		for I := 0; I < tc.m; I++ {
			for b := s.acrp[I]; b < s.acrp[I+1]; b++ {
				J := s.accol[b]
				var want [][2]int64
				for i := 0; i < tc.n; i++ {
					for p := P.RowPtr[i]; p < P.RowPtr[i+1]; p++ {
						if P.ColIdx[p] != int32(I) {
							continue
						}
						for w := s.wrp[i]; w < s.wrp[i+1]; w++ {
							if s.wcol[w] == J {
								want = append(want, [2]int64{p, w})
							}
						}
					}
				}
				if got := s.acptr[b+1] - s.acptr[b]; got != int64(len(want)) || len(want) == 0 {
					t.Fatalf("Ac block (%d,%d): %d products listed, want %d (> 0)", I, J, got, len(want))
				}
				for q, pr := range want {
					e := s.acptr[b] + int64(q)
					if int64(s.acabs[2*e]) != pr[0] || int64(s.acabs[2*e+1]) != pr[1] {
						t.Fatalf("Ac block (%d,%d) product %d: (%d, %d), want (%d, %d)", I, J, q, s.acabs[2*e], s.acabs[2*e+1], pr[0], pr[1])
					}
				}
			}
		}
	}
}

// TestTCPairsSchedule checks the tc-pairs schedule on the host against the
// inspector's absolute lists: every W block is in exactly one pair entry, of its own
// fine-row pair and column; each half of an entry's merged list, read without its
// absent (−1) A blocks, is that W block's product list in order (so the kernel sums
// tc-block's terms in tc-block's order); no merged product is empty; the counts match
// the statistics'. No GPU needed.
func TestTCPairsSchedule(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 5))
	for _, tc := range []scheduleCase{
		{501, 40, 3, 6, 20, 5}, {200, 17, 2, 3, 30, 7}, {64, 64, 1, 1, 64, 64}, {90, 30, 4, 6, 9, 4},
	} {
		A, P, s := randomSchedule(t, rng, tc)
		entries, prods := s.pairCounts(A, P)
		s.pairLists(A, P)
		// pairLists alone (counting for itself) builds the same lists.
		s2, err := galerkinSchedule(A, P)
		if err != nil {
			t.Fatal(err)
		}
		s2.pairLists(A, P)
		if !slices.Equal(s2.pw, s.pw) || !slices.Equal(s2.pwptr, s.pwptr) || !slices.Equal(s2.plist, s.plist) {
			t.Fatalf("%dx%d: pairLists without pairCounts differs", tc.r, tc.r)
		}
		if int64(len(s.pw)) != 2*entries || int64(len(s.plist)) != 3*prods || s.pwptr[entries] != prods {
			t.Fatalf("%dx%d: %d entries, %d products counted; lists hold %d, %d", tc.r, tc.r, entries, prods, len(s.pw)/2, len(s.plist)/3)
		}
		seen := make([]bool, len(s.wcol))
		for e := int64(0); e < entries; e++ {
			for half := 0; half < 2; half++ {
				w := int64(s.pw[2*e+int64(half)])
				if w < 0 {
					continue
				}
				if seen[w] {
					t.Fatalf("W block %d in two entries", w)
				}
				seen[w] = true
				if int(s.wrow[w])%2 != half {
					t.Fatalf("entry %d half %d: W block %d of row %d", e, half, w, s.wrow[w])
				}
				if other := int64(s.pw[2*e+int64(1-half)]); other >= 0 && (s.wcol[other] != s.wcol[w] || s.wrow[other]/2 != s.wrow[w]/2) {
					t.Fatalf("entry %d pairs W blocks %d and %d of different columns or row pairs", e, w, other)
				}
				var got [][2]int32
				for q := s.pwptr[e]; q < s.pwptr[e+1]; q++ {
					if a := s.plist[3*q+int64(half)]; a >= 0 {
						got = append(got, [2]int32{a, s.plist[3*q+2]})
					}
				}
				if int64(len(got)) != s.wptr[w+1]-s.wptr[w] {
					t.Fatalf("W block %d: %d products in its half, want %d", w, len(got), s.wptr[w+1]-s.wptr[w])
				}
				for q, pr := range got {
					x := s.wptr[w] + int64(q)
					if pr != [2]int32{s.wabs[2*x], s.wabs[2*x+1]} {
						t.Fatalf("W block %d product %d: (%d, %d), want (%d, %d)", w, q, pr[0], pr[1], s.wabs[2*x], s.wabs[2*x+1])
					}
				}
			}
			for q := s.pwptr[e]; q < s.pwptr[e+1]; q++ {
				if s.plist[3*q] < 0 && s.plist[3*q+1] < 0 {
					t.Fatalf("entry %d product %d has neither A block", e, q)
				}
			}
		}
		for w, ok := range seen {
			if !ok {
				t.Fatalf("W block %d in no entry", w)
			}
		}
		t.Logf("%dx%d: %d W blocks in %d entries, %d products merged to %d", tc.r, tc.r, len(s.wcol), entries, len(s.wlist), prods)
	}
}

// symmetrize returns A + Aᵀ (block-wise: block (i,j) plus the transpose of (j,i)), a
// matrix with a symmetric pattern and symmetric values.
func symmetrize(t *testing.T, A *bsr.Matrix) *bsr.Matrix {
	t.Helper()
	r := A.R
	var bi, bj []int32
	var v []float64
	for i := 0; i < A.BlockRows; i++ {
		for a := A.RowPtr[i]; a < A.RowPtr[i+1]; a++ {
			j := A.ColIdx[a]
			blk := A.Val[a*int64(r*r) : (a+1)*int64(r*r)]
			bi, bj = append(bi, int32(i), j), append(bj, j, int32(i))
			v = append(v, blk...)
			for x := 0; x < r; x++ {
				for y := 0; y < r; y++ {
					v = append(v, blk[y*r+x])
				}
			}
		}
	}
	S, err := bsr.FromBlockTriplets(A.BlockRows, A.BlockCols, r, r, bi, bj, v)
	if err != nil {
		t.Fatal(err)
	}
	return S
}

// TestSymmetricHalfSchedule checks the symmetric half's lists on the host: executing
// them (each upper block from its compact list, then copied transposed into its
// mirror) gives the CPU package's Ac to 1e-13 and writes every Ac block exactly once;
// the lists hold the upper blocks' products in tc-block's order. A non-symmetric Ac
// pattern is refused.
func TestSymmetricHalfSchedule(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 6))
	for _, tc := range []scheduleCase{
		{501, 40, 3, 6, 20, 5}, {200, 17, 2, 3, 30, 7}, {64, 64, 1, 1, 64, 64}, {90, 30, 6, 6, 9, 4}, {120, 9, 3, 6, 12, 3},
	} {
		A0, P, _ := randomSchedule(t, rng, tc)
		A := symmetrize(t, A0)
		s, err := galerkinSchedule(A, P)
		if err != nil {
			t.Fatal(err)
		}
		s.absoluteAc()
		want := cpuGalerkin(t, A, P)
		W := hostW(s, A, P)
		R, C := P.R, P.C
		mir, err := s.acMirrors()
		if err != nil {
			t.Fatal(err)
		}
		// As fill does: the unread W blocks, the read ones' slots, then the lists.
		s.wSkip = s.unreadW(P)
		s.wslot = s.halfSlots()
		checkHalfSlots(t, s)
		nu, pu := s.upperCounts()
		s.upperLists(mir, nu, pu)
		// The W blocks tc-pairs leaves out are never read by the half, and the half
		// runs on W as laid out by slot: where pairs are offered as tc-pairs' lists
		// compute it (nothing written past the read blocks' slots), else as the
		// row-order W moved to its slots.
		skipped, read := 0, 0
		for _, sk := range s.wSkip {
			if sk {
				skipped++
			}
		}
		read = len(s.wcol) - skipped
		for q := int64(0); q < pu; q++ {
			if s.acabsU[2*q+1] < 0 {
				t.Fatalf("%dx%d: product %d of the half reads a W block left out", R, C, q)
			}
		}
		sel := s.readW(int64(skipped))
		for u, w := range sel {
			if s.wslot[w] != int32(u) {
				t.Fatalf("%dx%d: readW's entry %d is W block %d of slot %d", R, C, u, w, s.wslot[w])
			}
		}
		if pairsOffered(R) {
			W = pairsW(t, s, A, P)
			for w, sk := range s.wSkip {
				if !sk && math.IsNaN(W[s.slotOf(int64(w))*int64(R*C)]) {
					t.Fatalf("%dx%d: W block %d (slot %d) is read but not computed", R, C, w, s.wslot[w])
				}
			}
			for x := read * R * C; x < len(W); x++ {
				if !math.IsNaN(W[x]) {
					t.Fatalf("%dx%d: W value %d written, past the %d read blocks' slots", R, C, x, read)
				}
			}
		} else {
			Ws := make([]float64, len(W))
			for w := range s.wcol {
				if u := s.slotOf(int64(w)); u >= 0 {
					copy(Ws[u*int64(R*C):(u+1)*int64(R*C)], W[int64(w)*int64(R*C):(int64(w)+1)*int64(R*C)])
				}
			}
			W = Ws
		}
		if int64(len(s.acsel)) != 2*nu || int64(len(s.acabsU)) != 2*pu || s.acptrU[nu] != pu {
			t.Fatalf("%dx%d: counted %d blocks, %d products; lists hold %d, %d", R, C, nu, pu, len(s.acsel)/2, len(s.acabsU)/2)
		}
		Ac := make([]float64, len(s.accol)*C*C)
		writes := make([]int, len(s.accol))
		for w := int64(0); w < nu; w++ {
			b, m := int64(s.acsel[2*w]), int64(s.acsel[2*w+1])
			if s.accol[b] < s.acrow[b] {
				t.Fatalf("entry %d names block (%d, %d) below the diagonal", w, s.acrow[b], s.accol[b])
			}
			// The compact list is the block's own, in order, its W blocks by slot.
			own := slices.Clone(s.acabs[2*s.acptr[b] : 2*s.acptr[b+1]])
			for q := 1; q < len(own); q += 2 {
				own[q] = int32(s.slotOf(int64(own[q])))
			}
			if !slices.Equal(s.acabsU[2*s.acptrU[w]:2*s.acptrU[w+1]], own) {
				t.Fatalf("block %d: compact list differs from its absolute list", b)
			}
			blk := Ac[b*int64(C*C) : (b+1)*int64(C*C)]
			for q := s.acptrU[w]; q < s.acptrU[w+1]; q++ {
				p, wb := int64(s.acabsU[2*q]), int64(s.acabsU[2*q+1])
				for k := 0; k < R; k++ {
					for r := 0; r < C; r++ {
						pv := P.Val[p*int64(R*C)+int64(k*C+r)]
						for c := 0; c < C; c++ {
							blk[r*C+c] += pv * W[wb*int64(R*C)+int64(k*C+c)]
						}
					}
				}
			}
			writes[b]++
			if m < 0 {
				if s.accol[b] != s.acrow[b] {
					t.Fatalf("block (%d, %d) off the diagonal has no mirror", s.acrow[b], s.accol[b])
				}
				continue
			}
			if s.accol[m] != s.acrow[b] || s.acrow[m] != s.accol[b] {
				t.Fatalf("block %d's mirror %d is not its transpose position", b, m)
			}
			for r := 0; r < C; r++ {
				for c := 0; c < C; c++ {
					Ac[m*int64(C*C)+int64(c*C+r)] = blk[r*C+c]
				}
			}
			writes[m]++
		}
		for b, n := range writes {
			if n != 1 {
				t.Fatalf("%dx%d: Ac block %d written %d times", R, C, b, n)
			}
		}
		if e := frobRel(Ac, want.Val); !(e <= 1e-13) {
			t.Errorf("%dx%d: relative error %.3g against the CPU package", R, C, e)
		}
		t.Logf("%dx%d: %d of %d Ac blocks, %d of %d products; tc-pairs leaves out %d of %d W blocks", R, C, nu, len(s.accol), pu, len(s.aclist), skipped, len(s.wcol))
	}
	// An unsymmetric Ac pattern (row 0: columns 0, 1; row 1: column 1) is refused,
	// naming the block without a mirror.
	s := &hostSchedule{acrp: []int64{0, 2, 3}, accol: []int32{0, 1, 1}, acrow: []int32{0, 0, 1}}
	if _, err := s.acMirrors(); err == nil || !strings.Contains(err.Error(), "(0, 1) has no mirror (1, 0)") {
		t.Errorf("unsymmetric Ac pattern: error %v, want block (0, 1) without a mirror", err)
	}
}

// checkHalfSlots checks halfSlots against a sort: the W blocks the half reads, sorted
// by (fine-row pair, column, row), hold slots 0, 1, 2, … in that order; the others
// none.
func checkHalfSlots(t *testing.T, s *hostSchedule) {
	t.Helper()
	type blk struct{ q, col, row, w int }
	var rd []blk
	for i := 0; i+1 < len(s.wrp); i++ {
		for w := s.wrp[i]; w < s.wrp[i+1]; w++ {
			if s.wSkip[w] {
				if s.wslot[w] != -1 {
					t.Fatalf("unread W block %d has slot %d", w, s.wslot[w])
				}
				continue
			}
			rd = append(rd, blk{i / 2, int(s.wcol[w]), i, int(w)})
		}
	}
	slices.SortFunc(rd, func(a, b blk) int {
		return cmp.Or(cmp.Compare(a.q, b.q), cmp.Compare(a.col, b.col), cmp.Compare(a.row, b.row))
	})
	for u, b := range rd {
		if s.wslot[b.w] != int32(u) {
			t.Fatalf("W block %d (row %d, column %d) has slot %d, want %d", b.w, b.row, b.col, s.wslot[b.w], u)
		}
	}
}

// pairsW computes W on the host from the tc-pairs lists (pairLists, honouring wSkip):
// each entry's halves summed over their A blocks in list order; blocks in no entry
// are NaN.
func pairsW(t *testing.T, s *hostSchedule, A, P *bsr.Matrix) []float64 {
	t.Helper()
	R, C := P.R, P.C
	s.pairLists(A, P)
	W := make([]float64, len(s.wcol)*R*C)
	for i := range W {
		W[i] = math.NaN()
	}
	for e := int64(0); e < int64(len(s.pwptr))-1; e++ {
		for half := 0; half < 2; half++ {
			w := int64(s.pw[2*e+int64(half)])
			if w < 0 {
				continue
			}
			blk := W[w*int64(R*C) : (w+1)*int64(R*C)]
			clear(blk)
			for q := s.pwptr[e]; q < s.pwptr[e+1]; q++ {
				a, p := int64(s.plist[3*q+int64(half)]), int64(s.plist[3*q+2])
				if a < 0 {
					continue
				}
				for r := 0; r < R; r++ {
					for k := 0; k < R; k++ {
						av := A.Val[a*int64(R*R)+int64(r*R+k)]
						for c := 0; c < C; c++ {
							blk[r*C+c] += av * P.Val[p*int64(R*C)+int64(k*C+c)]
						}
					}
				}
			}
		}
	}
	return W
}

// TestBalanceBlocks checks balanceBlocks on made-up entries (entry e: W blocks e and
// −e−1, products (e, j, 7)): every entry keeps its W blocks and its products, in order,
// inside its own thread block's window; in a full window each round's entries are no
// shorter than the next round's, even rounds run longest first across the warps and
// odd rounds shortest first; a last, partial window is untouched.
func TestBalanceBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	const warps = threads / 32
	n := 3*blockEntries + 5
	length := make([]int64, n)
	pw, pwptr := make([]int32, 2*n), make([]int64, n+1)
	var plist []int32
	for e := range n {
		length[e] = int64(rng.IntN(10))
		pw[2*e], pw[2*e+1] = int32(e), int32(-e-1)
		for j := range length[e] {
			plist = append(plist, int32(e), int32(j), 7)
		}
		pwptr[e+1] = pwptr[e] + length[e]
	}
	total := pwptr[n]
	tail := slices.Clone(pw[2*(n-5):])
	balanceBlocks(pw, pwptr, plist)
	if pwptr[0] != 0 || pwptr[n] != total {
		t.Fatalf("pwptr spans [%d, %d), want [0, %d)", pwptr[0], pwptr[n], total)
	}
	if !slices.Equal(pw[2*(n-5):], tail) {
		t.Fatalf("the partial window moved: %v, want %v", pw[2*(n-5):], tail)
	}
	seen := make([]bool, n)
	for slot := range n {
		e := int(pw[2*slot])
		if e < 0 || e >= n || pw[2*slot+1] != int32(-e-1) || seen[e] {
			t.Fatalf("slot %d holds W blocks (%d, %d)", slot, pw[2*slot], pw[2*slot+1])
		}
		seen[e] = true
		if e/blockEntries != slot/blockEntries {
			t.Fatalf("entry %d moved to slot %d, outside its window", e, slot)
		}
		if got := pwptr[slot+1] - pwptr[slot]; got != length[e] {
			t.Fatalf("slot %d (entry %d): %d products, want %d", slot, e, got, length[e])
		}
		for j := pwptr[slot]; j < pwptr[slot+1]; j++ {
			if want := [3]int32{int32(e), int32(j - pwptr[slot]), 7}; [3]int32(plist[3*j:3*j+3]) != want {
				t.Fatalf("slot %d product %d: %v, want %v", slot, j-pwptr[slot], plist[3*j:3*j+3], want)
			}
		}
	}
	for x := 0; x+blockEntries <= n; x += blockEntries {
		ln := func(k, w int) int64 { return pwptr[x+k*warps+w+1] - pwptr[x+k*warps+w] }
		for k := range pairEntriesPerWarp {
			for w := range warps {
				if k+1 < pairEntriesPerWarp && ln(k, w) < slices.Max(lengthsOf(ln, k+1, warps)) {
					t.Fatalf("window %d: round %d warp %d shorter than an entry of round %d", x/blockEntries, k, w, k+1)
				}
				if w+1 < warps && (k%2 == 0 && ln(k, w) < ln(k, w+1) || k%2 == 1 && ln(k, w) > ln(k, w+1)) {
					t.Fatalf("window %d round %d: warps %d, %d have lengths %d, %d", x/blockEntries, k, w, w+1, ln(k, w), ln(k, w+1))
				}
			}
		}
	}
}

// lengthsOf lists round k's entry lengths across the warps.
func lengthsOf(ln func(k, w int) int64, k, warps int) []int64 {
	out := make([]int64, warps)
	for w := range out {
		out[w] = ln(k, w)
	}
	return out
}
