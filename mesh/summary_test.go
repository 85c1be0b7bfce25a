package mesh

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// verdictTet is the scaled Jacobian of a tet by the Verdict library's formula (edges
// L0 = 1−0, L1 = 2−1, L2 = 0−2, L3 = 3−0, L4 = 3−1, L5 = 3−2; 6V·√2 over the largest
// product of the three edge lengths at a corner): a reference for the corner tables.
func verdictTet(x []float64) float64 {
	p := func(i int) [3]float64 { return [3]float64{x[3*i], x[3*i+1], x[3*i+2]} }
	sub := func(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
	L := [6][3]float64{sub(p(1), p(0)), sub(p(2), p(1)), sub(p(0), p(2)), sub(p(3), p(0)), sub(p(3), p(1)), sub(p(3), p(2))}
	var l [6]float64
	for i := range L {
		l[i] = norm(L[i])
	}
	j := dot(cross(L[2], L[0]), L[3])
	m := max(l[0]*l[2]*l[3], l[0]*l[1]*l[4], l[1]*l[2]*l[5], l[3]*l[4]*l[5])
	return j * math.Sqrt2 / m
}

func TestQualityReference(t *testing.T) {
	regular := []float64{1, 1, 1, -1, 1, -1, 1, -1, -1, -1, -1, 1}
	for _, c := range []struct {
		what string
		m    *Mesh
		want float64
	}{
		{"regular tet", one(Tet4, regular), 1},
		{"Gmsh's reference tet", one(Tet4, refTet), 1 / math.Sqrt2},
		{"straight tet10", one(Tet10, refTet10()), 1 / math.Sqrt2},
		{"cube", one(Hex8, refHex), 1},
	} {
		q := c.m.Summary().Quality[0]
		if math.Abs(q.Min-c.want) > 1e-15 || q.Min != q.Max || q.Worst != 7 || q.Inverted != 0 {
			t.Errorf("%s: %+v, want %v", c.what, q, c.want)
		}
	}
	// Gmsh's reference tet with two nodes swapped: its right-angled corner scores −√2,
	// the lowest value.
	inv := append([]float64(nil), refTet...)
	copy(inv[3:6], refTet[6:9])
	copy(inv[6:9], refTet[3:6])
	if q := one(Tet4, inv).Summary().Quality[0]; math.Abs(q.Min+math.Sqrt2) > 1e-15 || q.Inverted != 1 {
		t.Errorf("inverted reference tet: %+v, want min −√2, 1 inverted", q)
	}
	// A hex sheared by 45°: its corners are 45° and 135° apart, sin 45° = 1/√2.
	sheared := append([]float64(nil), refHex...)
	for a := 4; a < 8; a++ {
		sheared[3*a] += 2
	}
	if q := one(Hex8, sheared).Summary().Quality[0]; math.Abs(q.Min-1/math.Sqrt2) > 1e-15 {
		t.Errorf("sheared hex: %+v", q)
	}
}

func TestSummary(t *testing.T) {
	for _, name := range []string{"cube_tet4", "two_tet4"} {
		path := "testdata/" + name + ".msh"
		m, _ := mustRead(t, path)
		s := m.Summary()
		nm := naiveRead(t, path)
		if s.Nodes != nm.numNodes || s.Min != [3]float64{} || s.Max[1] != 1 || s.Max[2] != 1 || s.Ungrouped != 0 {
			t.Errorf("%s: %d nodes, box %v %v, %d ungrouped", name, s.Nodes, s.Min, s.Max, s.Ungrouped)
		}
		// Elements per group and per type by the naive reading.
		perGroup := map[[2]int]int{}
		perType := map[int]int{}
		for _, e := range nm.elems {
			for _, g := range nm.phys[[2]int{e.dim, e.entity}] {
				perGroup[[2]int{e.dim, g}]++
			}
			perType[e.gtype]++
		}
		for _, g := range s.Groups {
			if g.Elements != perGroup[[2]int{g.Dim, int(g.Tag)}] || g.Elements == 0 {
				t.Errorf("%s: group %+v, naive count %d", name, g, perGroup[[2]int{g.Dim, int(g.Tag)}])
			}
		}
		if want := []TypeCount{{Tet4, perType[4]}, {Tri3, perType[2]}}; !slices.Equal(s.Elements, want) {
			t.Errorf("%s: elements %v, want %v", name, s.Elements, want)
		}
		// Quality against Verdict's formula, element by element.
		v := &m.Volumes[0]
		lo, hi, sum, worst := math.Inf(1), math.Inf(-1), 0.0, int64(0)
		for e := range v.Len() {
			var x []float64
			for _, n := range v.Nodes[4*e : 4*e+4] {
				x = append(x, m.Coords[3*n:3*n+3]...)
			}
			q := verdictTet(x)
			if q < lo {
				lo, worst = q, v.Tag[e]
			}
			hi, sum = max(hi, q), sum+q
		}
		q := s.Quality[0]
		mean := sum / float64(v.Len())
		if q.Type != Tet4 || math.Abs(q.Min-lo) > 1e-12 || math.Abs(q.Max-hi) > 1e-12 || math.Abs(q.Mean-mean) > 1e-12 || q.Worst != worst || q.Inverted != 0 {
			t.Errorf("%s: quality %+v; Verdict: min %v mean %v max %v worst %d", name, q, lo, mean, hi, worst)
		}
	}
}

func TestSummaryWrite(t *testing.T) {
	m, _ := mustRead(t, "testdata/two_tet4.bin.msh")
	m.Volumes[0].Group[0] = 0 // one element in no group
	var b strings.Builder
	if err := m.Summary().Write(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	fields := func(line string) string { return strings.Join(strings.Fields(line), " ") }
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		lines = append(lines, fields(l))
	}
	for _, want := range []string{
		"nodes 142", "tet4 368", "tri3 52",
		"bounding box [0, 2] × [0, 1] × [0, 1]",
		"dim tag name elements", "3 1 steel 183", "3 2 rubber 184", "2 3 fixed 26", "2 4 load 26", "3 - (none) 1",
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("no line %q in\n%s", want, out)
		}
	}
	if !strings.Contains(out, "quality (scaled Jacobian") || !strings.Contains(out, "\n  tet4  0.") {
		t.Errorf("no quality table in\n%s", out)
	}
}

// TestTypeText: every element type's JSON is its name and reads back as itself; a
// name no type has is refused.
func TestTypeText(t *testing.T) {
	for typ, info := range typeInfo {
		b, err := json.Marshal(typ)
		if err != nil || string(b) != strconv.Quote(info.name) {
			t.Errorf("%d: %s, %v; want %q", int(typ), b, err, info.name)
			continue
		}
		var back Type
		if err := json.Unmarshal(b, &back); err != nil || back != typ {
			t.Errorf("%s: read back as %v, %v", b, back, err)
		}
	}
	var x Type
	if err := json.Unmarshal([]byte(`"prism6"`), &x); err == nil {
		t.Error(`"prism6": no error`)
	}
	if _, err := json.Marshal(Type(99)); err == nil {
		t.Error("Type(99): no error")
	}
}
