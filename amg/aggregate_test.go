package amg

import (
	"testing"
)

// checkPartition verifies the Aggregates invariants: nodes with neighbours lie in
// exactly one aggregate, isolated ones in none; member lists agree with Of, are
// ascending and complete; every root lies in its own aggregate; sizes ≥ minNodes.
func checkPartition(t *testing.T, g *Graph, agg *Aggregates, minNodes int) {
	t.Helper()
	if len(agg.Of) != g.Nodes || len(agg.Ptr) != agg.Count+1 || len(agg.Roots) != agg.Count {
		t.Fatalf("shape: %d nodes, Of %d, Ptr %d, Roots %d, Count %d", g.Nodes, len(agg.Of), len(agg.Ptr), len(agg.Roots), agg.Count)
	}
	seen := make([]int, g.Nodes)
	for a := 0; a < agg.Count; a++ {
		m := agg.Members(a)
		if len(m) < minNodes {
			t.Errorf("aggregate %d has %d nodes < %d", a, len(m), minNodes)
		}
		for p, v := range m {
			seen[v]++
			if agg.Of[v] != int32(a) {
				t.Fatalf("node %d listed in aggregate %d but Of says %d", v, a, agg.Of[v])
			}
			if p > 0 && m[p-1] >= v {
				t.Fatalf("aggregate %d members not ascending", a)
			}
		}
		if agg.Of[agg.Roots[a]] != int32(a) {
			t.Errorf("root %d of aggregate %d lies in aggregate %d", agg.Roots[a], a, agg.Of[agg.Roots[a]])
		}
	}
	for v := 0; v < g.Nodes; v++ {
		want := 1
		if g.Degree(v) == 0 {
			want = 0
		}
		if seen[v] != want {
			t.Fatalf("node %d (degree %d) in %d aggregates, want %d", v, g.Degree(v), seen[v], want)
		}
		if want == 0 && agg.Of[v] != -1 {
			t.Fatalf("isolated node %d has aggregate %d", v, agg.Of[v])
		}
	}
}

func TestAggregateDistance2(t *testing.T) {
	A := gridMatrix(t, 30, 25, 3, true, 0.1, 3)
	// Isolate node 17 (weak couplings only) to check it is left out.
	for k := A.RowPtr[17]; k < A.RowPtr[18]; k++ {
		if A.ColIdx[k] != 17 {
			for p := range A.Block(k) {
				A.Block(k)[p] *= 1e-9
			}
			j := int(A.ColIdx[k])
			kk, _ := A.Find(j, 17)
			for p := range A.Block(kk) {
				A.Block(kk)[p] *= 1e-9
			}
		}
	}
	g, err := Strength(A, 0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	if g.Degree(17) != 0 {
		t.Fatalf("node 17 still has %d neighbours", g.Degree(17))
	}
	agg := Aggregate(g, true, 2)
	checkPartition(t, g, agg, 2)
	isRoot := make([]bool, g.Nodes)
	for _, r := range agg.Roots {
		isRoot[r] = true
	}
	for a, r := range agg.Roots {
		// MIS on the squared graph: no other root within two edges.
		for _, j := range g.Neighbors(int(r)) {
			if isRoot[j] {
				t.Fatalf("roots %d and %d adjacent", r, j)
			}
			for _, l := range g.Neighbors(int(j)) {
				if int(l) != int(r) && isRoot[l] {
					t.Fatalf("roots %d and %d two edges apart", r, l)
				}
			}
			// Fix-up: every neighbour of a root is in the root's aggregate.
			if agg.Of[j] != int32(a) {
				t.Fatalf("neighbour %d of root %d in aggregate %d, not %d", j, r, agg.Of[j], a)
			}
		}
	}
	t.Logf("%d nodes → %d aggregates", g.Nodes, agg.Count)
	// Deterministic.
	again := Aggregate(g, true, 2)
	for v := range agg.Of {
		if agg.Of[v] != again.Of[v] {
			t.Fatal("aggregation not deterministic")
		}
	}
}

func TestAggregateDistance1(t *testing.T) {
	A := gridMatrix(t, 20, 20, 1, false, 0.1, 4)
	g, _ := Strength(A, -1, 1)
	agg := Aggregate(g, false, 1)
	checkPartition(t, g, agg, 1)
	isRoot := make([]bool, g.Nodes)
	for _, r := range agg.Roots {
		isRoot[r] = true
	}
	for v := 0; v < g.Nodes; v++ {
		// MIS on g: roots are not adjacent, and every other node is adjacent to the
		// root of its aggregate (it was taken by that root).
		r := agg.Roots[agg.Of[v]]
		if isRoot[v] {
			for _, j := range g.Neighbors(v) {
				if isRoot[j] {
					t.Fatalf("adjacent roots %d, %d", v, j)
				}
			}
		} else if !contains(g.Neighbors(v), r) {
			t.Fatalf("node %d not adjacent to its root %d", v, r)
		}
	}
}

func TestAggregateMergesSmall(t *testing.T) {
	// Path 0–1–2–3–4 with distance-1 MIS in order: roots 0 {0,1}, 2 {2,3}, 4 {4}.
	// With minNodes 2 the singleton {4} must merge into its neighbour's aggregate.
	g := &Graph{Nodes: 5, RowPtr: []int64{0, 1, 3, 5, 7, 8}, Adj: []int32{1, 0, 2, 1, 3, 2, 4, 3}}
	agg := Aggregate(g, false, 1)
	if agg.Count != 3 {
		t.Fatalf("minNodes 1: %d aggregates, want 3", agg.Count)
	}
	agg = Aggregate(g, false, 2)
	checkPartition(t, g, agg, 2)
	if agg.Count != 2 || agg.Of[4] != agg.Of[3] {
		t.Fatalf("minNodes 2: aggregates %v", agg.Of)
	}
	// A component too small to satisfy minNodes and with no neighbour is dropped.
	g2 := &Graph{Nodes: 3, RowPtr: []int64{0, 1, 2, 2}, Adj: []int32{1, 0}}
	agg = Aggregate(g2, true, 3)
	if agg.Count != 0 || agg.Of[0] != -1 || agg.Of[1] != -1 || agg.Of[2] != -1 {
		t.Fatalf("undersized isolated pair: %+v", agg)
	}
}
