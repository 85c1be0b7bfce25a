package fem_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
)

// TestInputErrors: each kind of bad mesh, mask, material or load gives an error
// wrapping its sentinel, saying what is wrong.
func TestInputErrors(t *testing.T) {
	fresh := func() *mesh.Mesh { return boxMesh(t, mesh.Tet4, 2, 1, 1, 0, 1) }
	for _, c := range []struct {
		name   string
		edit   func(m *mesh.Mesh) fem.ElasticityOptions
		target error
		says   string
	}{
		{"surface type as volume", func(m *mesh.Mesh) fem.ElasticityOptions {
			m.Volumes[0].Type = mesh.Tri3
			return fem.ElasticityOptions{}
		}, mesh.ErrMesh, "no volume element"},
		{"node out of range", func(m *mesh.Mesh) fem.ElasticityOptions {
			m.Volumes[0].Nodes[9] = int32(m.Nodes())
			return fem.ElasticityOptions{}
		}, mesh.ErrMesh, "tag 102"},
		{"repeated node", func(m *mesh.Mesh) fem.ElasticityOptions {
			m.Volumes[0].Nodes[5] = m.Volumes[0].Nodes[4]
			return fem.ElasticityOptions{}
		}, mesh.ErrMesh, "twice"},
		{"short node list", func(m *mesh.Mesh) fem.ElasticityOptions {
			m.Volumes[0].Nodes = m.Volumes[0].Nodes[1:]
			return fem.ElasticityOptions{}
		}, mesh.ErrMesh, "node indices"},
		{"face off the mesh", func(m *mesh.Mesh) fem.ElasticityOptions {
			m.Surfaces[0].Nodes[2] = -1
			return fem.ElasticityOptions{}
		}, mesh.ErrMesh, "not a mesh node"},
		{"NaN coordinate", func(m *mesh.Mesh) fem.ElasticityOptions {
			m.Coords[4] = math.NaN()
			return fem.ElasticityOptions{}
		}, mesh.ErrMesh, "NaN"},
		{"mask above 7", func(m *mesh.Mesh) fem.ElasticityOptions {
			f := make([]uint8, m.Nodes())
			f[3] = 8
			return fem.ElasticityOptions{Fixed: f}
		}, fem.ErrLoad, "above 7"},
		{"mask length", func(m *mesh.Mesh) fem.ElasticityOptions {
			return fem.ElasticityOptions{Fixed: make([]uint8, 3)}
		}, fem.ErrLoad, "mask"},
	} {
		m := fresh()
		_, err := fem.NewElasticity(m, c.edit(m))
		if !errors.Is(err, c.target) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: error %v, want %v saying %q", c.name, err, c.target, c.says)
		}
	}

	m := fresh()
	el := mustElasticity(t, m, fem.ElasticityOptions{})
	for _, mats := range [][]fem.Material{
		{{Group: "left", E: 1, Nu: 0.3}},                                // "right" has none
		{{Group: "nowhere", E: 1, Nu: 0.3}, {E: 1, Nu: 0.3}},            // unknown group
		{{Group: "left", E: 1, Nu: 0.3}, {Group: "1", E: 2, Nu: 0.3}},   // the same group twice
		{{E: 1, Nu: 0.3}, {E: 2, Nu: 0.3}},                              // two defaults
		{{Group: "left", E: -1, Nu: 0.3}, {E: 1, Nu: 0.3}},              // bad modulus
		{{Group: "right", E: 1, Nu: 0.5}, {Group: "left", E: 1, Nu: 0}}, // bad ratio
	} {
		if _, _, err := el.Materials(mats...); !errors.Is(err, fem.ErrMaterial) {
			t.Errorf("materials %v: error %v", mats, err)
		}
	}
	// A bad value is named with its entry, before any element is assigned.
	if _, _, err := el.Materials(fem.Material{Group: "right", E: 1, Nu: 0.5}, fem.Material{E: 1, Nu: 0.3}); err == nil ||
		err.Error() != `material of volume group "right": fem: invalid material: Poisson ratio 0.5 outside (−1, 0.5)` {
		t.Errorf("bad ratio of right: %v", err)
	}
	for _, mt := range []fem.Material{{E: 0, Nu: 0}, {E: math.Inf(1), Nu: 0}, {E: math.NaN(), Nu: 0}, {E: 1, Nu: -1}, {E: 1, Nu: math.NaN()}} {
		if err := mt.Check(); !errors.Is(err, fem.ErrMaterial) {
			t.Errorf("Check(%v) = %v, want ErrMaterial", mt, err)
		}
	}
	if err := (fem.Material{E: 1e-300, Nu: -0.999}).Check(); err != nil {
		t.Errorf("Check of a valid material: %v", err)
	}
	E, nu, err := el.Materials(fem.Material{Group: "left", E: 1, Nu: 0.3}, fem.Material{E: 2, Nu: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	for e := range E {
		want := 2.0
		if el.ElementGroup(e) == groupLeft {
			want = 1
		}
		if E[e] != want {
			t.Fatalf("element %d of group %d: E = %v, want %v", e, el.ElementGroup(e), E[e], want)
		}
	}
	if _, err := el.VonMises(make([]float64, 3*m.Nodes()), E, nu[1:]); !errors.Is(err, fem.ErrMaterial) {
		t.Errorf("VonMises with short ν: %v", err)
	}

	fixed := make([]uint8, m.Nodes())
	if err := fem.FixGroup(m, fixed, "nowhere", 7); !errors.Is(err, fem.ErrLoad) {
		t.Errorf("FixGroup of an unknown group: %v", err)
	}
	if err := fem.FixGroup(m, fixed, "", 7); !errors.Is(err, fem.ErrLoad) {
		t.Errorf("FixGroup without a group: %v", err)
	}
	if err := fem.FixGroup(m, fixed, "xmin", 9); !errors.Is(err, fem.ErrLoad) {
		t.Errorf("FixGroup with mask 9: %v", err)
	}
	b := make([]float64, 3*m.Nodes())
	nan := func([3]float64) [3]float64 { return [3]float64{math.NaN(), 0, 0} }
	for _, l := range []fem.Loads{
		{Body: []fem.BodyForce{{Group: "nowhere", Force: linearForce}}},
		{Body: []fem.BodyForce{{Force: nan}}},
		{Traction: []fem.Traction{{Group: "left", Force: linearForce}}}, // a volume group
		{Traction: []fem.Traction{{Force: linearForce}}},                // no group
	} {
		if err := el.RHS(b, nil, l); !errors.Is(err, fem.ErrLoad) {
			t.Errorf("loads %+v: error %v", l, err)
		}
	}

	// RHS of a fixed problem with prescribed values wants the matrix of the latest
	// Numeric (its diagonal and eliminated couplings).
	fixed = boundaryMask(t, m)
	el = mustElasticity(t, m, fem.ElasticityOptions{Fixed: fixed})
	A := el.NewMatrix()
	func() {
		defer func() {
			if recover() == nil {
				t.Error("RHS with prescribed values before Numeric did not panic")
			}
		}()
		_ = el.RHS(b, A, fem.Loads{Prescribed: make([]float64, len(b))})
	}()
	// Without prescribed values it needs no matrix, and the fixed components are 0.
	for i := range b {
		b[i] = 1
	}
	if err := el.RHS(b, nil, fem.Loads{Body: []fem.BodyForce{{Force: fem.Uniform([3]float64{1, 2, 3})}}}); err != nil {
		t.Fatal(err)
	}
	for a, mask := range fixed {
		for i := 0; i < 3; i++ {
			if mask>>i&1 != 0 && b[3*a+i] != 0 {
				t.Fatalf("node %d component %d fixed, b = %v", a, i, b[3*a+i])
			}
		}
	}
}
