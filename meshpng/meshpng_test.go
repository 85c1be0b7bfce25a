package meshpng

import (
	"bytes"
	"errors"
	"image/png"
	"math"
	"testing"

	"github.com/blockamg/blockamg/mesh"
)

// box returns the unit cube cut into ne³ hexahedra, or each of them into six
// tetrahedra around the main diagonal.
func box(ne int, tets bool) *mesh.Mesh {
	nn := ne + 1
	m := &mesh.Mesh{}
	for k := 0; k < nn; k++ {
		for j := 0; j < nn; j++ {
			for i := 0; i < nn; i++ {
				m.Coords = append(m.Coords, float64(i)/float64(ne), float64(j)/float64(ne), float64(k)/float64(ne))
			}
		}
	}
	id := func(i, j, k int) int32 { return int32(i + nn*(j+nn*k)) }
	el := mesh.Elements{Type: mesh.Hex8}
	if tets {
		el.Type = mesh.Tet4
	}
	for k := 0; k < ne; k++ {
		for j := 0; j < ne; j++ {
			for i := 0; i < ne; i++ {
				h := [8]int32{id(i, j, k), id(i+1, j, k), id(i+1, j+1, k), id(i, j+1, k),
					id(i, j, k+1), id(i+1, j, k+1), id(i+1, j+1, k+1), id(i, j+1, k+1)}
				if !tets {
					el.Nodes = append(el.Nodes, h[:]...)
					el.Group = append(el.Group, 1)
					continue
				}
				for _, t := range [6][4]int{{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6}, {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}} {
					el.Nodes = append(el.Nodes, h[t[0]], h[t[1]], h[t[2]], h[t[3]])
					el.Group = append(el.Group, 1)
				}
			}
		}
	}
	m.Volumes = []mesh.Elements{el}
	return m
}

// TestBoundary: the boundary of a cube of ne³ hexahedra is 6·ne² quadrilaterals, of
// its tetrahedra 12·ne² triangles, every one lying in a face of the cube.
func TestBoundary(t *testing.T) {
	for _, tets := range []bool{false, true} {
		m := box(3, tets)
		f := Boundary(m)
		want := 6 * 9
		if tets {
			want *= 2
		}
		if len(f) != want {
			t.Errorf("tets=%v: %d boundary faces, want %d", tets, len(f), want)
		}
		for _, c := range f {
			on := false
			for d := 0; d < 3 && !on; d++ {
				for _, v := range []float64{0, 1} {
					all := true
					for _, n := range c {
						all = all && m.Coords[3*n+int32(d)] == v
					}
					on = on || all
				}
			}
			if !on {
				t.Errorf("tets=%v: face %v is not on the cube's surface", tets, c)
			}
		}
	}
}

// TestWrite: the picture decodes as a PNG of the asked size with coloured pixels;
// a displacement of the wrong length is ErrInput.
func TestWrite(t *testing.T) {
	m := box(2, true)
	u := make([]float64, 3*m.Nodes())
	for i := 0; i < m.Nodes(); i++ {
		u[3*i+2] = -m.Coords[3*i] // bends down along x
	}
	var buf bytes.Buffer
	info, err := Write(&buf, m, u, Options{Width: 200, Height: 150})
	if err != nil {
		t.Fatal(err)
	}
	// |u| peaks at 1 (x = 1), and the box's diagonal is √3: drawn as a tenth of it.
	if info.MaxDisplacement != 1 || math.Abs(info.Scale-0.1*math.Sqrt(3)) > 1e-15 {
		t.Errorf("info %+v, want MaxDisplacement 1, Scale %g", info, 0.1*math.Sqrt(3))
	}
	img, err := png.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 200 || b.Dy() != 150 {
		t.Fatalf("size %v", b)
	}
	painted := 0
	for y := 0; y < 150; y++ {
		for x := 0; x < 200; x++ {
			if r, g, b, _ := img.At(x, y).RGBA(); r != 0xffff || g != 0xffff || b != 0xffff {
				painted++
			}
		}
	}
	if painted < 200*150/10 {
		t.Errorf("%d painted pixels of %d", painted, 200*150)
	}
	if _, err := Write(&buf, m, u[:5], Options{}); !errors.Is(err, ErrInput) {
		t.Errorf("short displacement: %v", err)
	}
}

// TestLegend: the band along the bottom holds the colour bar, blue (0) to red (the
// largest |u|), and its text; the mesh stays above the band.
func TestLegend(t *testing.T) {
	m := box(2, false)
	u := make([]float64, 3*m.Nodes())
	for i := 0; i < m.Nodes(); i++ {
		u[3*i] = m.Coords[3*i+2]
	}
	var buf bytes.Buffer
	const W, H = 600, 400
	if _, err := Write(&buf, m, u, Options{Width: W, Height: H}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	top := H - legendHeight
	y := top + legendHeight/2
	rgb := func(x, y int) [3]uint8 {
		r, g, b, _ := img.At(x, y).RGBA()
		return [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
	}
	for _, c := range []struct {
		x int
		t float64
	}{{10, 0}, {209, 1}} {
		r, g, b := colormap(c.t)
		if want := [3]uint8{uint8(255 * r), uint8(255 * g), uint8(255 * b)}; rgb(c.x, y) != want {
			t.Errorf("colour bar at x = %d: %v, want %v (t = %g)", c.x, rgb(c.x, y), want, c.t)
		}
	}
	black := 0
	for yy := top; yy < H; yy++ {
		for x := 218; x < W; x++ {
			if rgb(x, yy) == [3]uint8{0, 0, 0} {
				black++
			}
		}
	}
	if black < 100 {
		t.Errorf("%d black pixels of text in the legend", black)
	}
	// The mesh's lowest painted row is above the band.
	for yy := top; yy < H; yy++ {
		for x := 0; x < W; x++ {
			if c := rgb(x, yy); c != [3]uint8{255, 255, 255} && c != [3]uint8{0, 0, 0} && (x < 10 || x > 209 || yy < top+(legendHeight-12)/2 || yy >= top+(legendHeight-12)/2+12) {
				t.Fatalf("pixel (%d, %d) %v in the legend's band is neither the bar, its text nor white", x, yy, c)
			}
		}
	}
}
