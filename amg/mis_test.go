package amg

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/blockamg/blockamg/fem"
)

// randomGraph returns a symmetric graph on n nodes with about deg random neighbours
// per node and some isolated nodes.
func randomGraph(n, deg int, seed uint64) *Graph {
	r := rand.New(rand.NewPCG(seed, 7))
	adj := make([]map[int32]bool, n)
	for i := range adj {
		adj[i] = map[int32]bool{}
	}
	for i := 0; i < n; i++ {
		if r.IntN(10) == 0 {
			continue // isolated unless a neighbour picks it
		}
		for e := 0; e < deg/2; e++ {
			// Mostly local edges, as a mesh has, with a few long ones.
			j := i + 1 + r.IntN(8)
			if r.IntN(5) == 0 {
				j = r.IntN(n)
			}
			if j >= n || j == i {
				continue
			}
			adj[i][int32(j)], adj[j][int32(i)] = true, true
		}
	}
	g := &Graph{Nodes: n, RowPtr: make([]int64, n+1)}
	for i := 0; i < n; i++ {
		for j := int32(0); j < int32(n); j++ {
			if adj[i][j] {
				g.Adj = append(g.Adj, j)
			}
		}
		g.RowPtr[i+1] = int64(len(g.Adj))
	}
	return g
}

// TestAggregateRoundsMatchesGreedy checks the parallel rounds against the greedy
// pass, the independent reference: the same roots, the same aggregate of every node,
// the same members, for both distances, several minimum sizes and worker counts.
func TestAggregateRoundsMatchesGreedy(t *testing.T) {
	defer func(c int) { minChunk = c }(minChunk)
	minChunk = 16 // small chunks, so that the rounds really split
	for seed := uint64(1); seed <= 12; seed++ {
		g := randomGraph(300+int(seed)*37, 2+int(seed%6), seed)
		for _, d2 := range []bool{false, true} {
			for _, minNodes := range []int{1, 2, 3, 6} {
				want := Aggregate(g, d2, minNodes)
				for _, w := range []int{1, 3} {
					got := AggregateRounds(g, d2, minNodes, w)
					if _, rounds := MISRounds(g, d2, w); got.Rounds != rounds {
						t.Fatalf("seed %d: Rounds %d, MISRounds ran %d", seed, got.Rounds, rounds)
					}
					got.Rounds = 0 // Aggregate runs no rounds
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("seed %d distance2 %v minNodes %d workers %d: rounds give %d aggregates, greedy %d (or other members)",
							seed, d2, minNodes, w, got.Count, want.Count)
					}
				}
			}
		}
	}
}

// TestMISRoundsIndependentMaximal checks the set's two defining properties directly
// on a graph: no two members within the distance, and every other node with a
// neighbour within it of a member (maximality).
func TestMISRoundsIndependentMaximal(t *testing.T) {
	g := randomGraph(500, 6, 99)
	for _, d2 := range []bool{false, true} {
		state, rounds := MISRounds(g, d2, 2)
		if rounds < 1 {
			t.Fatalf("distance2 %v: %d rounds", d2, rounds)
		}
		within := func(i int) map[int32]bool { // nodes at distance 1 (and 2), i excluded
			m := map[int32]bool{}
			for _, j := range g.Neighbors(i) {
				m[j] = true
				if d2 {
					for _, l := range g.Neighbors(int(j)) {
						m[l] = true
					}
				}
			}
			delete(m, int32(i))
			return m
		}
		for i := 0; i < g.Nodes; i++ {
			near := within(i)
			hasMember := false
			for j := range near {
				if state[j] == MISIn {
					hasMember = true
				}
			}
			switch {
			case state[i] == MISIn && hasMember:
				t.Fatalf("distance2 %v: members %d and a neighbour within the distance", d2, i)
			case state[i] == MISOut && g.Degree(i) > 0 && !hasMember:
				t.Fatalf("distance2 %v: node %d is out with no member within the distance (not maximal)", d2, i)
			case state[i] == MISUndecided:
				t.Fatalf("node %d left undecided", i)
			}
		}
	}
}

// TestAggregateRoundsEx56 compares the rounds with the greedy pass on the strength
// graphs of ex56's fine level, where the greedy aggregates are the tuned ones.
func TestAggregateRoundsEx56(t *testing.T) {
	A, _, _, err := fem.Ex56System(12, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range []float64{-0.01, 0, 0.05} {
		g, err := Strength(A, th, 2)
		if err != nil {
			t.Fatal(err)
		}
		want := Aggregate(g, true, 2)
		got := AggregateRounds(g, true, 2, 2)
		if got.Rounds < 1 {
			t.Errorf("threshold %g: %d MIS rounds reported", th, got.Rounds)
		}
		got.Rounds = 0 // Aggregate runs no rounds
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("threshold %g: rounds give %d aggregates, greedy %d", th, got.Count, want.Count)
		}
	}
}
