package fem_test

import (
	"math"
	"testing"

	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
)

// refNodes are the reference coordinates of each type's nodes in Gmsh's order, written
// out from the Gmsh manual's figures ("Node ordering"), independently of the package.
var refNodes = map[mesh.Type][][3]float64{
	mesh.Tet4: {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
	mesh.Tet10: {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1},
		{0.5, 0, 0}, {0.5, 0.5, 0}, {0, 0.5, 0}, {0, 0, 0.5}, {0, 0.5, 0.5}, {0.5, 0, 0.5}},
	mesh.Hex8: {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
		{-1, -1, 1}, {1, -1, 1}, {1, 1, 1}, {-1, 1, 1}},
	mesh.Tri3:  {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
	mesh.Tri6:  {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.5, 0, 0}, {0.5, 0.5, 0}, {0, 0.5, 0}},
	mesh.Quad4: {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}},
}

// TestShapeFunctions checks each registered element's shape functions: N_a(ξ_b) = δ_ab
// at the nodes of the Gmsh figures, ΣN = 1, and the gradients against central
// differences at an interior point.
func TestShapeFunctions(t *testing.T) {
	for typ, nodes := range refNodes {
		ref := fem.ReferenceElement(typ)
		if ref == nil || ref.Type != typ {
			t.Fatalf("%v: not registered", typ)
		}
		n := typ.Nodes()
		N := make([]float64, n)
		dN := make([][3]float64, n)
		for b, x := range nodes {
			ref.Shape(x, N, dN)
			for a := range N {
				want := 0.0
				if a == b {
					want = 1
				}
				if math.Abs(N[a]-want) > 1e-15 {
					t.Errorf("%v: N_%d at node %d = %v", typ, a, b, N[a])
				}
			}
		}
		x := [3]float64{0.21, 0.17, 0.13}
		ref.Shape(x, N, dN)
		sum := 0.0
		for _, v := range N {
			sum += v
		}
		if math.Abs(sum-1) > 1e-15 {
			t.Errorf("%v: ΣN = %v", typ, sum)
		}
		const h = 1e-6
		Np, Nm := make([]float64, n), make([]float64, n)
		scratch := make([][3]float64, n)
		for k := 0; k < typ.Dim(); k++ {
			xp, xm := x, x
			xp[k] += h
			xm[k] -= h
			ref.Shape(xp, Np, scratch)
			ref.Shape(xm, Nm, scratch)
			for a := 0; a < n; a++ {
				if fd := (Np[a] - Nm[a]) / (2 * h); math.Abs(fd-dN[a][k]) > 1e-8 {
					t.Errorf("%v: ∂N_%d/∂ξ_%d = %v, differences give %v", typ, a, k, dN[a][k], fd)
				}
			}
		}
	}
	if fem.ReferenceElement(mesh.Type(99)) != nil {
		t.Error("an unknown type has an element")
	}
}

func factorial(n int) float64 {
	f := 1.0
	for i := 2; i <= n; i++ {
		f *= float64(i)
	}
	return f
}

// exactMonomial is ∫ ξ^p η^q ζ^r over the reference cell of typ.
func exactMonomial(typ mesh.Type, p, q, r int) float64 {
	line := func(k int) float64 { // ∫_{−1}^{1} x^k
		if k%2 == 1 {
			return 0
		}
		return 2 / float64(k+1)
	}
	switch typ {
	case mesh.Tet4, mesh.Tet10:
		return factorial(p) * factorial(q) * factorial(r) / factorial(p+q+r+3)
	case mesh.Tri3, mesh.Tri6:
		if r > 0 {
			return 0
		}
		return factorial(p) * factorial(q) / factorial(p+q+2)
	case mesh.Hex8:
		return line(p) * line(q) * line(r)
	case mesh.Quad4:
		if r > 0 {
			return 0
		}
		return line(p) * line(q)
	}
	panic("type")
}

// TestQuadrature checks every rule against the exact integrals of the monomials it
// claims to integrate: simplex rules up to a total degree, tensor rules up to a degree
// per variable.
func TestQuadrature(t *testing.T) {
	for _, c := range []struct {
		typ    mesh.Type
		load   bool
		degree int
		tensor bool
	}{
		{mesh.Tet4, false, 1, false}, {mesh.Tet4, true, 2, false},
		{mesh.Tet10, false, 2, false}, {mesh.Tet10, true, 3, false},
		{mesh.Hex8, false, 3, true}, {mesh.Hex8, true, 5, true},
		{mesh.Tri3, true, 2, false}, {mesh.Tri6, true, 4, false}, {mesh.Quad4, true, 3, true},
	} {
		ref := fem.ReferenceElement(c.typ)
		r := ref.Stiffness
		if c.load {
			r = ref.Load
		}
		if len(r.Points) != len(r.Weights) || r.Len() == 0 {
			t.Fatalf("%v: rule with %d points, %d weights", c.typ, len(r.Points), len(r.Weights))
		}
		maxR := c.degree
		if c.typ.Dim() == 2 {
			maxR = 0
		}
		for p := 0; p <= c.degree; p++ {
			for q := 0; q <= c.degree; q++ {
				for s := 0; s <= maxR; s++ {
					if !c.tensor && p+q+s > c.degree {
						continue
					}
					got := 0.0
					for i, x := range r.Points {
						got += r.Weights[i] * math.Pow(x[0], float64(p)) * math.Pow(x[1], float64(q)) * math.Pow(x[2], float64(s))
					}
					if want := exactMonomial(c.typ, p, q, s); math.Abs(got-want) > 2e-15*max(1, math.Abs(want)) {
						t.Errorf("%v (load %v): ∫ξ^%d η^%d ζ^%d = %v, want %v", c.typ, c.load, p, q, s, got, want)
					}
				}
			}
		}
	}
}
