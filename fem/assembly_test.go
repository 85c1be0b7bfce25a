package fem

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

func mustBox(t testing.TB, p Problem) *Box {
	t.Helper()
	b, err := NewBox(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustSymbolic(t testing.TB, b *Box, workers int) *Assembly {
	t.Helper()
	a, err := b.Symbolic(workers)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestSymbolicPattern compares the pattern with the node pairs that share an element,
// found by brute force over the elements.
func TestSymbolicPattern(t *testing.T) {
	for _, ne := range []int{1, 2, 5} {
		b := mustBox(t, Ex56(ne))
		a := mustSymbolic(t, b, 3)
		A := a.Matrix
		if err := A.Validate(); err != nil {
			t.Fatal(err)
		}
		share := map[[2]int]bool{}
		var nodes [8]int
		for e := 0; e < b.Elements(); e++ {
			b.ElementNodes(e, &nodes)
			for _, p := range nodes {
				for _, q := range nodes {
					share[[2]int{p, q}] = true
				}
			}
		}
		if int(A.NNZBlocks()) != len(share) {
			t.Fatalf("ne=%d: %d blocks, %d node pairs share an element", ne, A.NNZBlocks(), len(share))
		}
		for pq := range share {
			if _, ok := A.Find(pq[0], pq[1]); !ok {
				t.Fatalf("ne=%d: block (%d,%d) missing", ne, pq[0], pq[1])
			}
		}
		if nn := int64(3*(ne+1) - 2); A.NNZBlocks() != nn*nn*nn {
			t.Errorf("ne=%d: %d blocks, want (3nn−2)³ = %d", ne, A.NNZBlocks(), nn*nn*nn)
		}
	}
}

// TestElementSlotsMatchFind checks the arithmetic element→slot map against a binary
// search in the pattern, and its boundary-condition marks against the geometry.
func TestElementSlotsMatchFind(t *testing.T) {
	b := mustBox(t, Ex56(4))
	a := mustSymbolic(t, b, 1)
	var slots [64]int64
	var nodes [8]int
	for e := 0; e < b.Elements(); e++ {
		for i := range slots {
			slots[i] = -2 // poison
		}
		clamped := a.ElementSlots(e, &slots)
		b.ElementNodes(e, &nodes)
		for la := 0; la < 8; la++ {
			if got, want := clamped>>la&1 == 1, b.Coords()[3*nodes[la]+2] == 0; got != want {
				t.Fatalf("element %d local node %d: clamped %v, z = 0 is %v", e, la, got, want)
			}
			for lb := 0; lb < 8; lb++ {
				k, ok := a.Matrix.Find(nodes[la], nodes[lb])
				if !ok {
					t.Fatalf("element %d: block (%d,%d) not in the pattern", e, nodes[la], nodes[lb])
				}
				dropped := la != lb && (clamped>>la|clamped>>lb)&1 == 1
				if dropped {
					k = -1
				}
				if slots[8*la+lb] != k {
					t.Fatalf("element %d (%d,%d): slot %d, want %d", e, la, lb, slots[8*la+lb], k)
				}
			}
		}
	}
}

// scatterAssemble is the textbook assembly kept as a reference: element by element in
// ascending order, each 3×3 block added to the slot a binary search finds, with ex56's
// boundary rule applied per coupling.
func scatterAssemble(b *Box, A *bsr.Matrix, modulus []float64) {
	clear(A.Val)
	k := b.ReferenceStiffness()
	var nodes [8]int
	for e := 0; e < b.Elements(); e++ {
		b.ElementNodes(e, &nodes)
		m := modulus[e]
		for la, na := range nodes {
			for lb, nb := range nodes {
				s, _ := A.Find(na, nb)
				blk := A.Block(s)
				switch {
				case b.Dirichlet(na) && la == lb:
					for c := 0; c < 3; c++ {
						blk[4*c] += m * (0.1 * k[(3*la+c)*24+3*la+c])
					}
				case b.Dirichlet(na) || b.Dirichlet(nb):
				default:
					for i := 0; i < 3; i++ {
						for j := 0; j < 3; j++ {
							blk[3*i+j] += m * k[(3*la+i)*24+3*lb+j]
						}
					}
				}
			}
		}
	}
}

func poison(v []float64) {
	for i := range v {
		v[i] = math.NaN()
	}
}

func randomModulus(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	m := make([]float64, n)
	for i := range m {
		m[i] = math.Exp(4 * (r.Float64() - 0.5)) // spread over e^±2
	}
	return m
}

// TestNumericMatchesScatter: the row-gather numeric phase must give bitwise the values
// of the element scatter, since both add each slot's contributions in ascending element
// order.
func TestNumericMatchesScatter(t *testing.T) {
	for _, ne := range []int{1, 2, 6} {
		b := mustBox(t, Problem{Ne: ne, E: 2.5, Nu: 0.3, Alpha: 0.01})
		a := mustSymbolic(t, b, 2)
		ref := a.NewMatrix()
		for _, mod := range [][]float64{nil, randomModulus(b.Elements(), uint64(ne))} {
			A := a.NewMatrix()
			poison(A.Val)
			if err := a.Numeric(A, mod, 3); err != nil {
				t.Fatal(err)
			}
			if mod == nil {
				mod = b.ElementModulus()
			}
			scatterAssemble(b, ref, mod)
			for i, v := range A.Val {
				if v != ref.Val[i] {
					t.Fatalf("ne=%d: value %d = %v, scatter assembly %v", ne, i, v, ref.Val[i])
				}
			}
		}
	}
}

// TestNumericDeterministic: bitwise identical values for any worker count, every value
// written (NaN poison), and the matrix exactly symmetric.
func TestNumericDeterministic(t *testing.T) {
	b := mustBox(t, Ex56(12))
	a := mustSymbolic(t, b, 0)
	mod := randomModulus(b.Elements(), 7)
	var first *bsr.Matrix
	for _, w := range []int{1, 2, 3, 5} {
		A := a.NewMatrix()
		poison(A.Val)
		if err := a.Numeric(A, mod, w); err != nil {
			t.Fatal(err)
		}
		if err := A.Validate(); err != nil {
			t.Fatalf("workers=%d: %v", w, err)
		}
		if first == nil {
			first = A
			continue
		}
		for i, v := range A.Val {
			if math.Float64bits(v) != math.Float64bits(first.Val[i]) {
				t.Fatalf("workers=%d: value %d = %v, with 1 worker %v", w, i, v, first.Val[i])
			}
		}
	}
	A := first
	for i := 0; i < A.BlockRows; i++ {
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			kt, _ := A.Find(int(A.ColIdx[k]), i)
			x, y := A.Block(k), A.Block(kt)
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					if x[3*r+c] != y[3*c+r] {
						t.Fatalf("A not symmetric at block (%d,%d) entry (%d,%d)", i, A.ColIdx[k], r, c)
					}
				}
			}
		}
	}
}

func TestNumericReuseAndErrors(t *testing.T) {
	b := mustBox(t, Ex56(3))
	a := mustSymbolic(t, b, 1)
	if err := a.Numeric(a.Matrix, nil, 1); err != nil {
		t.Fatal(err)
	}
	before := append([]float64(nil), a.Matrix.Val...)
	// Doubling every modulus doubles every value exactly.
	mod := b.ElementModulus()
	for i := range mod {
		mod[i] *= 2
	}
	if err := a.Numeric(a.Matrix, mod, 2); err != nil {
		t.Fatal(err)
	}
	for i, v := range a.Matrix.Val {
		if v != 2*before[i] {
			t.Fatalf("value %d = %v after doubling the moduli, want %v", i, v, 2*before[i])
		}
	}
	snapshot := append([]float64(nil), a.Matrix.Val...)
	for _, bad := range [][]float64{mod[:len(mod)-1], append(append([]float64(nil), mod[:5]...), append([]float64{math.NaN()}, mod[6:]...)...), append([]float64{-1}, mod[1:]...)} {
		if err := a.Numeric(a.Matrix, bad, 1); err == nil {
			t.Errorf("modulus of length %d with %v accepted", len(bad), bad[:6])
		}
	}
	for i, v := range a.Matrix.Val {
		if v != snapshot[i] {
			t.Fatalf("rejected modulus changed value %d", i)
		}
	}
	allocs := testing.AllocsPerRun(5, func() {
		if err := a.Numeric(a.Matrix, mod, 1); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("Numeric allocates %v times per call, want ≤ 1 (the worker closure)", allocs)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Numeric accepted a matrix of another pattern")
			}
		}()
		other := mustSymbolic(t, mustBox(t, Ex56(2)), 1)
		_ = a.Numeric(other.Matrix, nil, 1)
	}()
}

func TestNewBoxRejects(t *testing.T) {
	for _, p := range []Problem{
		{Ne: 0, E: 1, Nu: 0.25, Alpha: 1},
		{Ne: MaxNe + 1, E: 1, Nu: 0.25, Alpha: 1},
		{Ne: 2, E: 0, Nu: 0.25, Alpha: 1},
		{Ne: 2, E: math.Inf(1), Nu: 0.25, Alpha: 1},
		{Ne: 2, E: 1, Nu: 0.5, Alpha: 1},
		{Ne: 2, E: 1, Nu: math.NaN(), Alpha: 1},
		{Ne: 2, E: 1, Nu: 0.25, Alpha: 0},
	} {
		if _, err := NewBox(p); err == nil {
			t.Errorf("NewBox(%+v) accepted", p)
		}
	}
}

// TestSoftSphere checks the material against the definition: elements whose centre is
// within 0.25 of the cube's centre are soft.
func TestSoftSphere(t *testing.T) {
	b := mustBox(t, Ex56(8))
	m := b.ElementModulus()
	soft := 0
	for e, v := range m {
		i, j, k := e%8, (e/8)%8, e/64
		c := func(t int) float64 { return (float64(t)+0.5)/8 - 0.5 }
		r := math.Sqrt(c(i)*c(i) + c(j)*c(j) + c(k)*c(k))
		want := 1.0
		if r < 0.25 {
			want = 1e-3
			soft++
		}
		if v != want {
			t.Fatalf("element %d (%d,%d,%d), centre at distance %v: modulus %v, want %v", e, i, j, k, r, v, want)
		}
	}
	// Centres sit at odd multiples of 1/16 from the middle: (1,1,1)/16 (8 elements) and
	// permutations of (1,1,3)/16 (24) are inside, (1,3,3)/16 at √19/16 > 1/4 is not.
	if soft != 32 {
		t.Errorf("%d soft elements, want 32", soft)
	}
}
