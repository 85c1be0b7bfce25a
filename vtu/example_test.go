package vtu_test

import (
	"bufio"
	"bytes"
	"fmt"
	"log"

	"github.com/blockamg/blockamg/mesh"
	"github.com/blockamg/blockamg/vtu"
)

// Write a displacement per node and a value per element for ParaView.
func ExampleWrite() {
	m, _, err := mesh.ReadFile("../mesh/testdata/cube_tet4.msh")
	if err != nil {
		log.Fatal(err)
	}
	u := make([]float64, 3*m.Nodes()) // x, y, z per node
	for i := range m.Nodes() {
		u[3*i+2] = -0.1 * m.Coords[3*i] // sags along x
	}
	group := make([]float64, 0, 184)
	for _, v := range m.Volumes {
		for _, g := range v.Group {
			group = append(group, float64(g))
		}
	}
	var buf bytes.Buffer
	err = vtu.Write(&buf, m,
		[]vtu.Field{{Name: "displacement", Components: 3, Values: u}},
		[]vtu.Field{{Name: "group", Components: 1, Values: group}})
	if err != nil {
		log.Fatal(err)
	}
	sc := bufio.NewScanner(&buf)
	for i := 0; i < 4 && sc.Scan(); i++ {
		fmt.Println(sc.Text())
	}
	// Output:
	// <?xml version="1.0"?>
	// <VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">
	// <UnstructuredGrid>
	// <Piece NumberOfPoints="81" NumberOfCells="184">
}
