package dist

import (
	"math"
	"testing"
	"time"
)

func TestCubeGrid(t *testing.T) {
	for _, c := range []struct {
		p                int
		want             [3]int
		faces, edges, cs int
	}{
		{1, [3]int{1, 1, 1}, 0, 0, 0},
		{2, [3]int{1, 1, 2}, 1, 0, 0},
		{8, [3]int{2, 2, 2}, 3, 3, 1},
		{64, [3]int{4, 4, 4}, 6, 12, 8},
		{512, [3]int{8, 8, 8}, 6, 12, 8},
	} {
		g := cubeGrid(c.p)
		if g[0]*g[1]*g[2] != c.p || max(g[0], g[1], g[2]) != max(c.want[0], c.want[1], c.want[2]) {
			t.Errorf("cubeGrid(%d) = %v, want %v", c.p, g, c.want)
		}
		if f, e, k := neighbours(g); f != c.faces || e != c.edges || k != c.cs {
			t.Errorf("neighbours(%v) = %d, %d, %d; want %d, %d, %d", g, f, e, k, c.faces, c.edges, c.cs)
		}
	}
}

// testModel is a fine level over a coarsest one, with flat iterations.
func testModel() Model {
	return Model{
		Levels: []LevelShape{
			{Rows: 1000, Block: 3, AHalo: 100, PHalo: 10, RHalo: 100, ANnzRow: 27, PNnzRow: 4, NextBlock: 6},
			{Rows: 40, Block: 6, AHalo: 5, ANnzRow: 20},
		},
		SolveWork: time.Millisecond, SetupWork: 10 * time.Millisecond, Unknowns: 3000,
		Iterations: func(float64) float64 { return 10 }, EigSteps: 10, SmootherDegree: 2,
		CoarseBytes: 2000, CoarseMatrixBytes: 100_000, CoarseRatio: 25,
	}
}

// TestWeakScalingMessages counts the model's latencies and messages by hand, with
// unlimited bandwidth. At 64 ranks the most connected rank has 26 neighbours, so an
// exchange sends and receives 52 messages in one latency; a collective has
// log₂ 64 = 6 rounds; the problem has ⌈ln 64/ln 25⌉ = 2 more levels, each costing the
// fine level's V-cycle exchanges.
func TestWeakScalingMessages(t *testing.T) {
	m := testModel()
	for _, c := range []struct {
		name                  string
		net                   Network
		ex, coll              int // µs of one exchange and one collective
		wantLevels, wantNeigh int
	}{
		{"latency", Network{Latency: time.Microsecond, Bandwidth: math.Inf(1)}, 1, 6, 4, 26},
		{"overhead", Network{Overhead: time.Microsecond, Bandwidth: math.Inf(1)}, 52, 0, 4, 26},
	} {
		pt := m.WeakScaling(c.net, []int{64})[0]
		cycle := (2*2 + 1 + 1) * c.ex // 2·degree A products, P, Pᵀ
		perIt := cycle + 2*cycle + c.ex + 3*c.coll + c.coll
		if want := time.Duration(10*perIt) * time.Microsecond; pt.SolveComm != want {
			t.Errorf("%s: solve communication %v, want %v (%d µs per iteration)", c.name, pt.SolveComm, want, perIt)
		}
		// λ steps and their dots, rows of A and P, rows of Ac, the coarse gather.
		resetup := 10*c.ex + 2*10*c.coll + 2*c.ex + c.coll
		if want := time.Duration(resetup) * time.Microsecond; pt.ResetupComm != want {
			t.Errorf("%s: re-setup communication %v, want %v", c.name, pt.ResetupComm, want)
		}
		if pt.Levels != c.wantLevels || pt.Neighbours != c.wantNeigh {
			t.Errorf("%s: %d levels, %d neighbours; want %d and %d", c.name, pt.Levels, pt.Neighbours, c.wantLevels, c.wantNeigh)
		}
	}
	// Bandwidth alone: one fine exchange at 8 ranks (3 faces, 3 edges, 1 corner) moves
	// 3·f + 3·√f + 1 rows of 24 bytes, f = 100·2^(-2/3) rows per face.
	f := 100 * math.Pow(2, -2.0/3)
	rows := 3*f + 3*math.Sqrt(f) + 1
	net := Network{Bandwidth: 1e9}
	if got, want := net.exchange(3, 3, 1, f, 24), time.Duration(rows*24); got != want {
		t.Errorf("fine exchange at 8 ranks: %v, want %v", got, want)
	}
}

// TestWeakScalingProperties: one rank is the base (efficiency 1); efficiency falls
// with the rank count and with slower links, rises with more work per rank, and is 1
// on a free network with flat iterations.
func TestWeakScalingProperties(t *testing.T) {
	m := testModel()
	net := Network{Latency: 2 * time.Microsecond, Overhead: 200 * time.Nanosecond, Bandwidth: 12.5e9}
	pts := m.WeakScaling(net, []int{1, 8, 64, 512})
	for _, p := range pts {
		if !(p.CommEfficiency >= p.Efficiency) || p.CommEfficiency > 1 {
			t.Errorf("%d ranks: efficiency %g, with the communication alone %g: want Efficiency ≤ CommEfficiency ≤ 1", p.Ranks, p.Efficiency, p.CommEfficiency)
		}
	}
	if pts[0].Efficiency != 1 {
		t.Errorf("one rank: efficiency %g, want 1", pts[0].Efficiency)
	}
	for i := 1; i < len(pts); i++ {
		if !(pts[i].Efficiency < pts[i-1].Efficiency) || pts[i].Efficiency <= 0 {
			t.Errorf("efficiency at %d ranks %g, at %d %g: want it to fall", pts[i].Ranks, pts[i].Efficiency, pts[i-1].Ranks, pts[i-1].Efficiency)
		}
	}
	slow := m.WeakScaling(Network{Latency: 20 * time.Microsecond, Overhead: 2 * time.Microsecond, Bandwidth: 1.25e9}, []int{64})[0]
	if !(slow.Efficiency < pts[2].Efficiency) {
		t.Errorf("a slower network: efficiency %g, fast %g", slow.Efficiency, pts[2].Efficiency)
	}
	heavy := m
	heavy.SolveWork, heavy.SetupWork = 10*m.SolveWork, 10*m.SetupWork
	if h := heavy.WeakScaling(net, []int{64})[0]; !(h.Efficiency > pts[2].Efficiency) {
		t.Errorf("ten times the work per rank: efficiency %g, want above %g", h.Efficiency, pts[2].Efficiency)
	}
	free := m.WeakScaling(Network{Latency: 0, Bandwidth: math.Inf(1)}, []int{512})[0]
	if math.Abs(free.Efficiency-1) > 1e-12 {
		t.Errorf("a free network: efficiency %g, want 1", free.Efficiency)
	}
}

func TestIterationFit(t *testing.T) {
	f := IterationFit([]float64{1 << 10, 1 << 13, 1 << 16}, []int{10, 11, 12})
	if got := f(1 << 19); math.Abs(got-13) > 1e-9 {
		t.Errorf("fit at 2¹⁹: %g, want 13", got)
	}
	flat := IterationFit([]float64{100, 1000}, []int{12, 11})
	if flat(1e6) != flat(100) {
		t.Errorf("a falling count is taken as flat: %g at 1e6, %g at 100", flat(1e6), flat(100))
	}
}
