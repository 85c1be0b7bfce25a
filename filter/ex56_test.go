package filter_test

import (
	"github.com/blockamg/blockamg/filter"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
)

// ex56Hierarchy builds amg's default hierarchy on PETSc's ex56 problem with ne elements
// per side and orthonormal rigid-body modes (opt: amg.DefaultOptions() for the default). It returns the assembly too, for new
// values on the same pattern.
func ex56Hierarchy(t testing.TB, ne int, opt amg.Options) (*amg.Hierarchy, *fem.Assembly) {
	t.Helper()
	box, err := fem.NewBox(fem.Ex56(ne))
	if err != nil {
		t.Fatal(err)
	}
	asm, err := box.Symbolic(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := asm.Numeric(asm.Matrix, nil, 0); err != nil {
		t.Fatal(err)
	}
	B, _, err := fem.RigidBodyModes(box.Coords(), 3, true)
	if err != nil {
		t.Fatal(err)
	}
	A := asm.Matrix
	h, err := amg.Setup(A, &amg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, opt)
	if err != nil {
		t.Fatal(err)
	}
	return h, asm
}

// TestEx56Hierarchy filters every prolongator of a real smoothed-aggregation hierarchy
// with its coarse near-null space (Levels[l+1].B) and checks every property of
// filter.XCheckFiltered, θ = 0 included (bitwise P).
func TestEx56Hierarchy(t *testing.T) {
	h, _ := ex56Hierarchy(t, 10, amg.DefaultOptions())
	if len(h.Levels) < 3 {
		t.Fatalf("only %d levels", len(h.Levels))
	}
	for l := 0; l < len(h.Levels)-1; l++ {
		P, Bc := h.Levels[l].P, h.Levels[l+1].B
		for _, theta := range []float64{0, 0.01, 0.02, 0.05, 0.1, 0.3} {
			plan, err := filter.Symbolic(P, Bc, theta, filter.Options{})
			if err != nil {
				t.Fatal(err)
			}
			Pf := filter.XPoisoned(plan)
			if err := plan.Numeric(P, Bc, Pf, 2); err != nil {
				t.Fatal(err)
			}
			worst := filter.XCheckFiltered(t, P, Bc, theta, plan, Pf)
			s := plan.Stats()
			if theta == 0 && !plan.Identity() {
				t.Errorf("level %d: θ = 0 plan is not the identity", l)
			}
			if theta >= 0.05 && s.DroppedBlocks == 0 {
				t.Errorf("level %d θ=%g: nothing dropped", l, theta)
			}
			t.Logf("level %d %d×%d θ=%-4g: %6d → %6d blocks (%4.1f%% dropped), %5d rows corrected, %d unfiltered, worst kernel error %.2g",
				l, P.R, P.C, theta, s.NNZBlocksBefore, s.NNZBlocksAfter, 100*float64(s.DroppedBlocks)/float64(s.NNZBlocksBefore),
				s.RowsCorrected, s.RowsUnfiltered, worst)
		}
		// Minimality against gonum on a few corrected rows of the real P.
		plan, err := filter.Symbolic(P, Bc, 0.05, filter.Options{})
		if err != nil {
			t.Fatal(err)
		}
		Pf := filter.XPoisoned(plan)
		if err := plan.Numeric(P, Bc, Pf, 1); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(l), 99))
		for i, checked := 0, 0; i < P.BlockRows && checked < 4; i += 7 {
			if Pf.RowPtr[i+1]-Pf.RowPtr[i] < P.RowPtr[i+1]-P.RowPtr[i] {
				filter.XCheckMinimal(t, P, Pf, Bc, i, rng)
				checked++
			}
		}
	}
}

// TestEx56Update follows amg's Update: plans built on the Setup hierarchy, then new
// element moduli, h.Update, and Numeric with the re-smoothed P. The result must equal
// a plan built from scratch on the same pattern, bit for bit, and preserve the kernel
// for the new values.
func TestEx56Update(t *testing.T) {
	h, asm := ex56Hierarchy(t, 8, amg.DefaultOptions())
	nl := len(h.Levels) - 1
	plans := make([]*filter.Plan, nl)
	before := make([]*bsr.Matrix, nl)
	for l := 0; l < nl; l++ {
		before[l] = h.Levels[l].P.Clone()
		var err error
		plans[l], err = filter.Symbolic(h.Levels[l].P, h.Levels[l+1].B, filter.LevelTheta(0.05, 0.5, l), filter.Options{})
		if err != nil {
			t.Fatal(err)
		}
	}
	mod := asm.Box().ElementModulus()
	for e := range mod {
		mod[e] *= 1 + 0.5*math.Sin(float64(e))
	}
	if err := asm.Numeric(asm.Matrix, mod, 0); err != nil {
		t.Fatal(err)
	}
	if err := h.Update(asm.Matrix); err != nil {
		t.Fatal(err)
	}
	for l := 0; l < nl; l++ {
		P, Bc := h.Levels[l].P, h.Levels[l+1].B
		Pf := filter.XPoisoned(plans[l])
		if err := plans[l].Numeric(P, Bc, Pf, 3); err != nil {
			t.Fatal(err)
		}
		ref := filter.XFromPattern(t, P, Bc, Pf)
		Pr := filter.XPoisoned(ref)
		if err := ref.Numeric(P, Bc, Pr, 1); err != nil {
			t.Fatal(err)
		}
		if !Pr.SamePattern(Pf) {
			t.Fatalf("level %d: plan from the pattern has another pattern", l)
		}
		for v := range Pf.Val {
			if math.Float64bits(Pf.Val[v]) != math.Float64bits(Pr.Val[v]) {
				t.Fatalf("level %d value %d: reused %v, from scratch %v", l, v, Pf.Val[v], Pr.Val[v])
			}
		}
		if err := Pf.Validate(); err != nil {
			t.Fatal(err)
		}
		worst, rows := kernelError(P, Pf, Bc)
		if !(worst <= filter.XKernelTol) || rows == 0 {
			t.Errorf("level %d: worst kernel error %.3g over %d corrected rows after Update", l, worst, rows)
		}
		// The values did change: the test would pass trivially otherwise.
		if d := filter.XDiffNorm(before[l].Val, P.Val); !(d > 1e-6*filter.XNorm2(P.Val)) {
			t.Fatalf("level %d: Update left P (nearly) unchanged: ‖ΔP‖ = %.3g", l, d)
		}
	}
}

// kernelError returns the worst relative row error of P_f·B_c against P·B_c over the
// rows P_f shortened, and their count.
func kernelError(P, Pf *bsr.Matrix, Bc []float64) (float64, int) {
	worst, rows := 0.0, 0
	for i := 0; i < P.BlockRows; i++ {
		if Pf.RowPtr[i+1]-Pf.RowPtr[i] == P.RowPtr[i+1]-P.RowPtr[i] {
			continue
		}
		rows++
		T, Tf := filter.XRowTimesBc(P, Bc, i), filter.XRowTimesBc(Pf, Bc, i)
		worst = max(worst, filter.XDiffNorm(T, Tf)/filter.XNorm2(T))
	}
	return worst, rows
}
