package cycle

import (
	"fmt"
	"math"
	"testing"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cpu"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/krylov"
)

// residentCase is an ex56 hierarchy and a second set of fine values on its pattern.
type residentCase struct {
	name string
	h    *amg.Hierarchy
	rhs  []float64
	next *bsr.Matrix // the fine operator of the next "time step"
}

func residentCases(t *testing.T, ne int) []residentCase {
	t.Helper()
	var out []residentCase
	for _, theta := range []float64{0, 0.05} {
		box, err := fem.NewBox(fem.Ex56(ne))
		if err != nil {
			t.Fatal(err)
		}
		asm, err := box.Symbolic(0)
		if err != nil {
			t.Fatal(err)
		}
		A := asm.NewMatrix()
		if err := asm.Numeric(A, nil, 0); err != nil {
			t.Fatal(err)
		}
		opt := amg.DefaultOptions()
		opt.Threshold = -0.01
		opt.CoarseEqLimit = 200
		opt.ChebyshevEstEig = [4]float64{0, 0.2, 0, 1.05}
		opt.FilterTheta = theta
		B, _, err := fem.RigidBodyModes(box.Coords(), 3, true)
		if err != nil {
			t.Fatal(err)
		}
		h, err := amg.Setup(A, &amg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, opt)
		if err != nil {
			t.Fatal(err)
		}
		// The next step: the soft material three times stiffer.
		mod := box.ElementModulus()
		for e := range mod {
			if mod[e] != box.Problem().E {
				mod[e] *= 3
			}
		}
		next := asm.NewMatrix()
		if err := asm.Numeric(next, mod, 0); err != nil {
			t.Fatal(err)
		}
		rhs := make([]float64, A.Rows())
		for i := range rhs {
			rhs[i] = math.Sin(float64(i))
		}
		out = append(out, residentCase{name: fmt.Sprintf("theta=%g", theta), h: h, rhs: rhs, next: next})
	}
	return out
}

// checkResident compares every device level with the CPU hierarchy: operators,
// eigenvalue estimates and one V-cycle.
func checkResident(t *testing.T, label string, be backend.Resetter, c *Cycle, h *amg.Hierarchy, rhs []float64) {
	t.Helper()
	for l, L := range h.Levels {
		got := make([]float64, len(L.A.Val))
		for i := range got {
			got[i] = math.NaN()
		}
		if err := be.DownloadValues(got, c.levels[l].A); err != nil {
			t.Fatalf("%s: level %d: %v", label, l, err)
		}
		if d := relDiff(got, L.A.Val); !(d < 1e-12) {
			t.Errorf("%s: level %d operator differs from amg's by %.2e (want < 1e-12)", label, l, d)
		}
	}
	for l, e := range c.Eigen() {
		want := h.Levels[l].Eig
		if d := math.Abs(e.Max-want.Max) / want.Max; !(d < 1e-10) || e.Steps != want.Steps {
			t.Errorf("%s: level %d λmax %v (%d steps), amg %v (%d steps)", label, l, e.Max, e.Steps, want.Max, want.Steps)
		}
	}
	// The reference: h's own values (the host set-up) in a cycle on the CPU backend.
	hostBe := cpu.New(1)
	hc, err := Upload(hostBe, h)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Free()
	hr, _ := hostBe.NewVector(len(rhs))
	hz, _ := hostBe.NewVector(len(rhs))
	hostBe.Upload(hr, rhs)
	hc.Apply(hr, hz)
	want := make([]float64, len(rhs))
	hostBe.Download(want, hz)
	r, _ := be.NewVector(len(rhs))
	z, _ := be.NewVector(len(rhs))
	defer r.Free()
	defer z.Free()
	be.Upload(r, rhs)
	c.Apply(r, z)
	got := make([]float64, len(rhs))
	be.Download(got, z)
	if d := relDiff(got, want); !(d < 1e-10) {
		t.Errorf("%s: V-cycle differs from the host set-up's by %.2e (want < 1e-10)", label, d)
	}
	// The solve: the same iterations as CG on the host hierarchy, solutions within 1e-8.
	opt := krylov.DefaultOptions()
	hx, _ := hostBe.NewVector(len(rhs))
	wantRes, err := backend.PCG(hostBe, hc.Operator(), hc, hr, hx, opt)
	if err != nil {
		t.Fatal(err)
	}
	xh := make([]float64, len(rhs))
	hostBe.Download(xh, hx)
	x, _ := be.NewVector(len(rhs))
	defer x.Free()
	gotRes, err := backend.PCG(be, c.Operator(), c, r, x, opt)
	if err != nil {
		t.Fatalf("%s: PCG: %v", label, err)
	}
	xd := make([]float64, len(rhs))
	be.Download(xd, x)
	if gotRes.Iterations != wantRes.Iterations {
		t.Errorf("%s: PCG %d iterations, host CG %d", label, gotRes.Iterations, wantRes.Iterations)
	}
	if d := relDiff(xd, xh); !(d < 1e-8) {
		t.Errorf("%s: solution differs from the host's by %.2e (want < 1e-8)", label, d)
	}
}

// TestResidentMatchesUpdate builds the device-resident hierarchy, compares it with
// amg's, changes the fine values on the device, re-sets up there and compares with
// amg.Hierarchy.Update; the re-setup's host↔device traffic must be scalars and the
// coarsest operator.
func TestResidentMatchesUpdate(t *testing.T) {
	for _, tc := range residentCases(t, 10) {
		bes := backends(t)
		// The CPU backend with only the Resetter methods: the cycle's and the
		// estimate's unfused paths (no ChebStepper, no Lanczoser).
		bes["cpu-plain"] = plainResetter{cpu.New(0)}
		for name, be0 := range bes {
			be, ok := be0.(backend.Resetter)
			if !ok {
				t.Fatalf("%s: backend does not implement backend.Resetter", name)
			}
			label := name + " " + tc.name
			h := tc.h
			c, _, err := UploadResident(be, h)
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			checkResident(t, label+" first set-up", be, c, h, tc.rhs)

			// The new values arrive on the device (device assembly in the CLI).
			be.SetPhase("test values")
			if err := be.UploadValues(c.FineOperator(), tc.next.Val); err != nil {
				t.Fatal(err)
			}
			be.SetPhase("test re-setup")
			before := be.Counters().Phase("test re-setup")
			ut, err := c.Update()
			if err != nil {
				t.Fatalf("%s: Update: %v", label, err)
			}
			tr := be.Counters().Phase("test re-setup")
			if err := h.Update(tc.next.Clone()); err != nil {
				t.Fatal(err)
			}
			checkResident(t, label+" re-setup", be, c, h, tc.rhs)
			if len(ut.Levels) != len(h.Levels)-1 {
				t.Errorf("%s: %d level times for %d levels", label, len(ut.Levels), len(h.Levels))
			}
			// Phase times (device marks or the clock) are filled and fit in the total.
			sum := ut.Coarse
			for l, lt := range ut.Levels {
				if lt.Galerkin <= 0 || lt.Eig <= 0 || lt.Diag < 0 || lt.Smooth < 0 || lt.Transpose < 0 {
					t.Errorf("%s: level %d phase times %+v: not measured", label, l, lt)
				}
				sum += lt.Diag + lt.Eig + lt.Smooth + lt.Filter + lt.Transpose + lt.Galerkin
			}
			if sum > ut.Total+ut.Total/100 {
				t.Errorf("%s: phase times add up to %v, more than the total %v", label, sum, ut.Total)
			}
			// The coarsest operator comes down and, when small, its dense inverse
			// goes up.
			coarse := h.Levels[len(h.Levels)-1].A
			nc := int64(coarse.Rows())
			limit := coarse.Bytes() + nc*nc*8 + int64(len(h.Levels))*int64(4*h.Opt.EstEigKSPMaxIt+16)*8
			moved := tr.H2DBytes + tr.D2HBytes - before.H2DBytes - before.D2HBytes
			if moved > limit {
				t.Errorf("%s: re-setup moved %d bytes host↔device, want ≤ %d (scalars, the coarsest operator and its inverse)", label, moved, limit)
			}
			// Never a fine or intermediate operator: less than the smallest of them.
			for l, L := range h.Levels[:len(h.Levels)-1] {
				if name == "cuda" && moved >= L.A.Bytes() {
					t.Errorf("%s: re-setup moved %d bytes, as much as level %d's operator (%d)", label, moved, l, L.A.Bytes())
				}
			}
			c.Free()
			if err := be.Err(); err != nil {
				t.Fatalf("%s: %v", label, err)
			}
		}
	}
}

// plainResetter hides the optional interfaces of the backend it wraps.
type plainResetter struct{ backend.Resetter }
