package amg

import (
	"sync/atomic"

	"github.com/blockamg/blockamg/internal/par"
)

// MIS node states, ordered so that the largest key in a neighbourhood is a member's
// when there is one: an undecided node that sees a member's key leaves the set.
const (
	MISOut       = 0 // not in the set (or never a candidate: a node without neighbours)
	MISUndecided = 1
	MISIn        = 2 // in the set: the root of an aggregate
)

// MISKey is node i's key in the synchronous MIS rounds: its state in the top two bits,
// then its priority, the complement of its index, so that the lowest-numbered
// undecided node of a neighbourhood wins it. With these priorities the rounds compute
// the lexicographically first maximal independent set, the very set of the greedy
// pass in node order (Aggregate): the parallel set-up builds GAMG's aggregates, not
// an approximation of them. (Hashed priorities, as some GPU codes use, need fewer
// rounds but give fewer, irregular aggregates: 17 CG iterations instead of 12 on
// ex56 ne = 39.)
func MISKey(state uint8, i int32) uint64 { return uint64(state)<<62 | uint64(^uint32(i)) }

// MISRounds computes, in synchronous rounds, the maximal independent set of g at
// distance 2 (no two members joined by a path of one or two edges) when distance2 is
// set, else at distance 1. Each round every node takes the largest key within the
// distance (one or two sweeps of a neighbourhood maximum, MISKey); an undecided node
// whose own key is that maximum joins the set, one that sees a member's key leaves
// it. Nodes without neighbours never join. Every round reads one array and writes
// another, so a round is a map over the nodes — a kernel on a GPU — and the result
// is the same for any workers. It returns each node's final state (MISIn or MISOut)
// and the number of rounds run.
func MISRounds(g *Graph, distance2 bool, workers int) (state []uint8, rounds int) {
	n := g.Nodes
	key := make([]uint64, n)
	t1 := make([]uint64, n)
	var t2 []uint64
	if distance2 {
		t2 = make([]uint64, n)
	}
	state = make([]uint8, n)
	undecided := 0
	for i := 0; i < n; i++ {
		s := uint8(MISUndecided)
		if g.Degree(i) == 0 {
			s = MISOut
		} else {
			undecided++
		}
		state[i] = s
		key[i] = MISKey(s, int32(i))
	}
	sweep := func(dst, src []uint64) {
		par.ForWeighted(g.RowPtr, workers, int64(minChunk), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				m := src[i]
				for _, j := range g.Neighbors(i) {
					m = max(m, src[j])
				}
				dst[i] = m
			}
		})
	}
	for undecided > 0 {
		rounds++
		sweep(t1, key)
		t := t1
		if distance2 {
			sweep(t2, t1)
			t = t2
		}
		var left atomic.Int64 // an integer sum: the same in any order
		par.For(n, workers, minChunk, func(lo, hi int) {
			u := int64(0)
			for i := lo; i < hi; i++ {
				if state[i] != MISUndecided {
					continue
				}
				switch {
				case t[i] == key[i]:
					state[i] = MISIn
				case t[i]>>62 == MISIn:
					state[i] = MISOut
				default:
					u++
					continue
				}
				key[i] = MISKey(state[i], int32(i))
			}
			left.Add(u)
		})
		undecided = int(left.Load())
	}
	return state, rounds
}

// AggregateRounds builds the aggregates of Aggregate in parallel steps, each a map
// over the nodes that reads only the previous step's result (what a GPU set-up runs,
// kernel by kernel, with this as its oracle):
//
//  1. MISRounds: the roots, numbered in node order.
//  2. Every other node with a root among its neighbours joins the lowest-numbered
//     one's aggregate (at distance 2 there is only one).
//  3. At distance 2, each node left (two edges from a root, by maximality) joins the
//     lowest-numbered aggregate among its neighbours' — the first root that reaches
//     it in the greedy pass.
//  4. Aggregates under minNodes nodes are merged as Aggregate merges them (a serial
//     pass over those few aggregates).
//
// The result equals Aggregate's, field for field.
func AggregateRounds(g *Graph, distance2 bool, minNodes, workers int) *Aggregates {
	state, rounds := MISRounds(g, distance2, workers)
	of, roots := misRoots(state)
	near := make([]int32, g.Nodes)
	lowest := func(dst, src []int32) {
		par.ForWeighted(g.RowPtr, workers, int64(minChunk), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				dst[i] = src[i]
				if src[i] >= 0 {
					continue
				}
				for _, j := range g.Neighbors(i) {
					if a := src[j]; a >= 0 && (dst[i] < 0 || a < dst[i]) {
						dst[i] = a
					}
				}
			}
		})
	}
	lowest(near, of)
	if distance2 {
		lowest(of, near)
	} else {
		copy(of, near)
	}
	agg := mergeSmall(g, of, roots, minNodes)
	agg.DiagExp, agg.Rounds = g.DiagExp, rounds
	return agg
}

// misRoots numbers the members of an independent set in node order: of[i] is the
// aggregate of root i and −1 elsewhere; roots lists them.
func misRoots(state []uint8) (of []int32, roots []int32) {
	of = make([]int32, len(state))
	for i, s := range state {
		of[i] = -1
		if s == MISIn {
			of[i] = int32(len(roots))
			roots = append(roots, int32(i))
		}
	}
	return of, roots
}
