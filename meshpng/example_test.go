package meshpng_test

import (
	"bytes"
	"fmt"
	"image/png"
	"log"

	"github.com/blockamg/blockamg/mesh"
	"github.com/blockamg/blockamg/meshpng"
)

// Draw a mesh bent by a displacement field; Write says how it magnified it.
func ExampleWrite() {
	m, _, err := mesh.ReadFile("../mesh/testdata/cube_tet4.msh")
	if err != nil {
		log.Fatal(err)
	}
	u := make([]float64, 3*m.Nodes())
	for i := range m.Nodes() {
		x := m.Coords[3*i]
		u[3*i+2] = -0.01 * x * x // bends down along x, at most 0.01
	}
	var buf bytes.Buffer // or meshpng.WriteFile("part.png", …)
	info, err := meshpng.Write(&buf, m, u, meshpng.Options{Width: 600, Height: 450})
	if err != nil {
		log.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%v PNG; |u| up to %.3g drawn ×%.3g\n", img.Bounds().Size(), info.MaxDisplacement, info.Scale)
	// Output: (600,450) PNG; |u| up to 0.01 drawn ×17.3
}
