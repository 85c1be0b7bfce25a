package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/amg/cycle"
	"github.com/blockamg/blockamg/krylov"
)

// What solve reports of a hierarchy set up on the device (cycle.DeviceSetup), which
// has no host hierarchy to take levels and phases from.

// deviceSetupReport is the set-up on the device (JSON "device_setup"), in seconds.
type deviceSetupReport struct {
	TotalSeconds float64 `json:"total_seconds"` // = setup_seconds
	// the coarsest operator's download and its Cholesky factor on the host
	CoarseSeconds float64 `json:"coarse_seconds"`
	// why coarsening stopped before the size and level limits (absent when it did not)
	Stall  string              `json:"stall,omitempty"`
	Levels []deviceLevelReport `json:"levels"`
}

// deviceLevelReport is one level of the set-up on the device: its sizes and, but on
// the coarsest, its phases — the symbolic ones (coarsen: strength graph,
// aggregation, P_tent and the smoothed pattern; the Galerkin plan: W's and Ac's
// patterns) and the numeric ones, named as a re-setup's (steps' setup_levels).
type deviceLevelReport struct {
	Level          int     `json:"level"`
	BlockRows      int     `json:"block_rows"`
	BlockSize      int     `json:"block_size"`
	NNZBlocks      int64   `json:"nnz_blocks"`
	Aggregates     int     `json:"aggregates"`
	GraphEdges     int64   `json:"graph_edges"`
	MISRounds      int     `json:"mis_rounds"`
	PNNZBlocks     int64   `json:"p_nnz_blocks"`
	PtentNNZBlocks int64   `json:"ptent_nnz_blocks"`
	CoarsenSeconds float64 `json:"coarsen_seconds"`
	PlanSeconds    float64 `json:"galerkin_plan_seconds"`
	// device memory the level holds by kind, bytes (cycle.DeviceMemory)
	Memory deviceMemoryReport `json:"device_memory"`
	levelSetup
	Variant string `json:"galerkin_variant,omitempty"`
}

// deviceMemoryReport is cycle.DeviceMemory in JSON.
type deviceMemoryReport struct {
	Operator     int64 `json:"operator_bytes"`
	Prolongators int64 `json:"prolongator_bytes"`
	Plan         int64 `json:"galerkin_plan_bytes"`
	Smoother     int64 `json:"smoother_bytes"`
	Vectors      int64 `json:"vector_bytes"`
}

func newDeviceSetupReport(ds *cycle.DeviceSetup) *deviceSetupReport {
	r := &deviceSetupReport{TotalSeconds: ds.Total.Seconds(), CoarseSeconds: ds.Coarse.Seconds(), Stall: ds.Stall}
	for l, d := range ds.Levels {
		n := d.Numeric
		r.Levels = append(r.Levels, deviceLevelReport{Level: l, BlockRows: d.BlockRows, BlockSize: d.Block,
			NNZBlocks: d.Blocks, Aggregates: d.Aggregates, GraphEdges: d.Edges, MISRounds: d.Rounds,
			PNNZBlocks: d.PBlocks, PtentNNZBlocks: d.PtentBlocks, CoarsenSeconds: d.Coarsen.Seconds(),
			PlanSeconds: d.Plan.Seconds(), levelSetup: levelSetupOf(n), Variant: n.Variant,
			Memory: deviceMemoryReport{Operator: d.Memory.Operator, Prolongators: d.Memory.Prolongators,
				Plan: d.Memory.Plan, Smoother: d.Memory.Smoother, Vectors: d.Memory.Vectors}})
	}
	return r
}

// levelSetupOf returns a level's numeric phases in seconds.
func levelSetupOf(lt cycle.LevelTimes) levelSetup {
	return levelSetup{Diag: lt.Diag.Seconds(), Eig: lt.Eig.Seconds(), Smooth: lt.Smooth.Seconds(), Filter: lt.Filter.Seconds(),
		Transpose: lt.Transpose.Seconds(), Galerkin: lt.Galerkin.Seconds(), LambdaMax: lt.LambdaMax}
}

// bsrBytes returns the bytes of a BSR matrix as stored (bsr.Matrix.Bytes).
func bsrBytes(rows int, blocks int64, r, c int) int64 {
	return shape{int64(rows), blocks, int64(r), int64(c)}.bytes()
}

// deviceLevels returns the levels table of a set-up on the device (ds, with its
// estimates eig of λ(D⁻¹A) per level but the coarsest, and options opt) in the
// host's form: sizes, bytes as stored, aggregates, graph edges, the prolongator's
// shape, the λ estimates, ω and the Chebyshev interval derived from them as the host
// derives them.
func deviceLevels(ds *cycle.DeviceSetup, eig []krylov.EigenEstimate, opt amg.Options) []amg.LevelInfo {
	var out []amg.LevelInfo
	last := len(ds.Levels) - 1
	for l, d := range ds.Levels {
		b := d.Block
		li := amg.LevelInfo{Level: l, Rows: d.BlockRows * b, BlockRows: d.BlockRows, BlockSize: b, NNZBlocks: d.Blocks,
			NNZ: d.Blocks * int64(b*b), Bytes: bsrBytes(d.BlockRows, d.Blocks, b, b), Aggregates: d.Aggregates, Edges: d.Edges}
		if l < last {
			k := ds.Levels[l+1].Block
			li.PBlockRows, li.PBlockCols, li.PR, li.PC, li.PNNZBlocks = d.BlockRows, d.Aggregates, b, k, d.PBlocks
			li.PBytes = bsrBytes(d.BlockRows, d.PBlocks, b, k)
		}
		if l < last && l < len(eig) {
			e := eig[l]
			li.EigMin, li.EigMax, li.Omega = e.Min, e.Max, opt.ProlongDamping/e.Max
			li.ChebMin, li.ChebMax, _ = amg.ChebyshevInterval(e, opt.ChebyshevEstEig)
		}
		out = append(out, li)
	}
	return out
}

// complexities returns the grid and operator complexities of levels (amg.Hierarchy's
// GridComplexity and OperatorComplexity).
func complexities(levels []amg.LevelInfo) (grid, op float64) {
	var rows, nnz int64
	for _, l := range levels {
		rows += int64(l.Rows)
		nnz += l.NNZ
	}
	if len(levels) == 0 || levels[0].Rows == 0 || levels[0].NNZ == 0 {
		return 1, 1
	}
	return float64(rows) / float64(levels[0].Rows), float64(nnz) / float64(levels[0].NNZ)
}

// printDeviceLevels prints the levels table of a set-up on the device.
func printDeviceLevels(w io.Writer, r *solveReport) {
	ds := r.DeviceSetup
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "level\trows\tblock\tnnz blocks\tMB\tP blocks\tP shape\taggregates\tMIS rounds\tλmax(D⁻¹A)\t")
	for i, l := range r.Levels {
		pshape, agg, rounds := "-", "-", "-"
		if l.PNNZBlocks > 0 {
			pshape = fmt.Sprintf("%d×%d", l.PR, l.PC)
			agg = fmt.Sprint(l.Aggregates)
		}
		if i < len(ds.Levels) && ds.Levels[i].MISRounds > 0 {
			rounds = fmt.Sprint(ds.Levels[i].MISRounds)
		}
		fmt.Fprintf(tw, "%d\t%d\t%d×%d\t%d\t%.1f\t%d\t%s\t%s\t%s\t%.3g\t\n", l.Level, l.Rows, l.BlockSize, l.BlockSize,
			l.NNZBlocks, float64(l.Bytes)/1e6, l.PNNZBlocks, pshape, agg, rounds, l.EigMax)
	}
	tw.Flush()
	if ds.Stall != "" {
		fmt.Fprintf(w, "coarsening stopped: %s\n", ds.Stall)
	}
	fmt.Fprintln(w, "\ndevice memory by level and kind (MB):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "level	operator	prolongators	Galerkin plan	smoother	vectors	total	")
	var sum deviceMemoryReport
	mb := func(b int64) float64 { return float64(b) / 1e6 }
	for _, l := range ds.Levels {
		m := l.Memory
		sum.Operator += m.Operator
		sum.Prolongators += m.Prolongators
		sum.Plan += m.Plan
		sum.Smoother += m.Smoother
		sum.Vectors += m.Vectors
		fmt.Fprintf(tw, "%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t\n", l.Level, mb(m.Operator), mb(m.Prolongators), mb(m.Plan),
			mb(m.Smoother), mb(m.Vectors), mb(m.Operator+m.Prolongators+m.Plan+m.Smoother+m.Vectors))
	}
	fmt.Fprintf(tw, "all\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t\n", mb(sum.Operator), mb(sum.Prolongators), mb(sum.Plan),
		mb(sum.Smoother), mb(sum.Vectors), mb(sum.Operator+sum.Prolongators+sum.Plan+sum.Smoother+sum.Vectors))
	tw.Flush()
}

// printDevicePhases prints the set-up on the device by phase, summed over the levels
// (seconds, with the assembly and the solve as the host set-up's table has them),
// then by level (ms).
func printDevicePhases(w io.Writer, r *solveReport, p *problem) {
	ds := r.DeviceSetup
	var coarsen, plan float64
	var sum levelSetup
	for _, l := range ds.Levels {
		coarsen += l.CoarsenSeconds
		plan += l.PlanSeconds
		sum.Diag += l.Diag
		sum.Eig += l.Eig
		sum.Smooth += l.Smooth
		sum.Transpose += l.Transpose
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase (first set-up on the device)\tseconds\t")
	row := func(name string, s float64) { fmt.Fprintf(tw, "%s\t%.4f\t\n", name, s) }
	switch {
	case p.onDevice && p.mesh != nil:
		row("assembly (symbolic on the host, uploaded)", p.symbolic.Seconds())
		row("assembly on the device (numeric)", p.numeric.Seconds())
	case p.onDevice:
		row("assembly on the device (symbolic)", p.symbolic.Seconds())
		row("assembly on the device (numeric)", p.numeric.Seconds())
	case p.asm != nil:
		row("assembly (symbolic)", p.symbolic.Seconds())
		row("assembly (numeric)", p.numeric.Seconds())
	}
	row("coarsen (strength, aggregation, P_tent, patterns)", coarsen)
	row("Galerkin plans (W and Ac patterns)", plan)
	row("block-diagonal inverses", sum.Diag)
	row("eigenvalue estimates", sum.Eig)
	row("P smoothing", sum.Smooth)
	row("Pᵀ refresh", sum.Transpose)
	for _, l := range ds.Levels[:len(ds.Levels)-1] {
		row(fmt.Sprintf("Galerkin PᵀAP level %d→%d", l.Level, l.Level+1), l.Galerkin)
	}
	row("coarse operator download + Cholesky", ds.CoarseSeconds)
	row("set-up total", ds.TotalSeconds)
	row("solve", r.SolveSeconds)
	tw.Flush()
	fmt.Fprintln(w, "\nfirst set-up on the device by level (ms):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "level\tcoarsen\tGalerkin plan\tD⁻¹\tλ estimate\tP smoothing\tPᵀ refresh\tPᵀAP\tPᵀAP variant\tλmax\t")
	for _, l := range ds.Levels[:len(ds.Levels)-1] {
		fmt.Fprintf(tw, "%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%.4g\t\n", l.Level, l.CoarsenSeconds*1e3, l.PlanSeconds*1e3,
			l.Diag*1e3, l.Eig*1e3, l.Smooth*1e3, l.Transpose*1e3, l.Galerkin*1e3, l.Variant, l.LambdaMax)
	}
	tw.Flush()
	fmt.Fprintf(w, "coarse operator download + Cholesky %.3f ms; set-up total %.3f ms\n", ds.CoarseSeconds*1e3, ds.TotalSeconds*1e3)
}
