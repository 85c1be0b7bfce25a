package fem

import (
	"fmt"
	"math"
)

// Local node numbering of the Q1 hexahedron, as ex56 passes its element's nodes to
// MatSetValuesBlocked: the bottom face (local z = 0) counter-clockwise from the origin,
// then the top face in the same order. Offsets are in grid steps along (x, y, z).
var localNode = [8][3]int{
	{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
	{0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1},
}

// localIndex is the inverse of localNode: localIndex[x][y][z] is the local node at
// offset (x, y, z).
var localIndex = func() (t [2][2][2]int) {
	for a, o := range localNode {
		t[o[0]][o[1]][o[2]] = a
	}
	return t
}()

// ReferenceStiffness returns the 24×24 stiffness matrix (row-major) of the trilinear
// (Q1) hexahedron occupying the unit cube, for Young's modulus 1 and Poisson ratio nu.
// Unknowns are interleaved by local node (row 3a+c is component c of local node a, in
// the order of the package documentation).
//
// The element is the one whose values ex56 lists as a table: selective reduced
// integration. The deviatoric part 2μ·dev ε(u):dev ε(v) is integrated exactly by 2×2×2
// Gauss points, the volumetric part κ·div u·div v by the single centre point, which is
// what keeps the element free of volumetric locking. With μ = 1/(2(1+ν)) and
// κ = 1/(3(1−2ν)), ν = 0.25 reproduces ex56's table to round-off.
//
// The matrix of a cube of side h is h times this one (stiffness scales as E·h in 3D);
// ex56 uses the unit-cube matrix for every mesh size, and so does this package, so
// that its matrices equal the ones ex56 writes.
func ReferenceStiffness(nu float64) ([]float64, error) {
	if !(nu > -1 && nu < 0.5) {
		return nil, fmt.Errorf("fem: Poisson ratio %v outside (-1, 0.5)", nu)
	}
	mu := 1 / (2 * (1 + nu))
	kappa := 1 / (3 * (1 - 2*nu))
	k := make([]float64, 24*24)

	// Deviatoric part: 2×2×2 Gauss on [0,1]³, each point of weight 1/8. Its integrand
	// is the isotropic form with λ replaced by −2μ/3:
	//   μ(δ_ij ∇N_a·∇N_b + ∂_j N_a ∂_i N_b) − (2μ/3) ∂_i N_a ∂_j N_b.
	g := 0.5 / math.Sqrt(3)
	pts := [2]float64{0.5 - g, 0.5 + g}
	var grads [8][3]float64
	for _, px := range pts {
		for _, py := range pts {
			for _, pz := range pts {
				shapeGrads([3]float64{px, py, pz}, &grads)
				addForm(k, &grads, 0.125, mu, -2*mu/3)
			}
		}
	}
	// Volumetric part: one point at the centre, weight 1: κ ∂_i N_a ∂_j N_b.
	shapeGrads([3]float64{0.5, 0.5, 0.5}, &grads)
	addForm(k, &grads, 1, 0, kappa)
	// Mirror the upper triangle: the sums above round differently on either side of
	// the diagonal, and an exactly symmetric element makes the assembled matrix
	// bitwise symmetric.
	for i := 0; i < 24; i++ {
		for j := i + 1; j < 24; j++ {
			k[j*24+i] = k[i*24+j]
		}
	}
	return k, nil
}

// shapeGrads writes the gradients of the eight trilinear shape functions of the unit
// cube at point x.
func shapeGrads(x [3]float64, g *[8][3]float64) {
	for a, o := range localNode {
		// 1D factors and their derivatives: φ = x (node at 1) or 1−x (node at 0).
		var f, df [3]float64
		for d := 0; d < 3; d++ {
			if o[d] == 1 {
				f[d], df[d] = x[d], 1
			} else {
				f[d], df[d] = 1-x[d], -1
			}
		}
		g[a][0] = df[0] * f[1] * f[2]
		g[a][1] = f[0] * df[1] * f[2]
		g[a][2] = f[0] * f[1] * df[2]
	}
}

// addForm adds w·[μ(δ_ij ∇N_a·∇N_b + ∂_j N_a ∂_i N_b) + λ ∂_i N_a ∂_j N_b] to k for all
// local nodes a, b and components i, j.
func addForm(k []float64, g *[8][3]float64, w, mu, lambda float64) {
	for a := 0; a < 8; a++ {
		for b := 0; b < 8; b++ {
			dot := g[a][0]*g[b][0] + g[a][1]*g[b][1] + g[a][2]*g[b][2]
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					v := mu*g[a][j]*g[b][i] + lambda*g[a][i]*g[b][j]
					if i == j {
						v += mu * dot
					}
					k[(3*a+i)*24+3*b+j] += w * v
				}
			}
		}
	}
}
