package galerkin

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/blockamg/blockamg/galerkin/galerkintest"
)

var benchProblems sync.Map // nodes per side → *galerkintest.Problem

func benchProblem(b *testing.B, nodes int) *galerkintest.Problem {
	if p, ok := benchProblems.Load(nodes); ok {
		return p.(*galerkintest.Problem)
	}
	p, err := galerkintest.Grid(nodes, nodes, nodes, 27, 1)
	if err != nil {
		b.Fatal(err)
	}
	benchProblems.Store(nodes, p)
	return p
}

// benchNumeric times Numeric for every variant and 1 and 2 workers on the synthetic
// problem with nodes³ nodes.
func benchNumeric(b *testing.B, nodes int) {
	pr := benchProblem(b, nodes)
	for _, v := range Variants {
		plan, err := Symbolic(pr.A, pr.P, v)
		if err != nil {
			b.Fatal(err)
		}
		pred := Predict(plan.Stats(), DefaultMachine(), v)
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", v, w), func(b *testing.B) {
				b.ReportMetric(float64(plan.PlanBytes())/1e6, "planMB")
				for b.Loop() {
					if err := plan.Numeric(pr.A, pr.P, w); err != nil {
						b.Fatal(err)
					}
				}
				sec := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(float64(pred.Flops)/sec/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkNumericSmall runs on 22³ nodes (ne = 21, 32K unknowns).
func BenchmarkNumericSmall(b *testing.B) { benchNumeric(b, 22) }

// BenchmarkNumericLarge runs on (GALERKIN_NE+1)³ nodes, ne = 63 (786K unknowns, the
// target size) by default; it is skipped unless GALERKIN_NE is set, because building
// the problem alone takes seconds and several GB.
func BenchmarkNumericLarge(b *testing.B) {
	s := os.Getenv("GALERKIN_NE")
	if s == "" {
		b.Skip("set GALERKIN_NE=63 to run the ex56-size benchmark")
	}
	ne, err := strconv.Atoi(s)
	if err != nil || ne < 1 {
		b.Fatalf("GALERKIN_NE=%q: want a positive integer", s)
	}
	benchNumeric(b, ne+1)
}
