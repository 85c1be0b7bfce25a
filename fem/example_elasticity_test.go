package fem_test

import (
	"fmt"
	"log"
	"math"

	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
)

// Assemble the elasticity operator of a Gmsh mesh, symbolic phase once and values per
// material, and check that a rigid rotation costs no energy.
func ExampleElasticity_Numeric() {
	m, _, err := mesh.ReadFile("../mesh/testdata/cube_tet4.msh")
	if err != nil {
		log.Fatal(err)
	}
	el, err := fem.NewElasticity(m, fem.ElasticityOptions{}) // pattern, element→slot map, quadrature
	if err != nil {
		log.Fatal(err)
	}
	A := el.NewMatrix()
	for _, E := range []float64{1, 2} { // e.g. design steps: new values, the same pattern
		Ev, nu, err := el.Materials(fem.Material{E: E, Nu: 0.3})
		if err != nil {
			log.Fatal(err)
		}
		if err := el.Numeric(A, Ev, nu, 0); err != nil {
			log.Fatal(err)
		}
		// u = ω × x, a rotation about z, is in the operator's null space.
		u := make([]float64, 3*m.Nodes())
		for i := 0; i < m.Nodes(); i++ {
			u[3*i], u[3*i+1] = -m.Coords[3*i+1], m.Coords[3*i]
		}
		f := make([]float64, len(u))
		A.MulVec(1, u, 0, f)
		worst := 0.0
		for _, v := range f {
			worst = max(worst, math.Abs(v))
		}
		fmt.Printf("E = %g: %d×%d blocks of 3×3, %d stored; |A·rotation| < 1e-12: %v\n",
			E, A.BlockRows, A.BlockCols, A.NNZBlocks(), worst < 1e-12)
	}
	// Output:
	// E = 1: 81×81 blocks of 3×3, 765 stored; |A·rotation| < 1e-12: true
	// E = 2: 81×81 blocks of 3×3, 765 stored; |A·rotation| < 1e-12: true
}
