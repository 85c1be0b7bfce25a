package fem

import "github.com/blockamg/blockamg/mesh"

// tet10Edges are the corner pairs of the tet10's edge nodes 4…9, in Gmsh's order
// (gmsh.info/doc/texinfo, "Node ordering": edges 0-1, 1-2, 2-0, 3-0, 3-2, 3-1).
var tet10Edges = [6][2]int{{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}}

// tet10 is the quadratic tetrahedron: tet4's corners, then the midpoints of
// tet10Edges. With barycentric coordinates L = (1−ξ−η−ζ, ξ, η, ζ), corner i has
// N_i = L_i(2L_i − 1) and the node of edge (i, j) N = 4·L_i·L_j.
//
// On a straight-sided element the Jacobian is constant and the stiffness integrand,
// a product of two linear gradients, has degree 2: the four-point rule integrates it
// exactly. A curved (isoparametric) element makes the integrand rational, which no
// rule integrates exactly; the same four points are still the usual choice (they
// keep the element's optimal convergence), and a mesh from Gmsh is straight-sided
// unless it was curved on purpose. The load rule (27 points, degree 3) integrates
// N_a·f exactly for linear f and keeps the L2 error of order 3 for smooth f.
var tet10 = RefElement{
	Type: mesh.Tet10,
	Shape: func(x [3]float64, n []float64, dn [][3]float64) {
		l := [4]float64{1 - x[0] - x[1] - x[2], x[0], x[1], x[2]}
		dl := [4][3]float64{{-1, -1, -1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
		for i := 0; i < 4; i++ {
			n[i] = l[i] * (2*l[i] - 1)
			for k := 0; k < 3; k++ {
				dn[i][k] = (4*l[i] - 1) * dl[i][k]
			}
		}
		for e, ij := range tet10Edges {
			i, j := ij[0], ij[1]
			n[4+e] = 4 * l[i] * l[j]
			for k := 0; k < 3; k++ {
				dn[4+e][k] = 4 * (l[j]*dl[i][k] + l[i]*dl[j][k])
			}
		}
	},
	Stiffness: tetDegree2(),
	Load:      tetCollapsed(3),
}
