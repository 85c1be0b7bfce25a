package cudafem

import (
	"slices"

	"github.com/blockamg/blockamg/fem"
)

// rowGrouper orders each chunk's rows into compact groups for stagedGroups: a
// group's rows share most of their elements, so each element is staged by fewer
// groups than when the groups are runs of consecutive rows (a run of rows in a
// banded order is a thin slice of the mesh, most of whose elements reach past it:
// on boxes in reverse Cuthill–McKee order about 2.0 groups stage an element instead
// of 3.0 for tet4, 4.1 instead of 4.3 for tet10, in fewer, fuller groups). A group
// starts at the chunk's first row not yet taken and grows, row by row, by the row
// that shares the most elements with the group for each element it adds
// (shared/(1+fresh), the first such row met on a tie), while its blocks, elements
// and contributions fit; a row is a candidate once one of its elements is in the
// group. Without rounds (a thread a block) a group that no untaken row touches takes
// the chunk's next row if it fits, so that its threads do not idle. Rows are taken
// whole: every element around a row couples it to itself, so a row's blocks need
// its elements, its diagonal block all of them.
type rowGrouper struct {
	l                 fem.ElasticityLayout
	eptr              []int64 // element e's nodes are enodes[eptr[e] … eptr[e+1])
	enodes, ub, uc    []int32 // ub, uc: each row's upper blocks and their contributions
	rec, budget, size int
	rounds            bool
	most              int // the most elements around one node
}

// rowGroups is one worker's scratch (rowGrouper.worker), indexed by row less the
// chunk's first.
type rowGroups struct {
	*rowGrouper
	taken        []bool
	stamp, fresh []int32 // stamp: the group (from 1) of which the row is a candidate
	cands        []int32
	in           localIndex // the group's elements
}

// newRowGrouper prepares the grouping of l's rows with each row's upper blocks ub
// and contributions uc, for stagedGroups' bounds.
func newRowGrouper(l fem.ElasticityLayout, ub, uc []int32, rec, budget, size int, rounds bool) *rowGrouper {
	g := &rowGrouper{l: l, ub: ub, uc: uc, rec: rec, budget: budget, size: size, rounds: rounds}
	g.eptr = make([]int64, l.Elements+1)
	for _, e := range l.IncElem {
		g.eptr[e+1]++
	}
	for e := range l.Elements {
		g.eptr[e+1] += g.eptr[e]
	}
	g.enodes = make([]int32, len(l.IncElem))
	fill := slices.Clone(g.eptr[:l.Elements])
	for a := range l.Nodes {
		g.most = max(g.most, int(l.IncPtr[a+1]-l.IncPtr[a]))
		for k := l.IncPtr[a]; k < l.IncPtr[a+1]; k++ {
			e := l.IncElem[k]
			g.enodes[fill[e]] = int32(a)
			fill[e]++
		}
	}
	return g
}

// worker returns scratch for one worker.
func (g *rowGrouper) worker() *rowGroups {
	n := min(stagedChunk, g.l.Nodes) // a chunk's rows
	w := &rowGroups{rowGrouper: g, taken: make([]bool, n), stamp: make([]int32, n), fresh: make([]int32, n)}
	w.in.init(max(g.budget/g.rec+1, g.most))
	return w
}

// chunk returns rows a0 … a1−1 in their groups' order (order) and the places in
// order where each group starts (cuts).
func (w *rowGroups) chunk(a0, a1 int) (order, cuts []int32) {
	l := w.l
	clear(w.taken[:a1-a0])
	clear(w.stamp[:a1-a0])
	gid := int32(0)
	for seed := a0; seed < a1; seed++ {
		if w.taken[seed-a0] {
			continue
		}
		gid++
		cuts = append(cuts, int32(len(order)))
		w.in.reset()
		w.cands = w.cands[:0]
		count, nw, np := 0, 0, 0
		add := func(a int) {
			w.taken[a-a0] = true
			order = append(order, int32(a))
			nw += int(w.ub[a])
			np += int(w.uc[a])
			for k := l.IncPtr[a]; k < l.IncPtr[a+1]; k++ {
				e := l.IncElem[k]
				i, ok := w.in.find(e)
				if ok {
					continue
				}
				w.in.insert(i, e, 0)
				count++
				for _, b := range w.enodes[w.eptr[e]:w.eptr[e+1]] {
					j := int(b) - a0
					if j < 0 || j >= a1-a0 || w.taken[j] {
						continue
					}
					if w.stamp[j] != gid {
						w.stamp[j], w.fresh[j] = gid, int32(l.IncPtr[b+1]-l.IncPtr[b])-1
						w.cands = append(w.cands, b)
					} else {
						w.fresh[j]--
					}
				}
			}
		}
		add(seed)
		for {
			best, bs, bf := -1, 0, 0
			live := w.cands[:0]
			for _, b := range w.cands {
				j := int(b) - a0
				if w.taken[j] {
					continue
				}
				live = append(live, b)
				f := int(w.fresh[j])
				if nw+int(w.ub[b]) > w.size || stagedSlice(count+f, w.rec, np+int(w.uc[b]), w.rounds) > w.budget {
					continue
				}
				sh := int(l.IncPtr[b+1]-l.IncPtr[b]) - f
				if best < 0 || sh*(1+bf) > bs*(1+f) {
					best, bs, bf = int(b), sh, f
				}
			}
			w.cands = live
			if best < 0 && len(live) == 0 && !w.rounds {
				// No row touches the group's elements: without rounds its threads
				// would idle, so it takes the chunk's next row if that fits.
				for b := seed + 1; b < a1; b++ {
					j := b - a0
					if w.taken[j] {
						continue
					}
					if nw+int(w.ub[b]) <= w.size && stagedSlice(count+int(l.IncPtr[b+1]-l.IncPtr[b]), w.rec, np+int(w.uc[b]), w.rounds) <= w.budget {
						best = b
					}
					break
				}
			}
			if best < 0 {
				break
			}
			add(best)
		}
	}
	return order, cuts
}
