package cudafem

import (
	"flag"
	"fmt"
	"testing"

	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
)

var stagedBenchNE = flag.Int("staged.ne", 40, "BenchmarkStagedMap: the tet4 box's cells a side (tet10: half)")

// BenchmarkStagedMap times the host's part of elas_staged's symbolic phase, once per
// mesh: the groups (stagedGroups), their order for the sums (roundOrder with rounds,
// sortBlocks without) and the write order, on elaBox's boxes in reverse Cuthill–McKee
// order as solve --mesh assembles them (ElasticityGPUPerf's meshes at -staged.ne 100).
func BenchmarkStagedMap(b *testing.B) {
	for _, c := range []struct {
		typ mesh.Type
		ne  int
	}{{mesh.Tet4, *stagedBenchNE}, {mesh.Tet10, *stagedBenchNE / 2}} {
		m := elaBox(c.ne, c.typ)
		m = m.Renumber(mesh.RCM(m))
		el, err := fem.NewElasticity(m, fem.ElasticityOptions{})
		if err != nil {
			b.Fatal(err)
		}
		l := el.Layout()
		K := l.Kinds[0]
		rounds := K.Points > 1
		budget := stagedGroupBudget(stagedEntry(K.Nodes, K.Points, rounds), rounds, 1<<30)
		rec := stagedStride(K.Nodes) * K.Points
		b.Run(fmt.Sprintf("%v-ne%d", c.typ, c.ne), func(b *testing.B) {
			for b.Loop() {
				sm, err := stagedGroups(l, rec, budget, stagedThreads, rounds)
				if err != nil {
					b.Fatal(err)
				}
				if rounds {
					sm.roundOrder()
				} else {
					sm.sortBlocks()
				}
				_ = sm.writeOrder()
			}
			b.ReportMetric(float64(l.Elements), "elements")
		})
	}
}
