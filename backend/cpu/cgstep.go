package cpu

import (
	"math"

	"github.com/blockamg/blockamg/backend"
)

var _ backend.CGStepper = (*Backend)(nil)

// cgState is the recurrence's scalars for backend.CGStepper.
type cgState struct {
	rz, rr float64
	brk    backend.CGScalars
}

// CGStart implements backend.CGStepper with the backend's own Dot, so that the
// iterates are bitwise those of backend.PCG's generic path.
func (b *Backend) CGStart(it int, r, z backend.Vector) {
	b.cg = cgState{rz: b.Dot(r, z)}
	b.cg.check(it, "rᵀz", b.cg.rz)
}

// CGUpdate implements backend.CGStepper.
func (b *Backend) CGUpdate(it int, p, q, x, r backend.Vector) {
	if b.cg.brk.Break {
		return
	}
	pq := b.Dot(p, q)
	if !b.cg.check(it, "pᵀAp", pq) {
		return
	}
	alpha := b.cg.rz / pq
	b.Axpby(alpha, p, 1, x)
	b.Axpby(-alpha, q, 1, r)
	b.cg.rr = b.Dot(r, r)
}

// CGDirection implements backend.CGStepper.
func (b *Backend) CGDirection(it int, r, z, p backend.Vector) {
	if b.cg.brk.Break {
		return
	}
	rzNew := b.Dot(r, z)
	if !b.cg.check(it, "rᵀz", rzNew) {
		return
	}
	b.Axpby(1, z, rzNew/b.cg.rz, p)
	b.cg.rz = rzNew
}

// CGRead implements backend.CGStepper.
func (b *Backend) CGRead() (backend.CGScalars, error) {
	s := b.cg.brk
	s.RR = b.cg.rr
	return s, nil
}

// check records a breakdown when v is not positive and finite; it reports whether v
// is good.
func (s *cgState) check(it int, quantity string, v float64) bool {
	if v > 0 && !math.IsInf(v, 0) {
		return true
	}
	s.brk = backend.CGScalars{Break: true, BreakIteration: it, BreakQuantity: quantity, BreakValue: v}
	return false
}
