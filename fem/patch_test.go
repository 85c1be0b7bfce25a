package fem_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
)

// denseSolve solves A·u = b by gonum's Cholesky of the dense matrix.
func denseSolve(t *testing.T, el *fem.Elasticity, Aval []float64, b []float64) []float64 {
	t.Helper()
	A := el.NewMatrix()
	copy(A.Val, Aval)
	n := len(b)
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(n, A.ToDense())) {
		t.Fatal("matrix not positive definite")
	}
	var u mat.VecDense
	if err := ch.SolveVecTo(&u, mat.NewVecDense(n, append([]float64(nil), b...))); err != nil {
		t.Fatal(err)
	}
	return u.RawVector().Data
}

// quadField is u_i = c_i + G_ij x_j + ½ H_ijk x_j x_k (H symmetric in j, k; zero for
// a linear field) with its body force f = −div σ(u) = −[(λ+μ)∇(div u) + μΔu],
// constant.
type quadField struct {
	c [3]float64
	G [3][3]float64
	H [3][3][3]float64
}

func (q *quadField) u(x [3]float64) [3]float64 {
	var u [3]float64
	for i := 0; i < 3; i++ {
		u[i] = q.c[i]
		for j := 0; j < 3; j++ {
			u[i] += q.G[i][j] * x[j]
			for k := 0; k < 3; k++ {
				u[i] += 0.5 * q.H[i][j][k] * x[j] * x[k]
			}
		}
	}
	return u
}

func (q *quadField) force(E, nu float64) [3]float64 {
	mu := E / (2 * (1 + nu))
	lam := E * nu / ((1 + nu) * (1 - 2*nu))
	var f [3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			f[i] -= (lam+mu)*q.H[j][i][j] + mu*q.H[i][j][j]
		}
	}
	return f
}

func newQuadField(quadratic bool) *quadField {
	q := &quadField{c: [3]float64{0.1, -0.2, 0.3}}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			q.G[i][j] = 0.1*float64(i+1) - 0.07*float64(j*j) + 0.05*float64(i*j)
			if !quadratic {
				continue
			}
			for k := j; k < 3; k++ {
				v := 0.3 - 0.1*float64(i) + 0.2*float64(j) - 0.15*float64(k) + 0.05*float64(i*j*k)
				q.H[i][j][k], q.H[i][k][j] = v, v
			}
		}
	}
	return q
}

// TestPatch prescribes an exact displacement on every boundary node of a distorted
// mesh (interior nodes moved, tet10 sides straight) and solves: the nodal values must
// reproduce a linear field (tet4, hex8, tet10) and a quadratic one with its constant
// body force (tet10), to 1e-12.
func TestPatch(t *testing.T) {
	const E, nu = 3.0, 0.28
	for _, c := range []struct {
		typ       mesh.Type
		n         int
		quadratic bool
	}{
		{mesh.Tet4, 3, false}, {mesh.Hex8, 3, false}, {mesh.Tet10, 2, false}, {mesh.Tet10, 2, true},
	} {
		m := boxMesh(t, c.typ, c.n, c.n, c.n, 0.3, 9)
		fixed := boundaryMask(t, m)
		q := newQuadField(c.quadratic)
		el := mustElasticity(t, m, fem.ElasticityOptions{Fixed: fixed})
		Ev, nuv, err := el.Materials(fem.Material{E: E, Nu: nu})
		if err != nil {
			t.Fatal(err)
		}
		A := el.NewMatrix()
		if err := el.Numeric(A, Ev, nuv, 2); err != nil {
			t.Fatal(err)
		}
		b := make([]float64, A.Rows())
		loads := fem.Loads{Prescribed: fem.Prescribe(m, fixed, q.u)}
		if c.quadratic {
			loads.Body = []fem.BodyForce{{Force: fem.Uniform(q.force(E, nu))}}
		}
		if err := el.RHS(b, A, loads); err != nil {
			t.Fatal(err)
		}
		u := denseSolve(t, el, A.Val, b)
		interior := 0
		worst := 0.0
		for p := 0; p < m.Nodes(); p++ {
			want := q.u([3]float64(m.Coords[3*p : 3*p+3]))
			for i := 0; i < 3; i++ {
				worst = max(worst, math.Abs(u[3*p+i]-want[i]))
			}
			if fixed[p] == 0 {
				interior++
			}
		}
		if interior == 0 {
			t.Fatalf("%v: no interior node", c.typ)
		}
		if worst > 1e-12 {
			t.Errorf("%v (quadratic %v): nodal error %.3g", c.typ, c.quadratic, worst)
		}
		t.Logf("%v (quadratic %v): %d interior nodes, nodal error %.2g", c.typ, c.quadratic, interior, worst)
	}
}

// TestTraction: a uniform traction on a side sums, over the nodes, to traction × area
// (the area from the faces' cross products); on Tri6 faces the corner nodes get
// nothing (∫ N_corner dS = 0 on a flat quadratic triangle).
func TestTraction(t *testing.T) {
	tr := [3]float64{1.5, -2, 0.25}
	for _, typ := range []mesh.Type{mesh.Tet4, mesh.Tet10, mesh.Hex8} {
		m := boxMesh(t, typ, 3, 4, 2, 0.3, 4)
		el := mustElasticity(t, m, fem.ElasticityOptions{})
		b := make([]float64, 3*m.Nodes())
		for _, side := range []string{"xmax", "ymin"} {
			if err := el.RHS(b, nil, fem.Loads{Traction: []fem.Traction{{Group: side, Force: fem.Uniform(tr)}}}); err != nil {
				t.Fatal(err)
			}
			area := 0.0
			g, _ := m.GroupByName(2, side)
			onSide := map[int32]bool{}
			for _, s := range m.Surfaces {
				k := s.Type.Nodes()
				for f := 0; f < s.Len(); f++ {
					if s.Group[f] != g.Tag {
						continue
					}
					nd := s.Nodes[f*k : f*k+k]
					for _, p := range nd {
						onSide[p] = true
					}
					x := func(i int) [3]float64 { return [3]float64(m.Coords[3*nd[i] : 3*nd[i]+3]) }
					cross := func(o, a, b [3]float64) float64 {
						u := [3]float64{a[0] - o[0], a[1] - o[1], a[2] - o[2]}
						v := [3]float64{b[0] - o[0], b[1] - o[1], b[2] - o[2]}
						return math.Sqrt(math.Pow(u[1]*v[2]-u[2]*v[1], 2)+math.Pow(u[2]*v[0]-u[0]*v[2], 2)+math.Pow(u[0]*v[1]-u[1]*v[0], 2)) / 2
					}
					area += cross(x(0), x(1), x(2))
					if s.Type == mesh.Quad4 {
						area += cross(x(0), x(2), x(3))
					}
				}
			}
			var sum [3]float64
			for p := 0; p < m.Nodes(); p++ {
				for i := 0; i < 3; i++ {
					sum[i] += b[3*p+i]
					if b[3*p+i] != 0 && !onSide[int32(p)] {
						t.Fatalf("%v %s: load on node %d off the side", typ, side, p)
					}
				}
			}
			for i := 0; i < 3; i++ {
				if math.Abs(sum[i]-tr[i]*area) > 1e-14 {
					t.Errorf("%v %s: Σb_%d = %.17g, traction × area = %.17g", typ, side, i, sum[i], tr[i]*area)
				}
			}
			if math.Abs(area-1) > 1e-14 {
				t.Errorf("%v %s: face area %v", typ, side, area)
			}
			if typ == mesh.Tet10 {
				grid := (3 + 1) * (4 + 1) * (2 + 1) // the corner nodes come first
				for p := 0; p < grid; p++ {
					for i := 0; i < 3; i++ {
						if math.Abs(b[3*p+i]) > 1e-16 {
							t.Errorf("%v %s: corner node %d has load %v", typ, side, p, b[3*p+i])
						}
					}
				}
			}
		}
		if err := el.RHS(b, nil, fem.Loads{Traction: []fem.Traction{{Group: "nowhere", Force: fem.Uniform(tr)}}}); !errorsIs(err, fem.ErrLoad) {
			t.Errorf("unknown group: %v", err)
		}
	}
}

// TestVonMises: uniaxial strain u = (εx, 0, 0) gives σ_vm = 2μ|ε| and simple shear
// u = (γy, 0, 0) gives √3·μ|γ|, in every element of a distorted mesh.
func TestVonMises(t *testing.T) {
	const E, nu, eps = 2.0, 0.3, 1e-3
	mu := E / (2 * (1 + nu))
	for _, typ := range []mesh.Type{mesh.Tet4, mesh.Tet10, mesh.Hex8} {
		m := boxMesh(t, typ, 2, 2, 2, 0.3, 8)
		el := mustElasticity(t, m, fem.ElasticityOptions{})
		Ev, nuv, _ := el.Materials(fem.Material{E: E, Nu: nu})
		for _, c := range []struct {
			axis int
			want float64
		}{{0, 2 * mu * eps}, {1, math.Sqrt(3) * mu * eps}} {
			u := make([]float64, 3*m.Nodes())
			for p := 0; p < m.Nodes(); p++ {
				u[3*p] = eps * m.Coords[3*p+c.axis]
			}
			vm, err := el.VonMises(u, Ev, nuv)
			if err != nil {
				t.Fatal(err)
			}
			for e, v := range vm {
				if math.Abs(v-c.want) > 1e-12*c.want {
					t.Fatalf("%v: element %d: σ_vm = %.17g, want %.17g", typ, e, v, c.want)
				}
			}
		}
	}
}
