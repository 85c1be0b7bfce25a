package mesh

import (
	"fmt"
	"math"
)

// DegenerateTol is the relative size below which Check calls a corner degenerate: the
// triple product of its three edge vectors (its Jacobian determinant, up to the
// reference element's factor: 1 for tets, 8 for hexes) is at most DegenerateTol·h³ in
// magnitude, h the element's longest edge vector. A cube corner scores 1 and a regular
// tetrahedron's 1/√2, so only a corner flattened to rounding noise, whose stiffness
// would be singular, falls below it; poor but usable shapes are Summary's business.
const DegenerateTol = 1e-10

// ElementError is a volume element Check refuses.
type ElementError struct {
	Tag    int64   // the element's tag (its index in its Elements when it has no tags)
	Type   Type    // its type
	Corner int     // the corner (local node number) with the smallest Jacobian
	DetJ   float64 // the Jacobian determinant there, relative to Gmsh's reference element
	Size   float64 // h, the element's longest edge vector
	Kind   error   // ErrInverted or ErrDegenerate
	More   int     // how many other volume elements are bad as well
}

// Error names the element, its type and the Jacobian.
func (e *ElementError) Error() string {
	what := "inverted"
	if e.Kind == ErrDegenerate {
		what = "degenerate"
	}
	s := fmt.Sprintf("element %d (%v) is %s: Jacobian %.6g at corner %d (longest edge %.6g)", e.Tag, e.Type, what, e.DetJ, e.Corner, e.Size)
	if e.More > 0 {
		s += fmt.Sprintf("; %d more bad elements", e.More)
	}
	return s
}

// Unwrap returns Kind (which wraps ErrMesh).
func (e *ElementError) Unwrap() error { return e.Kind }

// Check validates the mesh. First its structure: slice lengths, node indices in range,
// finite coordinates, every node used by a volume element, volume and surface types in
// their lists, group tags listed in Groups (an error wrapping ErrInvalid). Then every
// volume element's corners, where the Jacobian must be positive and not degenerate
// (see DegenerateTol): corner volumes for tet4 and hex8 (the Jacobian at each of the 8
// corners), for tet10 the Jacobian of the quadratic map at the 4 vertices, which also
// catches a mid-edge node moved far enough to fold an edge back. The first bad element
// is returned as an *ElementError wrapping ErrInverted or ErrDegenerate, with the count
// of the others.
//
// The vertex test is necessary, not sufficient, for a tet10: its Jacobian is a cubic
// polynomial that can turn negative inside while positive at the vertices.
func (m *Mesh) Check() error {
	if err := m.validate(); err != nil {
		return err
	}
	var first *ElementError
	bad := 0
	var c corners
	for vi := range m.Volumes {
		s := &m.Volumes[vi]
		for e := range s.Len() {
			c.measure(s, e, m.Coords)
			w := c.worst()
			tol := DegenerateTol * c.h * c.h * c.h
			var kind error
			switch {
			case c.triple[w] < -tol:
				kind = ErrInverted
			case c.triple[w] <= tol:
				kind = ErrDegenerate
			default:
				continue
			}
			if bad++; first == nil {
				first = &ElementError{Tag: tagOf(s, e), Type: s.Type, Corner: w, DetJ: c.triple[w] / c.ref, Size: c.h, Kind: kind}
			}
		}
	}
	if first != nil {
		first.More = bad - 1
		return first
	}
	return nil
}

// tagOf is element e's tag, or its index when the set has no tags.
func tagOf(s *Elements, e int) int64 {
	if len(s.Tag) == 0 {
		return int64(e)
	}
	return s.Tag[e]
}

// validate checks the mesh's structure, so that what follows can index freely.
func (m *Mesh) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
	}
	if len(m.Coords)%3 != 0 {
		return bad("%d coordinates, not a multiple of 3", len(m.Coords))
	}
	n := m.Nodes()
	if int64(n) > math.MaxInt32 {
		return bad("%d nodes, more than node indices (int32) reach", n)
	}
	if m.NodeTag != nil && len(m.NodeTag) != n {
		return bad("%d node tags for %d nodes", len(m.NodeTag), n)
	}
	for i, x := range m.Coords {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return bad("node %d has coordinate %v", i/3, x)
		}
	}
	groups := map[[2]int]bool{}
	for _, g := range m.Groups {
		if g.Dim != 2 && g.Dim != 3 || g.Tag <= 0 {
			return bad("group %d %q of dimension %d: groups are volumes (3) or surfaces (2) with positive tags", g.Tag, g.Name, g.Dim)
		}
		groups[[2]int{g.Dim, int(g.Tag)}] = true
	}
	used := make([]bool, n)
	for _, list := range []struct {
		sets []Elements
		dim  int
		what string
	}{{m.Volumes, 3, "Volumes"}, {m.Surfaces, 2, "Surfaces"}} {
		seen := map[Type]bool{}
		for si := range list.sets {
			s := &list.sets[si]
			if s.Type.Dim() != list.dim {
				return bad("%s[%d] holds %v elements", list.what, si, s.Type)
			}
			if seen[s.Type] {
				return bad("%s lists %v twice", list.what, s.Type)
			}
			seen[s.Type] = true
			k := s.Type.Nodes()
			if len(s.Nodes) != k*s.Len() || s.Tag != nil && len(s.Tag) != s.Len() {
				return bad("%v: %d groups, %d tags and %d node indices do not fit", s.Type, s.Len(), len(s.Tag), len(s.Nodes))
			}
			for i, v := range s.Nodes {
				if v < 0 || int(v) >= n {
					return bad("%v element %d has node index %d, outside [0, %d)", s.Type, tagOf(s, i/k), v, n)
				}
				if list.dim == 3 {
					used[v] = true
				} else if !used[v] {
					return bad("%v element %d has node %d, which no volume element has", s.Type, tagOf(s, i/k), v)
				}
			}
			for i, g := range s.Group {
				if (g != 0 || list.dim == 2) && !groups[[2]int{list.dim, int(g)}] {
					return bad("%v element %d is in group %d, which Groups does not list for dimension %d", s.Type, tagOf(s, i), g, list.dim)
				}
			}
		}
	}
	for i, u := range used {
		if !u {
			return bad("node %d is in no volume element", i)
		}
	}
	return nil
}
