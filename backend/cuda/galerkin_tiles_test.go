package cuda

import (
	"math/rand/v2"
	"testing"
)

// TestSmemTilesSchedule checks the smem-tiles schedule on the host, against the
// absolute product lists of the inspector: the tiles cover the fine rows in order,
// each stages at most the tile buffer, and every product's tile-local pair names the
// same A block and, through the tile's runs, the same P block. No GPU needed.
func TestSmemTilesSchedule(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, tc := range []struct{ n, m, r, c, perA, perP int }{
		{500, 40, 3, 6, 20, 5}, {300, 300, 6, 6, 8, 4}, {200, 17, 2, 3, 30, 7}, {64, 64, 1, 1, 64, 64},
	} {
		A := randomPattern(rng, tc.n, tc.n, tc.r, tc.r, tc.perA, true)
		P := randomPattern(rng, tc.n, tc.m, tc.r, tc.c, tc.perP, false)
		s, err := galerkinSchedule(A, P)
		if err != nil {
			t.Fatal(err)
		}
		s.absolute(A, P)
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
