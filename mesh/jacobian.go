package mesh

import "math"

// Corner Jacobians. At a corner of a tet4 or hex8, the triple product of the
// element's three edges from that corner, taken in the order that makes it positive
// for an element of Gmsh's orientation, is the Jacobian determinant there (times 8 for
// the hex, whose reference element is [-1, 1]³, so that its edges are twice the
// Jacobian's columns). At a vertex of a tet10 the edges give way to the tangents of its
// curved edges, 4·m − 3·a − b for the edge from a to b with mid-edge node m (the
// quadratic map's derivative along the edge there). So
//
//	detJ   = triple / 8 for a hex8, the triple product itself for tets (Gmsh's
//	         reference tet has unit legs);
//	scaled = triple / (|t1|·|t2|·|t3|), times √2 for tets, so that a cube and a
//	         regular tetrahedron score 1 and a flat or inverted corner ≤ 0
//
// (the scaled Jacobian of Knupp's and the Verdict library's element quality).

// tetCorners[c] are the corners that corner c's edges go to, in positive order: an even
// permutation of 0123 for each corner.
var tetCorners = [4][3]int{{1, 2, 3}, {2, 0, 3}, {0, 1, 3}, {1, 0, 2}}

// hexCorners[c] are corner c's neighbours along ξ, η, ζ (Gmsh's hex: 0123 the bottom
// face counterclockwise seen from above, 4567 above them), in positive order.
var hexCorners = [8][3]int{{1, 3, 4}, {2, 0, 5}, {3, 1, 6}, {0, 2, 7}, {7, 5, 0}, {4, 6, 1}, {5, 7, 2}, {6, 4, 3}}

// tet10Mid[a][b] is the tet10 node in the middle of edge ab (Gmsh's order: 01 12 20 30
// 32 31 after the corners).
var tet10Mid = [4][4]int{
	{-1, 4, 6, 7},
	{4, -1, 5, 9},
	{6, 5, -1, 8},
	{7, 9, 8, -1},
}

// corners holds one element's corner measures.
type corners struct {
	n      int        // corners: 4 or 8
	triple [8]float64 // triple product of the edge vectors at each corner
	scaled [8]float64 // scaled Jacobian at each corner
	h      float64    // longest edge vector of the element
	ref    float64    // detJ = triple / ref: 1 for tets, 8 for the hex
}

// measure evaluates element e of s (a volume set) on coords. Node indices must be in
// range.
func (c *corners) measure(s *Elements, e int, coords []float64) {
	k := s.Type.Nodes()
	nodes := s.Nodes[e*k : (e+1)*k]
	x := func(i int) [3]float64 {
		n := int64(nodes[i]) * 3
		return [3]float64{coords[n], coords[n+1], coords[n+2]}
	}
	var table [][3]int
	weight := math.Sqrt2
	c.ref = 1
	switch s.Type {
	case Tet4, Tet10:
		table = tetCorners[:]
	case Hex8:
		table = hexCorners[:]
		weight, c.ref = 1, 8
	default:
		panic("mesh: measure of a " + s.Type.String())
	}
	c.n, c.h = len(table), 0
	for ci, nb := range table {
		a := x(ci)
		var t [3][3]float64
		for j, b := range nb {
			xb := x(b)
			for d := range 3 {
				t[j][d] = xb[d] - a[d]
			}
			if s.Type == Tet10 {
				m := x(tet10Mid[ci][b])
				for d := range 3 {
					t[j][d] = 4*m[d] - 3*a[d] - xb[d]
				}
			}
		}
		l0, l1, l2 := norm(t[0]), norm(t[1]), norm(t[2])
		c.h = max(c.h, l0, l1, l2)
		tp := dot(t[0], cross(t[1], t[2]))
		c.triple[ci] = tp
		if l := l0 * l1 * l2; l > 0 {
			c.scaled[ci] = weight * tp / l
		} else {
			c.scaled[ci] = 0
		}
	}
}

// worst returns the corner with the smallest triple product.
func (c *corners) worst() int {
	w := 0
	for i := 1; i < c.n; i++ {
		if c.triple[i] < c.triple[w] {
			w = i
		}
	}
	return w
}

// minScaled is the element's scaled Jacobian: its worst corner's.
func (c *corners) minScaled() float64 {
	s := c.scaled[0]
	for i := 1; i < c.n; i++ {
		s = min(s, c.scaled[i])
	}
	return s
}

func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func norm(a [3]float64) float64 { return math.Sqrt(dot(a, a)) }
