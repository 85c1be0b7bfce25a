package amg

import (
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cpu"
	"github.com/blockamg/blockamg/krylov"
)

// The product's V-cycle lives in package amg/cycle, which imports amg; these tests
// judge a hierarchy through the test's own reference cycle instead: plain serial loops
// over the levels' arrays, Chebyshev by its textbook recurrence, the coarsest level by
// the hierarchy's factor.

// refApply runs one reference V-cycle from x = 0: z ≈ A⁻¹·r.
func refApply(h *Hierarchy, r, z []float64) {
	if h.Broken() {
		panic("refApply on a broken hierarchy")
	}
	refCycle(h, 0, r, z)
}

func refCycle(h *Hierarchy, l int, b, x []float64) {
	L := h.Levels[l]
	if l == len(h.Levels)-1 {
		h.coarse.Solve(b, x)
		return
	}
	n := len(b)
	clear(x)
	refCheb(h, L, b, x)
	r := refResidual(h, L, b, x)
	C := h.Levels[l+1]
	bc, xc := make([]float64, C.A.Rows()), make([]float64, C.A.Rows())
	L.P.MulTransVec(1, r, 0, bc)
	refCycle(h, l+1, bc, xc)
	y := make([]float64, n)
	L.P.MulVec(1, xc, 0, y)
	for i := range x {
		x[i] += y[i]
	}
	refCheb(h, L, b, x)
}

// refResidual returns b − A·x with the values the smoother reads (float32-rounded with
// SmootherFloat32).
func refResidual(h *Hierarchy, L *Level, b, x []float64) []float64 {
	A := L.A
	bs := A.R
	r := append([]float64(nil), b...)
	for i := 0; i < A.BlockRows; i++ {
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			j := int(A.ColIdx[k])
			for p := 0; p < bs; p++ {
				for q := 0; q < bs; q++ {
					v := A.Val[k*int64(bs*bs)+int64(p*bs+q)]
					if h.Opt.SmootherFloat32 {
						v = float64(float32(v))
					}
					r[i*bs+p] -= v * x[j*bs+q]
				}
			}
		}
	}
	return r
}

// refCheb runs SmootherIts Chebyshev steps for D⁻¹A on [ChebMin, ChebMax] from x.
func refCheb(h *Hierarchy, L *Level, b, x []float64) {
	theta := (L.ChebMax + L.ChebMin) / 2
	delta := (L.ChebMax - L.ChebMin) / 2
	sigma := theta / delta
	rho := 1 / sigma
	bs := L.A.R
	d := make([]float64, len(x))
	for k := 0; k < h.Opt.SmootherIts; k++ {
		r := refResidual(h, L, b, x)
		c1, c2 := 0.0, 1/theta
		if k > 0 {
			rhoNew := 1 / (2*sigma - rho)
			c1, c2 = rhoNew*rho, 2*rhoNew/delta
			rho = rhoNew
		}
		for i := 0; i < L.A.BlockRows; i++ {
			for p := 0; p < bs; p++ {
				s := 0.0
				for q := 0; q < bs; q++ {
					s += L.Dinv[i*bs*bs+p*bs+q] * r[i*bs+q]
				}
				d[i*bs+p] = c1*d[i*bs+p] + c2*s
			}
		}
		for i := range x {
			x[i] += d[i]
		}
	}
}

// refPC is the reference cycle as a backend.Preconditioner on the CPU backend.
type refPC struct{ h *Hierarchy }

func (p refPC) Apply(r, z backend.Vector) {
	refApply(p.h, r.(*cpu.Vector).Data(), z.(*cpu.Vector).Data())
}

// refCG solves A·x = b (x overwritten) by backend.PCG on the CPU backend with the
// reference cycle.
func refCG(h *Hierarchy, b, x []float64, opt krylov.Options) (krylov.Result, error) {
	be := cpu.New(h.Opt.Workers)
	return backend.PCG(be, cpu.WrapMatrix(h.Levels[0].A), refPC{h}, cpu.WrapVector(b), cpu.WrapVector(x), opt)
}
