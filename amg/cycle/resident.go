package cycle

import (
	"fmt"
	"time"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/krylov"
)

// resident is the device side of a hierarchy whose numeric set-up runs on the backend
// (UploadResident): the patterns of every matrix the set-up computes, and the plans.
type resident struct {
	be  backend.Resetter
	opt amg.Options
	// coarsest operator on the host: pattern from the hierarchy, values downloaded by
	// every Update
	coarse *bsr.Matrix
	levels []*residentLevel // all but the coarsest
}

// residentLevel holds what level l's re-setup needs on the device.
type residentLevel struct {
	ptent  backend.Matrix   // tentative prolongator (constant values)
	steps  []backend.Matrix // smoothing results in order; P itself when not filtered
	filter backend.Filter   // nil without filtering
	gal    backend.Galerkin // Ac = PᵀAP; its Ac is level l+1's operator
	start  backend.Vector   // start vector of the eigenvalue estimate
	eig    krylov.EigenEstimate
	omega  float64
}

// UpdateTimes is the time of a device re-setup's phases, each measured up to the
// device's completion: on a backend.Marker the spans between device time stamps
// queued at the phase boundaries (no wait between phases), otherwise the wall clock
// with the backend synchronised at every boundary. Total is always the wall clock.
type UpdateTimes struct {
	Levels []LevelTimes // all but the coarsest
	// Coarse: downloading the coarsest operator and its dense Cholesky on the host.
	Coarse time.Duration
	Total  time.Duration
}

// LevelTimes is one level's share of UpdateTimes.
type LevelTimes struct {
	Diag      time.Duration // block-diagonal inverse
	Eig       time.Duration // CG–Lanczos estimate of λ(D⁻¹A)
	Smooth    time.Duration // P = (I − ωD⁻¹A)·P_tent
	Filter    time.Duration // filtering and re-projection
	Transpose time.Duration // the transpose of P used for restriction
	Galerkin  time.Duration // Ac = PᵀAP
	Variant   string        // the Galerkin algorithm
	LambdaMax float64       // the estimate of λmax(D⁻¹A)
}

// UploadResident uploads h for a set-up that is redone on the device: the fine
// operator with its values; the tentative prolongators with theirs; the patterns of
// the smoothed (and filtered) prolongators and of the coarse operators, whose values
// the device computes; the Galerkin and filtering plans. It then runs Update once, so
// every value of the device hierarchy — not only the first solve's — comes from the
// device code path. Only h's patterns, aggregates, near-null spaces and options are
// used beyond the fine operator and the tentative prolongators.
func UploadResident(be backend.Resetter, h *amg.Hierarchy) (*Cycle, UpdateTimes, error) {
	c, err := newCycle(be, h.Opt)
	if err != nil {
		return nil, UpdateTimes{}, err
	}
	if c.f32 {
		return nil, UpdateTimes{}, fmt.Errorf("cycle: %w: SmootherFloat32 with a set-up on backend %s", backend.ErrUnsupported, be.Name())
	}
	c.res = &resident{be: be, opt: h.Opt}
	c.coarse = &amg.CoarseFactor{}
	ok := false
	defer func() {
		if !ok {
			c.Free()
		}
	}()
	nl := len(h.Levels)
	for l, L := range h.Levels {
		lv := &level{}
		c.levels = append(c.levels, lv)
		switch {
		case l == 0:
			lv.A, err = be.UploadMatrix(L.A, false)
		default:
			lv.A = c.res.levels[l-1].gal.Ac()
		}
		if err != nil {
			return nil, UpdateTimes{}, fmt.Errorf("cycle: level %d operator: %w", l, err)
		}
		n := L.A.Rows()
		if err := lv.allocate(be, n); err != nil {
			return nil, UpdateTimes{}, fmt.Errorf("cycle: level %d vectors: %w", l, err)
		}
		if l == nl-1 {
			c.res.coarse = L.A.ClonePattern()
			break
		}
		rl := &residentLevel{}
		c.res.levels = append(c.res.levels, rl)
		if err := c.res.uploadLevel(l, L, h.Levels[l+1], lv, rl); err != nil {
			return nil, UpdateTimes{}, fmt.Errorf("cycle: level %d: %w", l, err)
		}
	}
	times, err := c.Update()
	if err != nil {
		return nil, times, err
	}
	ok = true
	return c, times, nil
}

// uploadLevel prepares level l (L, with C the next level) of a resident hierarchy.
func (r *resident) uploadLevel(l int, L, C *amg.Level, lv *level, rl *residentLevel) error {
	be := r.be
	var err error
	if lv.Dinv, err = be.NewBlockDiag(L.A.BlockRows, L.A.R); err != nil {
		return err
	}
	steps := L.SmoothSteps()
	filtered := L.Filter != nil && !L.Filter.Identity()
	// The prolongator the cycle uses needs its transpose for restriction.
	if rl.ptent, err = be.UploadMatrix(L.Ptent, len(steps) == 0 && !filtered); err != nil {
		return fmt.Errorf("tentative prolongator: %w", err)
	}
	for s, Y := range steps {
		last := s == len(steps)-1
		m, err := be.UploadPattern(Y, last && !filtered)
		if err != nil {
			return fmt.Errorf("smoothed prolongator: %w", err)
		}
		rl.steps = append(rl.steps, m)
	}
	switch {
	case filtered:
		if lv.P, err = be.UploadPattern(L.P, true); err != nil {
			return fmt.Errorf("filtered prolongator: %w", err)
		}
		if rl.filter, err = be.NewFilter(L.Filter, C.B); err != nil {
			return fmt.Errorf("filter: %w", err)
		}
	case len(steps) > 0:
		lv.P = rl.steps[len(steps)-1]
	default:
		lv.P = rl.ptent
	}
	if rl.gal, err = be.NewGalerkin(L.A, L.P); err != nil {
		return fmt.Errorf("Galerkin plan: %w", err)
	}
	ar, ac, _, _ := rl.gal.Ac().Dims()
	if ar != C.A.BlockRows || ac != C.A.BlockCols {
		return fmt.Errorf("device Galerkin product is %d×%d blocks, the hierarchy's %d×%d", ar, ac, C.A.BlockRows, C.A.BlockCols)
	}
	n := L.A.Rows()
	if rl.start, err = be.NewVector(n); err != nil {
		return err
	}
	v := make([]float64, n)
	krylov.StartVector(v, 0)
	be.Upload(rl.start, v)
	return nil
}

// FineOperator returns the fine-level operator on the device: a resident hierarchy's
// Update recomputes everything from its current values, which device assembly (or
// UploadValues) may change in place.
func (c *Cycle) FineOperator() backend.Matrix { return c.levels[0].A }

// Resident reports whether c was made by UploadResident.
func (c *Cycle) Resident() bool { return c.res != nil }

// Update redoes the numeric set-up of a resident hierarchy on the device from the
// current values of the fine operator: per level, the block-diagonal inverse, the
// CG–Lanczos estimate of λ(D⁻¹A) (the same iteration and start vector as amg's), ω and
// the Chebyshev interval, the smoothed prolongator on its fixed pattern, filtering,
// the transpose used for restriction and the Galerkin product; then the coarsest
// operator is downloaded and factored on the host. Host↔device traffic: the CG
// scalars and the coarsest operator. The values agree with amg.Hierarchy.Update's to
// rounding (different summation order on the device).
func (c *Cycle) Update() (UpdateTimes, error) {
	r := c.res
	if r == nil {
		panic("cycle: Update on a cycle made by Upload (its set-up is on the host)")
	}
	be := r.be
	ut := UpdateTimes{Levels: make([]LevelTimes, len(r.levels))}
	// lap ends a phase. On a backend.Marker it queues a time stamp and the phase's
	// time is read at the end, so the device is not drained between phases (the
	// re-setup then waits only where it needs a value: the singular-block check and
	// each level's eigenvalue estimate); otherwise it waits and reads the clock.
	start := time.Now()
	t0 := start
	mk, marked := be.(backend.Marker)
	var readMarks func() error
	type span struct {
		from, to int
		t        *time.Duration
	}
	var spans []span
	var last int
	if marked {
		last = mk.Mark()
		consumed := false
		defer func() {
			if !consumed {
				mk.MarkTimes() // a failed re-setup: forget its marks
			}
		}()
		readMarks = func() error {
			consumed = true
			times, err := mk.MarkTimes()
			if err != nil {
				return err
			}
			for _, sp := range spans {
				*sp.t += times[sp.to] - times[sp.from]
			}
			return nil
		}
	}
	lap := func(t *time.Duration) error {
		if marked {
			k := mk.Mark()
			spans = append(spans, span{last, k, t})
			last = k
			return nil
		}
		err := be.Err()
		now := time.Now()
		*t += now.Sub(start)
		start = now
		return err
	}
	c.broken = true
	for l := range r.levels {
		if err := c.numericLevel(l, &ut.Levels[l], lap); err != nil {
			return ut, fmt.Errorf("cycle: device re-setup, level %d: %w", l, err)
		}
	}
	if err := c.factorResident(); err != nil {
		return ut, err
	}
	if err := lap(&ut.Coarse); err != nil {
		return ut, err
	}
	if marked {
		if err := readMarks(); err != nil {
			return ut, fmt.Errorf("cycle: device re-setup: %w", err)
		}
	}
	ut.Total = time.Since(t0)
	c.broken = false
	return ut, nil
}

// numericLevel runs level l's numeric set-up on the backend: the block-diagonal
// inverse, the eigenvalue estimate, ω and the smoother's interval, the smoothed (and
// filtered) prolongator, its transpose and the Galerkin product. lap ends a phase
// (its time into the LevelTimes field it is given).
func (c *Cycle) numericLevel(l int, lt *LevelTimes, lap func(*time.Duration) error) error {
	r := c.res
	be := r.be
	opt := &r.opt
	rl, lv := r.levels[l], c.levels[l]
	if err := be.InvertBlockDiag(lv.A, lv.Dinv); err != nil {
		return err
	}
	if err := lap(&lt.Diag); err != nil {
		return err
	}
	eig, err := c.estimate(lv, rl.start, opt.EstEigKSPMaxIt)
	if err != nil {
		return err
	}
	if err := lap(&lt.Eig); err != nil {
		return err
	}
	rl.eig = eig
	lt.LambdaMax = eig.Max
	rl.omega = opt.ProlongDamping / eig.Max
	cmin, cmax, err := amg.ChebyshevInterval(eig, opt.ChebyshevEstEig)
	if err != nil {
		return err
	}
	lv.spec = Spectrum{EigMin: eig.Min, EigMax: eig.Max, ChebMin: cmin, ChebMax: cmax}
	if lv.sm == nil {
		lv.S = lv.A
		if err := c.newSmoother(lv); err != nil {
			return err
		}
	}
	X := rl.ptent
	for _, Y := range rl.steps {
		be.SmoothProlongator(lv.A, lv.Dinv, rl.omega, X, Y)
		X = Y
	}
	if err := lap(&lt.Smooth); err != nil {
		return err
	}
	if rl.filter != nil {
		if err := rl.filter.Numeric(X, lv.P); err != nil {
			return err
		}
		if err := lap(&lt.Filter); err != nil {
			return err
		}
	}
	if lv.P != rl.ptent {
		be.RefreshTranspose(lv.P)
	}
	if err := lap(&lt.Transpose); err != nil {
		return err
	}
	if err := rl.gal.Numeric(lv.A, lv.P); err != nil {
		return err
	}
	if err := lap(&lt.Galerkin); err != nil {
		return err
	}
	lt.Variant = rl.gal.Name()
	return nil
}

// Eigen returns the eigenvalue estimates of λ(D⁻¹A) of a resident hierarchy's last
// Update, per level (all but the coarsest).
func (c *Cycle) Eigen() []krylov.EigenEstimate {
	var out []krylov.EigenEstimate
	if c.res != nil {
		for _, rl := range c.res.levels {
			out = append(out, rl.eig)
		}
	}
	return out
}

// estimate runs krylov.EstimateEigenvalues' CG–Lanczos iteration for D⁻¹A on the
// backend, in the level's work vectors: the same start vector, coefficients and stopping
// rules, so it returns the CPU's estimate up to rounding.
func (c *Cycle) estimate(lv *level, start backend.Vector, steps int) (krylov.EigenEstimate, error) {
	be := c.be
	n := lv.b.Len()
	if steps < 1 || n < 1 {
		return krylov.EigenEstimate{}, fmt.Errorf("%w: eigenvalue estimate with %d steps on size %d", krylov.ErrTolerance, steps, n)
	}
	rv, z, p, q := lv.b, lv.x, lv.d, lv.t
	var res backend.LanczosResult
	if lz, ok := be.(backend.Lanczoser); ok {
		var err error
		if res, err = lz.CGLanczos(lv.A, lv.Dinv, start, steps, rv, z, p, q); err != nil {
			return krylov.EigenEstimate{}, err
		}
	} else {
		res = backend.CGLanczos(be, lv.A, lv.Dinv, start, steps, rv, z, p, q)
	}
	if res.BreakQuantity != "" {
		return krylov.EigenEstimate{}, notSPD(&krylov.BreakdownError{Iteration: res.BreakIteration,
			Quantity: res.BreakQuantity, Value: res.BreakValue})
	}
	return krylov.LanczosEstimate(res.Alphas, res.Betas)
}

func notSPD(err error) error {
	return fmt.Errorf("%w: eigenvalue estimate: %w", amg.ErrNotSPD, err)
}

// factorResident downloads the coarsest operator of a resident hierarchy (the only
// matrix that comes to the host) and factors it there.
func (c *Cycle) factorResident() error {
	co := c.res.coarse
	if co.Val == nil {
		co.Val = make([]float64, co.NNZBlocks()*int64(co.R*co.C))
	}
	if err := c.res.be.DownloadValues(co.Val, c.levels[len(c.levels)-1].A); err != nil {
		return fmt.Errorf("cycle: device re-setup, coarsest operator: %w", err)
	}
	return c.factor(co)
}

// factor factors the coarsest operator on the host (amg's coarse factorization) and
// prepares its solve.
func (c *Cycle) factor(coarse *bsr.Matrix) error {
	if err := c.coarse.Factor(coarse); err != nil {
		return fmt.Errorf("cycle: coarsest operator (%d unknowns): %w", coarse.Rows(), err)
	}
	return c.coarseReady(coarse)
}
