package amg

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/krylov"
)

// diagonalScalingCase checks one system under D·A·D (D spanning 1e±span, per node or
// per unknown) with D⁻¹·B: the set-up succeeds; its hierarchy, used for the unscaled
// system as D·h'·D, takes the iterations of A's own (the set-up is invariant); and CG
// on the scaled system itself with b' = D·b, b = A·x* for a random x*, converges within
// one iteration of the unscaled count (its ‖D·r‖ is another norm) to D⁻¹ times the
// unscaled solution.
func diagonalScalingCase(t *testing.T, name string, A *bsr.Matrix, ns *NullSpace) {
	t.Helper()
	h0, err := Setup(A, ns, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	b := make([]float64, A.Rows())
	A.MulVec(1, randomVec(A.Rows(), 41), 0, b)
	its0, x0 := cgIterations(t, A, h0, b)
	type scaling struct {
		name string
		d    []float64
	}
	var scalings []scaling
	for _, span := range []float64{150, 30} {
		for _, perNode := range []bool{true, false} {
			scalings = append(scalings, scaling{fmt.Sprintf("D 1e±%g per node %v", span, perNode), logScaling(A.Rows(), A.R, span, perNode, 43)})
		}
	}
	// Units: the same factor for each unknown of every node (displacements in m,
	// rotations in µrad, say), 1e±100 apart.
	units := make([]float64, A.Rows())
	for i := range units {
		units[i] = math.Pow(1e100, float64(i%A.R)-float64(A.R-1)/2)
	}
	scalings = append(scalings, scaling{"units 1e±100", units})
	for _, sc := range scalings {
		{
			d := sc.d
			As, nss, bs := scaleSystem(A, ns, b, d)
			h, err := Setup(As, nss, DefaultOptions())
			if err != nil {
				t.Errorf("%s, %s: %v", name, sc.name, err)
				continue
			}
			pre, _ := cgIterations(t, A, &scaledPre{h, d, make([]float64, len(b))}, b)
			its, x := cgIterations(t, As, h, bs)
			e := 0.0
			for i := range x {
				e = math.Max(e, math.Abs(x[i]*d[i]-x0[i]))
			}
			e /= math.Max(1e-300, maxAbs(x0))
			t.Logf("%s, %s: D·h'·D %d iterations, scaled CG %d, unscaled %d; solution error %.2g",
				name, sc.name, pre, its, its0, e)
			if pre < its0 || pre > its0+1 {
				t.Errorf("%s, %s: the scaled hierarchy takes %d iterations, the unscaled %d", name, sc.name, pre, its0)
			}
			if its > its0+1 {
				t.Errorf("%s, %s: scaled CG %d iterations, unscaled %d", name, sc.name, its, its0)
			}
			if !(e < 1e-5) {
				t.Errorf("%s, %s: D·x' differs from x by %.3g", name, sc.name, e)
			}
		}
	}
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

func TestDiagonalScalingInvariance(t *testing.T) {
	t.Run("2D b=2 grid, constant modes", func(t *testing.T) {
		A := gridMatrix(t, 30, 30, 2, true, 1e-3, 3)
		diagonalScalingCase(t, "grid", A, ConstantModes(A.BlockRows, 2))
	})
	t.Run("ex56 ne=6, rigid-body modes", func(t *testing.T) {
		A, _, ns := ex56(t, 6)
		diagonalScalingCase(t, "ex56", A, ns)
	})
	t.Run("hypre_beam_tet_459", func(t *testing.T) {
		A, ns, _ := loadCase(t, "hypre_beam_tet_459", 3, "B6.mtx", "b.mtx")
		diagonalScalingCase(t, "hypre_beam_tet_459", A, ns)
	})
}

// TestContrastBeyondFloat64: ex56 with a material contrast of 1e±170 (condition number
// near 1e170) cannot be solved in float64; what stops it must say so rather than call
// a diagonal block missing (as the strength test's underflowed norms did): the set-up
// either succeeds or names a block singular to float64 precision, ill-conditioned.
func TestContrastBeyondFloat64(t *testing.T) {
	for _, alpha := range []float64{1e170, 1e-170} {
		p := fem.Ex56(8)
		p.Alpha = alpha
		box, err := fem.NewBox(p)
		if err != nil {
			t.Fatal(err)
		}
		A, err := box.Assemble(0)
		if err != nil {
			t.Fatal(err)
		}
		B, _, err := fem.RigidBodyModes(box.Coords(), 3, true)
		if err != nil {
			t.Fatal(err)
		}
		h, err := Setup(A, &NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, DefaultOptions())
		if err != nil {
			t.Logf("α %g: %v", alpha, err)
			if errors.Is(err, ErrInput) || strings.Contains(err.Error(), "missing") {
				t.Errorf("α %g: set-up calls the input invalid: %v", alpha, err)
			}
			if errors.Is(err, bsr.ErrSingular) && !strings.Contains(err.Error(), "ill-conditioned") {
				t.Errorf("α %g: a singular block without naming ill-conditioning: %v", alpha, err)
			}
			continue
		}
		// What CG then reports (stagnation, a breakdown) is krylov's to name.
		x := make([]float64, A.Rows())
		ko := krylov.DefaultOptions()
		ko.MaxIter = 300
		_, err = refCG(h, box.RHS(), x, ko)
		t.Logf("α %g: set-up succeeds; CG (300 iterations at most): %v", alpha, err)
	}
}

// TestSingularDiagonalBlockMessage: a diagonal block that no scaling makes invertible
// is named singular to float64 precision, the operator singular or ill-conditioned
// there (bsr.ErrSingular), with its block row.
func TestSingularDiagonalBlockMessage(t *testing.T) {
	A := gridMatrix(t, 6, 6, 2, false, 1, 1)
	k, _ := A.Find(7, 7)
	copy(A.Block(k), []float64{1, 1, 1, 1})
	_, err := Setup(A, nil, DefaultOptions())
	if !errors.Is(err, bsr.ErrSingular) || !strings.Contains(err.Error(), "block row 7 is singular to float64 precision") || !strings.Contains(err.Error(), "ill-conditioned") {
		t.Errorf("singular diagonal block: %v", err)
	}
}
