package mesh_test

import (
	"fmt"
	"log"

	"github.com/blockamg/blockamg/mesh"
)

// Read a Gmsh file, list its physical groups and its elements' quality, and order its
// nodes for a banded matrix.
func ExampleReadFile() {
	m, warnings, err := mesh.ReadFile("testdata/cube_tet4.msh")
	if err != nil {
		log.Fatal(err) // a *mesh.ParseError: file, line or byte, what was expected
	}
	for _, w := range warnings {
		fmt.Println("warning:", w) // nodes no element uses, dropped
	}
	s := m.Summary()
	fmt.Println(s.Nodes, "nodes")
	for _, g := range s.Groups {
		fmt.Printf("group %q (dimension %d): %d elements\n", g.Name, g.Dim, g.Elements)
	}
	for _, q := range s.Quality {
		fmt.Printf("%v: scaled Jacobian %.3f … %.3f, %d inverted\n", q.Type, q.Min, q.Max, q.Inverted)
	}
	m = m.Renumber(mesh.RCM(m))
	fmt.Println(m.Nodes(), "nodes after reverse Cuthill–McKee")
	// Output:
	// 81 nodes
	// group "solid" (dimension 3): 184 elements
	// group "fixed" (dimension 2): 26 elements
	// group "load" (dimension 2): 26 elements
	// tet4: scaled Jacobian 0.210 … 1.000, 0 inverted
	// 81 nodes after reverse Cuthill–McKee
}
