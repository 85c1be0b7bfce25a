package mesh

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// gmshFiles are the meshes make.sh has gmsh make, with the counts `gmsh -check FILE`
// reports for them (gmsh 4.8.4: "Info : N nodes", "Info : N elements"). Gmsh saves
// only the elements of physical groups here, so there are no points or lines.
var gmshFiles = []struct {
	name            string
	nodes, elements int
	vol, surf       Type
}{
	{"cube_tet4", 81, 236, Tet4, Tri3},
	{"cube_tet10", 423, 236, Tet10, Tri6},
	{"hex8", 60, 36, Hex8, Quad4},
	{"two_tet4", 142, 420, Tet4, Tri3},
}

func mustRead(t *testing.T, path string) (*Mesh, []Warning) {
	t.Helper()
	m, w, err := ReadFile(path)
	if err != nil {
		t.Fatalf("ReadFile(%s): %v", path, err)
	}
	return m, w
}

// TestGmshFiles compares each gmsh mesh with gmsh's own counts and, element by element
// and node by node, with a naive reading of the ASCII file.
func TestGmshFiles(t *testing.T) {
	for _, f := range gmshFiles {
		t.Run(f.name, func(t *testing.T) {
			path := "testdata/" + f.name + ".msh"
			m, w := mustRead(t, path)
			if len(w) > 0 {
				t.Errorf("warnings: %v", w)
			}
			nm := naiveRead(t, path)
			if nm.numNodes != f.nodes || nm.numElements != f.elements {
				t.Fatalf("file header: %d nodes, %d elements; gmsh -check: %d, %d", nm.numNodes, nm.numElements, f.nodes, f.elements)
			}
			// In a gmsh volume mesh every node is on a volume element: none is dropped.
			if m.Nodes() != f.nodes || len(m.NodeTag) != f.nodes {
				t.Errorf("%d nodes (%d tags), gmsh: %d", m.Nodes(), len(m.NodeTag), f.nodes)
			}
			for j, tag := range m.NodeTag {
				if x := nm.nodes[tag]; !slices.Equal(m.Coords[3*j:3*j+3], x[:]) {
					t.Fatalf("node %d (tag %d) at %v, the file says %v", j, tag, m.Coords[3*j:3*j+3], x)
				}
			}

			// The elements the naive reading expects, by type, in file order: volumes in
			// their entity's first group, surfaces once per group of their entity.
			type elem struct {
				tag   int64
				group int32
				nodes []int64
			}
			want := map[Type][]elem{}
			toType := map[int]Type{4: Tet4, 11: Tet10, 5: Hex8, 2: Tri3, 9: Tri6, 3: Quad4}
			total := 0
			for _, e := range nm.elems {
				ph := nm.phys[[2]int{e.dim, e.entity}]
				t := toType[e.gtype]
				switch e.dim {
				case 3:
					g := int32(0)
					if len(ph) > 0 {
						g = int32(ph[0])
					}
					want[t] = append(want[t], elem{e.tag, g, e.nodes})
				case 2:
					for _, g := range ph {
						want[t] = append(want[t], elem{e.tag, int32(g), e.nodes})
					}
				}
				total++
			}
			if total != f.elements {
				t.Errorf("naive reading: %d elements, gmsh: %d", total, f.elements)
			}
			got := 0
			for _, list := range [][]Elements{m.Volumes, m.Surfaces} {
				for _, e := range list {
					w := want[e.Type]
					if e.Len() != len(w) {
						t.Fatalf("%v: %d elements, want %d", e.Type, e.Len(), len(w))
					}
					k := e.Type.Nodes()
					for i, we := range w {
						var tags []int64
						for _, n := range e.Nodes[i*k : (i+1)*k] {
							tags = append(tags, m.NodeTag[n])
						}
						if e.Tag[i] != we.tag || e.Group[i] != we.group || !slices.Equal(tags, we.nodes) {
							t.Fatalf("%v element %d: tag %d group %d nodes %v; want %d %d %v", e.Type, i, e.Tag[i], e.Group[i], tags, we.tag, we.group, we.nodes)
						}
					}
					got += e.Len()
				}
			}
			if len(m.Volumes) != 1 || m.Volumes[0].Type != f.vol || len(m.Surfaces) != 1 || m.Surfaces[0].Type != f.surf {
				t.Errorf("element sets: %d volumes, %d surfaces; want one %v and one %v", len(m.Volumes), len(m.Surfaces), f.vol, f.surf)
			}
			// Every surface element of these files is in exactly one group.
			if got != f.elements {
				t.Errorf("%d elements read, gmsh: %d", got, f.elements)
			}
			var names []string
			for _, g := range m.Groups {
				if n, ok := nm.names[[2]int{g.Dim, int(g.Tag)}]; !ok || n != g.Name {
					t.Errorf("group %+v; $PhysicalNames: %q", g, n)
				}
				names = append(names, g.Name)
			}
			if len(m.Groups) != len(nm.names) {
				t.Errorf("groups %v, $PhysicalNames has %d", names, len(nm.names))
			}
			if err := m.Check(); err != nil {
				t.Errorf("Check: %v", err)
			}
		})
	}
}

// TestBinaryMatchesASCII reads each gmsh mesh in both encodings. Gmsh writes ASCII
// coordinates with 16 digits, not always enough to round-trip a double, so those may
// differ in the last bit; everything else must be identical.
func TestBinaryMatchesASCII(t *testing.T) {
	for _, f := range gmshFiles {
		a, wa := mustRead(t, "testdata/"+f.name+".msh")
		b, wb := mustRead(t, "testdata/"+f.name+".bin.msh")
		if len(wa)+len(wb) > 0 {
			t.Errorf("%s: warnings %v %v", f.name, wa, wb)
		}
		if len(a.Coords) != len(b.Coords) {
			t.Fatalf("%s: %d and %d coordinates", f.name, len(a.Coords), len(b.Coords))
		}
		for i, x := range a.Coords {
			if math.Abs(x-b.Coords[i]) > 1e-15*max(1, math.Abs(x)) {
				t.Fatalf("%s: coordinate %d: ASCII %v, binary %v", f.name, i, x, b.Coords[i])
			}
		}
		a.Coords, b.Coords = nil, nil
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: ASCII and binary meshes differ", f.name)
		}
	}
}

// TestGrid reads generated grids (exact coordinates, sparse tags, nodes written in
// reverse, many blocks) in ASCII and binary of both byte orders: identical meshes, bit
// for bit, and the geometry the generator put there.
func TestGrid(t *testing.T) {
	for _, tets := range []bool{false, true} {
		for _, stride := range []int64{1, 7, 1 << 40} {
			var ma [2]*Mesh
			for k, bin := range []bool{false, true} {
				var buf bytes.Buffer
				const n = 13
				if err := writeGrid(&buf, n, tets, bin, stride); err != nil {
					t.Fatal(err)
				}
				m, w, err := Read(&buf, "grid")
				if err != nil || len(w) > 0 {
					t.Fatalf("tets %v stride %d binary %v: %v %v", tets, stride, bin, err, w)
				}
				if m.Nodes() != n*n*n {
					t.Fatalf("%d nodes", m.Nodes())
				}
				for j, tag := range m.NodeTag {
					i := (tag - 1) / stride
					h := 1 / float64(n-1) // as writeGrid computes them
					x := [3]float64{float64(i%n) * h, float64(i/n%n) * h, float64(i/n/n) * h}
					if !slices.Equal(m.Coords[3*j:3*j+3], x[:]) {
						t.Fatalf("node tag %d at %v, want %v", tag, m.Coords[3*j:3*j+3], x)
					}
				}
				cells := (n - 1) * (n - 1) * (n - 1)
				if tets && m.Volumes[0].Len() != 6*cells || !tets && m.Volumes[0].Len() != cells {
					t.Fatalf("%d elements", m.Volumes[0].Len())
				}
				if err := m.Check(); err != nil {
					t.Fatal(err)
				}
				ma[k] = m
			}
			if !reflect.DeepEqual(ma[0], ma[1]) {
				t.Errorf("tets %v stride %d: ASCII and binary differ", tets, stride)
			}
			var buf bytes.Buffer
			if err := writeGridOrder(&buf, 13, tets, true, stride, binary.BigEndian); err != nil {
				t.Fatal(err)
			}
			if m, _, err := Read(&buf, "grid"); err != nil || !reflect.DeepEqual(m, ma[1]) {
				t.Errorf("tets %v stride %d: big-endian: %v, or the mesh differs", tets, stride, err)
			}
		}
	}
}

// TestSparse reads a hand-written file whose expected content is counted by hand:
// sparse tags (one beyond 2^32), a parametric node block, unused nodes, a point and a
// line element, a surface entity in two groups and one in none, a volume entity in two
// groups, a curve group, and sections to skip before and after the mesh.
func TestSparse(t *testing.T) {
	m, w := mustRead(t, "testdata/sparse.msh")
	want := &Mesh{
		Coords:   []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1},
		NodeTag:  []int64{100, 5, 1000000000000, 42, 43},
		Volumes:  []Elements{{Type: Tet4, Nodes: []int32{0, 1, 2, 3, 1, 2, 0, 4}, Group: []int32{7, 7}, Tag: []int64{1, 2}}},
		Surfaces: []Elements{{Type: Tri3, Nodes: []int32{0, 1, 2, 0, 1, 2}, Group: []int32{5, 6}, Tag: []int64{10, 10}}},
		Groups:   []Group{{3, 7, "body"}, {3, 8, "other"}, {2, 5, "base plate"}, {2, 6, ""}},
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got  %+v\nwant %+v", *m, *want)
	}
	var msgs []string
	for _, x := range w {
		msgs = append(msgs, x.String())
	}
	all := strings.Join(msgs, "\n")
	for _, s := range []string{
		"testdata/sparse.msh:52: volume entity 21 is in 2 physical groups [7 8]: its elements go to the first, 7",
		"testdata/sparse.msh: 2 nodes that no volume element uses were dropped (tags 9, 44)",
		`physical group 9 "edge" of dimension 1 is not read`,
	} {
		if !strings.Contains(all, s) {
			t.Errorf("warnings lack %q:\n%s", s, all)
		}
	}
	if len(w) != 3 {
		t.Errorf("%d warnings, want 3:\n%s", len(w), all)
	}
	if g, ok := m.GroupByName(2, "base plate"); !ok || g.Tag != 5 {
		t.Errorf("GroupByName: %v %v", g, ok)
	}
}

// TestReaders reads through readers that hide the size and deliver a byte or half a
// buffer at a time, so that every token and binary value crosses a refill somewhere.
func TestReaders(t *testing.T) {
	for _, name := range []string{"cube_tet10.msh", "cube_tet10.bin.msh", "sparse.msh"} {
		want, _ := mustRead(t, "testdata/"+name)
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []struct {
			what string
			wrap func([]byte) io.Reader
		}{
			{"one byte", func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }},
			{"half", func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }},
			{"data and EOF", func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) }},
		} {
			m, _, err := Read(r.wrap(data), name)
			if err != nil {
				t.Fatalf("%s, %s: %v", name, r.what, err)
			}
			if !reflect.DeepEqual(m, want) {
				t.Errorf("%s, %s: mesh differs from ReadFile's", name, r.what)
			}
		}
	}
}

// TestReadFailure: a failing reader is an I/O error, located, not a mesh error.
func TestReadFailure(t *testing.T) {
	data, _ := os.ReadFile("testdata/hex8.msh")
	cause := errors.New("disk on fire")
	r := io.MultiReader(bytes.NewReader(data[:1000]), iotest.ErrReader(cause))
	_, _, err := Read(r, "hex8.msh")
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, cause) || errors.Is(err, ErrMesh) {
		t.Fatalf("got %v; want a *ParseError wrapping the cause and not ErrMesh", err)
	}
	if pe.Line == 0 {
		t.Errorf("%v: not located", err)
	}
	if _, _, err := ReadFile("testdata/no such file.msh"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestPartitioned reads the cube partitioned in two by gmsh (-part 2): its element
// blocks name partitioned entities, whose physical tags must give the same groups as
// the unpartitioned mesh, element for element (compared by their corners' positions,
// as partitioning may renumber), and no group for the interface between partitions.
func TestPartitioned(t *testing.T) {
	key := func(m *Mesh, e *Elements, i int) string {
		k := e.Type.Nodes()
		var pts []string
		for _, n := range e.Nodes[i*k : (i+1)*k] {
			pts = append(pts, fmt.Sprint(m.Coords[3*n:3*n+3]))
		}
		slices.Sort(pts)
		return fmt.Sprint(e.Group[i], pts)
	}
	set := func(m *Mesh) map[string]int {
		s := map[string]int{}
		for _, list := range [][]Elements{m.Volumes, m.Surfaces} {
			for j := range list {
				for i := range list[j].Len() {
					s[key(m, &list[j], i)]++
				}
			}
		}
		return s
	}
	for _, enc := range []string{".msh", ".bin.msh"} {
		// Gmsh's ASCII coordinates are rounded, so each encoding has its reference.
		ref, _ := mustRead(t, "testdata/cube_tet4"+enc)
		want := set(ref)
		name := "cube_part" + enc
		m, w := mustRead(t, "testdata/"+name)
		if len(w) > 0 {
			t.Errorf("%s: warnings %v", name, w)
		}
		if m.Nodes() != ref.Nodes() || !reflect.DeepEqual(m.Groups, ref.Groups) {
			t.Errorf("%s: %d nodes, groups %v; unpartitioned: %d, %v", name, m.Nodes(), m.Groups, ref.Nodes(), ref.Groups)
		}
		if got := set(m); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: elements differ from the unpartitioned mesh's (%d and %d distinct)", name, len(got), len(want))
		}
	}
}

// TestSkip: unknown sections end only at their own $EndName at the start of a line,
// whatever they hold, however the input arrives.
func TestSkip(t *testing.T) {
	mesh, err := os.ReadFile("testdata/bad/truncated.msh")
	if err != nil {
		t.Fatal(err)
	}
	whole := string(mesh) + "$EndElements\n"
	at := strings.Index(whole, "$Nodes")
	junk := "$Junk\n$EndJunkX\n $EndJunk\n$Nodes\n\x00\xff$EndJunk" + strings.Repeat("x", 70000) + "\n$EndJunk\n"
	text := whole[:at] + junk + whole[at:] + "$Empty\n$EndEmpty"
	for _, r := range []io.Reader{strings.NewReader(text), iotest.OneByteReader(strings.NewReader(text)), hideLen{strings.NewReader(text)}} {
		m, _, err := Read(r, "skip.msh")
		if err != nil || m.Volumes[0].Len() != 1 {
			t.Fatalf("%v", err)
		}
	}
	// A problem after the skipped section is on the line the whole text says.
	bad := text[:len(text)-len("$Empty\n$EndEmpty")] + "oops\n"
	_, _, err = Read(strings.NewReader(bad), "skip.msh")
	if want := fmt.Sprintf("skip.msh:%d: ", strings.Count(bad, "\n")); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("%v, want %q", err, want)
	}
}
