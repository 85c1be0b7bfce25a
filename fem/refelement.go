package fem

import "github.com/blockamg/blockamg/mesh"

// RefElement is a Lagrange element on its reference cell, as unstructured assembly
// uses it: shape functions in Gmsh's node order, their gradients, and the quadrature
// rules of the stiffness and of the loads. Volume elements have three reference
// coordinates (ξ, η, ζ), surface elements two (ξ, η; the third is ignored).
//
// Elements are registered by mesh.Type in one table (refElements): a new type is one
// file defining its RefElement and one line there.
type RefElement struct {
	Type mesh.Type // the mesh's element type it serves
	// Shape writes the shape functions N_a(ξ) into n[a] and their reference gradients
	// ∂N_a/∂ξ_k into dn[a][k], for a < Type.Nodes() (k < 2 on a surface, dn[a][2]
	// then 0). It is safe for concurrent use.
	Shape func(xi [3]float64, n []float64, dn [][3]float64)
	// Stiffness integrates the stiffness matrix (volume elements; none on a surface).
	Stiffness Rule
	// Load integrates ∫ N_a f: body forces over a volume, tractions over a surface.
	Load Rule
}

// refElements is the element registry.
var refElements = map[mesh.Type]*RefElement{
	mesh.Tet4:  &tet4,
	mesh.Tet10: &tet10,
	mesh.Hex8:  &hex8,
	mesh.Tri3:  &tri3,
	mesh.Tri6:  &tri6,
	mesh.Quad4: &quad4,
}

// maxNodes is the most nodes of a registered element: the size of the numeric phase's
// per-worker scratch, kept on the stack.
const maxNodes = 10

// ReferenceElement returns the registered element of type t, or nil for a type with
// none. The result is shared: read it, do not change it.
func ReferenceElement(t mesh.Type) *RefElement { return refElements[t] }

// Tabulate returns the shape functions and reference gradients at the points of rule
// r: n[q·Nodes + a] = N_a(ξ_q), dn[(q·Nodes + a)·3 + k] = ∂N_a/∂ξ_k(ξ_q).
func (e *RefElement) Tabulate(r Rule) (n, dn []float64) {
	nn := e.Type.Nodes()
	n = make([]float64, r.Len()*nn)
	dn = make([]float64, r.Len()*nn*3)
	g := make([][3]float64, nn)
	for q, x := range r.Points {
		e.Shape(x, n[q*nn:(q+1)*nn], g)
		for a := range g {
			copy(dn[(q*nn+a)*3:], g[a][:])
		}
	}
	return n, dn
}
