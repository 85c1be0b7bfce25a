package mesh

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// gridMesh is an nx×ny×nz grid of unit hexahedra, nodes numbered x fastest, with the
// faces of the side x = 0 as a Quad4 group.
func gridMesh(nx, ny, nz int) *Mesh {
	id := func(i, j, k int) int32 { return int32(i + (nx+1)*(j+(ny+1)*k)) }
	m := &Mesh{Groups: []Group{{Dim: 3, Tag: 1, Name: "solid"}, {Dim: 2, Tag: 2, Name: "left"}}}
	for k := 0; k <= nz; k++ {
		for j := 0; j <= ny; j++ {
			for i := 0; i <= nx; i++ {
				m.Coords = append(m.Coords, float64(i), float64(j), float64(k))
				m.NodeTag = append(m.NodeTag, int64(100+len(m.NodeTag)))
			}
		}
	}
	hex := Elements{Type: Hex8}
	face := Elements{Type: Quad4}
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				hex.Nodes = append(hex.Nodes, id(i, j, k), id(i+1, j, k), id(i+1, j+1, k), id(i, j+1, k),
					id(i, j, k+1), id(i+1, j, k+1), id(i+1, j+1, k+1), id(i, j+1, k+1))
				hex.Group = append(hex.Group, 1)
				hex.Tag = append(hex.Tag, int64(len(hex.Tag)+1))
				if i == 0 {
					face.Nodes = append(face.Nodes, id(0, j, k), id(0, j+1, k), id(0, j+1, k+1), id(0, j, k+1))
					face.Group = append(face.Group, 2)
					face.Tag = append(face.Tag, int64(len(face.Tag)+1))
				}
			}
		}
	}
	m.Volumes = []Elements{hex}
	m.Surfaces = []Elements{face}
	return m
}

func isPermutation(p []int32) bool {
	s := slices.Clone(p)
	slices.Sort(s)
	for i, v := range s {
		if v != int32(i) {
			return false
		}
	}
	return true
}

// TestRCMBandwidth shuffles a grid's nodes and checks that RCM's order brings the
// bandwidth back under the natural numbering's, deterministically.
func TestRCMBandwidth(t *testing.T) {
	m := gridMesh(12, 7, 5)
	natural := m.Bandwidth()
	if want := 1 + 13 + 13*8; natural != want {
		t.Fatalf("natural bandwidth %d, want %d", natural, want)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	shuffle := make([]int32, m.Nodes())
	for i := range shuffle {
		shuffle[i] = int32(i)
	}
	rng.Shuffle(len(shuffle), func(i, j int) { shuffle[i], shuffle[j] = shuffle[j], shuffle[i] })
	sh := m.Renumber(shuffle)
	perm := RCM(sh)
	if !isPermutation(perm) {
		t.Fatal("RCM is not a permutation")
	}
	if again := RCM(sh); !slices.Equal(again, perm) {
		t.Fatal("RCM differs between two calls")
	}
	r := sh.Renumber(perm)
	t.Logf("bandwidth: natural %d, shuffled %d, RCM %d", natural, sh.Bandwidth(), r.Bandwidth())
	if sh.Bandwidth() < 4*natural || r.Bandwidth() > natural {
		t.Errorf("bandwidth: natural %d, shuffled %d, after RCM %d", natural, sh.Bandwidth(), r.Bandwidth())
	}
}

// TestRenumber checks that coordinates, tags and element lists follow their nodes and
// that the inverse permutation restores the mesh.
func TestRenumber(t *testing.T) {
	m := gridMesh(3, 2, 2)
	perm := RCM(m)
	r := m.Renumber(perm)
	for i, p := range perm {
		if r.NodeTag[i] != m.NodeTag[p] || !slices.Equal(r.Coords[3*i:3*i+3], m.Coords[3*p:3*p+3]) {
			t.Fatalf("node %d is not old node %d", i, p)
		}
	}
	for si, sets := range [][2][]Elements{{m.Volumes, r.Volumes}, {m.Surfaces, r.Surfaces}} {
		for k, s := range sets[0] {
			rs := sets[1][k]
			for i, p := range s.Nodes {
				if perm[rs.Nodes[i]] != p {
					t.Fatalf("set kind %d: entry %d maps to %d, was %d", si, i, perm[rs.Nodes[i]], p)
				}
			}
			if !slices.Equal(rs.Group, s.Group) || !slices.Equal(rs.Tag, s.Tag) {
				t.Fatal("groups or tags changed")
			}
		}
	}
	inv := make([]int32, len(perm))
	for i, p := range perm {
		inv[p] = int32(i)
	}
	back := r.Renumber(inv)
	if !slices.Equal(back.Coords, m.Coords) || !slices.Equal(back.Volumes[0].Nodes, m.Volumes[0].Nodes) || !slices.Equal(back.Surfaces[0].Nodes, m.Surfaces[0].Nodes) {
		t.Fatal("the inverse permutation does not restore the mesh")
	}
	for _, bad := range [][]int32{perm[1:], append(slices.Clone(perm[1:]), perm[1])} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Renumber accepted %d entries that are not a permutation", len(bad))
				}
			}()
			m.Renumber(bad)
		}()
	}
}

// TestRCMComponents: two disjoint grids get one band each, the component of the
// lowest node first in the search (last after the reversal).
func TestRCMComponents(t *testing.T) {
	a, b := gridMesh(2, 2, 1), gridMesh(3, 1, 1)
	m := &Mesh{Coords: append(slices.Clone(a.Coords), b.Coords...)}
	off := int32(a.Nodes())
	hex := Elements{Type: Hex8, Nodes: slices.Clone(a.Volumes[0].Nodes)}
	for _, p := range b.Volumes[0].Nodes {
		hex.Nodes = append(hex.Nodes, p+off)
	}
	hex.Group = make([]int32, len(hex.Nodes)/8)
	m.Volumes = []Elements{hex}
	perm := RCM(m)
	if !isPermutation(perm) {
		t.Fatal("not a permutation")
	}
	for i, p := range perm {
		if (i < b.Nodes()) != (p >= off) {
			t.Fatalf("position %d holds node %d: components interleaved", i, p)
		}
	}
}
