package mesh

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Gmsh's reference elements (gmsh manual, "Node ordering").
var (
	refTet = []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}
	refHex = []float64{-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1, -1, -1, 1, 1, -1, 1, 1, 1, 1, -1, 1, 1}
)

// refTet10 is the reference tet with its mid-edge nodes, in Gmsh's order.
func refTet10() []float64 {
	x := append([]float64(nil), refTet...)
	for _, e := range [][2]int{{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}} {
		for d := range 3 {
			x = append(x, (refTet[3*e[0]+d]+refTet[3*e[1]+d])/2)
		}
	}
	return x
}

// one makes a mesh of one volume element on the given coordinates, nodes in order.
func one(t Type, coords []float64) *Mesh {
	n := len(coords) / 3
	nodes := make([]int32, n)
	for i := range nodes {
		nodes[i] = int32(i)
	}
	return &Mesh{Coords: coords, Volumes: []Elements{{Type: t, Nodes: nodes, Group: []int32{0}, Tag: []int64{7}}}}
}

// shapeDetJ is the Jacobian determinant of element (t, x) at reference point xi from the
// elements' shape functions: an independent reference for the corner tables.
func shapeDetJ(t Type, x []float64, xi [3]float64) float64 {
	var grads [][3]float64
	switch t {
	case Hex8:
		for a := range 8 {
			s := [3]float64{refHex[3*a], refHex[3*a+1], refHex[3*a+2]}
			f := func(d int) float64 { return 1 + s[d]*xi[d] }
			grads = append(grads, [3]float64{s[0] * f(1) * f(2) / 8, f(0) * s[1] * f(2) / 8, f(0) * f(1) * s[2] / 8})
		}
	case Tet10:
		// Barycentric L0 = 1-ξ-η-ζ, L1 = ξ, L2 = η, L3 = ζ; corners Li(2Li-1), edges 4LiLj.
		L := [4]float64{1 - xi[0] - xi[1] - xi[2], xi[0], xi[1], xi[2]}
		dL := [4][3]float64{{-1, -1, -1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
		for i := range 4 {
			var g [3]float64
			for d := range 3 {
				g[d] = (4*L[i] - 1) * dL[i][d]
			}
			grads = append(grads, g)
		}
		for _, e := range [][2]int{{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}} {
			i, j := e[0], e[1]
			var g [3]float64
			for d := range 3 {
				g[d] = 4 * (dL[i][d]*L[j] + L[i]*dL[j][d])
			}
			grads = append(grads, g)
		}
	}
	var J [3][3]float64
	for a, g := range grads {
		for r := range 3 {
			for c := range 3 {
				J[r][c] += x[3*a+r] * g[c]
			}
		}
	}
	return dot(J[0], cross(J[1], J[2]))
}

// TestCornerTables: the reference elements have detJ 1 at every corner, and on
// randomly distorted elements the corner measure is the shape functions' Jacobian at
// the corner.
func TestCornerTables(t *testing.T) {
	var c corners
	for _, r := range []struct {
		t Type
		x []float64
	}{{Tet4, refTet}, {Tet10, refTet10()}, {Hex8, refHex}} {
		m := one(r.t, r.x)
		c.measure(&m.Volumes[0], 0, m.Coords)
		for k := range c.n {
			if got := c.triple[k] / c.ref; math.Abs(got-1) > 1e-15 {
				t.Errorf("%v corner %d: detJ %v, want 1", r.t, k, got)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, r := range []struct {
		t       Type
		x       []float64
		corners [][3]float64
	}{
		{Hex8, refHex, nil},
		{Tet10, refTet10(), [][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}},
	} {
		if r.corners == nil {
			for a := range 8 {
				r.corners = append(r.corners, [3]float64{refHex[3*a], refHex[3*a+1], refHex[3*a+2]})
			}
		}
		for range 100 {
			x := append([]float64(nil), r.x...)
			for i := range x {
				x[i] += 0.3 * (rng.Float64() - 0.5)
			}
			m := one(r.t, x)
			c.measure(&m.Volumes[0], 0, m.Coords)
			for k, xi := range r.corners {
				want := shapeDetJ(r.t, x, xi)
				if got := c.triple[k] / c.ref; math.Abs(got-want) > 1e-12 {
					t.Fatalf("%v corner %d: detJ %v, shape functions %v", r.t, k, got, want)
				}
			}
		}
	}
}

func TestCheckGood(t *testing.T) {
	for _, m := range []*Mesh{one(Tet4, refTet), one(Tet10, refTet10()), one(Hex8, refHex)} {
		if err := m.Check(); err != nil {
			t.Errorf("%v: %v", m.Volumes[0].Type, err)
		}
	}
}

func TestCheckBad(t *testing.T) {
	swap := func(x []float64, a, b int) []float64 {
		x = append([]float64(nil), x...)
		for d := range 3 {
			x[3*a+d], x[3*b+d] = x[3*b+d], x[3*a+d]
		}
		return x
	}
	// Hex upside down: its top face (4567) where the bottom was.
	flipped := append(append([]float64(nil), refHex[12:]...), refHex[:12]...)
	// Hex with corner 6 pushed through the opposite corner: inverted there only.
	dented := append([]float64(nil), refHex...)
	copy(dented[18:21], []float64{-0.9, -0.9, -0.9})
	// Tet with node 3 in the plane of the others.
	flat := append([]float64(nil), refTet...)
	copy(flat[9:], []float64{0.3, 0.3, 0})
	// Tet10 whose mid-edge node of 01 sits beyond corner 0: edge 01 folds back there.
	folded := refTet10()
	folded[12] = -0.2
	for _, c := range []struct {
		what   string
		m      *Mesh
		kind   error
		detJ   float64
		corner int
	}{
		{"tet4 with two nodes swapped", one(Tet4, swap(refTet, 1, 2)), ErrInverted, -1, 0},
		{"hex8 upside down", one(Hex8, flipped), ErrInverted, -1, 0},
		{"hex8 dented", one(Hex8, dented), ErrInverted, math.NaN(), 6},
		{"flat tet4", one(Tet4, flat), ErrDegenerate, 0, 0},
		{"tet10 folded edge", one(Tet10, folded), ErrInverted, math.NaN(), 0},
	} {
		err := c.m.Check()
		var ee *ElementError
		if !errors.As(err, &ee) || !errors.Is(err, c.kind) || !errors.Is(err, ErrMesh) {
			t.Errorf("%s: %v, want an *ElementError wrapping %v", c.what, err, c.kind)
			continue
		}
		if ee.Tag != 7 || ee.Type != c.m.Volumes[0].Type || ee.Corner != c.corner || !math.IsNaN(c.detJ) && ee.DetJ != c.detJ {
			t.Errorf("%s: %+v", c.what, ee)
		}
		if c.kind == ErrInverted && !(ee.DetJ < 0) {
			t.Errorf("%s: detJ %v", c.what, ee.DetJ)
		}
		want := "element 7 (" + ee.Type.String() + ") is "
		if msg := err.Error(); !strings.HasPrefix(msg, want) || !strings.Contains(msg, "Jacobian") {
			t.Errorf("%s: %q", c.what, msg)
		}
	}
	// Two bad elements out of three: the first is named, the other counted.
	m, _ := mustRead(t, "testdata/cube_tet4.msh")
	v := &m.Volumes[0]
	for _, e := range []int{5, 9} {
		v.Nodes[4*e+1], v.Nodes[4*e+2] = v.Nodes[4*e+2], v.Nodes[4*e+1]
	}
	var ee *ElementError
	if err := m.Check(); !errors.As(err, &ee) || ee.Tag != v.Tag[5] || ee.More != 1 {
		t.Errorf("cube with elements 5 and 9 inverted: %v", err)
	}
}

// TestCheckStructure: a Mesh built by code with slices that do not fit.
func TestCheckStructure(t *testing.T) {
	for _, c := range []struct {
		what string
		edit func(m *Mesh)
	}{
		{"coordinates", func(m *Mesh) { m.Coords = m.Coords[:len(m.Coords)-1] }},
		{"node tags", func(m *Mesh) { m.NodeTag = m.NodeTag[:1] }},
		{"NaN", func(m *Mesh) { m.Coords[4] = math.NaN() }},
		{"node index", func(m *Mesh) { m.Volumes[0].Nodes[3] = int32(m.Nodes()) }},
		{"negative index", func(m *Mesh) { m.Volumes[0].Nodes[3] = -1 }},
		{"nodes length", func(m *Mesh) { m.Volumes[0].Nodes = m.Volumes[0].Nodes[:5] }},
		{"tags length", func(m *Mesh) { m.Volumes[0].Tag = m.Volumes[0].Tag[:1] }},
		{"unlisted group", func(m *Mesh) { m.Volumes[0].Group[0] = 99 }},
		{"surface in no group", func(m *Mesh) { m.Surfaces[0].Group[0] = 0 }},
		{"surface type in Volumes", func(m *Mesh) { m.Volumes = append(m.Volumes, m.Surfaces[0]) }},
		{"type twice", func(m *Mesh) { m.Volumes = append(m.Volumes, m.Volumes[0]) }},
		{"unused node", func(m *Mesh) { m.Coords = append(m.Coords, 0, 0, 0); m.NodeTag = append(m.NodeTag, 1e6) }},
		{"bad group", func(m *Mesh) { m.Groups = append(m.Groups, Group{Dim: 1, Tag: 4}) }},
	} {
		m, _ := mustRead(t, "testdata/sparse.msh")
		c.edit(m)
		if err := m.Check(); !errors.Is(err, ErrInvalid) || !errors.Is(err, ErrMesh) {
			t.Errorf("%s: %v, want ErrInvalid", c.what, err)
		}
	}
	m, _ := mustRead(t, "testdata/sparse.msh")
	m.NodeTag, m.Volumes[0].Tag = nil, nil // tags are optional
	if err := m.Check(); err != nil {
		t.Errorf("no tags: %v", err)
	}
}
