package cycle

import (
	"fmt"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/bsr"
)

// level is one grid of the uploaded hierarchy.
type level struct {
	A   backend.Matrix // the operator (PCG's on level 0)
	src *bsr.Matrix    // the host matrix A was uploaded from (Upload)
	// S is the operator the smoother and the residual read: A, its float32 copy with
	// amg.Options.SmootherFloat32, or, with amg.Options.Symmetric and UpperProducts on
	// a backend.SymmetricSmoother, its copy by the blocks on and above the diagonal
	// (not on the coarsest level). sym says S is that copy, of the host matrix symSrc.
	S      backend.Matrix
	sym    bool
	symSrc *bsr.Matrix
	P      backend.Matrix    // nil on the coarsest level
	Dinv   backend.BlockDiag // nil on the coarsest level
	sm     Smoother          // nil on the coarsest level
	spec   Spectrum          // the smoother's interval (rewritten by every set-up)
	// work vectors: right-hand side, solution, residual, direction, and t: the
	// smoother's second iterate with a backend.ChebStepper, else its scratch
	b, x, r, d, t backend.Vector
}

// Cycle is an amg.Hierarchy uploaded to a backend. It is a Preconditioner for PCG. It
// is not safe for concurrent use.
type Cycle struct {
	be       backend.Backend
	levels   []*level
	smoother string // the registered smoother's name
	f32      bool   // smooth with float32 copies (amg.Options.SmootherFloat32)
	sym      bool   // multiply by upper copies (amg.Options.Symmetric and UpperProducts)
	degree   int    // smoother steps (amg.Options.SmootherIts)
	// coarse is the factor of the coarsest operator: the host hierarchy's (Upload) or
	// the cycle's own (UploadResident).
	coarse *amg.CoarseFactor
	cb, cx []float64 // host copies of the coarsest right-hand side and solution
	res    *resident // set-up on the device (UploadResident), else nil
	// inv is the dense inverse of a small coarsest operator on the backend (nil:
	// the coarsest level is solved on the host).
	inv backend.Matrix
	// broken is set while a set-up of the cycle is under way and stays set when it
	// fails.
	broken bool
}

// Upload copies the operators, prolongators and block-diagonal inverses of h to be and
// allocates the work vectors of the cycle; the coarsest level is solved with h's
// factor. After every h.Update, Refresh brings the new values. Options the backend
// cannot run (SmootherFloat32 without backend.Float32Smoother, an unregistered
// smoother) are errors wrapping backend.ErrUnsupported or amg.ErrOptions. Free
// releases everything.
func Upload(be backend.Backend, h *amg.Hierarchy) (*Cycle, error) {
	c, err := newCycle(be, h.Opt)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			c.Free()
		}
	}()
	for l, L := range h.Levels {
		lv := &level{}
		c.levels = append(c.levels, lv)
		if err := lv.allocate(be, L.A.Rows()); err != nil {
			return nil, fmt.Errorf("cycle: level %d vectors: %w", l, err)
		}
	}
	c.coarse = h.Coarse()
	if err := c.Refresh(h); err != nil {
		return nil, err
	}
	ok = true
	return c, nil
}

// newCycle checks what the options ask of the backend.
func newCycle(be backend.Backend, opt amg.Options) (*Cycle, error) {
	c := &Cycle{be: be, smoother: opt.Smoother, f32: opt.SmootherFloat32, sym: opt.Symmetric && opt.UpperProducts, degree: opt.SmootherIts}
	if c.smoother == "" {
		c.smoother = DefaultSmoother
	}
	if _, ok := smoothers[c.smoother]; !ok {
		return nil, fmt.Errorf("cycle: %w: smoother %q: want one of %s", amg.ErrOptions, c.smoother, SmootherNames())
	}
	if c.f32 {
		_, f32 := be.(backend.Float32Smoother)
		_, fused := be.(backend.ChebStepper)
		if !f32 || !fused {
			return nil, fmt.Errorf("cycle: %w: SmootherFloat32 on backend %s", backend.ErrUnsupported, be.Name())
		}
	}
	return c, nil
}

// Refresh brings the values of h after a successful h.Update into a cycle made by
// Upload from h: block-diagonal inverses, smoother intervals, float32 copies, and on a
// backend outside host memory the operators, prolongators and the coarse inverse. On
// an error the cycle refuses to run until a Refresh succeeds.
func (c *Cycle) Refresh(h *amg.Hierarchy) error {
	if c.res != nil {
		panic("cycle: Refresh on a resident cycle (its set-up runs on the backend: Update)")
	}
	if len(h.Levels) != len(c.levels) {
		panic("cycle: Refresh: hierarchy of another shape")
	}
	if h.Broken() {
		c.broken = true
		return fmt.Errorf("cycle: %w: the hierarchy's last Update failed", amg.ErrBroken)
	}
	be := c.be
	_, host := be.(backend.Host)
	c.broken = true
	last := len(h.Levels) - 1
	for l, L := range h.Levels {
		lv := c.levels[l]
		var err error
		// On the host the operators alias h's matrices, so only a different matrix (a
		// level 0 that Update took from the caller) is wrapped again.
		if lv.A == nil || !host || lv.src != L.A {
			if lv.A, err = reupload(be, lv.A, L.A, false); err != nil {
				return fmt.Errorf("cycle: level %d operator: %w", l, err)
			}
			lv.src = L.A
		}
		if l == last {
			break
		}
		if lv.P == nil || !host {
			if lv.P, err = reupload(be, lv.P, L.P, true); err != nil {
				return fmt.Errorf("cycle: level %d prolongator: %w", l, err)
			}
		}
		if lv.Dinv != nil {
			lv.Dinv.Free()
		}
		if lv.Dinv, err = be.UploadBlockDiag(L.A.BlockRows, L.A.R, L.Dinv); err != nil {
			return fmt.Errorf("cycle: level %d block-diagonal inverse: %w", l, err)
		}
		if err := c.smoothingOperator(lv, L.A); err != nil {
			return fmt.Errorf("cycle: level %d: %w", l, err)
		}
		lv.spec = Spectrum{EigMin: L.Eig.Min, EigMax: L.Eig.Max, ChebMin: L.ChebMin, ChebMax: L.ChebMax}
		if err := c.newSmoother(lv); err != nil {
			return fmt.Errorf("cycle: level %d: %w", l, err)
		}
	}
	if err := c.coarseReady(h.Levels[last].A); err != nil {
		return err
	}
	if err := be.Err(); err != nil {
		return err
	}
	c.broken = false
	return nil
}

// smoothingOperator makes lv.S for the level's host operator m: its float32 copy
// (SmootherFloat32), its upper copy (Symmetric and UpperProducts, on a
// backend.SymmetricSmoother; one made from m before takes m's new values), or A
// itself.
func (c *Cycle) smoothingOperator(lv *level, m *bsr.Matrix) error {
	ss, symmetric := c.be.(backend.SymmetricSmoother)
	symmetric = symmetric && c.sym && !c.f32
	if symmetric && lv.sym && lv.symSrc == m {
		ss.RefreshSymmetric(lv.S)
		return nil
	}
	if lv.S != nil && lv.S != lv.A {
		lv.S.Free()
	}
	lv.S, lv.sym, lv.symSrc = lv.A, false, nil
	var err error
	switch {
	case c.f32:
		if lv.S, err = c.be.(backend.Float32Smoother).UploadMatrixFloat32(m); err != nil {
			lv.S = lv.A
			return fmt.Errorf("float32 operator: %w", err)
		}
	case symmetric:
		if lv.S, err = ss.UploadMatrixSymmetric(m); err != nil {
			lv.S = lv.A
			return fmt.Errorf("symmetric operator: %w", err)
		}
		lv.sym, lv.symSrc = true, m
	}
	return nil
}

// reupload replaces old (may be nil) by m uploaded to be.
func reupload(be backend.Backend, old backend.Matrix, m *bsr.Matrix, withTranspose bool) (backend.Matrix, error) {
	if old != nil {
		old.Free()
	}
	return be.UploadMatrix(m, withTranspose)
}

// newSmoother (re)creates the level's smoother for its current operators.
func (c *Cycle) newSmoother(lv *level) error {
	if lv.sm != nil {
		lv.sm.Free()
	}
	var err error
	lv.sm, err = smoothers[c.smoother](c.be, &Level{S: lv.S, Dinv: lv.Dinv, Spectrum: &lv.spec, Degree: c.degree,
		D: lv.d, R: lv.r, T: lv.t})
	return err
}

// coarseReady prepares the coarsest solve after its operator was factored: host
// vectors, and on a backend outside host memory the dense inverse of a small level.
func (c *Cycle) coarseReady(coarse *bsr.Matrix) error {
	n := coarse.Rows()
	if len(c.cb) != n {
		c.cb, c.cx = make([]float64, n), make([]float64, n)
	}
	if _, host := c.be.(backend.Host); host || n == 0 || n > maxDeviceInverse || n%coarse.R != 0 {
		return nil
	}
	// Small coarsest levels are solved on the device by a product with the inverse,
	// stored as a dense BSR matrix: no host round trip in the cycle.
	b := coarse.R
	nb := n / b
	inv := make([]float64, n*n)
	c.coarse.Inverse(inv)
	m := &bsr.Matrix{BlockRows: nb, BlockCols: nb, R: b, C: b, RowPtr: make([]int64, nb+1),
		ColIdx: make([]int32, nb*nb), Val: make([]float64, n*n)}
	for i := 0; i < nb; i++ {
		m.RowPtr[i+1] = int64((i + 1) * nb)
		for j := 0; j < nb; j++ {
			m.ColIdx[i*nb+j] = int32(j)
			blk := m.Val[(i*nb+j)*b*b : (i*nb+j+1)*b*b]
			for r := 0; r < b; r++ {
				copy(blk[r*b:(r+1)*b], inv[(i*b+r)*n+j*b:(i*b+r)*n+j*b+b])
			}
		}
	}
	if rs, ok := c.be.(backend.Resetter); ok && c.inv != nil {
		return rs.UploadValues(c.inv, m.Val)
	}
	if c.inv != nil {
		c.inv.Free()
		c.inv = nil
	}
	var err error
	c.inv, err = c.be.UploadMatrix(m, false)
	return err
}

// maxDeviceInverse is the largest coarsest level solved on a device through its
// dense inverse (2048 unknowns: 32 MB, one SpMV per cycle); larger ones are solved on
// the host by the Cholesky factor.
const maxDeviceInverse = 2048

// allocate creates the level's work vectors of n entries.
func (lv *level) allocate(be backend.Backend, n int) error {
	for _, v := range []*backend.Vector{&lv.b, &lv.x, &lv.r, &lv.d, &lv.t} {
		var err error
		if *v, err = be.NewVector(n); err != nil {
			return err
		}
	}
	return nil
}

// Free releases the backend storage of c.
func (c *Cycle) Free() {
	for _, lv := range c.levels {
		for _, v := range []backend.Vector{lv.b, lv.x, lv.r, lv.d, lv.t} {
			if v != nil {
				v.Free()
			}
		}
		if lv.sm != nil {
			lv.sm.Free()
		}
		if lv.S != nil && lv.S != lv.A {
			lv.S.Free()
		}
		if lv.A != nil {
			lv.A.Free()
		}
		if lv.P != nil {
			lv.P.Free()
		}
		if lv.Dinv != nil {
			lv.Dinv.Free()
		}
	}
	if c.inv != nil {
		c.inv.Free()
		c.inv = nil
	}
	// A resident hierarchy's matrices alias each other (P is a smoothing step's
	// result, coarse operators are Galerkin outputs); Free is idempotent.
	if c.res != nil {
		for _, rl := range c.res.levels {
			for _, m := range append([]backend.Matrix{rl.ptent}, rl.steps...) {
				if m != nil {
					m.Free()
				}
			}
			if rl.filter != nil {
				rl.filter.Free()
			}
			if rl.gal != nil {
				rl.gal.Free()
			}
			if rl.start != nil {
				rl.start.Free()
			}
		}
		c.res.levels = nil
	}
	c.levels = nil
}

// Len returns the number of fine-level unknowns.
func (c *Cycle) Len() int { return c.levels[0].b.Len() }

// Ready returns nil when the cycle can run, else an error wrapping amg.ErrBroken: the
// last set-up (Refresh, Update) failed and the levels mix two matrices' values.
func (c *Cycle) Ready() error {
	if c.broken {
		return fmt.Errorf("cycle: %w: the last set-up failed; the hierarchy is unusable until one succeeds", amg.ErrBroken)
	}
	return nil
}

// Apply runs one V-cycle from a zero initial guess: z ≈ A⁻¹·r. r is not modified.
// It panics when Ready does not return nil: a solver checks Ready first.
func (c *Cycle) Apply(r, z backend.Vector) {
	if r.Len() != c.Len() || z.Len() != c.Len() {
		panic("cycle: Apply: vector length mismatch")
	}
	if c.broken {
		panic("cycle: Apply: the last set-up failed; the hierarchy is unusable until one succeeds")
	}
	c.cycle(0, r, z)
}

func (c *Cycle) cycle(l int, b, x backend.Vector) {
	be := c.be
	L := c.levels[l]
	if l == len(c.levels)-1 {
		c.coarseSolve(b, x)
		return
	}
	cur := L.sm.Pre(b, x)
	// r = b − A·x, restricted: C.b = Pᵀ·r.
	if cs, ok := be.(backend.ChebStepper); ok {
		cs.Residual(L.S, b, cur, L.r)
	} else {
		be.Copy(L.r, b)
		be.SpMV(-1, L.S, cur, 1, L.r)
	}
	C := c.levels[l+1]
	be.SpMVTrans(1, L.P, L.r, 0, C.b)
	c.cycle(l+1, C.b, C.x)
	be.SpMV(1, L.P, C.x, 1, cur)
	L.sm.Post(b, x, cur)
}

// coarseSolve solves the coarsest system: by the product with its inverse on the
// backend when it is small and the backend is a device, else with the host's
// Cholesky factor, where the coarsest vectors are a cycle's only traffic.
func (c *Cycle) coarseSolve(b, x backend.Vector) {
	if len(c.cb) == 0 {
		return
	}
	if c.inv != nil {
		c.be.SpMV(1, c.inv, b, 0, x)
		return
	}
	c.be.Download(c.cb, b)
	c.coarse.Solve(c.cb, c.cx)
	c.be.Upload(x, c.cx)
}

// Operator returns the fine-level operator as uploaded, for PCG.
func (c *Cycle) Operator() backend.Matrix {
	if lv := c.levels[0]; lv.sym {
		return lv.S // the same matrix, its product streaming half the bytes
	}
	return c.levels[0].A
}
