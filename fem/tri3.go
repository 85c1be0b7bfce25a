package fem

import "github.com/blockamg/blockamg/mesh"

// tri3 is the linear triangle on {ξ, η ≥ 0, ξ+η ≤ 1}, nodes (0,0), (1,0), (0,1). A
// traction integral ∫ N_a t dS over a flat face with t linear has degree 2, which its
// three-point rule integrates exactly.
var tri3 = RefElement{
	Type: mesh.Tri3,
	Shape: func(x [3]float64, n []float64, dn [][3]float64) {
		n[0] = 1 - x[0] - x[1]
		n[1], n[2] = x[0], x[1]
		dn[0] = [3]float64{-1, -1, 0}
		dn[1] = [3]float64{1, 0, 0}
		dn[2] = [3]float64{0, 1, 0}
	},
	Load: triDegree2(),
}
