// Package meshpng draws a quick-look picture of a deformed mesh: its boundary
// surface, displaced by a magnified displacement field, seen from one fixed oblique
// direction, coloured by the displacement's magnitude and shaded by the faces'
// orientation, with a legend (the magnification and the colour bar's range) along its
// bottom. It is for a glance at a result; ParaView (package vtu) is for study.
package meshpng

import (
	"cmp"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"slices"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/blockamg/blockamg/mesh"
)

// ErrInput is wrapped by the error of a displacement that does not fit the mesh.
var ErrInput = errors.New("meshpng: bad input")

// Options sizes the picture.
type Options struct {
	Width, Height int // pixels (0: 1200×900)
	// Scale multiplies the displacement (0: the largest displacement drawn as a
	// tenth of the mesh's bounding-box diagonal).
	Scale float64
}

// faces lists the corner faces of each volume type, outward for a positively
// oriented element (Gmsh's orientation); tet10 uses its corners.
var faces = map[mesh.Type][][]int{
	mesh.Tet4:  {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}},
	mesh.Tet10: {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}},
	mesh.Hex8:  {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}},
}

// Info is what a picture shows, for its caption or a log line.
type Info struct {
	Scale           float64 // the magnification of the displacement drawn (0: undeformed)
	MaxDisplacement float64 // the largest |u| of a node: the colour bar's red end (its blue end is 0)
}

// legendHeight is the band along the bottom kept for the legend, in pixels.
const legendHeight = 36

type face struct {
	key [4]int32 // sorted corners (−1 padded), for matching
	n   [4]int32 // corners in order
	k   int      // 3 or 4
}

// Boundary returns the faces of m's volume elements that belong to one element only,
// as corner lists (3 or 4 nodes, outward order).
func Boundary(m *mesh.Mesh) [][]int32 {
	var all []face
	for _, v := range m.Volumes {
		fl := faces[v.Type]
		k := v.Type.Nodes()
		for e := 0; e < v.Len(); e++ {
			el := v.Nodes[e*k : (e+1)*k]
			for _, f := range fl {
				var x face
				x.k = len(f)
				x.key = [4]int32{-1, -1, -1, -1}
				for i, l := range f {
					x.n[i], x.key[i] = el[l], el[l]
				}
				s := x.key[:x.k]
				slices.Sort(s)
				all = append(all, x)
			}
		}
	}
	slices.SortFunc(all, func(a, b face) int {
		for i := range a.key {
			if c := cmp.Compare(a.key[i], b.key[i]); c != 0 {
				return c
			}
		}
		return 0
	})
	var out [][]int32
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].key == all[i].key {
			j++
		}
		if j == i+1 {
			out = append(out, append([]int32(nil), all[i].n[:all[i].k]...))
		}
		i = j
	}
	return out
}

// Write draws m displaced by u (3 values per node; nil: undeformed) as a PNG to w,
// and returns the magnification and the colour range it drew with.
func Write(w io.Writer, m *mesh.Mesh, u []float64, opt Options) (Info, error) {
	n := m.Nodes()
	if u != nil && len(u) != 3*n {
		return Info{}, fmt.Errorf("%w: %d displacement values for %d nodes", ErrInput, len(u), n)
	}
	W, H := opt.Width, opt.Height
	if W <= 0 || H <= 0 {
		W, H = 1200, 900
	}
	lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i := 0; i < n; i++ {
		for d := 0; d < 3; d++ {
			lo[d], hi[d] = min(lo[d], m.Coords[3*i+d]), max(hi[d], m.Coords[3*i+d])
		}
	}
	diag := math.Sqrt(sq(hi[0]-lo[0]) + sq(hi[1]-lo[1]) + sq(hi[2]-lo[2]))
	mag := make([]float64, n)
	umax := 0.0
	for i := range mag {
		if u != nil {
			mag[i] = math.Sqrt(sq(u[3*i]) + sq(u[3*i+1]) + sq(u[3*i+2]))
			umax = max(umax, mag[i])
		}
	}
	scale := opt.Scale
	if scale == 0 && umax > 0 {
		scale = 0.1 * diag / umax
	}
	// View: rotate about z by −35°, then look down by 25° from the −y side: screen x
	// is the rotated x, screen up (0, sin, cos) and the depth towards the viewer
	// (0, −cos, sin) in (rotated x, rotated y, z), a right-handed frame.
	ca, sa := math.Cos(-35*math.Pi/180), math.Sin(-35*math.Pi/180)
	cb, sb := math.Cos(25*math.Pi/180), math.Sin(25*math.Pi/180)
	p := make([][3]float64, n) // screen x, screen y (up), depth (towards the viewer)
	for i := range p {
		var x [3]float64
		for d := 0; d < 3; d++ {
			x[d] = m.Coords[3*i+d] - 0.5*(lo[d]+hi[d])
			if u != nil {
				x[d] += scale * u[3*i+d]
			}
		}
		rx, ry := ca*x[0]-sa*x[1], sa*x[0]+ca*x[1]
		p[i] = [3]float64{rx, cb*x[2] + sb*ry, sb*x[2] - cb*ry}
	}
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, q := range p {
		minX, maxX, minY, maxY = min(minX, q[0]), max(maxX, q[0]), min(minY, q[1]), max(maxY, q[1])
	}
	// The mesh fills the picture above the legend's band.
	band := 0
	if u != nil && H > 3*legendHeight {
		band = legendHeight
	}
	Hm := H - band
	zoom := 0.9 * min(float64(W)/max(maxX-minX, 1e-300), float64(Hm)/max(maxY-minY, 1e-300))
	sx := func(q [3]float64) (float64, float64) {
		return float64(W)/2 + zoom*(q[0]-0.5*(minX+maxX)), float64(Hm)/2 - zoom*(q[1]-0.5*(minY+maxY))
	}
	img := image.NewRGBA(image.Rect(0, 0, W, H))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	depth := make([]float64, W*H)
	for i := range depth {
		depth[i] = math.Inf(1)
	}
	for _, f := range Boundary(m) {
		for t := 1; t+1 < len(f); t++ {
			tri := [3]int32{f[0], f[t], f[t+1]}
			var X, Y, Z, M [3]float64
			for c, v := range tri {
				X[c], Y[c] = sx(p[v])
				Z[c], M[c] = -p[v][2], mag[v]
			}
			// Shade by the screen-space normal's tilt (a light from the viewer).
			ux, uy, uz := p[tri[1]][0]-p[tri[0]][0], p[tri[1]][1]-p[tri[0]][1], p[tri[1]][2]-p[tri[0]][2]
			vx, vy, vz := p[tri[2]][0]-p[tri[0]][0], p[tri[2]][1]-p[tri[0]][1], p[tri[2]][2]-p[tri[0]][2]
			nx, ny, nz := uy*vz-uz*vy, uz*vx-ux*vz, ux*vy-uy*vx
			nl := math.Sqrt(nx*nx + ny*ny + nz*nz)
			if nl == 0 {
				continue
			}
			shade := 0.35 + 0.65*math.Abs(nz)/nl
			fill(img, depth, X, Y, Z, M, umax, shade)
		}
	}
	info := Info{MaxDisplacement: umax}
	if u != nil {
		info.Scale = scale
	}
	if band > 0 {
		legend(img, Hm, info)
	}
	return info, png.Encode(w, img)
}

// legend draws, in the band below row top, the colour bar from 0 to the largest |u|
// and the magnification.
func legend(img *image.RGBA, top int, info Info) {
	const barW, barH, x0 = 200, 12, 10
	y0 := top + (legendHeight-barH)/2
	W := img.Rect.Dx()
	for x := 0; x < barW && x0+x < W; x++ {
		r, g, b := colormap(float64(x) / (barW - 1))
		for y := y0; y < y0+barH; y++ {
			img.SetRGBA(x0+x, y, color.RGBA{uint8(255 * r), uint8(255 * g), uint8(255 * b), 255})
		}
	}
	d := font.Drawer{Dst: img, Src: image.Black, Face: basicfont.Face7x13}
	base := fixed.I(y0 + barH - 2)
	d.Dot = fixed.Point26_6{X: fixed.I(x0 + barW + 8), Y: base}
	d.DrawString(fmt.Sprintf("|u| 0 to %.3g", info.MaxDisplacement))
	d.Dot.X += fixed.I(24)
	d.DrawString(fmt.Sprintf("displacement drawn x %.3g", info.Scale))
}

// WriteFile is Write to a new file at path.
func WriteFile(path string, m *mesh.Mesh, u []float64, opt Options) (Info, error) {
	f, err := os.Create(path)
	if err != nil {
		return Info{}, err
	}
	info, err := Write(f, m, u, opt)
	if err != nil {
		f.Close()
		return Info{}, fmt.Errorf("%s: %w", path, err)
	}
	return info, f.Close()
}

func sq(x float64) float64 { return x * x }

// fill rasterizes one triangle with a depth test, its colour interpolated from the
// corners' magnitudes; pixels near an edge are darkened so the elements show.
func fill(img *image.RGBA, depth []float64, X, Y, Z, M [3]float64, umax, shade float64) {
	W, H := img.Rect.Dx(), img.Rect.Dy()
	x0, x1 := int(math.Floor(min(X[0], X[1], X[2]))), int(math.Ceil(max(X[0], X[1], X[2])))
	y0, y1 := int(math.Floor(min(Y[0], Y[1], Y[2]))), int(math.Ceil(max(Y[0], Y[1], Y[2])))
	x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W-1), min(y1, H-1)
	area := (X[1]-X[0])*(Y[2]-Y[0]) - (X[2]-X[0])*(Y[1]-Y[0])
	if area == 0 {
		return
	}
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			b0 := ((X[1]-px)*(Y[2]-py) - (X[2]-px)*(Y[1]-py)) / area
			b1 := ((X[2]-px)*(Y[0]-py) - (X[0]-px)*(Y[2]-py)) / area
			b2 := 1 - b0 - b1
			if b0 < 0 || b1 < 0 || b2 < 0 {
				continue
			}
			z := b0*Z[0] + b1*Z[1] + b2*Z[2]
			if z >= depth[y*W+x] {
				continue
			}
			depth[y*W+x] = z
			t := 0.0
			if umax > 0 {
				t = (b0*M[0] + b1*M[1] + b2*M[2]) / umax
			}
			r, g, b := colormap(t)
			s := shade
			// Darken near an edge: the smallest barycentric coordinate scaled by the
			// triangle's size in pixels.
			if edge := min(b0, b1, b2) * math.Sqrt(math.Abs(area)); edge < 0.6 {
				s *= 0.55
			}
			img.SetRGBA(x, y, color.RGBA{uint8(255 * r * s), uint8(255 * g * s), uint8(255 * b * s), 255})
		}
	}
}

// colormap maps t in [0, 1] from blue through green to red.
func colormap(t float64) (r, g, b float64) {
	t = min(max(t, 0), 1)
	switch {
	case t < 0.5:
		return 0.1, 0.2 + 1.4*t, 1 - 1.2*t
	default:
		return 0.1 + 1.8*(t-0.5), 0.9 - 1.2*(t-0.5), 0.4 - 0.6*(t-0.5)
	}
}
