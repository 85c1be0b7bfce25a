package fem_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
)

// TestWorkersBitwise assembles the same operator, right-hand side and stresses with 1,
// 2, 3 and 7 workers: every bit must agree.
func TestWorkersBitwise(t *testing.T) {
	for _, c := range []struct {
		typ mesh.Type
		n   int
	}{{mesh.Tet4, 8}, {mesh.Tet10, 4}, {mesh.Hex8, 7}} {
		m := boxMesh(t, c.typ, c.n, c.n, c.n, 0.2, 11)
		fixed := mixedMask(t, m)
		g := fem.Prescribe(m, fixed, smoothField)
		loads := fem.Loads{
			Body:       []fem.BodyForce{{Force: smoothField}, {Group: "right", Force: linearForce}},
			Traction:   []fem.Traction{{Group: "xmax", Force: linearForce}},
			Prescribed: g,
		}
		var ref, refB, refVM []float64
		for _, w := range []int{1, 2, 3, 7} {
			el := mustElasticity(t, m, fem.ElasticityOptions{Fixed: fixed, Workers: w})
			E, nu := materials(t, el)
			A := el.NewMatrix()
			if err := el.Numeric(A, E, nu, w); err != nil {
				t.Fatal(err)
			}
			b := make([]float64, A.Rows())
			if err := el.RHS(b, A, loads); err != nil {
				t.Fatal(err)
			}
			vm, err := el.VonMises(b, E, nu)
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref, refB, refVM = A.Val, b, vm
				continue
			}
			for name, p := range map[string][2][]float64{"matrix": {ref, A.Val}, "rhs": {refB, b}, "von Mises": {refVM, vm}} {
				for i := range p[0] {
					if math.Float64bits(p[0][i]) != math.Float64bits(p[1][i]) {
						t.Fatalf("%v, %d workers: %s entry %d = %v, 1 worker %v", c.typ, w, name, i, p[1][i], p[0][i])
					}
				}
			}
		}
	}
}

// checkExactlySymmetric compares every block with its transposed partner bit for bit.
func checkExactlySymmetric(t *testing.T, A *bsr.Matrix) {
	t.Helper()
	for i := 0; i < A.BlockRows; i++ {
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			j := int(A.ColIdx[k])
			kt, ok := A.Find(j, i)
			if !ok {
				t.Fatalf("block (%d,%d) stored, (%d,%d) not", i, j, j, i)
			}
			a, b := A.Block(k), A.Block(kt)
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					if math.Float64bits(a[3*r+c]) != math.Float64bits(b[3*c+r]) {
						t.Fatalf("A[(%d,%d)][%d][%d] = %v, transposed partner %v", i, j, r, c, a[3*r+c], b[3*c+r])
					}
				}
			}
		}
	}
}

// TestSymmetryAndRigidModes: the operator is bitwise symmetric with and without
// Dirichlet conditions, and without them A annihilates the six rigid-body modes.
func TestSymmetryAndRigidModes(t *testing.T) {
	for _, typ := range []mesh.Type{mesh.Tet4, mesh.Tet10, mesh.Hex8} {
		m := boxMesh(t, typ, 3, 3, 2, 0.25, 5)
		for _, fixed := range [][]uint8{nil, mixedMask(t, m)} {
			el := mustElasticity(t, m, fem.ElasticityOptions{Fixed: fixed})
			E, nu := materials(t, el)
			A := el.NewMatrix()
			if err := el.Numeric(A, E, nu, 3); err != nil {
				t.Fatal(err)
			}
			checkExactlySymmetric(t, A)
			if fixed != nil {
				continue
			}
			B, _, err := fem.RigidBodyModes(m.Coords, 3, false)
			if err != nil {
				t.Fatal(err)
			}
			n := A.Rows()
			norm := 0.0 // ‖A‖∞
			for i := 0; i < A.BlockRows; i++ {
				var rs [3]float64
				for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
					for r, v := range A.Block(k) {
						rs[r/3] += math.Abs(v)
					}
				}
				norm = max(norm, rs[0], rs[1], rs[2])
			}
			x, y := make([]float64, n), make([]float64, n)
			for mode := 0; mode < 6; mode++ {
				for i := range x {
					x[i] = B[i*6+mode]
				}
				A.MulVec(1, x, 0, y)
				if r := maxAbs(y) / (norm * maxAbs(x)); r > 1e-14 {
					t.Errorf("%v: ‖A·mode %d‖∞ = %.3g of ‖A‖‖mode‖", typ, mode, r)
				}
			}
		}
	}
}

// TestNumericRejectsAndAllocates: bad materials leave A unchanged; Numeric allocates
// no more than the worker closure; a foreign pattern panics.
func TestNumericRejectsAndAllocates(t *testing.T) {
	m := boxMesh(t, mesh.Tet10, 2, 2, 2, 0.2, 2)
	el := mustElasticity(t, m, fem.ElasticityOptions{Fixed: boundaryMask(t, m)})
	E, nu := materials(t, el)
	A := el.NewMatrix()
	if err := el.Numeric(A, E, nu, 1); err != nil {
		t.Fatal(err)
	}
	snap := append([]float64(nil), A.Val...)
	bad := func(i int, v float64, which []float64) []float64 {
		c := append([]float64(nil), which...)
		c[i] = v
		return c
	}
	for _, c := range [][2][]float64{
		{E[1:], nu}, {E, nu[:3]},
		{bad(3, 0, E), nu}, {bad(3, math.Inf(1), E), nu}, {bad(3, math.NaN(), E), nu},
		{E, bad(4, 0.5, nu)}, {E, bad(4, -1, nu)}, {E, bad(4, math.NaN(), nu)},
	} {
		err := el.Numeric(A, c[0], c[1], 2)
		if err == nil || !errorsIs(err, fem.ErrMaterial) {
			t.Errorf("bad material: error %v", err)
		}
	}
	for i := range snap {
		if A.Val[i] != snap[i] {
			t.Fatal("a rejected material changed A")
		}
	}
	if allocs := testing.AllocsPerRun(5, func() { _ = el.Numeric(A, E, nu, 1) }); allocs > 1 {
		t.Errorf("Numeric allocates %v times per call", allocs)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Numeric accepted a matrix of another pattern")
			}
		}()
		other := mustElasticity(t, boxMesh(t, mesh.Tet10, 2, 2, 1, 0, 1), fem.ElasticityOptions{})
		_ = el.Numeric(other.NewMatrix(), E, nu, 1)
	}()
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// TestRenumberedOperator assembles on a shuffled mesh and on its RCM renumbering: the
// operators are equal up to the permutation, bit for bit (each block sums the same
// elements in the same order), the right-hand sides to round-off (the elimination's
// sums follow the column order, which the renumbering changes), and the band shrinks.
func TestRenumberedOperator(t *testing.T) {
	base := boxMesh(t, mesh.Tet10, 3, 3, 2, 0.2, 6)
	shuffle := make([]int32, base.Nodes())
	for i := range shuffle {
		shuffle[i] = int32(i)
	}
	rng := rand.New(rand.NewPCG(6, 7))
	rng.Shuffle(len(shuffle), func(i, j int) { shuffle[i], shuffle[j] = shuffle[j], shuffle[i] })
	m1 := base.Renumber(shuffle)
	perm := mesh.RCM(m1)
	m2 := m1.Renumber(perm)
	if m2.Bandwidth() >= m1.Bandwidth()/2 {
		t.Errorf("bandwidth %d after RCM, %d before", m2.Bandwidth(), m1.Bandwidth())
	}
	assemble := func(m *mesh.Mesh) (*bsr.Matrix, []float64) {
		fixed := mixedMask(t, m)
		el := mustElasticity(t, m, fem.ElasticityOptions{Fixed: fixed})
		E, nu := materials(t, el)
		A := el.NewMatrix()
		if err := el.Numeric(A, E, nu, 2); err != nil {
			t.Fatal(err)
		}
		b := make([]float64, A.Rows())
		if err := el.RHS(b, A, fem.Loads{Body: []fem.BodyForce{{Force: smoothField}},
			Traction: []fem.Traction{{Group: "ymax", Force: linearForce}}, Prescribed: fem.Prescribe(m, fixed, smoothField)}); err != nil {
			t.Fatal(err)
		}
		return A, b
	}
	A1, b1 := assemble(m1)
	A2, b2 := assemble(m2)
	if A1.NNZBlocks() != A2.NNZBlocks() {
		t.Fatalf("%d blocks before, %d after", A1.NNZBlocks(), A2.NNZBlocks())
	}
	for i := 0; i < A2.BlockRows; i++ {
		for k := A2.RowPtr[i]; k < A2.RowPtr[i+1]; k++ {
			j := int(A2.ColIdx[k])
			k1, ok := A1.Find(int(perm[i]), int(perm[j]))
			if !ok {
				t.Fatalf("block (%d,%d) has no counterpart", i, j)
			}
			for r, v := range A2.Block(k) {
				if math.Float64bits(v) != math.Float64bits(A1.Block(k1)[r]) {
					t.Fatalf("block (%d,%d)[%d] = %v, before renumbering %v", i, j, r, v, A1.Block(k1)[r])
				}
			}
		}
	}
	scale := maxAbs(b1)
	for i := 0; i < A2.BlockRows; i++ {
		for c := 0; c < 3; c++ {
			if d := math.Abs(b2[3*i+c] - b1[3*int(perm[i])+c]); d > 1e-14*scale {
				t.Fatalf("b[%d] = %v, before renumbering %v", 3*i+c, b2[3*i+c], b1[3*int(perm[i])+c])
			}
		}
	}
}
