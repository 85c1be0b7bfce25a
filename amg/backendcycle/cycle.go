package backendcycle

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/backend"
)

// level is one grid of the uploaded hierarchy.
type level struct {
	A      backend.Matrix
	P      backend.Matrix    // nil on the coarsest level
	Dinv   backend.BlockDiag // nil on the coarsest level
	theta  float64           // Chebyshev centre (emax+emin)/2
	delta  float64           // Chebyshev half-width (emax−emin)/2
	degree int
	// work vectors: right-hand side, solution, residual, direction, and t: the
	// smoother's second iterate with a backend.ChebStepper, else its scratch
	b, x, r, d, t backend.Vector
}

// Cycle is an amg.Hierarchy uploaded to a backend. It is a Preconditioner for PCG. It
// is not safe for concurrent use.
type Cycle struct {
	be     backend.Backend
	levels []*level
	chol   mat.Cholesky // of the coarsest operator, on the host
	cb, cx []float64    // host copies of the coarsest right-hand side and solution
	res    *resident    // set-up on the device (UploadResident), else nil
	// inv is the dense inverse of a small coarsest operator on the backend (nil:
	// the coarsest level is solved on the host).
	inv backend.Matrix
	// broken is set while a device Update is under way and stays set when it fails.
	broken bool
}

// Upload copies the operators, prolongators and block-diagonal inverses of h to be and
// allocates the work vectors of the cycle. The coarsest operator is factored on the
// host. Free releases everything.
func Upload(be backend.Backend, h *amg.Hierarchy) (*Cycle, error) {
	c := &Cycle{be: be}
	ok := false
	defer func() {
		if !ok {
			c.Free()
		}
	}()
	for l, L := range h.Levels {
		lv := &level{degree: h.Opt.SmootherIts}
		c.levels = append(c.levels, lv)
		var err error
		if lv.A, err = be.UploadMatrix(L.A, false); err != nil {
			return nil, fmt.Errorf("backendcycle: level %d operator: %w", l, err)
		}
		n := L.A.Rows()
		if err := lv.allocate(be, n); err != nil {
			return nil, fmt.Errorf("backendcycle: level %d vectors: %w", l, err)
		}
		if l == len(h.Levels)-1 {
			break
		}
		if lv.P, err = be.UploadMatrix(L.P, true); err != nil {
			return nil, fmt.Errorf("backendcycle: level %d prolongator: %w", l, err)
		}
		if lv.Dinv, err = be.UploadBlockDiag(L.A.BlockRows, L.A.R, L.Dinv); err != nil {
			return nil, fmt.Errorf("backendcycle: level %d block-diagonal inverse: %w", l, err)
		}
		lv.theta = (L.ChebMax + L.ChebMin) / 2
		lv.delta = (L.ChebMax - L.ChebMin) / 2
	}
	coarse := h.Levels[len(h.Levels)-1].A
	n := coarse.Rows()
	if err := c.factor(coarse); err != nil {
		return nil, err
	}
	c.cb = make([]float64, n)
	c.cx = make([]float64, n)
	if err := be.Err(); err != nil {
		return nil, err
	}
	ok = true
	return c, nil
}

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

// Apply runs one V-cycle from a zero initial guess: z ≈ A⁻¹·r. r is not modified.
func (c *Cycle) Apply(r, z backend.Vector) {
	if r.Len() != c.Len() || z.Len() != c.Len() {
		panic("backendcycle: Apply: vector length mismatch")
	}
	if c.broken {
		panic("backendcycle: Apply: the last device Update failed; the hierarchy is unusable until an Update succeeds")
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
	cur := c.smooth(L, b, x, nil)
	// r = b − A·x, restricted: C.b = Pᵀ·r.
	if cs, ok := be.(backend.ChebStepper); ok {
		cs.Residual(L.A, b, cur, L.r)
	} else {
		be.Copy(L.r, b)
		be.SpMV(-1, L.A, cur, 1, L.r)
	}
	C := c.levels[l+1]
	be.SpMVTrans(1, L.P, L.r, 0, C.b)
	c.cycle(l+1, C.b, C.x)
	be.SpMV(1, L.P, C.x, 1, cur)
	if cur = c.smooth(L, b, x, cur); cur != x {
		be.Copy(x, cur) // not reached: the fused steps start in L.t so as to end in x
	}
}

// smooth runs the Chebyshev iterations of amg's smoother (see amg/chebyshev.go) for
// A·x = b, from x = 0 when cur is nil, else from the iterate held by cur (x or L.t),
// and returns the vector that holds the result. A backend.ChebStepper writes each
// step's iterate to the other of x and L.t (its product still reads the old one);
// the zero-guess start lands in L.t, so the 2·degree − 1 alternations of a V-cycle
// end in x. Without it the steps update x in place.
func (c *Cycle) smooth(L *level, b, x, cur backend.Vector) backend.Vector {
	be := c.be
	sigma := L.theta / L.delta
	rho := 1 / sigma
	cs, fused := be.(backend.ChebStepper)
	other := func(v backend.Vector) backend.Vector {
		if v == x {
			return L.t
		}
		return x
	}
	switch {
	case cur == nil && fused:
		cs.DiagApply2(L.Dinv, 1/L.theta, b, L.d, L.t)
		cur = L.t
	case cur == nil:
		be.BlockDiagApply(L.Dinv, b, L.d)
		be.Scale(1/L.theta, L.d)
		be.Copy(x, L.d)
		cur = x
	default:
		cur = c.step(L, b, cur, other(cur), 0, 1/L.theta)
	}
	for k := 1; k < L.degree; k++ {
		rhoNew := 1 / (2*sigma - rho)
		cur = c.step(L, b, cur, other(cur), rhoNew*rho, 2*rhoNew/L.delta)
		rho = rhoNew
	}
	return cur
}

// step computes d = c1·d + c2·D⁻¹(b − A·x) and the new iterate x + d, which it
// returns: in next with a backend.ChebStepper, else in x itself (next unused).
func (c *Cycle) step(L *level, b, x, next backend.Vector, c1, c2 float64) backend.Vector {
	be := c.be
	if cs, ok := be.(backend.ChebStepper); ok {
		cs.ChebStep(L.A, L.Dinv, b, x, c1, c2, L.d, next)
		return next
	}
	be.Copy(L.r, b)
	be.SpMV(-1, L.A, x, 1, L.r)
	be.BlockDiagApply(L.Dinv, L.r, L.t)
	be.Axpby(c2, L.t, c1, L.d)
	be.Axpby(1, L.d, 1, x)
	return x
}

// coarseSolve solves the coarsest system: by the product with its inverse on the
// backend when it is small, else on the host, where the coarsest vectors are a
// cycle's only traffic.
func (c *Cycle) coarseSolve(b, x backend.Vector) {
	if len(c.cb) == 0 {
		return
	}
	if c.inv != nil {
		c.be.SpMV(1, c.inv, b, 0, x)
		return
	}
	c.be.Download(c.cb, b)
	var xv mat.VecDense
	if err := c.chol.SolveVecTo(&xv, mat.NewVecDense(len(c.cb), c.cb)); err != nil {
		// The factor was checked at Upload; a failure here is a programming error.
		panic(errors.New("backendcycle: coarse solve: " + err.Error()))
	}
	copy(c.cx, xv.RawVector().Data)
	c.be.Upload(x, c.cx)
}

// Operator returns the fine-level operator as uploaded, for PCG.
func (c *Cycle) Operator() backend.Matrix { return c.levels[0].A }
