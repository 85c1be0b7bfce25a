package fem_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
)

// Surface group tags of the box's six sides, in the order xmin, xmax, ymin, ymax,
// zmin, zmax; volume groups 1 ("left", cell centres x < 1/2) and 2 ("right").
var sideNames = [6]string{"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"}

const (
	sideTag0  = 11
	elemTag0  = 100   // element e has tag elemTag0 + e
	faceTag0  = 50000 // face f has tag faceTag0 + f
	groupLeft = 1
)

// boxMesh returns the unit cube cut into nx×ny×nz cells: one Hex8 per cell, or six
// tetrahedra per cell (Kuhn's split along the cell's main diagonal, the same in every
// cell, so neighbouring cells' faces match), Tet10 adding the edge midpoints through
// a map of shared edges. Interior grid nodes move by up to perturb times the cell
// size along each axis (deterministically, from seed); Tet10 midpoints are placed
// after that, so its sides stay straight, and the boundary stays the cube's. The
// faces on the six sides are Quad4, Tri3 or Tri6 in groups xmin … zmax.
func boxMesh(t testing.TB, typ mesh.Type, nx, ny, nz int, perturb float64, seed uint64) *mesh.Mesh {
	t.Helper()
	n := [3]int{nx, ny, nz}
	gid := func(i, j, k int) int32 { return int32(i + (nx+1)*(j+(ny+1)*k)) }
	grid := func(p int32) [3]int {
		i := int(p) % (nx + 1)
		r := int(p) / (nx + 1)
		return [3]int{i, r % (ny + 1), r / (ny + 1)}
	}
	nodes := (nx + 1) * (ny + 1) * (nz + 1)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	coords := make([]float64, 0, 3*nodes)
	for k := 0; k <= nz; k++ {
		for j := 0; j <= ny; j++ {
			for i := 0; i <= nx; i++ {
				ijk := [3]int{i, j, k}
				interior := true
				for d := 0; d < 3; d++ {
					interior = interior && ijk[d] > 0 && ijk[d] < n[d]
				}
				for d := 0; d < 3; d++ {
					x := float64(ijk[d]) / float64(n[d])
					if interior {
						x += perturb * (2*rng.Float64() - 1) / float64(n[d])
					}
					coords = append(coords, x)
				}
			}
		}
	}
	m := &mesh.Mesh{Coords: coords}
	vol := mesh.Elements{Type: typ}
	var faces [7]mesh.Elements // by mesh.Type
	edges := map[[2]int32]int32{}
	mid := func(a, b int32) int32 {
		key := [2]int32{min(a, b), max(a, b)}
		if p, ok := edges[key]; ok {
			return p
		}
		p := int32(len(m.Coords) / 3)
		for d := 0; d < 3; d++ {
			m.Coords = append(m.Coords, (m.Coords[3*a+int32(d)]+m.Coords[3*b+int32(d)])/2)
		}
		edges[key] = p
		return p
	}
	addFace := func(ft mesh.Type, side int, nd []int32) {
		f := &faces[ft]
		f.Type = ft
		f.Nodes = append(f.Nodes, nd...)
		f.Group = append(f.Group, int32(sideTag0+side))
	}
	// sideOf is the side all given grid nodes lie on, or −1.
	sideOf := func(nd []int32) int {
		for d := 0; d < 3; d++ {
			for v, s := range [2]int{0, n[d]} {
				on := true
				for _, p := range nd {
					on = on && grid(p)[d] == s
				}
				if on {
					return 2*d + v
				}
			}
		}
		return -1
	}
	perms := [6][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				group := int32(groupLeft)
				if 2*i+1 > nx {
					group = groupLeft + 1
				}
				at := func(o [3]int) int32 { return gid(i+o[0], j+o[1], k+o[2]) }
				if typ == mesh.Hex8 {
					hex := [8][3]int{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}}
					for _, o := range hex {
						vol.Nodes = append(vol.Nodes, at(o))
					}
					vol.Group = append(vol.Group, group)
					for d := 0; d < 3; d++ {
						a, b := (d+1)%3, (d+2)%3
						for v := 0; v < 2; v++ {
							var quad [4]int32
							for c, ab := range [4][2]int{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
								var o [3]int
								o[d], o[a], o[b] = v, ab[0], ab[1]
								quad[c] = at(o)
							}
							if s := sideOf(quad[:]); s >= 0 {
								addFace(mesh.Quad4, s, quad[:])
							}
						}
					}
					continue
				}
				for _, p := range perms {
					var o [4][3]int
					o[1][p[0]] = 1
					o[2] = o[1]
					o[2][p[1]] = 1
					o[3] = [3]int{1, 1, 1}
					// The orientation of the unperturbed tet decides whether to swap
					// nodes 1 and 2 for a positive Jacobian.
					u, v, w := o[1], o[2], o[3]
					det := u[0]*(v[1]*w[2]-v[2]*w[1]) - u[1]*(v[0]*w[2]-v[2]*w[0]) + u[2]*(v[0]*w[1]-v[1]*w[0])
					if det < 0 {
						o[1], o[2] = o[2], o[1]
					}
					c := [4]int32{at(o[0]), at(o[1]), at(o[2]), at(o[3])}
					vol.Nodes = append(vol.Nodes, c[:]...)
					if typ == mesh.Tet10 {
						for _, e := range [6][2]int{{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}} {
							vol.Nodes = append(vol.Nodes, mid(c[e[0]], c[e[1]]))
						}
					}
					vol.Group = append(vol.Group, group)
					for opp := 0; opp < 4; opp++ {
						var tri []int32
						for q := 0; q < 4; q++ {
							if q != opp {
								tri = append(tri, c[q])
							}
						}
						s := sideOf(tri)
						if s < 0 {
							continue
						}
						if typ == mesh.Tet4 {
							addFace(mesh.Tri3, s, tri)
						} else {
							addFace(mesh.Tri6, s, append(tri, mid(tri[0], tri[1]), mid(tri[1], tri[2]), mid(tri[2], tri[0])))
						}
					}
				}
			}
		}
	}
	for e := range vol.Group {
		vol.Tag = append(vol.Tag, int64(elemTag0+e))
	}
	m.Volumes = []mesh.Elements{vol}
	nf := 0
	for ft := range faces {
		if f := faces[ft]; f.Type != 0 {
			for range f.Group {
				f.Tag = append(f.Tag, int64(faceTag0+nf))
				nf++
			}
			m.Surfaces = append(m.Surfaces, f)
		}
	}
	m.Groups = []mesh.Group{{Dim: 3, Tag: groupLeft, Name: "left"}, {Dim: 3, Tag: groupLeft + 1, Name: "right"}}
	for s, name := range sideNames {
		m.Groups = append(m.Groups, mesh.Group{Dim: 2, Tag: int32(sideTag0 + s), Name: name})
	}
	m.NodeTag = make([]int64, m.Nodes())
	for p := range m.NodeTag {
		m.NodeTag[p] = int64(p + 1)
	}
	return m
}

// boundaryMask fixes every component of every node on the cube's surface.
func boundaryMask(t testing.TB, m *mesh.Mesh) []uint8 {
	t.Helper()
	fixed := make([]uint8, m.Nodes())
	for _, s := range sideNames {
		if err := fem.FixGroup(m, fixed, s, 7); err != nil {
			t.Fatal(err)
		}
	}
	return fixed
}

func mustElasticity(t testing.TB, m *mesh.Mesh, opt fem.ElasticityOptions) *fem.Elasticity {
	t.Helper()
	el, err := fem.NewElasticity(m, opt)
	if err != nil {
		t.Fatal(err)
	}
	return el
}

// materials gives the two volume groups different materials.
func materials(t testing.TB, el *fem.Elasticity) (E, nu []float64) {
	t.Helper()
	E, nu, err := el.Materials(fem.Material{Group: "left", E: 2.5, Nu: 0.3}, fem.Material{Group: "right", E: 0.7, Nu: 0.15})
	if err != nil {
		t.Fatal(err)
	}
	return E, nu
}

func mustNumeric(t testing.TB, el *fem.Elasticity, E, nu []float64, workers int) []float64 {
	t.Helper()
	A := el.NewMatrix()
	if err := el.Numeric(A, E, nu, workers); err != nil {
		t.Fatal(err)
	}
	return A.Val
}

// TestBoxMesh checks the helper itself: node and element counts, positive tet
// orientation on the unperturbed mesh (every element accepted), faces covering each
// side once.
func TestBoxMesh(t *testing.T) {
	for _, c := range []struct {
		typ             mesh.Type
		nodes, elements int
		faceType        mesh.Type
		faces           int
	}{
		{mesh.Hex8, 4 * 3 * 3, 3 * 2 * 2, mesh.Quad4, 2 * (6 + 6 + 4)},
		{mesh.Tet4, 4 * 3 * 3, 6 * 12, mesh.Tri3, 4 * (6 + 6 + 4)},
		{mesh.Tet10, 7 * 5 * 5, 6 * 12, mesh.Tri6, 4 * (6 + 6 + 4)},
	} {
		m := boxMesh(t, c.typ, 3, 2, 2, 0.2, 1)
		if m.Nodes() != c.nodes || m.Volumes[0].Len() != c.elements {
			t.Errorf("%v: %d nodes, %d elements; want %d, %d", c.typ, m.Nodes(), m.Volumes[0].Len(), c.nodes, c.elements)
		}
		if len(m.Surfaces) != 1 || m.Surfaces[0].Type != c.faceType || m.Surfaces[0].Len() != c.faces {
			t.Errorf("%v: surfaces %v", c.typ, m.Surfaces)
		}
		seen := map[string]bool{}
		s := m.Surfaces[0]
		k := s.Type.Nodes()
		for f := 0; f < s.Len(); f++ {
			key := slices.Clone(s.Nodes[f*k : f*k+k])
			slices.Sort(key)
			if seen[fmt.Sprint(key)] {
				t.Fatalf("%v: face %v twice", c.typ, key)
			}
			seen[fmt.Sprint(key)] = true
		}
		mustElasticity(t, m, fem.ElasticityOptions{})
	}
}
