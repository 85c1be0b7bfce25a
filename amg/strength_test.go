package amg

import (
	"errors"
	"math"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

func TestStrengthMatchesDenseDefinition(t *testing.T) {
	A := gridMatrix(t, 7, 6, 2, true, 0.1, 1)
	// Make one coupling an explicit zero block and one very weak.
	k, _ := A.Find(0, 1)
	clear(A.Block(k))
	k, _ = A.Find(1, 0)
	clear(A.Block(k))
	k, _ = A.Find(8, 9)
	for p := range A.Block(k) {
		A.Block(k)[p] *= 1e-3
	}
	k, _ = A.Find(9, 8)
	for p := range A.Block(k) {
		A.Block(k)[p] *= 1e-3
	}
	n := A.BlockRows
	fro := func(i, j int) (float64, bool) {
		k, ok := A.Find(i, j)
		if !ok {
			return 0, false
		}
		s := 0.0
		for _, v := range A.Block(k) {
			s += v * v
		}
		return math.Sqrt(s), true
	}
	for _, th := range []float64{-0.01, 0, 0.02, 0.25} {
		g, err := Strength(A, th, 1)
		if err != nil {
			t.Fatal(err)
		}
		edges := 0
		for i := 0; i < n; i++ {
			want := []int32{}
			for j := 0; j < n; j++ {
				v, ok := fro(i, j)
				if !ok || i == j {
					continue
				}
				dii, _ := fro(i, i)
				djj, _ := fro(j, j)
				if th < 0 || v/math.Sqrt(dii*djj) > th {
					want = append(want, int32(j))
				}
			}
			got := g.Neighbors(i)
			if len(got) != len(want) {
				t.Fatalf("threshold %g: node %d neighbours %v, want %v", th, i, got, want)
			}
			for p := range got {
				if got[p] != want[p] {
					t.Fatalf("threshold %g: node %d neighbours %v, want %v", th, i, got, want)
				}
			}
			edges += len(got)
		}
		t.Logf("threshold %g: %d directed edges", th, edges)
		if th < 0 && !contains(g.Neighbors(0), 1) {
			t.Error("negative threshold dropped an explicit zero block")
		}
		if th == 0 && contains(g.Neighbors(0), 1) {
			t.Error("zero threshold kept an explicit zero block")
		}
	}
}

func contains(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestStrengthSymmetrisesAndIsWorkerIndependent(t *testing.T) {
	A := gridMatrix(t, 60, 50, 3, true, 0.1, 2) // big enough to split over 2 workers
	// Weaken one direction only: the edge must survive from the other side.
	k, _ := A.Find(5, 6)
	for p := range A.Block(k) {
		A.Block(k)[p] *= 1e-6
	}
	g1, err := Strength(A, 0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	g2, _ := Strength(A, 0.01, 2)
	if !contains(g1.Neighbors(5), 6) || !contains(g1.Neighbors(6), 5) {
		t.Error("one-sided strong edge 5–6 not kept in both directions")
	}
	for i := 0; i < g1.Nodes; i++ {
		for _, j := range g1.Neighbors(i) {
			if !contains(g1.Neighbors(int(j)), int32(i)) {
				t.Fatalf("edge %d→%d without %d→%d", i, j, j, i)
			}
		}
	}
	if len(g1.Adj) != len(g2.Adj) {
		t.Fatal("graph depends on workers")
	}
	for p := range g1.Adj {
		if g1.Adj[p] != g2.Adj[p] {
			t.Fatal("graph depends on workers")
		}
	}
}

func TestStrengthMissingDiagonal(t *testing.T) {
	A, err := bsr.FromBlockTriplets(3, 3, 1, 1, []int32{0, 0, 1, 2, 2}, []int32{0, 1, 0, 1, 2}, []float64{2, -1, -1, -1, 2})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Strength(A, 0, 1)
	if !errors.Is(err, ErrInput) {
		t.Fatalf("missing diagonal of row 1: got %v", err)
	}
}
