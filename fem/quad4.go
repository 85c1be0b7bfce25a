package fem

import "github.com/blockamg/blockamg/mesh"

// quad4Corner are the quad4's nodes on [−1, 1]², counter-clockwise from (−1,−1) (Gmsh).
var quad4Corner = [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}

// quad4 is the bilinear quadrilateral, the face of a hex8. On a flat face the area
// element is bilinear, so ∫ N_a t dS with t constant is a polynomial of degree 2 in
// each variable: its 2×2 Gauss rule integrates it exactly.
var quad4 = RefElement{
	Type: mesh.Quad4,
	Shape: func(x [3]float64, n []float64, dn [][3]float64) {
		for a, c := range quad4Corner {
			fx, fy := 1+c[0]*x[0], 1+c[1]*x[1]
			n[a] = fx * fy / 4
			dn[a] = [3]float64{c[0] * fy / 4, fx * c[1] / 4, 0}
		}
	},
	Load: gaussSquare(2),
}
