package cudafem

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
)

// TestStagedGroups: elas_staged's groups cover every upper block once, a row's
// together and in stored order, each group at most the given blocks and shared
// memory; through its group's list every block's contributions are inverseSlots',
// in the same order; each group's elements are ascending and distinct; a bound
// below the largest block's count is errStagedFit; no group spans two chunks of
// rows.
func TestStagedGroups(t *testing.T) {
	for _, typ := range []mesh.Type{mesh.Tet4, mesh.Tet10, mesh.Hex8} {
		l := elaFree(t, 4, typ).Layout()
		ptr, pairs := inverseSlots(l)
		work := upperBlocks(l)
		most := 0
		for _, blk := range work {
			most = max(most, int(ptr[blk+1]-ptr[blk]))
		}
		const rec = 3
		for _, rounds := range []bool{false, true} {
			least := stagedSlice(most, rec, most, rounds)
			if _, err := stagedGroups(l, rec, least-1, 32, rounds); !errors.Is(err, errStagedFit) {
				t.Errorf("%v, rounds %v: %d doubles, below the largest block's %d elements: %v", typ, rounds, least-1, most, err)
			}
		}
		rounds := typ == mesh.Tet10 // the slots' bytes counted too
		least := stagedSlice(most, rec, most, rounds)
		for _, c := range []struct{ budget, size, chunk int }{{least, 32, 4096}, {2 * least, 64, 4096}, {1 << 20, 256, 4096}, {least, 32, 7}, {1 << 20, 256, 7}} {
			budget, size := c.budget, c.size
			chunk := stagedChunk
			stagedChunk = c.chunk
			s, err := stagedGroups(l, rec, budget, size, rounds)
			stagedChunk = chunk
			if err != nil {
				t.Fatal(err)
			}
			// The groups list every upper block once, a row's in stored order
			// together, and no group spans two chunks.
			if !slices.Equal(slices.Sorted(slices.Values(s.work)), work) {
				t.Fatalf("%v, budget %d: the groups' blocks are not the upper blocks, each once", typ, budget)
			}
			rowOf := func(blk int64) int {
				a := 0
				for l.RowPtr[a+1] <= blk {
					a++
				}
				return a
			}
			groups := len(s.gw) - 1
			for g := 0; g < groups; g++ {
				for v := s.gw[g] + 1; v < s.gw[g+1]; v++ {
					a, b := rowOf(s.work[v-1]), rowOf(s.work[v])
					if a/c.chunk != b/c.chunk {
						t.Fatalf("%v, chunks of %d rows: group %d holds rows %d and %d", typ, c.chunk, g, a, b)
					}
					if m := s.mirror[v]; rowOf(m) != int(l.ColIdx[s.work[v]]) || int(l.ColIdx[m]) != b {
						t.Fatalf("%v: group %d: block %d's transpose %d is not the block of its column and row", typ, g, s.work[v], m)
					}
					if a == b && s.work[v] != s.work[v-1]+1 && int(l.ColIdx[s.work[v-1]+1]) >= a {
						t.Fatalf("%v: group %d: row %d's blocks %d, %d not in stored order", typ, g, a, s.work[v-1], s.work[v])
					}
				}
			}
			seen := map[int]bool{}
			for v := range s.work {
				a := rowOf(s.work[v])
				if seen[a] && rowOf(s.work[v-1]) != a {
					t.Fatalf("%v, budget %d: row %d's blocks apart", typ, budget, a)
				}
				seen[a] = true
			}
			work := s.work
			if s.gw[0] != 0 || s.gw[groups] != int64(len(work)) || len(s.lptr) != len(work)+1 {
				t.Fatalf("%v, budget %d: groups end at %d of %d blocks", typ, budget, s.gw[groups], len(work))
			}
			for g := 0; g < groups; g++ {
				w0, w1, e0, e1 := s.gw[g], s.gw[g+1], s.ge[g], s.ge[g+1]
				sl := stagedSlice(int(e1-e0), rec, int(s.lptr[w1]-s.lptr[w0]), rounds)
				if w1 <= w0 || w1-w0 > int64(size) || sl > budget || sl > s.maxSlice {
					t.Fatalf("%v, budget %d: group %d has %d blocks and %d elements (%d doubles; most %d)", typ, budget, g, w1-w0, e1-e0, sl, s.maxSlice)
				}
				if el := s.elems[e0:e1]; !slices.IsSorted(el) || len(slices.Compact(slices.Clone(el))) != len(el) {
					t.Fatalf("%v, budget %d: group %d: elements %v not ascending and distinct", typ, budget, g, el)
				}
				for v := w0; v < w1; v++ {
					want := pairs[ptr[work[v]]:ptr[work[v]+1]]
					got := s.lpairs[s.lptr[v]:s.lptr[v+1]]
					if len(got) != len(want) {
						t.Fatalf("%v, budget %d: block %d: %d contributions, want %d", typ, budget, work[v], len(got), len(want))
					}
					for k, d := range got {
						li := int64(d >> 8)
						if li >= e1-e0 || s.elems[e0+li]<<8|d&255 != want[k] {
							t.Fatalf("%v, budget %d: block %d: contribution %d is local %d (%d), want %d", typ, budget, work[v], k, li, d&255, want[k])
						}
					}
				}
			}
			t.Logf("%v, budget %d, chunks of %d rows: %d blocks in %d groups, at most %d doubles a group", typ, budget, c.chunk, len(work), groups, s.maxSlice)
		}
	}
}

// TestStagedRoundOrder: after roundOrder each round of a group (stagedThreads of its
// contributions from its first) holds in each run of 16 the same contributions as
// that run of the round sorted by code, every contribution's slot points, in its
// round, at the contribution it was (so a block's sum reads its element blocks in the
// order stagedGroups gave), and the slots that one half-warp of the blocks' threads
// reads in one step of its sums lie in distinct bank pairs (9·slot mod 16) wherever
// they lie in full runs.
func TestStagedRoundOrder(t *testing.T) {
	for _, typ := range []mesh.Type{mesh.Tet4, mesh.Tet10} {
		l := elaFree(t, 4, typ).Layout()
		for _, size := range []int{32, 256} {
			s, err := stagedGroups(l, 3, 1<<20, size, true)
			if err != nil {
				t.Fatal(err)
			}
			before := slices.Clone(s.lpairs)
			s.roundOrder()
			if len(s.slots) != len(s.lpairs) {
				t.Fatalf("%v: %d slots for %d contributions", typ, len(s.slots), len(s.lpairs))
			}
			rounds, steps := 0, 0
			for g := 0; g+1 < len(s.gw); g++ {
				u0, u1 := s.lptr[s.gw[g]], s.lptr[s.gw[g+1]]
				for w := u0; w < u1; w += stagedThreads {
					w1 := min(w+stagedThreads, u1)
					rounds++
					sorted := slices.Clone(before[w:w1])
					slices.Sort(sorted)
					for r := int64(0); r < w1-w; r += 16 {
						run := slices.Clone(s.lpairs[w+r : w+min(r+16, w1-w)])
						slices.Sort(run)
						if !slices.Equal(run, sorted[r:min(r+16, w1-w)]) {
							t.Fatalf("%v: group %d: the round at %d's run at %d is not its sorted run", typ, g, w, r)
						}
					}
					for u := w; u < w1; u++ {
						if j := int64(s.slots[u]); j >= w1-w || s.lpairs[w+j] != before[u] {
							t.Fatalf("%v: group %d: contribution %d's slot %d holds %d, want %d", typ, g, u, j, s.lpairs[w+min(j, w1-w-1)], before[u])
						}
					}
					// The readers: thread i sums block gw[g]+i; in this round its
					// step k reads contribution max(lptr[v], w) + k.
					full := (w1 - w) / 16 * 16 // slots below lie in full runs
					read := map[[2]int64][]int64{}
					for v := s.gw[g]; v < s.gw[g+1]; v++ {
						for u := max(s.lptr[v], w); u < min(s.lptr[v+1], w1); u++ {
							key := [2]int64{(v - s.gw[g]) / 16, u - max(s.lptr[v], w)}
							read[key] = append(read[key], int64(s.slots[u]))
						}
					}
					for key, sl := range read {
						seen := map[int64]int64{}
						for _, j := range sl {
							if j >= full {
								continue
							}
							if k, ok := seen[9*j%16]; ok {
								t.Fatalf("%v: group %d: round at %d: half-warp %d step %d reads slots %d and %d, one bank pair", typ, g, w, key[0], key[1], k, j)
							}
							seen[9*j%16] = j
						}
						if len(seen) > 1 {
							steps++
						}
					}
				}
			}
			if rounds <= len(s.gw)-1 && size == 256 {
				t.Errorf("%v: %d rounds in %d groups: no group takes two, the test checks too little", typ, rounds, len(s.gw)-1)
			}
			if steps == 0 {
				t.Errorf("%v: no step reads two slots of full runs: the test checks too little", typ)
			}
		}
	}
}

// TestStagedSortBlocks: after sortBlocks each group holds the same blocks, each with
// its transpose and contributions, listed by descending contribution count, ties in
// the groups' order.
func TestStagedSortBlocks(t *testing.T) {
	for _, typ := range []mesh.Type{mesh.Tet4, mesh.Tet10} {
		l := elaFree(t, 4, typ).Layout()
		for _, size := range []int{32, 256} {
			s, err := stagedGroups(l, 3, 1<<20, size, false)
			if err != nil {
				t.Fatal(err)
			}
			work, mirror := s.work, s.mirror
			lptr, lpairs := slices.Clone(s.lptr), slices.Clone(s.lpairs)
			at := map[int64]int64{} // stored block → its place in the groups' order
			for v, blk := range work {
				at[blk] = int64(v)
			}
			m0s := slices.Clone(mirror)
			place := maps.Clone(at)
			s.sortBlocks()
			moved := 0
			for g := 0; g+1 < len(s.gw); g++ {
				w0, w1 := s.gw[g], s.gw[g+1]
				for v := w0; v < w1; v++ {
					o, ok := at[work[v]]
					if !ok || o < w0 || o >= w1 || mirror[v] != m0s[o] ||
						!slices.Equal(s.lpairs[s.lptr[v]:s.lptr[v+1]], lpairs[lptr[o]:lptr[o+1]]) {
						t.Fatalf("%v, groups of %d: group %d, thread %d: block %d is not stored block %d of the group with its transpose and contributions", typ, size, g, v-w0, work[v], o)
					}
					delete(at, work[v]) // each once
					if v != o {
						moved++
					}
					if v > w0 {
						n, np := s.lptr[v+1]-s.lptr[v], s.lptr[v]-s.lptr[v-1]
						if n > np || n == np && place[work[v]] < place[work[v-1]] {
							t.Fatalf("%v, groups of %d: group %d: block %d (%d contributions) after %d (%d)", typ, size, g, work[v], n, work[v-1], np)
						}
					}
				}
			}
			if len(at) != 0 || moved == 0 {
				t.Fatalf("%v, groups of %d: %d blocks not listed, %d moved (the test needs groups whose order changes)", typ, size, len(at), moved)
			}
		}
	}
}

// TestStagedCompact: the groups' rows share their elements: on a box of each
// tetrahedron type in reverse Cuthill–McKee order, cut for the kernel's shared
// memory and threads, an element is staged by fewer groups than when each group is
// a run of consecutive rows (3.0 for tet4, 4.3 for tet10 on larger boxes of this
// kind; the grouper reaches 2.0 and 4.1).
func TestStagedCompact(t *testing.T) {
	for _, c := range []struct {
		typ  mesh.Type
		ne   int
		most float64
	}{{mesh.Tet4, 24, 2.4}, {mesh.Tet10, 12, 4.0}} {
		m := elaBox(c.ne, c.typ)
		m = m.Renumber(mesh.RCM(m))
		el, err := fem.NewElasticity(m, fem.ElasticityOptions{})
		if err != nil {
			t.Fatal(err)
		}
		l := el.Layout()
		K := l.Kinds[0]
		rounds := K.Points > 1
		budget := stagedGroupBudget(stagedEntry(K.Nodes, K.Points, rounds), rounds, 1<<30)
		s, err := stagedGroups(l, stagedStride(K.Nodes)*K.Points, budget, stagedThreads, rounds)
		if err != nil {
			t.Fatal(err)
		}
		staged := float64(len(s.elems)) / float64(l.Elements)
		t.Logf("%v, %d³ box: %d groups, %.1f blocks a group, each element staged by %.2f", c.typ, c.ne, len(s.gw)-1, float64(len(s.work))/float64(len(s.gw)-1), staged)
		if staged > c.most {
			t.Errorf("%v, %d³ box: each element staged by %.2f groups, want at most %.2f", c.typ, c.ne, staged, c.most)
		}
	}
}

// TestWriteOrder: each group's write order lists its threads by ascending block
// position (low byte) and by ascending transpose position (high byte), each thread
// once.
func TestWriteOrder(t *testing.T) {
	l := elaFree(t, 4, mesh.Tet4).Layout()
	s, err := stagedGroups(l, 3, 1<<20, 64, false)
	if err != nil {
		t.Fatal(err)
	}
	s.sortBlocks()
	work, mirror := s.work, s.mirror
	o := s.writeOrder()
	moved := 0
	for g := 0; g+1 < len(s.gw); g++ {
		w0, w1 := s.gw[g], s.gw[g+1]
		for _, side := range []struct {
			pos   []int64
			shift uint
		}{{work, 0}, {mirror, 8}} {
			seen := map[int64]bool{}
			for k := w0; k < w1; k++ {
				j := int64(o[k] >> side.shift & 255)
				if j >= w1-w0 || seen[j] {
					t.Fatalf("group %d: entry %d names thread %d twice or outside the group's %d", g, k-w0, j, w1-w0)
				}
				seen[j] = true
				if k > w0 && side.pos[w0+j] <= side.pos[w0+int64(o[k-1]>>side.shift&255)] {
					t.Fatalf("group %d: entry %d's block %d does not follow the previous one's", g, k-w0, side.pos[w0+j])
				}
				if j != k-w0 {
					moved++
				}
			}
		}
	}
	if moved == 0 {
		t.Fatal("no group's write order differs from its threads': the test checks too little")
	}
}
