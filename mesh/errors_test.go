package mesh

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// TestBadFiles reads the hand-written files of testdata/bad, each with one problem on a
// line counted by hand.
func TestBadFiles(t *testing.T) {
	for _, c := range []struct {
		file string
		kind error
		at   string // the location prefix: "FILE:LINE:" or "FILE:"
		says []string
	}{
		{"dup_node.msh", ErrDuplicate, ":10:", []string{"node tag 3 defined twice"}},
		{"tag_range.msh", ErrSyntax, ":10:", []string{"node tag 7 outside the range 1 … 4 the $Nodes header declares"}},
		{"dup_element.msh", ErrDuplicate, ":20:", []string{"volume element tag 1 defined twice"}},
		{"undefined_node.msh", ErrUndefined, ":19:", []string{"element 1 (tet4) has node 99"}},
		{"surface_off.msh", ErrSurface, ":26:", []string{"surface element 1 (tri3) has node 5, which no volume element has"}},
		{"version22.msh", ErrVersion, ":2:", []string{"version 2.2", "-format msh41", "Mesh.MshFileVersion = 4.1;"}},
		{"truncated.msh", ErrTruncated, ":20:", []string{"unexpected end of file", "$EndElements"}},
		{"bad_number.msh", ErrSyntax, ":12:", []string{"expected a node coordinate", `found "0x"`}},
		{"prism.msh", ErrUnsupported, ":18:", []string{"unsupported element type 6 (6-node prism)", "supported: 4 (tet4), 11 (tet10), 5 (hex8), 2 (tri3), 9 (tri6), 3 (quad4)"}},
		{"no_volumes.msh", ErrEmpty, ": no volume", nil},
		{"missing_end.msh", ErrSyntax, ":15:", []string{`expected $EndNodes, found "$EndNode"`}},
		{"promise.msh", ErrTruncated, ":5:", []string{"1000000 nodes"}},
	} {
		path := "testdata/bad/" + c.file
		m, _, err := ReadFile(path)
		if err == nil || m != nil {
			t.Errorf("%s: no error", c.file)
			continue
		}
		msg := err.Error()
		if !errors.Is(err, ErrMesh) || !errors.Is(err, c.kind) {
			t.Errorf("%s: %v does not wrap ErrMesh and %v", c.file, err, c.kind)
		}
		if !strings.HasPrefix(msg, path+c.at) {
			t.Errorf("%s: %q does not start with %q", c.file, msg, path+c.at)
		}
		for _, s := range c.says {
			if !strings.Contains(msg, s) {
				t.Errorf("%s: %q does not say %q", c.file, msg, s)
			}
		}
	}
}

// binLayout finds, by the format's description of the binary sections, where things
// are in a binary MSH 4.1 file of gmsh's (little-endian, no parametric nodes).
type binLayout struct {
	data []byte
}

func (l binLayout) section(t *testing.T, name string) int {
	i := bytes.Index(l.data, []byte("\n$"+name+"\n"))
	if i < 0 {
		t.Fatalf("no $%s", name)
	}
	return i + len(name) + 3
}

func (l binLayout) u64(at int) int { return int(binary.LittleEndian.Uint64(l.data[at:])) }
func (l binLayout) i32(at int) int { return int(int32(binary.LittleEndian.Uint32(l.data[at:]))) }

// nodeTags returns the offsets of the node tags of the first node block with at least
// two nodes.
func (l binLayout) nodeTags(t *testing.T) []int {
	at := l.section(t, "Nodes")
	blocks := l.u64(at)
	at += 32
	for range blocks {
		n := l.u64(at + 12)
		at += 20
		if n >= 2 {
			var offs []int
			for k := range n {
				offs = append(offs, at+8*k)
			}
			return offs
		}
		at += 8*n + 24*n
	}
	t.Fatal("no node block with two nodes")
	return nil
}

// firstVolume returns the offset of the first volume element's tag and its node count.
func (l binLayout) firstVolume(t *testing.T) (int, int) {
	nodes := map[int]int{15: 1, 1: 2, 2: 3, 3: 4, 4: 4, 5: 8, 9: 6, 11: 10}
	at := l.section(t, "Elements")
	blocks := l.u64(at)
	at += 32
	for range blocks {
		dim, typ, n := l.i32(at), l.i32(at+8), l.u64(at+12)
		at += 20
		if dim == 3 {
			return at, nodes[typ]
		}
		at += 8 * n * (1 + nodes[typ])
	}
	t.Fatal("no volume block")
	return 0, 0
}

// TestBinaryErrors changes gmsh's binary files at offsets found from the format's
// layout and expects the error there.
func TestBinaryErrors(t *testing.T) {
	le := binary.LittleEndian
	for _, name := range []string{"cube_tet4.bin.msh", "hex8.bin.msh", "cube_tet10.bin.msh"} {
		orig, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		l := binLayout{orig}
		tags := l.nodeTags(t)
		elem, k := l.firstVolume(t)
		// The first coordinate of the node block found above.
		coord := tags[len(tags)-1] + 8
		for _, c := range []struct {
			what string
			at   int
			kind error
			edit func(b []byte)
		}{
			{"duplicate node", tags[1], ErrDuplicate, func(b []byte) { copy(b[tags[1]:], b[tags[0]:tags[0]+8]) }},
			{"undefined node", elem + 8, ErrUndefined, func(b []byte) { le.PutUint64(b[elem+8:], 1<<50) }},
			{"duplicate element", elem + 8*(1+k), ErrDuplicate, func(b []byte) { copy(b[elem+8*(1+k):], b[elem:elem+8]) }},
			{"NaN coordinate", coord, ErrSyntax, func(b []byte) { le.PutUint64(b[coord:], math.Float64bits(math.NaN())) }},
			{"node tag 0", tags[0], ErrSyntax, func(b []byte) { le.PutUint64(b[tags[0]:], 0) }},
			{"node tag ≥ 2^63", tags[0], ErrSyntax, func(b []byte) { le.PutUint64(b[tags[0]:], 1<<63) }},
			{"byte order", 20, ErrVersion, func(b []byte) { le.PutUint32(b[20:], 2) }},
			{"data size", 18, ErrVersion, func(b []byte) { b[18] = '4' }},
			{"unknown type", elem - 12, ErrUnsupported, func(b []byte) { le.PutUint32(b[elem-12:], 1000) }},
			{"prism", elem - 12, ErrUnsupported, func(b []byte) { le.PutUint32(b[elem-12:], 6) }},
		} {
			b := bytes.Clone(orig)
			c.edit(b)
			_, _, err := Read(bytes.NewReader(b), name)
			if !errors.Is(err, c.kind) || !errors.Is(err, ErrMesh) {
				t.Errorf("%s, %s: %v, want %v", name, c.what, err, c.kind)
				continue
			}
			if want := fmt.Sprintf("%s: byte %d: ", name, c.at); !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s, %s: %q does not start with %q", name, c.what, err, want)
			}
		}
	}
}

// TestPrefixes cuts files short everywhere (at every byte of the small ones, at a few
// hundred places in the others): always ErrTruncated, never another error or a mesh,
// except for the whole file without its last newline.
func TestPrefixes(t *testing.T) {
	for _, name := range []string{"hex8.msh", "hex8.bin.msh", "sparse.msh", "cube_tet10.msh", "cube_tet10.bin.msh", "two_tet4.bin.msh"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, len(data)/300)
		if name == "sparse.msh" {
			// Its last section is one to skip: cuts after $EndElements leave a whole
			// mesh, so stop where that section begins.
			data = data[:bytes.Index(data, []byte("$NodeData"))]
		}
		for n := 0; n < len(data)-1; n += step {
			_, _, err := Read(bytes.NewReader(data[:n]), name)
			if !errors.Is(err, ErrTruncated) {
				t.Fatalf("%s cut at %d: %v, want ErrTruncated", name, n, err)
			}
			// Located no further than the cut.
			var pe *ParseError
			errors.As(err, &pe)
			lines := bytes.Count(data[:n], []byte("\n")) + 1
			if pe.Offset > int64(n) || pe.Line > lines || pe.Offset < 0 && pe.Line == 0 && n > 0 && !strings.Contains(pe.Msg, "no $Elements") {
				t.Fatalf("%s cut at %d (line %d): %v", name, n, lines, err)
			}
		}
		if _, _, err := Read(bytes.NewReader(data[:len(data)-1]), name); err != nil {
			t.Errorf("%s without its last newline: %v", name, err)
		}
	}
}

// sub replaces the one occurrence of old in s.
func sub(s, old, new string) string {
	if strings.Count(s, old) != 1 {
		panic("sub: " + old)
	}
	return strings.Replace(s, old, new, 1)
}

// TestTextErrors covers the syntax problems of the text sections one by one, each in a
// small file whose broken line is known.
func TestTextErrors(t *testing.T) {
	const head = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
	const nodes = "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n"
	const elems = "$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3 4\n$EndElements\n"
	for _, c := range []struct {
		what, text string
		kind       error
		line       int
	}{
		{"no MeshFormat", "$Nodes\n", ErrSyntax, 1},
		{"MSH 1", "$NOD\n", ErrVersion, 1},
		{"version 4.0", "$MeshFormat\n4 0 8\n$EndMeshFormat\n", ErrVersion, 2},
		{"file type 2", "$MeshFormat\n4.1 2 8\n$EndMeshFormat\n", ErrSyntax, 2},
		{"garbage between sections", head + "hello\n" + nodes + elems, ErrSyntax, 4},
		{"stray end", head + "$EndNodes\n", ErrSyntax, 4},
		{"second Nodes", head + nodes + nodes + elems, ErrSyntax, 16},
		{"Elements first", head + elems + nodes, ErrSyntax, 4},
		{"Entities late", head + nodes + elems + "$Entities\n0 0 0 0\n$EndEntities\n", ErrSyntax, 21},
		{"text after header", head + "$Nodes 1\n", ErrSyntax, 4},
		{"negative count", head + "$Nodes\n1 -4 1 4\n", ErrSyntax, 5},
		{"huge int", head + "$Nodes\n1 99999999999999999999 1 4\n", ErrSyntax, 5},
		{"float tag", head + sub(nodes, "4\n1\n", "4\n1.0\n") + elems, ErrSyntax, 7},
		{"Go syntax", head + sub(nodes, "0 0 0\n", "0 0 1_0\n") + elems, ErrSyntax, 11},
		{"inf", head + sub(nodes, "0 0 0\n", "0 0 inf\n") + elems, ErrSyntax, 11},
		{"overflow", head + sub(nodes, "0 0 0\n", "0 0 1e999\n") + elems, ErrSyntax, 11},
		{"parametric 2", head + sub(nodes, "3 1 0 4", "3 1 2 4") + elems, ErrSyntax, 6},
		{"block too big", head + sub(nodes, "3 1 0 4", "3 1 0 5") + elems, ErrSyntax, 6},
		{"cut number", head + nodes[:len(nodes)-17] + "0.", ErrTruncated, 13},
		{"blocks short", head + "$Nodes\n2 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n", ErrSyntax, 15},
		{"node count", head + "$Nodes\n1 5 1 5\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 2 3\n$EndNodes\n", ErrSyntax, 5},
		{"element count", head + nodes + "$Elements\n1 2 1 1\n3 1 4 1\n1 1 2 3 4\n$EndElements\n", ErrSyntax, 17},
		{"dimension mismatch", head + nodes + "$Elements\n1 1 1 1\n2 1 4 1\n1 1 2 3 4\n$EndElements\n", ErrSyntax, 18},
		{"short element line", head + nodes + "$Elements\n1 2 1 2\n3 1 4 2\n1 1 2 3\n2 1 2 3 4\n$EndElements\n", ErrSyntax, 19},
		{"long element line", head + nodes + "$Elements\n1 2 1 2\n3 1 4 2\n1 1 2 3 4 4\n2 1 2 3 4\n$EndElements\n", ErrSyntax, 19},
		{"unknown type", head + nodes + "$Elements\n1 1 1 1\n3 1 77 1\n1 1 2 3 4\n$EndElements\n", ErrUnsupported, 18},
		{"physical tag 0", head + "$Entities\n0 0 0 1\n1 0 0 0 1 1 1 1 0 0\n$EndEntities\n", ErrSyntax, 6},
		{"duplicate entity", head + "$Entities\n0 0 0 2\n1 0 0 0 1 1 1 0 0\n1 0 0 0 1 1 1 0 0\n$EndEntities\n", ErrDuplicate, 7},
		{"unquoted name", head + "$PhysicalNames\n1\n3 1 solid\n$EndPhysicalNames\n", ErrSyntax, 6},
		{"unclosed name", head + "$PhysicalNames\n1\n3 1 \"solid\n$EndPhysicalNames\n", ErrSyntax, 6},
		{"name twice", head + "$PhysicalNames\n2\n3 1 \"a\"\n3 1 \"b\"\n$EndPhysicalNames\n", ErrDuplicate, 7},
		{"one name, two groups", head + "$PhysicalNames\n2\n2 1 \"a\"\n2 2 \"a\"\n$EndPhysicalNames\n", ErrDuplicate, 7},
		{"one name, two groups", head + "$PhysicalNames\n2\n2 1 \"a\"\n2 2 \"a\"\n$EndPhysicalNames\n", ErrDuplicate, 7},
		{"section never ends", head + "$Comments\nhello\n", ErrTruncated, 4},
		{"no Elements", head + nodes, ErrTruncated, 0},
	} {
		_, _, err := Read(strings.NewReader(c.text), "t.msh")
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", c.what, err, c.kind)
			continue
		}
		want := "t.msh: "
		if c.line > 0 {
			want = fmt.Sprintf("t.msh:%d: ", c.line)
		}
		if !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %q does not start with %q", c.what, err, want)
		}
	}
}
