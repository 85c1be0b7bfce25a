package fem

import "github.com/blockamg/blockamg/mesh"

// hex8Corner are the reference coordinates of the hex8's nodes on [−1, 1]³, in
// Gmsh's order: the face ζ = −1 counter-clockwise from (−1,−1), then the face ζ = 1.
var hex8Corner = [8][3]float64{
	{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
	{-1, -1, 1}, {1, -1, 1}, {1, 1, 1}, {-1, 1, 1},
}

// hex8 is the trilinear hexahedron, N_a = (1+ξ_aξ)(1+η_aη)(1+ζ_aζ)/8. Its stiffness
// uses 2×2×2 Gauss points, exact on a parallelepiped and the standard full
// integration otherwise. The load uses 3×3×3 points: on a distorted element detJ has
// degree 2 in each variable, so N_a·f·detJ with f linear has degree 4, beyond what
// 2×2×2 points integrate.
var hex8 = RefElement{
	Type: mesh.Hex8,
	Shape: func(x [3]float64, n []float64, dn [][3]float64) {
		for a, c := range hex8Corner {
			fx, fy, fz := 1+c[0]*x[0], 1+c[1]*x[1], 1+c[2]*x[2]
			n[a] = fx * fy * fz / 8
			dn[a] = [3]float64{c[0] * fy * fz / 8, fx * c[1] * fz / 8, fx * fy * c[2] / 8}
		}
	},
	Stiffness: gaussCube(2),
	Load:      gaussCube(3),
}
