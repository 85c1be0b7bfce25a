package cycle

import (
	"fmt"
	"time"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/krylov"
)

// DeviceLevel describes one level of a hierarchy set up by SetupResident.
type DeviceLevel struct {
	BlockRows  int   // block rows of the operator
	Blocks     int64 // stored blocks of the operator
	Block      int   // block size
	Aggregates int   // the next level's block rows (0 on the coarsest)
	Edges      int64 // strength-graph edges (each undirected one twice)
	Rounds     int   // independent-set rounds of the aggregation
	PBlocks    int64 // stored blocks of the prolongator
	// stored blocks of the tentative prolongator (the one the smoothed one starts
	// from; PBlocks' own when AggNSmooths is 0)
	PtentBlocks int64
	// Memory is the device memory the level holds, by kind.
	Memory DeviceMemory
	// Times of the level's set-up phases, each measured to the device's completion.
	Coarsen, Plan time.Duration // symbolic: strength … patterns; the Galerkin plan
	Numeric       LevelTimes    // the first numeric set-up
}

// DeviceMemory is one level's device memory by kind, in bytes, where the backend
// reports it (a backend whose matrices do not count as zero).
type DeviceMemory struct {
	Operator     int64 // the level's operator (pattern and values)
	Prolongators int64 // P_tent, P, their transposes and the smoothing plan
	Plan         int64 // the Galerkin plan (W and its lists; Ac is the next operator)
	Smoother     int64 // the block-diagonal inverse
	Vectors      int64 // the cycle's work vectors and the eigenvalue estimate's start
}

// Total returns the sum of the kinds.
func (m DeviceMemory) Total() int64 {
	return m.Operator + m.Prolongators + m.Plan + m.Smoother + m.Vectors
}

// DeviceSetup describes a set-up made by SetupResident.
type DeviceSetup struct {
	Levels []DeviceLevel
	Coarse time.Duration // the coarsest operator's download and factorisation
	Total  time.Duration
	// Stall says why coarsening stopped before the size and level limits ("" when it
	// did not).
	Stall string
}

// SetupResident builds a hierarchy on the backend from the fine operator A and its
// near-null space B (A's rows × k, node-blocked row-major), both in the backend's
// memory, without any operator crossing to the host but the coarsest: per level the
// symbolic set-up (be.Coarsen: strength, aggregation, P_tent, the smoothed pattern),
// the Galerkin plan on the device (be.NewGalerkinOn), then the level's numeric set-up
// (the one Update runs), whose coarse operator the next level coarsens. The hierarchy
// is package amg's (the same graph, aggregates, tentative prolongators and patterns
// as amg.Setup with the same options, up to the coarse operators' rounding, which a
// positive Threshold could turn into a different strength decision), and Update
// redoes its numeric set-up as for UploadResident. The cycle owns A; B stays the
// caller's.
//
// Options the device set-up does not cover are errors wrapping
// backend.ErrUnsupported: AggNSmooths above 1, FilterTheta, SmootherFloat32
// (CheckSetupResident, before anything is allocated), and aggregates under ⌈k/b⌉
// nodes (which amg merges on the host), found on the level that has them. On an
// error A may have been freed (when the set-up had begun); freeing it again is a
// no-op.
func SetupResident(be backend.Coarsener, A backend.Matrix, B backend.Vector, k int, opt amg.Options) (*Cycle, *DeviceSetup, error) {
	t0 := time.Now()
	if err := CheckSetupResident(be, opt); err != nil {
		return nil, nil, err
	}
	c, err := newCycle(be, opt)
	if err != nil {
		return nil, nil, err
	}
	c.res = &resident{be: be, opt: opt}
	c.coarse = &amg.CoarseFactor{}
	info := &DeviceSetup{}
	ok := false
	var nearNull []backend.Vector // the coarse near-null spaces, freed at the end
	defer func() {
		for _, v := range nearNull {
			v.Free()
		}
		if !ok {
			c.Free()
		}
	}()
	// sync ends a phase: the time to the device's completion.
	start := time.Now()
	sync := func(d *time.Duration) error {
		err := be.Err()
		now := time.Now()
		*d += now.Sub(start)
		start = now
		return err
	}
	cur, curB := A, B
	c.broken = true
	for l := 0; ; l++ {
		lv := &level{A: cur}
		c.levels = append(c.levels, lv)
		nb, _, b, _ := cur.Dims()
		n := nb * b
		dl := DeviceLevel{BlockRows: nb, Block: b}
		if err := lv.allocate(be, n); err != nil {
			return nil, nil, fmt.Errorf("cycle: level %d vectors: %w", l, err)
		}
		if len(c.levels) == opt.MaxLevels || (l > 0 && n <= opt.CoarseEqLimit) {
			info.Levels = append(info.Levels, dl)
			break
		}
		co, err := be.Coarsen(cur, curB, k, backend.CoarsenOptions{Threshold: opt.Threshold,
			Distance2: l < opt.AggressiveLevels, MinNodes: (k + b - 1) / b, Smooth: opt.AggNSmooths == 1})
		if err != nil {
			return nil, nil, fmt.Errorf("cycle: level %d: %w", l, err)
		}
		dl.Edges, dl.Rounds = co.Edges, co.Rounds
		switch {
		case co.Small:
			co.Free()
			return nil, nil, fmt.Errorf("cycle: level %d: %w: aggregates under %d nodes, which the host set-up merges", l, backend.ErrUnsupported, (k+b-1)/b)
		case co.Aggregates == 0:
			info.Stall = fmt.Sprintf("no node of level %d has a strong neighbour (Threshold %g)", l, opt.Threshold)
		case co.Aggregates*k >= n:
			info.Stall = fmt.Sprintf("level %d's %d aggregates times %d near-null vectors give no fewer than its %d unknowns", l, co.Aggregates, k, n)
		}
		if info.Stall != "" {
			co.Free()
			info.Levels = append(info.Levels, dl)
			break
		}
		dl.Aggregates = co.Aggregates
		nearNull = append(nearNull, co.Bc)
		rl := &residentLevel{ptent: co.Ptent}
		c.res.levels = append(c.res.levels, rl)
		lv.P = co.Ptent
		if co.P != nil {
			rl.steps = []backend.Matrix{co.P}
			lv.P = co.P
		}
		if lv.Dinv, err = be.NewBlockDiag(nb, b); err != nil {
			return nil, nil, fmt.Errorf("cycle: level %d: %w", l, err)
		}
		if err := sync(&dl.Coarsen); err != nil {
			return nil, nil, fmt.Errorf("cycle: level %d: %w", l, err)
		}
		if rl.gal, err = be.NewGalerkinOn(cur, lv.P); err != nil {
			return nil, nil, fmt.Errorf("cycle: level %d: Galerkin plan: %w", l, err)
		}
		if rl.start, err = be.NewVector(n); err != nil {
			return nil, nil, err
		}
		if f, ok := be.(backend.StartVectorFiller); ok {
			f.FillStartVector(rl.start)
		} else {
			v := make([]float64, n)
			krylov.StartVector(v, 0)
			be.Upload(rl.start, v)
		}
		if err := sync(&dl.Plan); err != nil {
			return nil, nil, fmt.Errorf("cycle: level %d: %w", l, err)
		}
		if err := c.numericLevel(l, &dl.Numeric, sync); err != nil {
			return nil, nil, fmt.Errorf("cycle: device set-up, level %d: %w", l, err)
		}
		info.Levels = append(info.Levels, dl)
		cur, curB = rl.gal.Ac(), co.Bc
	}
	last := len(c.levels) - 1
	nb, _, b, _ := cur.Dims()
	if n := nb * b; n > amg.MaxCoarseUnknowns {
		why := "raise MaxLevels or lower CoarseEqLimit"
		if info.Stall != "" {
			why = info.Stall
		}
		return nil, nil, fmt.Errorf("%w: coarsest level %d has %d unknowns, more than the %d a dense Cholesky factor is allowed (%s)",
			amg.ErrStalled, last, n, amg.MaxCoarseUnknowns, why)
	}
	pat, err := be.DownloadPattern(cur)
	if err != nil {
		return nil, nil, err
	}
	c.res.coarse = pat
	if err := c.factorResident(); err != nil {
		return nil, nil, err
	}
	if err := sync(&info.Coarse); err != nil {
		return nil, nil, err
	}
	for l := range info.Levels {
		info.Levels[l].Memory = c.levelMemory(l)
		info.Levels[l].Blocks = blocksOf(be, c.levels[l].A)
		if l < last {
			info.Levels[l].PBlocks = blocksOf(be, c.levels[l].P)
			info.Levels[l].PtentBlocks = info.Levels[l].PBlocks
			if pt := c.res.levels[l].ptent; pt != c.levels[l].P {
				info.Levels[l].PtentBlocks = blocksOf(be, pt)
			}
		}
	}
	c.broken = false
	info.Total = time.Since(t0)
	ok = true
	return c, info, nil
}

// CheckSetupResident returns the error SetupResident gives for options alone, without
// allocating anything: invalid options (wrapping amg.ErrOptions), and those the device
// set-up does not cover (wrapping backend.ErrUnsupported): AggNSmooths above 1,
// FilterTheta, SmootherFloat32. A caller that sets up on the host instead for those
// learns it before uploading the fine operator.
func CheckSetupResident(be backend.Backend, opt amg.Options) error {
	if err := opt.Validate(); err != nil {
		return err
	}
	switch {
	case opt.AggNSmooths > 1:
		return fmt.Errorf("cycle: %w: AggNSmooths %d in a device set-up (0 or 1)", backend.ErrUnsupported, opt.AggNSmooths)
	case opt.FilterTheta > 0:
		return fmt.Errorf("cycle: %w: FilterTheta in a device set-up", backend.ErrUnsupported)
	case opt.SmootherFloat32:
		return fmt.Errorf("cycle: %w: SmootherFloat32 with a set-up on backend %s", backend.ErrUnsupported, be.Name())
	}
	return nil
}

// blocksOf returns the stored blocks of a backend matrix (a pattern download for a
// backend that cannot say).
func blocksOf(be backend.Coarsener, m backend.Matrix) int64 {
	if s, ok := m.(interface{ NNZBlocks() int64 }); ok {
		return s.NNZBlocks()
	}
	if p, err := be.DownloadPattern(m); err == nil {
		return p.NNZBlocks()
	}
	return 0
}

// deviceBytes returns what x reports of its device memory (0 when it does not).
func deviceBytes(x any) int64 {
	if d, ok := x.(interface{ DeviceBytes() int64 }); ok && d != nil {
		return d.DeviceBytes()
	}
	return 0
}

// levelMemory returns level l's device memory by kind.
func (c *Cycle) levelMemory(l int) DeviceMemory {
	lv := c.levels[l]
	var m DeviceMemory
	m.Operator = deviceBytes(lv.A)
	for _, v := range []backend.Vector{lv.b, lv.x, lv.r, lv.d, lv.t} {
		if v != nil {
			m.Vectors += 8 * int64(v.Len())
		}
	}
	if l < len(c.res.levels) {
		rl := c.res.levels[l]
		m.Prolongators = deviceBytes(rl.ptent)
		for _, s := range rl.steps {
			m.Prolongators += deviceBytes(s)
		}
		m.Plan = deviceBytes(rl.gal)
		if lv.Dinv != nil {
			m.Smoother = deviceBytes(lv.Dinv)
		}
		if rl.start != nil {
			m.Vectors += 8 * int64(rl.start.Len())
		}
	}
	return m
}
