package fem_test

import (
	"fmt"
	"testing"

	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
)

// BenchmarkElasticity times the symbolic phase once per size and Numeric and RHS per
// iteration (all workers), on unit cubes of about 10⁵ unknowns.
func BenchmarkElasticity(b *testing.B) {
	for _, c := range []struct {
		typ mesh.Type
		n   int
	}{{mesh.Tet4, 32}, {mesh.Tet10, 16}, {mesh.Hex8, 32}} {
		m := boxMesh(b, c.typ, c.n, c.n, c.n, 0.2, 1)
		fixed := boundaryMask(b, m)
		b.Run(fmt.Sprintf("%v-n%d/symbolic", c.typ, c.n), func(b *testing.B) {
			for b.Loop() {
				mustElasticity(b, m, fem.ElasticityOptions{Fixed: fixed})
			}
		})
		el := mustElasticity(b, m, fem.ElasticityOptions{Fixed: fixed})
		E, nu := materials(b, el)
		A := el.NewMatrix()
		b.Run(fmt.Sprintf("%v-n%d/numeric", c.typ, c.n), func(b *testing.B) {
			for b.Loop() {
				if err := el.Numeric(A, E, nu, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(el.Nodes()*3), "unknowns")
		})
		rhs := make([]float64, A.Rows())
		loads := fem.Loads{Body: []fem.BodyForce{{Force: linearForce}}, Prescribed: fem.Prescribe(m, fixed, smoothField)}
		b.Run(fmt.Sprintf("%v-n%d/rhs", c.typ, c.n), func(b *testing.B) {
			for b.Loop() {
				if err := el.RHS(rhs, A, loads); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
