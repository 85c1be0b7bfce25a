package filter_test

import (
	"flag"
	"fmt"
	"testing"

	"github.com/blockamg/blockamg/filter"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/galerkin"
	"github.com/blockamg/blockamg/internal/par"
)

// The problem of BenchmarkEx56, as test flags: go test -bench Ex56 ./filter/ -args
// -filter.ne 40 -filter.aggressive 0.
var (
	benchNe         = flag.Int("filter.ne", 30, "BenchmarkEx56: ex56 elements per side")
	benchAggressive = flag.Int("filter.aggressive", -1, "BenchmarkEx56: AggressiveLevels (-1: amg's default)")
)

// benchThetas are the thresholds of BenchmarkEx56.
var benchThetas = []float64{0, 0.01, 0.02, 0.05, 0.1}

// BenchmarkEx56 filters the fine-level prolongator of amg's default hierarchy on ex56
// (ne = -filter.ne, AggressiveLevels -filter.aggressive when set) for each θ of benchThetas and times, per θ:
//
//	symbolic   filter.Symbolic (drop decision, pattern, Cholesky factors)
//	numeric    Numeric (the recurring path)
//	galerkin   the fine-level Ac = P_fᵀ·A·P_f numeric phase (galerkin.Auto plan on P_f)
//
// Each reports the pattern sizes as metrics: dropped blocks, nnz of P_f, of W = A·P_f
// and of Ac (blocks), and the bytes of P_f. θ = 0 is the unfiltered baseline.
func BenchmarkEx56(b *testing.B) {
	ne := *benchNe
	if ne < 1 {
		b.Fatalf("-filter.ne %d: want a positive integer", ne)
	}
	opt := amg.DefaultOptions()
	if *benchAggressive >= 0 {
		opt.AggressiveLevels = *benchAggressive
	}
	h, _ := ex56Hierarchy(b, ne, opt)
	for l := 0; l < len(h.Levels)-1; l++ {
		P := h.Levels[l].P
		line := fmt.Sprintf("level %d: P %d×%d blocks of %d×%d, %d stored; dropped at θ =", l, P.BlockRows, P.BlockCols, P.R, P.C, P.NNZBlocks())
		for _, theta := range benchThetas[1:] {
			plan, err := filter.Symbolic(P, h.Levels[l+1].B, theta, filter.Options{})
			if err != nil {
				b.Fatal(err)
			}
			s := plan.Stats()
			line += fmt.Sprintf(" %g: %d (%.1f%%, %d unfiltered rows);", theta, s.DroppedBlocks, 100*float64(s.DroppedBlocks)/float64(s.NNZBlocksBefore), s.RowsUnfiltered)
		}
		b.Log(line)
	}
	A, P, Bc := h.Levels[0].A, h.Levels[0].P, h.Levels[1].B
	w := par.Workers()
	b.Logf("ex56 ne=%d: A %d block rows, %d blocks; P %d×%d blocks of %d×%d, %d stored; %d workers",
		ne, A.BlockRows, A.NNZBlocks(), P.BlockRows, P.BlockCols, P.R, P.C, P.NNZBlocks(), w)
	for _, theta := range benchThetas {
		plan, err := filter.Symbolic(P, Bc, theta, filter.Options{Workers: w})
		if err != nil {
			b.Fatal(err)
		}
		Pf := plan.NewPf()
		if err := plan.Numeric(P, Bc, Pf, w); err != nil {
			b.Fatal(err)
		}
		rap, err := galerkin.Symbolic(A, Pf, galerkin.Auto)
		if err != nil {
			b.Fatal(err)
		}
		st, gs := plan.Stats(), rap.Stats()
		metrics := func(b *testing.B) {
			b.ReportMetric(float64(st.DroppedBlocks), "dropped")
			b.ReportMetric(float64(st.NNZBlocksAfter), "P-blocks")
			b.ReportMetric(float64(gs.NnzW), "W-blocks")
			b.ReportMetric(float64(gs.NnzAc), "Ac-blocks")
		}
		b.Logf("θ=%-4g: dropped %6d of %6d P blocks (%4.1f%%), rows corrected %6d, unfiltered %d; P_f %6.2f MB (plan %5.2f MB); W %8d blocks, Ac %7d blocks (variant %s)",
			theta, st.DroppedBlocks, st.NNZBlocksBefore, 100*float64(st.DroppedBlocks)/float64(st.NNZBlocksBefore),
			st.RowsCorrected, st.RowsUnfiltered, float64(st.BytesAfter)/1e6, float64(st.PlanBytes)/1e6, gs.NnzW, gs.NnzAc, rap.Variant())
		name := fmt.Sprintf("ne=%d/theta=%g", ne, theta)
		b.Run(name+"/symbolic", func(b *testing.B) {
			for b.Loop() {
				if _, err := filter.Symbolic(P, Bc, theta, filter.Options{Workers: w}); err != nil {
					b.Fatal(err)
				}
			}
			metrics(b)
		})
		b.Run(name+"/numeric", func(b *testing.B) {
			for b.Loop() {
				if err := plan.Numeric(P, Bc, Pf, w); err != nil {
					b.Fatal(err)
				}
			}
			metrics(b)
		})
		b.Run(name+"/galerkin", func(b *testing.B) {
			for b.Loop() {
				if err := rap.Numeric(A, Pf, w); err != nil {
					b.Fatal(err)
				}
			}
			metrics(b)
		})
	}
}
