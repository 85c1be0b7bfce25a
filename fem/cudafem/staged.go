package cudafem

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/internal/par"
)

// stagedMap is elas_staged's grouping of the upper blocks (kernels/elasticity.cu):
// group g holds upper blocks gw[g] … gw[g+1] (of work's list; at most the group's
// threads) and stages elems[ge[g] … ge[g+1]) (ascending); block v's
// contributions are lpairs[lptr[v] … lptr[v+1]), each local·256 + la·16 + b with
// local the element's index in its group's list; thread i of group g integrates
// block gw[g] + i.
type stagedMap struct {
	// work is the upper blocks' stored positions, in the groups' order, and mirror
	// each one's transpose (itself on the diagonal).
	work, mirror  []int64
	gw, ge, lptr  []int64
	elems, lpairs []int32
	// slots, after roundOrder, is each contribution's slot in its round's window
	// (lptr's order, by block), lpairs then being in the order the rounds integrate
	// them.
	slots []uint8
	// maxSlice is the most shared memory (doubles) one group's records and
	// contributions take.
	maxSlice int
}

// stagedThreads is THREADS of kernels/elasticity.cu, the most threads of a group.
const stagedThreads = 256

// A round's slots (roundOrder) are bytes: a round is at most 256 contributions.
const _ = uint8(stagedThreads - 1)

// errStagedFit says that one block sums more elements than a group may stage.
var errStagedFit = fmt.Errorf("a block sums more elements than shared memory holds")

// stagedSlice is the shared memory (doubles) of a group staging ne elements of rec
// doubles each and np contributions (int32, and with rounds each one's window slot,
// a byte, copied as the 4-byte words that hold them: a double more).
func stagedSlice(ne, rec, np int, rounds bool) int {
	n := ne*rec + (np+1)/2
	if rounds {
		n += (np + 15) / 8
	}
	return n
}

// stagedChunk is the block rows whose groups one worker cuts: a group never spans two
// chunks, so the groups depend on the mesh alone, not on the worker count (a
// variable so that the tests cut small meshes into several). A chunk's last groups
// take the rows its earlier groups left, worse grouped than the rest, so chunks are
// large: a mesh of up to a million nodes is one.
var stagedChunk = 1 << 20

// stagedPiece is the least rows of the pieces of a chunk's order that workers cut
// into groups apart (stagedGroups): a piece starts where a group does, so the
// groups do not depend on it.
const stagedPiece = 4096

// stagedGroups cuts the upper blocks (the blocks (a, c), c ≥ a) into groups of whole
// block rows (rowGrouper's, a row's blocks in stored order; a row too large for one
// group is cut between its blocks) of at most size blocks (a thread each) whose
// elements (rec doubles each) and contributions fit in budget doubles (stagedSlice,
// with or without rounds), none spanning two chunks of stagedChunk rows; work lists
// the blocks' stored positions in the groups' order, mirror their transposes'. A block's contributions are its
// row's incidences (ascending element order) whose slots hold it, as inverseSlots
// lists them, but with no bound on the element count. Each group's elements are
// listed in ascending element order (sortElems); every block keeps its
// contributions' order, so the sums do not change. Without rounds, sortBlocks then
// lists each group's blocks for its threads. The chunks are ordered, and pieces of
// their orders cut, in parallel, into arrays counted beforehand.
func stagedGroups(l fem.ElasticityLayout, rec, budget, size int, rounds bool) (stagedMap, error) {
	chunks := (l.Nodes + stagedChunk - 1) / stagedChunk
	// Each row's upper blocks and contributions.
	ub, uc := make([]int32, l.Nodes), make([]int32, l.Nodes)
	par.For(l.Nodes, 0, 4096, func(lo, hi int) {
		for a := lo; a < hi; a++ {
			r0 := l.RowPtr[a]
			for t := r0; t < l.RowPtr[a+1]; t++ {
				if int(l.ColIdx[t]) >= a {
					ub[a]++
				}
			}
			for k := l.IncPtr[a]; k < l.IncPtr[a+1]; k++ {
				for u := l.SlotPtr[k]; u < l.SlotPtr[k+1]; u++ {
					if int(l.ColIdx[r0+int64(l.Slot[u])]) >= a {
						uc[a]++
					}
				}
			}
		}
	})
	// Each chunk's rows in their groups' order, and where the groups start.
	rg := newRowGrouper(l, ub, uc, rec, budget, size, rounds)
	orders, starts := make([][]int32, chunks), make([][]int32, chunks)
	par.For(chunks, 0, 1, func(lo, hi int) {
		gs := rg.worker()
		for c := lo; c < hi; c++ {
			orders[c], starts[c] = gs.chunk(c*stagedChunk, min((c+1)*stagedChunk, l.Nodes))
		}
	})
	// The groups are cut in pieces of a chunk's order, each from a group's start
	// and at least stagedPiece rows (but a chunk's last), so that workers cut them
	// apart; then each piece's first block and contribution.
	type piece struct {
		order, cuts []int32 // cuts: where in order groups start
	}
	var pieces []piece
	for c := range chunks {
		o, st := orders[c], starts[c]
		for len(o) > 0 {
			k := 1 // the first group start past the piece's end
			for k < len(st) && int(st[k]-st[0]) < stagedPiece {
				k++
			}
			end := len(o)
			if k < len(st) {
				end = int(st[k] - st[0])
			}
			cuts := make([]int32, k)
			for i := range cuts {
				cuts[i] = st[i] - st[0]
			}
			pieces = append(pieces, piece{o[:end], cuts})
			o, st = o[end:], st[k:]
		}
	}
	blocks, pairs := make([]int64, len(pieces)+1), make([]int64, len(pieces)+1)
	for p, pc := range pieces {
		blocks[p+1], pairs[p+1] = blocks[p], pairs[p]
		for _, a := range pc.order {
			blocks[p+1] += int64(ub[a])
			pairs[p+1] += int64(uc[a])
		}
	}
	n := len(pieces)
	s := stagedMap{work: make([]int64, blocks[n]), mirror: make([]int64, blocks[n]), lptr: make([]int64, blocks[n]+1), lpairs: make([]int32, pairs[n])}
	// The pointers at the pieces' ends are known now; each piece writes those
	// between, so that none writes what another reads.
	for p := range n + 1 {
		s.lptr[blocks[p]] = pairs[p]
	}
	// Each chunk's groups (offsets within the chunk's blocks and elements) and
	// element lists, concatenated below.
	type part struct {
		gw, ge   []int64
		elems    []int32
		maxSlice int
		err      error
	}
	parts := make([]part, n)
	par.For(n, 0, 1, func(lo, hi int) {
		var h localIndex
		h.init(budget/rec + 1)
		var start, next []int
		var row []int64 // element<<8 | la<<4 | b
		for c := lo; c < hi; c++ {
			pt := &parts[c]
			pt.gw, pt.ge = []int64{0}, []int64{0}
			// About half a piece's incidences are the elements its groups stage (each
			// element meets a group's rows about twice): room for them once.
			inc := int64(0)
			for _, a := range pieces[c].order {
				inc += l.IncPtr[a+1] - l.IncPtr[a]
			}
			pt.elems = make([]int32, 0, inc/2)
			v, u0 := blocks[c], pairs[c] // the next block and contribution
			count, nw, np := 0, 0, 0
			h.reset()
			order, cuts := pieces[c].order, pieces[c].cuts
			for i := 0; i < len(order) && pt.err == nil; i++ {
				a := int(order[i])
				if len(cuts) > 0 && int(cuts[0]) == i {
					cuts = cuts[1:]
					if nw > 0 {
						pt.gw = append(pt.gw, v-blocks[c])
						pt.ge = append(pt.ge, int64(len(pt.elems)))
						h.reset()
						count, nw, np = 0, 0, 0
					}
				}
				r0, r1 := l.RowPtr[a], l.RowPtr[a+1]
				start = slices.Grow(start[:0], int(r1-r0+1))[:r1-r0+1]
				clear(start)
				for k := l.IncPtr[a]; k < l.IncPtr[a+1]; k++ {
					for u := l.SlotPtr[k]; u < l.SlotPtr[k+1]; u++ {
						start[l.Slot[u]+1]++
					}
				}
				for i := 1; i < len(start); i++ {
					start[i] += start[i-1]
				}
				row = slices.Grow(row[:0], start[len(start)-1])[:start[len(start)-1]]
				next = append(next[:0], start[:len(start)-1]...)
				for k := l.IncPtr[a]; k < l.IncPtr[a+1]; k++ {
					e, la := int64(l.IncElem[k]), int64(l.IncLocal[k])
					for u := l.SlotPtr[k]; u < l.SlotPtr[k+1]; u++ {
						sl := l.Slot[u]
						row[next[sl]] = e<<8 | la<<4 | (u - l.SlotPtr[k])
						next[sl]++
					}
				}
				for t := r0; t < r1; t++ {
					if int(l.ColIdx[t]) < a {
						continue
					}
					ds := row[start[t-r0]:start[t-r0+1]]
					if stagedSlice(len(ds), rec, len(ds), rounds) > budget {
						pt.err = fmt.Errorf("cuda: elasticity: block %d sums %d elements, more than %d doubles of shared memory hold: %w", t, len(ds), budget, errStagedFit)
						break
					}
					fresh := 0
					for _, d := range ds {
						if _, ok := h.find(int32(d >> 8)); !ok {
							fresh++
						}
					}
					if nw == size || stagedSlice(count+fresh, rec, np+len(ds), rounds) > budget {
						pt.gw = append(pt.gw, v-blocks[c])
						pt.ge = append(pt.ge, int64(len(pt.elems)))
						h.reset()
						count, nw, np = 0, 0, 0
					}
					for _, d := range ds {
						e := int32(d >> 8)
						i, ok := h.find(e)
						if !ok {
							h.insert(i, e, int32(count))
							count++
							pt.elems = append(pt.elems, e)
						}
						s.lpairs[u0] = h.vals[i]<<8 | int32(d&255)
						u0++
					}
					s.work[v], s.mirror[v] = t, transpose(l, a, t)
					if v+1 < blocks[c+1] {
						s.lptr[v+1] = u0
					}
					np += len(ds)
					pt.maxSlice = max(pt.maxSlice, stagedSlice(count, rec, np, rounds))
					nw++
					v++
				}
			}
			if pt.err != nil {
				continue
			}
			if u0 != pairs[c+1] || v != blocks[c+1] {
				panic("cudafem: stagedGroups: a piece's blocks or contributions differ from their count")
			}
			if nw > 0 {
				pt.gw = append(pt.gw, v-blocks[c])
				pt.ge = append(pt.ge, int64(len(pt.elems)))
			}
		}
	})
	// Each piece's first group and element in the whole map, then the pieces'
	// groups and elements copied there in parallel.
	g0, e0 := make([]int64, n+1), make([]int64, n+1)
	for c := range parts {
		pt := &parts[c]
		if pt.err != nil {
			return stagedMap{}, pt.err
		}
		g0[c+1], e0[c+1] = g0[c]+int64(len(pt.gw)-1), e0[c]+int64(len(pt.elems))
		s.maxSlice = max(s.maxSlice, pt.maxSlice)
	}
	s.gw, s.ge, s.elems = make([]int64, g0[n]+1), make([]int64, g0[n]+1), make([]int32, e0[n])
	par.For(n, 0, 1, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			pt := &parts[c]
			for g := 1; g < len(pt.gw); g++ {
				s.gw[g0[c]+int64(g)] = blocks[c] + pt.gw[g]
				s.ge[g0[c]+int64(g)] = e0[c] + pt.ge[g]
			}
			copy(s.elems[e0[c]:], pt.elems)
		}
	})
	s.sortElems()
	return s, nil
}

// roundOrder prepares the map for sums in rounds (kernels/elasticity.cu's
// ela_rounds over a group's contributions, stagedThreads at a time, one a thread):
// within each round the contributions are put in the order of their codes (element,
// then the row's node, then the column's), so that a warp's lanes integrate the
// blocks of a few elements and read the same few records (broadcasts, not the bank
// conflicts of as many elements as lanes), and slots[u] becomes the place in its
// round of contribution u (lptr's order): where its element block lands in the
// window, where its block's thread reads it; then colorRounds permutes each run of
// 16 against bank conflicts. The sums are unchanged: each block adds the same element
// blocks in the same order.
func (s *stagedMap) roundOrder() {
	s.slots = make([]uint8, len(s.lpairs))
	groups := len(s.gw) - 1
	par.For(groups, 0, 256, func(lo, hi int) {
		keys := make([]int64, 0, stagedThreads)
		sorted := make([]int32, stagedThreads)
		for g := lo; g < hi; g++ {
			u0, u1 := s.lptr[s.gw[g]], s.lptr[s.gw[g+1]]
			for w := u0; w < u1; w += stagedThreads {
				win := s.lpairs[w:min(w+stagedThreads, u1)]
				keys = keys[:0]
				for i, d := range win {
					keys = append(keys, int64(d)<<8|int64(i))
				}
				slices.Sort(keys)
				for j, k := range keys {
					i := int(k & 255)
					sorted[j] = win[i]
					s.slots[w+int64(i)] = uint8(j)
				}
				copy(win, sorted[:len(win)])
			}
		}
	})
	s.colorRounds()
}

// localIndex maps the elements of one group to their index in its list: open
// addressing in a table at least twice the most elements a group holds, cleared in
// O(1) by a generation count, so that a worker needs no array over all elements.
type localIndex struct {
	keys, vals []int32
	gens       []uint32
	gen, mask  uint32
}

// init sizes the table for at most n elements.
func (h *localIndex) init(n int) {
	size := 1
	for size < 2*n {
		size <<= 1
	}
	h.keys, h.vals, h.gens = make([]int32, size), make([]int32, size), make([]uint32, size)
	h.mask, h.gen = uint32(size-1), 1
}

// reset empties the table.
func (h *localIndex) reset() {
	h.gen++
	if h.gen == 0 { // wrapped: stale generations could match
		clear(h.gens)
		h.gen = 1
	}
}

// find returns e's slot and true, or the free slot where e goes and false.
func (h *localIndex) find(e int32) (uint32, bool) {
	i := uint32(e) * 0x9e3779b1 & h.mask
	for h.gens[i] == h.gen {
		if h.keys[i] == e {
			return i, true
		}
		i = (i + 1) & h.mask
	}
	return i, false
}

// insert puts e with index v in the free slot i that find returned.
func (h *localIndex) insert(i uint32, e, v int32) {
	h.keys[i], h.vals[i], h.gens[i] = e, v, h.gen
}

// colorRounds permutes, after roundOrder's sort, each round's contributions within
// each run of 16 (the window's writers in one half-warp, which then still integrate
// the same few elements) so that the contributions that one half-warp of the blocks'
// threads reads in one step of its sums lie in different bank pairs: a window slot's
// 9 doubles start at 9·slot, in bank pair 9·slot mod 16 (a 64-bit access serves a
// half-warp at a time), so slots of distinct residues mod 16 never conflict. The
// writers' runs and the readers' steps are the two sides of a bipartite graph whose
// edges, the contributions, meet at most 16 at a vertex, so 16 colors (the residues)
// always suffice (König's edge-coloring theorem); roundColoring finds them by
// alternating paths. A round's last run, when short, keeps its colors' order only,
// so its readers may still conflict.
func (s *stagedMap) colorRounds() {
	groups := len(s.gw) - 1
	par.For(groups, 0, 256, func(lo, hi int) {
		var c roundColoring
		for g := lo; g < hi; g++ {
			u0, u1 := s.lptr[s.gw[g]], s.lptr[s.gw[g+1]]
			v := s.gw[g]
			for w := u0; w < u1; w += stagedThreads {
				w1 := min(w+stagedThreads, u1)
				c.reset(int(w1 - w))
				for u := w; u < w1; u++ {
					for s.lptr[v+1] <= u {
						v++
					}
					lane := int(v - s.gw[g])
					step := int(u - max(s.lptr[v], w))
					c.add(int(s.slots[u])/16, lane/16*stagedThreads+step)
				}
				c.solve()
				win := s.lpairs[w:w1]
				c.place(win, s.slots[w:w1])
			}
		}
	})
}

// roundColoring is one round's bipartite edge coloring (colorRounds): edge i, the
// round's block-ordered contribution i, joins writer run wr[i] and reader step rd[i]
// (numbered as met); color[i] is its residue.
type roundColoring struct {
	wr, rd, color []int
	// readers[key] is reader step key's number when stamp[key] is the round's gen
	// (key: half-warp·stagedThreads + step).
	readers, stamp []int32
	gen            int32
	wc, rc         [][16]int // the edge of each color at each writer run and reader step, −1 none
	path           []int
	tmp            []int32
}

// noEdges is a vertex's colors before it has edges.
var noEdges = [16]int{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}

// reset empties c for a round of n contributions.
func (c *roundColoring) reset(n int) {
	c.wr, c.rd, c.color = c.wr[:0], c.rd[:0], c.color[:0]
	if c.readers == nil {
		c.readers = make([]int32, stagedThreads/16*stagedThreads)
		c.stamp = make([]int32, len(c.readers))
	}
	c.gen++
	c.rc = c.rc[:0]
	c.wc = slices.Grow(c.wc[:0], (n+15)/16)[:(n+15)/16]
	for i := range c.wc {
		c.wc[i] = noEdges
	}
}

// add records block-ordered contribution i (the next) between writer run w and
// reader step key.
func (c *roundColoring) add(w, key int) {
	if c.stamp[key] != c.gen {
		c.stamp[key], c.readers[key] = c.gen, int32(len(c.rc))
		c.rc = append(c.rc, noEdges)
	}
	c.wr, c.rd, c.color = append(c.wr, w), append(c.rd, int(c.readers[key])), append(c.color, -1)
}

// free16 returns the least color no edge at a vertex has.
func free16(t *[16]int) int {
	for k, e := range t {
		if e < 0 {
			return k
		}
	}
	panic("cudafem: colorRounds: a vertex of more than 16 edges")
}

// solve colors the edges one by one: a color free at both ends, or else, with a free
// at the writer and b at the reader, the a/b path from the reader swapped first.
func (c *roundColoring) solve() {
	for i := range c.wr {
		w, r := c.wr[i], c.rd[i]
		a, b := free16(&c.wc[w]), free16(&c.rc[r])
		if c.rc[r][a] >= 0 {
			// Swap a and b along the path from r that alternates them: a becomes free
			// at r, and stays free at w (bipartite: the path never reaches w).
			c.path = c.path[:0]
			x, col, atReader := r, a, true
			for {
				var e int
				if atReader {
					e = c.rc[x][col]
				} else {
					e = c.wc[x][col]
				}
				if e < 0 {
					break
				}
				c.path = append(c.path, e)
				if atReader {
					x = c.wr[e]
				} else {
					x = c.rd[e]
				}
				atReader = !atReader
				col = a + b - col
			}
			for _, e := range c.path {
				c.wc[c.wr[e]][c.color[e]], c.rc[c.rd[e]][c.color[e]] = -1, -1
			}
			for _, e := range c.path {
				c.color[e] = a + b - c.color[e]
				c.wc[c.wr[e]][c.color[e]], c.rc[c.rd[e]][c.color[e]] = e, e
			}
		}
		c.color[i] = a
		c.wc[w][a], c.rc[r][a] = i, i
	}
}

// place moves each run's contributions to the run's positions by color (a short last
// run by the colors' rank) and points each contribution's slot at its new place.
func (c *roundColoring) place(win []int32, slots []uint8) {
	c.tmp = append(c.tmp[:0], win...)
	n := len(win)
	for i := range c.wr {
		h := c.wr[i]
		p := 16*h + c.color[i]
		if 16*h+16 > n { // a short run: the rank of its color among the run's
			rank := 0
			for k := 0; k < c.color[i]; k++ {
				if c.wc[h][k] >= 0 {
					rank++
				}
			}
			p = 16*h + rank
		}
		win[p] = c.tmp[slots[i]]
		slots[i] = uint8(p)
	}
}

// sortElems lists each group's elements in ascending element order and relabels its
// contributions: elements of a mesh's order lie close together in memory, so a warp
// staging consecutive ones reads fewer lines of the records and the materials. The
// sums do not change (each block keeps its contributions and their order).
func (s *stagedMap) sortElems() {
	groups := len(s.gw) - 1
	par.For(groups, 0, 256, func(lo, hi int) {
		var keys []int64 // element<<32 | old local index
		var local []int32
		for g := lo; g < hi; g++ {
			el := s.elems[s.ge[g]:s.ge[g+1]]
			keys = keys[:0]
			for i, e := range el {
				keys = append(keys, int64(e)<<32|int64(i))
			}
			slices.Sort(keys)
			local = slices.Grow(local[:0], len(el))[:len(el)]
			for n, k := range keys {
				local[k&(1<<32-1)] = int32(n)
				el[n] = int32(k >> 32)
			}
			for u := s.lptr[s.gw[g]]; u < s.lptr[s.gw[g+1]]; u++ {
				d := s.lpairs[u]
				s.lpairs[u] = local[d>>8]<<8 | d&255
			}
		}
	})
}

// sortBlocks lists each group's blocks (work, with mirror) by descending
// contribution count, ties in the groups' order, so that a warp's lanes sum about as
// many and thread i integrates the group's i-th block: elas_staged then stages each
// thread's values at the thread's own place in shared memory (consecutive threads,
// different banks). Each block keeps its contributions; lptr and lpairs are
// rewritten group by group. (Without rounds only: a round's slots follow the groups'
// order.)
func (s *stagedMap) sortBlocks() {
	work, mirror := s.work, s.mirror
	groups := len(s.gw) - 1
	par.For(groups, 0, 256, func(lo, hi int) {
		var o []int32
		var pw, pm, lp []int64
		var pp []int32
		for g := lo; g < hi; g++ {
			w0, w1 := s.gw[g], s.gw[g+1]
			o = o[:0]
			for i := range w1 - w0 {
				o = append(o, int32(i))
			}
			size := func(i int32) int64 { v := w0 + int64(i); return s.lptr[v+1] - s.lptr[v] }
			slices.SortStableFunc(o, func(a, b int32) int { return int(size(b) - size(a)) })
			pw, pm, pp, lp = pw[:0], pm[:0], pp[:0], lp[:0]
			u := s.lptr[w0]
			for _, i := range o {
				v := w0 + int64(i)
				pw = append(pw, work[v])
				pm = append(pm, mirror[v])
				lp = append(lp, u)
				pp = append(pp, s.lpairs[s.lptr[v]:s.lptr[v+1]]...)
				u += s.lptr[v+1] - s.lptr[v]
			}
			copy(work[w0:w1], pw)
			copy(mirror[w0:w1], pm)
			copy(s.lpairs[s.lptr[w0]:s.lptr[w1]], pp)
			copy(s.lptr[w0:w1], lp)
		}
	})
}

// writeOrder returns, for the groups' blocks (work, in their threads' order) and
// their transposes (mirror), the order in which elas_staged writes them: entry gw[g] + k is the thread of the group's block with the k-th
// least position (low byte) and of its transpose with the k-th least position (high
// byte), so that a warp writing consecutive entries writes runs of consecutive
// blocks — a row's blocks in the group, and a lower row's transposes of them — and
// its stores coalesce.
func (s *stagedMap) writeOrder() []uint16 {
	gw, work, mirror := s.gw, s.work, s.mirror
	o := make([]uint16, len(work))
	groups := len(gw) - 1
	par.For(groups, 0, 256, func(lo, hi int) {
		var jt, jm []int32
		for g := lo; g < hi; g++ {
			w0, w1 := gw[g], gw[g+1]
			jt, jm = jt[:0], jm[:0]
			for i := range int32(w1 - w0) {
				jt, jm = append(jt, i), append(jm, i)
			}
			slices.SortFunc(jt, func(a, b int32) int { return cmp.Compare(work[w0+int64(a)], work[w0+int64(b)]) })
			slices.SortFunc(jm, func(a, b int32) int { return cmp.Compare(mirror[w0+int64(a)], mirror[w0+int64(b)]) })
			for k := range jt {
				o[w0+int64(k)] = uint16(jt[k]) | uint16(jm[k])<<8
			}
		}
	})
	return o
}
