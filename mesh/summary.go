package mesh

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Summary describes a mesh in numbers: what `blockamg mesh FILE.msh` prints.
type Summary struct {
	Nodes    int            `json:"nodes"`
	Elements []TypeCount    `json:"elements"` // volume types, then surface types, as the mesh lists them
	Groups   []GroupSummary `json:"groups"`   // as Mesh.Groups lists them
	// Ungrouped is the number of volume elements in no physical group (Group 0).
	Ungrouped int `json:"ungrouped"`
	// Min and Max are the corners of the bounding box of the nodes (zero for no nodes).
	Min     [3]float64 `json:"min"`
	Max     [3]float64 `json:"max"`
	Quality []Quality  `json:"quality"` // one per volume type, in Mesh.Volumes' order
}

// TypeCount is the number of elements of one type.
type TypeCount struct {
	Type  Type `json:"type"`
	Count int  `json:"count"`
}

// GroupSummary is a physical group with the number of its elements.
type GroupSummary struct {
	Group
	Elements int `json:"elements"`
}

// Quality is the scaled Jacobian of a volume type's elements: per element the smallest
// over its corners of the Jacobian determinant divided by the lengths of the three
// edge vectors there (for a tet times √2), so 1 for a cube or a regular tetrahedron,
// toward 0 for flat elements and negative for inverted ones (see jacobian.go for the
// tet10's curved edges). An element's value is at most 1 (a single tetrahedron corner
// reaches √2 where its edges are orthogonal, but then another corner is lower) and at
// least −√2.
type Quality struct {
	Type Type    `json:"type"`
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
	// Worst is the tag of the element with the smallest value (its index in its
	// Elements when that has no tags).
	Worst int64 `json:"worst"`
	// Inverted counts the elements whose value is ≤ 0.
	Inverted int `json:"inverted"`
}

// Summary computes the mesh's summary. The mesh must be well formed (as Read returns it
// or Check accepts it); its elements may be of any quality.
func (m *Mesh) Summary() Summary {
	s := Summary{Nodes: m.Nodes()}
	for i := 0; i+3 <= len(m.Coords); i += 3 {
		for d := range 3 {
			x := m.Coords[i+d]
			if i == 0 || x < s.Min[d] {
				s.Min[d] = x
			}
			if i == 0 || x > s.Max[d] {
				s.Max[d] = x
			}
		}
	}
	count := map[[2]int]int{}
	for _, list := range []struct {
		sets []Elements
		dim  int
	}{{m.Volumes, 3}, {m.Surfaces, 2}} {
		for _, e := range list.sets {
			s.Elements = append(s.Elements, TypeCount{e.Type, e.Len()})
			for _, g := range e.Group {
				count[[2]int{list.dim, int(g)}]++
			}
		}
	}
	s.Ungrouped = count[[2]int{3, 0}]
	for _, g := range m.Groups {
		s.Groups = append(s.Groups, GroupSummary{g, count[[2]int{g.Dim, int(g.Tag)}]})
	}
	var c corners
	for vi := range m.Volumes {
		e := &m.Volumes[vi]
		q := Quality{Type: e.Type, Min: math.Inf(1), Max: math.Inf(-1)}
		sum := 0.0
		for i := range e.Len() {
			c.measure(e, i, m.Coords)
			v := c.minScaled()
			sum += v
			if v < q.Min {
				q.Min, q.Worst = v, tagOf(e, i)
			}
			q.Max = max(q.Max, v)
			if v <= 0 {
				q.Inverted++
			}
		}
		if n := e.Len(); n > 0 {
			q.Mean = sum / float64(n)
		} else {
			q.Min, q.Max, q.Worst = 0, 0, -1
		}
		s.Quality = append(s.Quality, q)
	}
	return s
}

// Write prints the summary as small text tables.
func (s Summary) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	p := func(format string, args ...any) { fmt.Fprintf(tw, format, args...) }
	p("nodes\t%d\t\n", s.Nodes)
	for _, e := range s.Elements {
		p("%v\t%d\t\n", e.Type, e.Count)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "bounding box [%.6g, %.6g] × [%.6g, %.6g] × [%.6g, %.6g]\n",
		s.Min[0], s.Max[0], s.Min[1], s.Max[1], s.Min[2], s.Max[2])

	fmt.Fprintln(w, "\ngroups")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p("  dim\ttag\tname\telements\n")
	for _, g := range s.Groups {
		p("  %d\t%d\t%s\t%d\n", g.Dim, g.Tag, nameOr(g.Name), g.Elements)
	}
	if s.Ungrouped > 0 {
		p("  3\t-\t(none)\t%d\n", s.Ungrouped)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintln(w, "\nquality (scaled Jacobian: 1 best, ≤ 0 inverted)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p("  type\tmin\tmean\tmax\tworst element\tinverted\n")
	for _, q := range s.Quality {
		p("  %v\t%.3f\t%.3f\t%.3f\t%d\t%d\n", q.Type, q.Min, q.Mean, q.Max, q.Worst, q.Inverted)
	}
	return tw.Flush()
}

func nameOr(n string) string {
	if n == "" {
		return "-"
	}
	return strings.ReplaceAll(n, "\t", " ")
}
