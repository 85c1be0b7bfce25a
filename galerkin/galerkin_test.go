package galerkin

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// randomBSR returns a random r×c-block matrix with about density of its blocks stored,
// some block rows forced empty (emptyRows of them, when the matrix is large enough).
func randomBSR(rng *rand.Rand, rows, cols, r, c int, density float64, emptyRows int) *bsr.Matrix {
	empty := map[int]bool{}
	for e := 0; e < emptyRows && rows > 2; e++ {
		empty[rng.IntN(rows)] = true
	}
	ptr := make([]int64, rows+1)
	var col []int32
	for i := 0; i < rows; i++ {
		if !empty[i] {
			for j := 0; j < cols; j++ {
				if rng.Float64() < density {
					col = append(col, int32(j))
				}
			}
		}
		ptr[i+1] = int64(len(col))
	}
	m, err := bsr.New(rows, cols, r, c, ptr, col)
	if err != nil {
		panic(err)
	}
	for i := range m.Val {
		m.Val[i] = rng.Float64()*2 - 1
	}
	return m
}

// dense returns m as a row-major dense matrix.
func dense(m *bsr.Matrix) []float64 {
	rows, cols := m.Rows(), m.Cols()
	d := make([]float64, rows*cols)
	for i := 0; i < m.BlockRows; i++ {
		for q := m.RowPtr[i]; q < m.RowPtr[i+1]; q++ {
			j := int(m.ColIdx[q])
			blk := m.Block(q)
			for r := 0; r < m.R; r++ {
				for c := 0; c < m.C; c++ {
					d[(i*m.R+r)*cols+j*m.C+c] = blk[r*m.C+c]
				}
			}
		}
	}
	return d
}

// denseGalerkin returns PᵀAP by the triple loop on dense matrices, with its own
// (naive) summation order: an independent reference.
func denseGalerkin(A, P *bsr.Matrix) []float64 {
	a, p := dense(A), dense(P)
	n, m := A.Rows(), P.Cols()
	ap := make([]float64, n*m)
	for i := 0; i < n; i++ {
		for l := 0; l < n; l++ {
			if a[i*n+l] == 0 {
				continue
			}
			for j := 0; j < m; j++ {
				ap[i*m+j] += a[i*n+l] * p[l*m+j]
			}
		}
	}
	out := make([]float64, m*m)
	for i := 0; i < n; i++ {
		for I := 0; I < m; I++ {
			if p[i*m+I] == 0 {
				continue
			}
			for J := 0; J < m; J++ {
				out[I*m+J] += p[i*m+I] * ap[i*m+J]
			}
		}
	}
	return out
}

// relErr returns max|x-y| / max|y| (or max|x-y| when y is zero), +Inf when a value is
// NaN or the lengths differ.
func relErr(x, y []float64) float64 {
	if len(x) != len(y) {
		return math.Inf(1)
	}
	var d, s float64
	for i := range x {
		if math.IsNaN(x[i]) || math.IsNaN(y[i]) {
			return math.Inf(1)
		}
		d = max(d, math.Abs(x[i]-y[i]))
		s = max(s, math.Abs(y[i]))
	}
	if s == 0 {
		return d
	}
	return d / s
}

func poison(v []float64) {
	for i := range v {
		v[i] = math.NaN()
	}
}

func allVariants() []Variant { return append(slices.Clone(Variants), Auto) }

// smallChunks lowers the parallel grain for the duration of a test.
func smallChunks(t *testing.T) {
	old := minChunkWork
	minChunkWork = 1
	t.Cleanup(func() { minChunkWork = old })
}

func TestAgainstDense(t *testing.T) {
	smallChunks(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 108; trial++ {
		b := 1 + trial%6
		k := 1 + (trial/6)%6
		if trial >= 72 {
			// The specialised shapes again, on more patterns.
			b, k = 3+3*(trial%2), 6
		}
		n := 1 + rng.IntN(25)
		m := 1 + rng.IntN(12)
		A := randomBSR(rng, n, n, b, b, 0.25, n/5)
		P := randomBSR(rng, n, m, b, k, 0.2, n/4)
		if trial%7 == 0 {
			// A zero column of P (an unused coarse block) and an empty matrix corner case.
			P = randomBSR(rng, n, m+2, b, k, 0.15, 1)
		}
		ref := denseGalerkin(A, P)
		var acRef []float64 // first variant's result: all variants agree bitwise
		for _, v := range allVariants() {
			name := fmt.Sprintf("trial%d/b%d/k%d/n%d/m%d/%s", trial, b, k, n, P.BlockCols, v)
			plan, err := Symbolic(A, P, v)
			if err != nil {
				t.Fatalf("%s: Symbolic: %v", name, err)
			}
			var first []float64
			for _, workers := range []int{1, 2, 3, 7} {
				poison(plan.Ac.Val)
				if err := plan.Numeric(A, P, workers); err != nil {
					t.Fatalf("%s: Numeric: %v", name, err)
				}
				if err := plan.Ac.Validate(); err != nil {
					t.Fatalf("%s workers %d: %v", name, workers, err)
				}
				if e := relErr(dense(plan.Ac), ref); e > 1e-13 {
					t.Fatalf("%s workers %d: relative error %g against dense", name, workers, e)
				}
				if first == nil {
					first = slices.Clone(plan.Ac.Val)
				} else if !bitwiseEqual(first, plan.Ac.Val) {
					t.Fatalf("%s: workers %d differs bitwise from workers 1", name, workers)
				}
				if acRef == nil {
					acRef = slices.Clone(plan.Ac.Val)
				} else if !bitwiseEqual(acRef, plan.Ac.Val) {
					t.Fatalf("%s workers %d: differs bitwise from variant %s", name, workers, Variants[0])
				}
			}
		}
	}
}

func bitwiseEqual(x, y []float64) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}

func TestShapeErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	A := randomBSR(rng, 5, 5, 3, 3, 0.5, 0)
	cases := []struct {
		name string
		A, P *bsr.Matrix
	}{
		{"P block rows differ from A block size", A, randomBSR(rng, 5, 2, 2, 6, 0.5, 0)},
		{"P block rows count", A, randomBSR(rng, 4, 2, 3, 6, 0.5, 0)},
		{"A not square blocks", randomBSR(rng, 5, 5, 3, 2, 0.5, 0), randomBSR(rng, 5, 2, 3, 6, 0.5, 0)},
		{"A not square", randomBSR(rng, 5, 4, 3, 3, 0.5, 0), randomBSR(rng, 4, 2, 3, 6, 0.5, 0)},
	}
	for _, c := range cases {
		if _, err := Symbolic(c.A, c.P, TwoPass); !errors.Is(err, ErrShape) {
			t.Errorf("%s: got %v, want ErrShape", c.name, err)
		}
	}
	if _, err := Symbolic(A, randomBSR(rng, 5, 2, 3, 6, 0.5, 0), "nope"); err == nil {
		t.Error("unknown variant accepted")
	}
}

func TestPatternChangeRejected(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	A := randomBSR(rng, 8, 8, 3, 3, 0.4, 0)
	P := randomBSR(rng, 8, 3, 3, 6, 0.4, 0)
	for _, v := range Variants {
		plan, err := Symbolic(A, P, v)
		if err != nil {
			t.Fatal(err)
		}
		A2 := A.Clone()
		A2.ColIdx[0] = (A2.ColIdx[0] + 1) % 8
		if err := plan.Numeric(A2, P, 1); !errors.Is(err, ErrPattern) {
			t.Errorf("%s: changed A pattern: got %v, want ErrPattern", v, err)
		}
		if err := plan.Numeric(A, randomBSR(rng, 8, 3, 3, 6, 0.4, 0), 1); !errors.Is(err, ErrPattern) {
			t.Errorf("%s: changed P pattern: got %v, want ErrPattern", v, err)
		}
		// Same pattern in fresh arrays is accepted.
		if err := plan.Numeric(A.Clone(), P.Clone(), 2); err != nil {
			t.Errorf("%s: cloned operands: %v", v, err)
		}
	}
}

// TestPureGoKernels runs the specialised shapes with the assembly kernel switched off
// (where there is one) and checks the pure Go path against the dense product and
// against the default path.
func TestPureGoKernels(t *testing.T) {
	smallChunks(t)
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 8; trial++ {
		b := 3 + 3*(trial%2)
		A := randomBSR(rng, 30, 30, b, b, 0.2, 3)
		P := randomBSR(rng, 30, 9, b, 6, 0.2, 3)
		ref := denseGalerkin(A, P)
		var got [2][]float64
		for path, asm := range []bool{false, useAsm} {
			old := useAsm
			useAsm = asm
			for _, v := range Variants {
				plan, err := Symbolic(A, P, v)
				if err != nil {
					t.Fatal(err)
				}
				poison(plan.Ac.Val)
				if err := plan.Numeric(A, P, 2); err != nil {
					t.Fatal(err)
				}
				if e := relErr(dense(plan.Ac), ref); e > 1e-13 {
					t.Fatalf("trial %d b %d %s asm=%v: relative error %g", trial, b, v, asm, e)
				}
				got[path] = plan.Ac.Val
			}
			useAsm = old
		}
		if e := relErr(got[0], got[1]); e > 1e-14 {
			t.Errorf("trial %d: Go and assembly kernels differ by %g", trial, e)
		}
	}
}
