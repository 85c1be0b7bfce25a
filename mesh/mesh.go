package mesh

import (
	"errors"
	"fmt"
)

// ErrMesh is wrapped by every error a mesh's content causes: a malformed file, an
// unsupported element type, a degenerate or inverted element, a duplicate tag.
var ErrMesh = errors.New("mesh")

// Type is an element type. Volume types (Tet4, Tet10, Hex8) carry the elasticity;
// surface types (Tri3, Tri6, Quad4) carry boundary conditions and tractions.
type Type int

// The element types, with Gmsh's node ordering (gmsh.info/doc/texinfo, "Node ordering").
const (
	Tet4  Type = iota + 1 // 4-node tetrahedron (Gmsh type 4)
	Tet10                 // 10-node tetrahedron (Gmsh type 11): corners, then edges 01 12 20 30 32 31
	Hex8                  // 8-node hexahedron (Gmsh type 5)
	Tri3                  // 3-node triangle (Gmsh type 2)
	Tri6                  // 6-node triangle (Gmsh type 9)
	Quad4                 // 4-node quadrilateral (Gmsh type 3)
)

var typeInfo = map[Type]struct {
	name       string
	nodes, dim int
}{
	Tet4:  {"tet4", 4, 3},
	Tet10: {"tet10", 10, 3},
	Hex8:  {"hex8", 8, 3},
	Tri3:  {"tri3", 3, 2},
	Tri6:  {"tri6", 6, 2},
	Quad4: {"quad4", 4, 2},
}

// Nodes is the number of nodes of an element of type t (0 for an unknown type).
func (t Type) Nodes() int { return typeInfo[t].nodes }

// Dim is the element's dimension: 3 for volumes, 2 for surfaces.
func (t Type) Dim() int { return typeInfo[t].dim }

// String is the type's short name ("tet4", "tet10", "hex8", …).
func (t Type) String() string {
	if i, ok := typeInfo[t]; ok {
		return i.name
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// MarshalText gives the type's name (String), so that JSON names the type ("tet4")
// rather than its number.
func (t Type) MarshalText() ([]byte, error) {
	if _, ok := typeInfo[t]; !ok {
		return nil, fmt.Errorf("mesh: no element type %d", int(t))
	}
	return []byte(t.String()), nil
}

// UnmarshalText reads a type's name as MarshalText writes it.
func (t *Type) UnmarshalText(b []byte) error {
	for k, i := range typeInfo {
		if i.name == string(b) {
			*t = k
			return nil
		}
	}
	return fmt.Errorf("mesh: no element type named %q", b)
}

// Elements is a set of elements of one type. Element e's nodes are
// Nodes[e·n : (e+1)·n] with n = Type.Nodes(), indices into Mesh.Coords' nodes.
type Elements struct {
	Type  Type
	Nodes []int32
	// Group is the physical group (its tag) each element belongs to, 0 for none.
	Group []int32
	// Tag is each element's tag in the file, for messages.
	Tag []int64
}

// Len is the number of elements.
func (s *Elements) Len() int { return len(s.Group) }

// Group is a physical group: a named set of volumes (a material) or of surfaces (a
// boundary where displacements are fixed or a traction acts).
type Group struct {
	Dim  int    `json:"dim"`  // 3: volume, 2: surface
	Tag  int32  `json:"tag"`  // the group's tag, as in Elements.Group
	Name string `json:"name"` // the group's name ("" when the file gives none)
}

// Mesh is an unstructured mesh of volume elements with its boundary surfaces.
//
// Node n sits at Coords[3n : 3n+3]. Every node is used by at least one volume
// element (a reader drops the others). The node order is the mesh's (Renumber
// changes it); NodeTag keeps the file's tags for messages and output.
type Mesh struct {
	Coords  []float64
	NodeTag []int64
	// Volumes holds the 3D elements, one Elements per type present.
	Volumes []Elements
	// Surfaces holds the 2D elements that belong to a physical group.
	Surfaces []Elements
	Groups   []Group
}

// Nodes is the number of nodes.
func (m *Mesh) Nodes() int { return len(m.Coords) / 3 }

// GroupByName returns the group of dimension dim called name, or by its tag when
// name is a decimal number.
func (m *Mesh) GroupByName(dim int, name string) (Group, bool) {
	for _, g := range m.Groups {
		if g.Dim == dim && (g.Name == name || fmt.Sprint(g.Tag) == name) {
			return g, true
		}
	}
	return Group{}, false
}
