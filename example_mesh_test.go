package blockamg_test

import (
	"fmt"
	"log"

	"github.com/blockamg/blockamg"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
)

// Linear elasticity on a Gmsh mesh: clamp one surface group, pull on another, one
// material, then solve with the rigid-body modes of the nodes as the near-null space.
func ExampleNewSolver_mesh() {
	m, _, err := mesh.ReadFile("mesh/testdata/cube_tet4.msh") // warnings: nodes no element uses
	if err != nil {
		log.Fatal(err)
	}
	m = m.Renumber(mesh.RCM(m)) // a banded order for the kernels' caches
	fixed := make([]uint8, m.Nodes())
	if err := fem.FixGroup(m, fixed, "fixed", 7); err != nil { // x, y and z clamped
		log.Fatal(err)
	}
	el, err := fem.NewElasticity(m, fem.ElasticityOptions{Fixed: fixed})
	if err != nil {
		log.Fatal(err)
	}
	E, nu, err := el.Materials(fem.Material{E: 210e3, Nu: 0.3}) // every volume group
	if err != nil {
		log.Fatal(err)
	}
	A := el.NewMatrix()
	if err := el.Numeric(A, E, nu, 0); err != nil {
		log.Fatal(err)
	}
	b := make([]float64, 3*m.Nodes())
	load := fem.Loads{Traction: []fem.Traction{{Group: "load", Force: fem.Uniform([3]float64{0, 0, -1})}}}
	if err := el.RHS(b, A, load); err != nil {
		log.Fatal(err)
	}
	modes, err := blockamg.RigidBodyModes(m.Coords, 3)
	if err != nil {
		log.Fatal(err)
	}
	s, err := blockamg.NewSolver(A, modes, blockamg.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	x := make([]float64, len(b))
	res, err := s.Solve(b, x)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d nodes, %d elements: converged in %d iterations\n", m.Nodes(), el.Elements(), res.Iterations)
	// Output: 81 nodes, 184 elements: converged in 9 iterations
}
