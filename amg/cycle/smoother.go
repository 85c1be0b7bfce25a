package cycle

import (
	"fmt"
	"slices"
	"strings"

	"github.com/blockamg/blockamg/backend"
)

// Smoother is one level's relaxation in the V-cycle, written against backend
// primitives so that it runs on every backend. A new smoother is one file: a type
// implementing Smoother and a RegisterSmoother call in its init.
type Smoother interface {
	// Pre smooths A·x = b from x = 0 and returns the vector that holds the iterate:
	// x, or the level's T (a backend.ChebStepper writes each step's iterate to the
	// other of the two). The cycle adds the coarse correction to it and hands it to
	// Post.
	Pre(b, x backend.Vector) backend.Vector
	// Post smooths from the iterate in cur (x or T) and leaves the result in x.
	Post(b, x, cur backend.Vector)
	// Free releases what the smoother allocated itself (not the Level's vectors).
	Free()
}

// Level is what a smoother is built from: its level's operator and block-diagonal
// inverse, the spectrum estimate (rewritten in place by every set-up, so a smoother
// reads it when it runs), the number of steps, and three scratch vectors of the
// level's size that the smoother may use between its own calls' start and end.
type Level struct {
	S    backend.Matrix // the operator as smoothed (a float32 copy with SmootherFloat32)
	Dinv backend.BlockDiag
	*Spectrum
	Degree  int // amg.Options.SmootherIts: steps before and after the coarse correction
	D, R, T backend.Vector
}

// Spectrum is a level's estimate of λ(D⁻¹A) and the Chebyshev interval derived from it
// (amg.Options.ChebyshevEstEig), the one rule for both.
type Spectrum struct {
	EigMin, EigMax   float64
	ChebMin, ChebMax float64
}

// NewSmoother makes a level's smoother on a backend.
type NewSmoother func(be backend.Backend, lv *Level) (Smoother, error)

var smoothers = map[string]NewSmoother{}

// DefaultSmoother is the smoother of an empty amg.Options.Smoother.
const DefaultSmoother = "chebyshev"

// RegisterSmoother makes a smoother available under name (amg.Options.Smoother). It
// panics when the name is taken: registrations happen in init functions.
func RegisterSmoother(name string, f NewSmoother) {
	if _, dup := smoothers[name]; dup || name == "" {
		panic("cycle: RegisterSmoother: name " + name + " empty or taken")
	}
	smoothers[name] = f
}

// SmootherNames returns the registered smoothers' names, sorted and comma-separated.
func SmootherNames() string {
	var names []string
	for n := range smoothers {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// KnownSmoother reports whether name is registered ("" means DefaultSmoother).
func KnownSmoother(name string) bool {
	_, ok := smoothers[name]
	return ok || name == ""
}

// polynomial runs a smoother whose steps are d = c1·d + c2·D⁻¹(b − A·x), x += d:
// Chebyshev's and damped Jacobi's. The first step from x = 0 is d = first·D⁻¹b; from a
// given x it has c1 = 0, c2 = first. coef(k) gives step k ≥ 1's coefficients.
type polynomial struct {
	be    backend.Backend
	lv    *Level
	first func() float64
	coef  func(k int, state *float64) (c1, c2 float64)
	init  func() float64 // the state coef threads through the steps
}

func (p *polynomial) Free() {}

// other returns the vector of x and T that v is not.
func (p *polynomial) other(x, v backend.Vector) backend.Vector {
	if v == x {
		return p.lv.T
	}
	return x
}

// Pre starts from x = 0. With a backend.ChebStepper the zero-guess step lands in T, so
// the 2·Degree − 1 alternations of a V-cycle end in x.
func (p *polynomial) Pre(b, x backend.Vector) backend.Vector {
	be, lv := p.be, p.lv
	var cur backend.Vector
	if cs, fused := be.(backend.ChebStepper); fused {
		cs.DiagApply2(lv.Dinv, p.first(), b, lv.D, lv.T)
		cur = lv.T
	} else {
		be.BlockDiagApply(lv.Dinv, b, lv.D)
		be.Scale(p.first(), lv.D)
		be.Copy(x, lv.D)
		cur = x
	}
	return p.steps(b, x, cur, 1)
}

// Post starts from the iterate in cur.
func (p *polynomial) Post(b, x, cur backend.Vector) {
	cur = p.step(b, x, cur, 0, p.first())
	if cur = p.steps(b, x, cur, 1); cur != x {
		p.be.Copy(x, cur) // not reached with Pre's arrangement: the steps end in x
	}
}

func (p *polynomial) steps(b, x, cur backend.Vector, from int) backend.Vector {
	state := p.init()
	for k := from; k < p.lv.Degree; k++ {
		c1, c2 := p.coef(k, &state)
		cur = p.step(b, x, cur, c1, c2)
	}
	return cur
}

// step computes d = c1·d + c2·D⁻¹(b − A·x) and the new iterate x + d, which it
// returns: in the other of x and T with a backend.ChebStepper, else in cur itself.
func (p *polynomial) step(b, x, cur backend.Vector, c1, c2 float64) backend.Vector {
	be, lv := p.be, p.lv
	if cs, ok := be.(backend.ChebStepper); ok {
		next := p.other(x, cur)
		cs.ChebStep(lv.S, lv.Dinv, b, cur, c1, c2, lv.D, next)
		return next
	}
	be.Copy(lv.R, b)
	be.SpMV(-1, lv.S, cur, 1, lv.R)
	be.BlockDiagApply(lv.Dinv, lv.R, lv.T)
	be.Axpby(c2, lv.T, c1, lv.D)
	be.Axpby(1, lv.D, 1, cur)
	return cur
}

// checkInterval refuses an interval a polynomial smoother cannot use.
func checkInterval(lv *Level) error {
	if !(lv.ChebMax > lv.ChebMin && lv.ChebMin > 0) {
		return fmt.Errorf("smoother interval [%g, %g] is not a positive interval", lv.ChebMin, lv.ChebMax)
	}
	return nil
}
