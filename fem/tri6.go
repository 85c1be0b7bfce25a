package fem

import "github.com/blockamg/blockamg/mesh"

// tri6Edges are the corner pairs of the tri6's edge nodes 3, 4, 5 (Gmsh: 0-1, 1-2, 2-0).
var tri6Edges = [3][2]int{{0, 1}, {1, 2}, {2, 0}}

// tri6 is the quadratic triangle, the face of a tet10: corners as tri3's, then the
// midpoints of tri6Edges; N_i = L_i(2L_i − 1) at corners, 4·L_i·L_j on edges. Its
// load rule (nine points, degree 4) integrates ∫ N_a t dS exactly on a flat face for
// t up to quadratic.
var tri6 = RefElement{
	Type: mesh.Tri6,
	Shape: func(x [3]float64, n []float64, dn [][3]float64) {
		l := [3]float64{1 - x[0] - x[1], x[0], x[1]}
		dl := [3][2]float64{{-1, -1}, {1, 0}, {0, 1}}
		for i := 0; i < 3; i++ {
			n[i] = l[i] * (2*l[i] - 1)
			dn[i] = [3]float64{(4*l[i] - 1) * dl[i][0], (4*l[i] - 1) * dl[i][1], 0}
		}
		for e, ij := range tri6Edges {
			i, j := ij[0], ij[1]
			n[3+e] = 4 * l[i] * l[j]
			dn[3+e] = [3]float64{4 * (l[j]*dl[i][0] + l[i]*dl[j][0]), 4 * (l[j]*dl[i][1] + l[i]*dl[j][1]), 0}
		}
	},
	Load: triCollapsed(3),
}
