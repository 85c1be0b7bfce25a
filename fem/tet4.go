package fem

import "github.com/blockamg/blockamg/mesh"

// tet4 is the linear tetrahedron on {ξ, η, ζ ≥ 0, ξ+η+ζ ≤ 1}, nodes at the corners
// (0,0,0), (1,0,0), (0,1,0), (0,0,1) (Gmsh's order). Its gradients are constant, so
// one point integrates the stiffness of a straight element exactly; the load rule is
// exact for linear body forces.
var tet4 = RefElement{
	Type: mesh.Tet4,
	Shape: func(x [3]float64, n []float64, dn [][3]float64) {
		n[0] = 1 - x[0] - x[1] - x[2]
		n[1], n[2], n[3] = x[0], x[1], x[2]
		dn[0] = [3]float64{-1, -1, -1}
		dn[1] = [3]float64{1, 0, 0}
		dn[2] = [3]float64{0, 1, 0}
		dn[3] = [3]float64{0, 0, 1}
	},
	Stiffness: tetCentroid(),
	Load:      tetDegree2(),
}
