package fem

import (
	"math"
	"testing"
)

// blockGather computes A's values from GatherTables alone, one stored block at a time
// (the way the GPU kernel works: a thread per block, looping over the elements that
// touch it), following GatherTables' documentation. Products are converted to float64
// explicitly so that no fused multiply-add can occur on any architecture.
func blockGather(g GatherTables, rowPtr []int64, val, modulus []float64) {
	nn, ne := g.Nn, g.Ne
	var inv [8][27]int // inv[p][s]: the local node at stencil position s, or −1
	for p := range inv {
		for s := range inv[p] {
			inv[p][s] = -1
		}
		for lb, s := range g.Slot[p] {
			inv[p][s] = lb
		}
	}
	in := func(t, lo, hi int) bool { return t >= lo && t < hi }
	for n := 0; n < nn*nn*nn; n++ {
		i, j, k := n%nn, (n/nn)%nn, n/(nn*nn)
		q := rowPtr[n]
		for s := 0; s < 27; s++ {
			dx, dy, dz := s%3-1, (s/3)%3-1, s/9-1
			if !in(i+dx, 0, nn) || !in(j+dy, 0, nn) || !in(k+dz, 0, nn) {
				continue
			}
			var acc [9]float64
			for p := 0; p < 8; p++ {
				ex, ey, ez := p&1, (p>>1)&1, p>>2
				ei, ej, ek := i-1+ex, j-1+ey, k-1+ez
				if !in(ei, 0, ne) || !in(ej, 0, ne) || !in(ek, 0, ne) {
					continue
				}
				m := modulus[ei+ne*(ej+ne*ek)]
				la := g.Local[p]
				if k == 0 {
					if s == 13 {
						for c := 0; c < 3; c++ {
							acc[4*c] = acc[4*c] + float64(m*g.Diag[la][c])
						}
					}
					continue
				}
				lb := inv[p][s]
				if lb < FirstNode(k, ek) {
					continue // also lb == −1: the element does not touch column s
				}
				for e := 0; e < 9; e++ {
					acc[e] = acc[e] + float64(m*g.Ref[la][lb][e])
				}
			}
			copy(val[9*q:9*q+9], acc[:])
			q++
		}
		if q != rowPtr[n+1] {
			panic("blockGather: row length does not match the stencil")
		}
	}
}

// TestGatherTablesReproduceNumeric: the documented gather, run from the exported tables
// alone, gives bitwise Numeric's values (default and random moduli, with zeros), and
// CheckModulus agrees with Numeric on bad input.
func TestGatherTablesReproduceNumeric(t *testing.T) {
	for _, ne := range []int{1, 2, 3, 5, 8} {
		b := mustBox(t, Ex56(ne))
		a := mustSymbolic(t, b, 0)
		g := a.GatherTables()
		if g.Ne != ne || g.Nn != ne+1 {
			t.Fatalf("ne=%d: tables for Ne=%d Nn=%d", ne, g.Ne, g.Nn)
		}
		mod := randomModulus(b.Elements(), uint64(ne))
		mod[0] = 0
		for _, m := range [][]float64{b.ElementModulus(), mod} {
			if err := a.Numeric(a.Matrix, m, 0); err != nil {
				t.Fatal(err)
			}
			got := make([]float64, len(a.Matrix.Val))
			poison(got)
			blockGather(g, a.Matrix.RowPtr, got, m)
			for i, v := range got {
				if math.Float64bits(v) != math.Float64bits(a.Matrix.Val[i]) {
					t.Fatalf("ne=%d: value %d = %v (bits %x), Numeric %v (bits %x)",
						ne, i, v, math.Float64bits(v), a.Matrix.Val[i], math.Float64bits(a.Matrix.Val[i]))
				}
			}
		}
	}
	a := mustSymbolic(t, mustBox(t, Ex56(2)), 1)
	for _, m := range [][]float64{nil, make([]float64, 8), {1, 2, 3, 4, 5, 6, 7, -1}, {1, 2, math.Inf(1), 4, 5, 6, 7, 8},
		{math.NaN(), 2, 3, 4, 5, 6, 7, 8}, make([]float64, 7)} {
		want := a.Numeric(a.NewMatrix(), m, 1)
		got := a.CheckModulus(m)
		if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
			t.Fatalf("modulus %v: CheckModulus %v, Numeric %v", m, got, want)
		}
	}
}
