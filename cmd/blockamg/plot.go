package main

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// plotHistory writes a semilog plot of the relative residual per CG iteration to path
// (PNG, by gonum/plot). A failed solve's history may be a single residual (a
// breakdown before the first iteration), or hold non-finite ones, which are left out.
func plotHistory(path, title string, history []float64, bnorm float64) (err error) {
	defer func() {
		// gonum/plot panics on inputs it cannot draw; a plot is never worth a crash.
		if r := recover(); r != nil {
			err = fmt.Errorf("--plot %s: %v", path, r)
		}
	}()
	if len(history) == 0 {
		return fmt.Errorf("--plot %s: no residual history to plot", path)
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "CG iteration"
	p.Y.Label.Text = "‖b − A·x‖ / ‖b‖"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	pts := make(plotter.XYs, 0, len(history))
	for i, r := range history {
		v := r / nonzero(bnorm)
		if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			continue // a log axis cannot show it
		}
		pts = append(pts, plotter.XY{X: float64(i), Y: v})
	}
	if len(pts) == 0 {
		return fmt.Errorf("--plot %s: no positive residual to draw on a log scale", path)
	}
	// One residual, or all equal: a log axis needs a range, so give it a decade on
	// either side (and the iteration axis at least one iteration).
	lo, hi := pts[0].Y, pts[0].Y
	for _, q := range pts {
		lo, hi = min(lo, q.Y), max(hi, q.Y)
	}
	if lo == hi {
		p.Y.Min, p.Y.Max = lo/10, hi*10
	}
	if pts[len(pts)-1].X == pts[0].X {
		p.X.Min, p.X.Max = pts[0].X-1, pts[0].X+1
	}
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	p.Add(line, points, plotter.NewGrid())
	if err := p.Save(6*vg.Inch, 4*vg.Inch, path); err != nil {
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	return nil
}
