package fem_test

import (
	"testing"

	"github.com/blockamg/blockamg"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
)

// TestNearNullSpaceFixedRows is the measurement behind NearNullSpace's choice to keep
// the rigid-body modes' rows of fixed components: on a 4:1:1 tet10 beam (two
// materials, gravity and an end traction), clamped at x = 0 or held by rollers on
// three sides (only the normal component fixed), CG with the modes as they are needs
// no more iterations than with the fixed rows zeroed.
func TestNearNullSpaceFixedRows(t *testing.T) {
	if testing.Short() {
		t.Skip("AMG solves")
	}
	m := boxMesh(t, mesh.Tet10, 16, 4, 4, 0.2, 3)
	for p := 0; p < m.Nodes(); p++ {
		m.Coords[3*p] *= 4
	}
	for _, roller := range []bool{false, true} {
		fixed := make([]uint8, m.Nodes())
		sides := []string{"xmin"}
		comps := []uint8{7}
		if roller {
			sides, comps = []string{"xmin", "ymin", "zmin"}, []uint8{1, 2, 4}
		}
		for i, s := range sides {
			if err := fem.FixGroup(m, fixed, s, comps[i]); err != nil {
				t.Fatal(err)
			}
		}
		el := mustElasticity(t, m, fem.ElasticityOptions{Fixed: fixed})
		E, nu := materials(t, el)
		A := el.NewMatrix()
		if err := el.Numeric(A, E, nu, 0); err != nil {
			t.Fatal(err)
		}
		b := make([]float64, A.Rows())
		if err := el.RHS(b, A, fem.Loads{
			Body:     []fem.BodyForce{{Force: fem.Uniform([3]float64{0, 0, -1})}},
			Traction: []fem.Traction{{Group: "xmax", Force: fem.Uniform([3]float64{0, 1, 0})}},
		}); err != nil {
			t.Fatal(err)
		}
		var iters [2]int
		for v, zero := range []bool{false, true} {
			B, err := el.NearNullSpace()
			if err != nil {
				t.Fatal(err)
			}
			if zero {
				for p, f := range fixed {
					for i := 0; i < 3; i++ {
						if f>>i&1 != 0 {
							clear(B[(3*p+i)*6 : (3*p+i+1)*6])
						}
					}
				}
			}
			s, err := blockamg.NewSolver(A, &blockamg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, blockamg.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			u := make([]float64, len(b))
			res, err := s.Solve(b, u)
			s.Close()
			if err != nil {
				t.Fatal(err)
			}
			iters[v] = res.Iterations
		}
		t.Logf("roller %v, %d unknowns: %d CG iterations with the modes kept, %d with fixed rows zeroed", roller, len(b), iters[0], iters[1])
		if iters[0] > iters[1] {
			t.Errorf("roller %v: zeroing the fixed rows saves iterations (%d → %d): revisit NearNullSpace", roller, iters[0], iters[1])
		}
	}
}
