package fem_test

import (
	"math"
	"testing"

	"github.com/blockamg/blockamg"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
)

// fn1 is a function of one variable with its first two derivatives.
type fn1 struct{ f, d1, d2 func(float64) float64 }

func sinF(a float64) fn1 {
	return fn1{func(t float64) float64 { return math.Sin(a * t) }, func(t float64) float64 { return a * math.Cos(a*t) },
		func(t float64) float64 { return -a * a * math.Sin(a*t) }}
}

func cosF(a float64) fn1 {
	return fn1{func(t float64) float64 { return math.Cos(a * t) }, func(t float64) float64 { return -a * math.Sin(a*t) },
		func(t float64) float64 { return -a * a * math.Cos(a*t) }}
}

func expF(a float64) fn1 {
	return fn1{func(t float64) float64 { return math.Exp(a * t) }, func(t float64) float64 { return a * math.Exp(a*t) },
		func(t float64) float64 { return a * a * math.Exp(a*t) }}
}

// manufactured is u_i = X_i(x)·Y_i(y)·Z_i(z), smooth and not polynomial, with its
// Hessian by the product rule and the body force f = −[(λ+μ)∇(div u) + μΔu].
type manufactured [3][3]fn1

var mmsU = manufactured{
	{sinF(1.3), cosF(0.7), expF(0.4)},
	{expF(-0.5), sinF(1.1), cosF(0.9)},
	{cosF(0.8), expF(0.3), sinF(1.2)},
}

func (m *manufactured) u(x [3]float64) [3]float64 {
	var u [3]float64
	for i := range u {
		u[i] = m[i][0].f(x[0]) * m[i][1].f(x[1]) * m[i][2].f(x[2])
	}
	return u
}

// hess is ∂²u_i/∂x_j∂x_k.
func (m *manufactured) hess(i, j, k int, x [3]float64) float64 {
	p := 1.0
	for d := 0; d < 3; d++ {
		order := 0
		if d == j {
			order++
		}
		if d == k {
			order++
		}
		switch order {
		case 0:
			p *= m[i][d].f(x[d])
		case 1:
			p *= m[i][d].d1(x[d])
		default:
			p *= m[i][d].d2(x[d])
		}
	}
	return p
}

func (m *manufactured) force(E, nu float64) fem.VectorField {
	mu := E / (2 * (1 + nu))
	lam := E * nu / ((1 + nu) * (1 - 2*nu))
	return func(x [3]float64) [3]float64 {
		var f [3]float64
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				f[i] -= (lam+mu)*m.hess(j, i, j, x) + mu*m.hess(i, j, j, x)
			}
		}
		return f
	}
}

// l2Error is ‖u_h − u‖ over the mesh, by the test's own load rules (degree 5 on
// tetrahedra, 3×3×3 Gauss on hexahedra), the shape functions tabulated once per rule.
func l2Error(m *mesh.Mesh, uh []float64, exact func([3]float64) [3]float64) float64 {
	sum := 0.0
	for _, s := range m.Volumes {
		ref := fem.ReferenceElement(s.Type)
		n := s.Type.Nodes()
		pts, w := testRule(s.Type, true)
		N, dN := ref.Tabulate(fem.Rule{Points: pts, Weights: w})
		for e := 0; e < s.Len(); e++ {
			nodes := s.Nodes[e*n : (e+1)*n]
			for q := range pts {
				var J [3][3]float64
				var x [3]float64
				for a, p := range nodes {
					for i := 0; i < 3; i++ {
						xi := m.Coords[3*int(p)+i]
						x[i] += N[q*n+a] * xi
						for k := 0; k < 3; k++ {
							J[i][k] += xi * dN[(q*n+a)*3+k]
						}
					}
				}
				det := J[0][0]*(J[1][1]*J[2][2]-J[1][2]*J[2][1]) - J[0][1]*(J[1][0]*J[2][2]-J[1][2]*J[2][0]) +
					J[0][2]*(J[1][0]*J[2][1]-J[1][1]*J[2][0])
				ue := exact(x)
				for i := 0; i < 3; i++ {
					v := -ue[i]
					for a, p := range nodes {
						v += N[q*n+a] * uh[3*int(p)+i]
					}
					sum += w[q] * det * v * v
				}
			}
		}
	}
	return math.Sqrt(sum)
}

// TestManufacturedConvergence refines the unit cube (u prescribed on the whole
// boundary, f = −div σ(u)) and measures the L2 error's order between successive
// meshes: 2 for tet4 and hex8, 3 for tet10, each within 0.2.
func TestManufacturedConvergence(t *testing.T) {
	if testing.Short() {
		t.Skip("refinement study")
	}
	const E, nu = 1.0, 0.3
	for _, c := range []struct {
		typ   mesh.Type
		ns    []int
		order float64
	}{
		{mesh.Tet4, []int{4, 8, 16}, 2},
		{mesh.Hex8, []int{4, 8, 16}, 2},
		{mesh.Tet10, []int{2, 4, 8}, 3},
	} {
		var errs []float64
		for _, n := range c.ns {
			m := boxMesh(t, c.typ, n, n, n, 0, 1)
			fixed := boundaryMask(t, m)
			el := mustElasticity(t, m, fem.ElasticityOptions{Fixed: fixed})
			Ev, nuv, err := el.Materials(fem.Material{E: E, Nu: nu})
			if err != nil {
				t.Fatal(err)
			}
			A := el.NewMatrix()
			if err := el.Numeric(A, Ev, nuv, 0); err != nil {
				t.Fatal(err)
			}
			b := make([]float64, A.Rows())
			if err := el.RHS(b, A, fem.Loads{
				Body:       []fem.BodyForce{{Force: mmsU.force(E, nu)}},
				Prescribed: fem.Prescribe(m, fixed, mmsU.u),
			}); err != nil {
				t.Fatal(err)
			}
			ns, err := el.NearNullSpace()
			if err != nil {
				t.Fatal(err)
			}
			opt := blockamg.DefaultOptions()
			opt.Solve.RelTol = 1e-12
			s, err := blockamg.NewSolver(A, &blockamg.NullSpace{Rows: A.Rows(), Cols: 6, Data: ns}, opt)
			if err != nil {
				t.Fatal(err)
			}
			u := make([]float64, len(b))
			res, err := s.Solve(b, u)
			s.Close()
			if err != nil {
				t.Fatal(err)
			}
			e := l2Error(m, u, mmsU.u)
			t.Logf("%v n=%d: %d unknowns, %d CG iterations, L2 error %.4g", c.typ, n, len(b), res.Iterations, e)
			errs = append(errs, e)
		}
		for i := 1; i < len(errs); i++ {
			order := math.Log2(errs[i-1] / errs[i])
			t.Logf("%v: order %.3f between n=%d and n=%d", c.typ, order, c.ns[i-1], c.ns[i])
			if math.Abs(order-c.order) > 0.2 {
				t.Errorf("%v: L2 order %.3f between n=%d and %d, want %v ± 0.2", c.typ, order, c.ns[i-1], c.ns[i], c.order)
			}
		}
	}
}
