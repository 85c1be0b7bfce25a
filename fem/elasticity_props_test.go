package fem_test

import (
	"errors"
	"math"
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
