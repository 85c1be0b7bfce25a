package amg

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/krylov"
)

// Set-up robustness: problems far from the 3D elasticity the defaults are tuned for
// (a single node, scalar problems, a block-diagonal matrix, degenerate near-null
// spaces) must either give a working preconditioner or a named error, never a panic.

// laplace1D returns the n×n scalar tridiagonal (−1, 2, −1) matrix with 1×1 blocks.
func laplace1D(t testing.TB, n int) *bsr.Matrix {
	t.Helper()
	var bi, bj []int32
	var v []float64
	for i := 0; i < n; i++ {
		bi, bj, v = append(bi, int32(i)), append(bj, int32(i)), append(v, 2)
		if i+1 < n {
			bi, bj, v = append(bi, int32(i), int32(i+1)), append(bj, int32(i+1), int32(i)), append(v, -1, -1)
		}
	}
	A, err := bsr.FromBlockTriplets(n, n, 1, 1, bi, bj, v)
	if err != nil {
		t.Fatal(err)
	}
	return A
}

// blockDiagonal returns a nodes×nodes matrix with only diagonal b×b blocks,
// diag(1 + i mod 7) in block i.
func blockDiagonal(t testing.TB, nodes, b int) *bsr.Matrix {
	t.Helper()
	var bi, bj []int32
	var v []float64
	for i := 0; i < nodes; i++ {
		bi, bj = append(bi, int32(i)), append(bj, int32(i))
		for p := 0; p < b*b; p++ {
			x := 0.0
			if p%(b+1) == 0 {
				x = float64(1 + i%7)
			}
			v = append(v, x)
		}
	}
	A, err := bsr.FromBlockTriplets(nodes, nodes, b, b, bi, bj, v)
	if err != nil {
		t.Fatal(err)
	}
	return A
}

// rigid2D returns the three rigid-body modes of an nx×ny grid of nodes with two
// unknowns each: translations in x and y and the rotation (−y, x).
func rigid2D(nx, ny int) *NullSpace {
	n := 2 * nx * ny
	B := make([]float64, n*3)
	for y := 0; y < ny; y++ {
		for x := 0; x < nx; x++ {
			v := x + nx*y
			B[(2*v)*3+0], B[(2*v)*3+2] = 1, -float64(y)
			B[(2*v+1)*3+1], B[(2*v+1)*3+2] = 1, float64(x)
		}
	}
	return &NullSpace{Rows: n, Cols: 3, Data: B}
}

func TestSetupSmallAndScalarProblems(t *testing.T) {
	ex1, _, ex1ns := ex56(t, 1)
	grid2 := gridMatrix(t, 30, 30, 2, false, 1e-6, 1)
	rbm := rigid2D(30, 30)
	// The same modes plus a copy of the first: linearly dependent columns.
	dep := &NullSpace{Rows: rbm.Rows, Cols: 4, Data: make([]float64, rbm.Rows*4)}
	for i := 0; i < rbm.Rows; i++ {
		copy(dep.Data[i*4:i*4+3], rbm.Data[i*3:i*3+3])
		dep.Data[i*4+3] = rbm.Data[i*3]
	}
	for _, tc := range []struct {
		name          string
		A             *bsr.Matrix
		ns            *NullSpace
		levels, maxIt int // levels 0: any
	}{
		{"one node, 3×3", gridMatrix(t, 1, 1, 3, false, 1, 1), nil, 1, 1},
		{"two nodes, 3×3", gridMatrix(t, 2, 1, 3, false, 1, 1), nil, 0, 4},
		{"two nodes, six modes", gridMatrix(t, 2, 1, 3, false, 1, 1), &NullSpace{Rows: 6, Cols: 6, Data: randomVec(36, 1)}, 1, 1},
		{"ex56 ne=1", ex1, ex1ns, 0, 8},
		{"block diagonal", blockDiagonal(t, 100, 3), nil, 1, 1},
		{"1D Laplacian n=1", laplace1D(t, 1), nil, 1, 1},
		{"1D Laplacian n=2", laplace1D(t, 2), nil, 0, 2},
		{"1D Laplacian n=1000", laplace1D(t, 1000), nil, 0, 12},
		{"2D scalar Poisson 100×100", gridMatrix(t, 100, 100, 1, false, 1e-6, 1), nil, 0, 12},
		{"2D, b=2, three rigid modes", grid2, rbm, 0, 12},
		{"2D, b=2, dependent modes", grid2, dep, 0, 12},
	} {
		h, err := Setup(tc.A, tc.ns, DefaultOptions())
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if tc.levels > 0 && len(h.Levels) != tc.levels {
			t.Errorf("%s: %d levels, want %d", tc.name, len(h.Levels), tc.levels)
		}
		// solveCG fails the test unless CG meets its tolerance on the true residual.
		res, _ := solveCG(t, h, randomVec(tc.A.Rows(), 3))
		t.Logf("%s: %d levels, %d iterations", tc.name, len(h.Levels), res.Iterations)
		if res.Iterations > tc.maxIt {
			t.Errorf("%s: %d iterations, want at most %d", tc.name, res.Iterations, tc.maxIt)
		}
	}
}

func TestSetupEmptyMatrix(t *testing.T) {
	h, err := Setup(bsr.Zeros(0, 0, 3, 3), nil, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// 1, not 0/0: the report encodes them as JSON, which has no NaN.
	if gc, oc := h.GridComplexity(), h.OperatorComplexity(); gc != 1 || oc != 1 {
		t.Errorf("empty matrix: complexities %v, %v, want 1, 1", gc, oc)
	}
	if h.Broken() {
		t.Error("empty matrix: hierarchy reports a failed update")
	}
}

func TestSetupDegenerateInput(t *testing.T) {
	grid := gridMatrix(t, 10, 10, 2, false, 1, 1)
	zeroRow := grid.Clone()
	for k := zeroRow.RowPtr[5]; k < zeroRow.RowPtr[6]; k++ {
		clear(zeroRow.Block(k))
	}
	zeroCol := &NullSpace{Rows: grid.Rows(), Cols: 2, Data: make([]float64, grid.Rows()*2)}
	for i := 0; i < grid.Rows(); i += 2 {
		zeroCol.Data[2*i] = 1 // column 0 set on x unknowns, column 1 left zero
	}
	for _, tc := range []struct {
		name string
		A    *bsr.Matrix
		ns   *NullSpace
	}{
		{"zero block row", zeroRow, nil},
		{"no stored blocks", bsr.Zeros(5, 5, 3, 3), nil},
		{"zero near-null vector", grid, zeroCol},
		{"empty near-null space", grid, &NullSpace{Rows: grid.Rows(), Cols: 0}},
	} {
		if _, err := Setup(tc.A, tc.ns, DefaultOptions()); !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v, want ErrInput", tc.name, err)
		}
	}
}

// TestSetupStalled: when aggregation stops reducing the grid while the level is too
// large for the dense coarse solve, the error says why (not "raise MaxLevels").
func TestSetupStalled(t *testing.T) {
	weak := DefaultOptions()
	weak.Threshold = 1e9
	d1 := DefaultOptions()
	d1.AggressiveLevels = 0
	// Constant and linear modes on a 1D chain: distance-1 aggregates are pairs, two
	// coarse unknowns per two fine ones.
	lin := &NullSpace{Rows: 9000, Cols: 2, Data: make([]float64, 18000)}
	for i := 0; i < 9000; i++ {
		lin.Data[2*i], lin.Data[2*i+1] = 1, float64(i)
	}
	for _, tc := range []struct {
		name string
		A    *bsr.Matrix
		ns   *NullSpace
		opt  Options
	}{
		{"block diagonal", blockDiagonal(t, 4000, 3), nil, DefaultOptions()},
		{"every coupling weak", gridMatrix(t, 100, 100, 1, false, 1e-6, 1), nil, weak},
		{"no reduction", laplace1D(t, 9000), lin, d1},
	} {
		_, err := Setup(tc.A, tc.ns, tc.opt)
		if !errors.Is(err, ErrStalled) {
			t.Errorf("%s: %v, want ErrStalled", tc.name, err)
		}
	}
}

// TestIsolatedNodes: nodes whose couplings were removed (Dirichlet rows kept as
// identity blocks) join no aggregate; the smoother must handle them and CG converge.
func TestIsolatedNodes(t *testing.T) {
	A := gridMatrix(t, 20, 20, 2, false, 1e-6, 2)
	isolated := map[int]bool{0: true, 7: true, 150: true, 399: true}
	for i := 0; i < A.BlockRows; i++ {
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			j := int(A.ColIdx[k])
			if i != j && (isolated[i] || isolated[j]) {
				clear(A.Block(k))
			}
		}
	}
	h, err := Setup(A, nil, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for v := range isolated {
		if a := h.Levels[0].Agg.Of[v]; a != -1 {
			t.Errorf("isolated node %d in aggregate %d", v, a)
		}
	}
	res, _ := solveCG(t, h, randomVec(A.Rows(), 8))
	if res.Iterations > 15 {
		t.Errorf("%d iterations", res.Iterations)
	}
}

// TestScaledMatrix: AMG + CG is invariant under scaling A and b by a power of two, so
// A·2^±600 (entries near 1e±180, whose squares leave the float64 range) must give the
// unscaled iterations and solution, not a "zero or not finite diagonal" error or a
// false breakdown.
func TestScaledMatrix(t *testing.T) {
	A, b, ns := ex56(t, 4)
	solve := func(scale float64) (int, []float64) {
		As := A.Clone()
		As.Scale(scale)
		bs := make([]float64, len(b))
		for i, v := range b {
			bs[i] = v * scale
		}
		h, err := Setup(As, ns, DefaultOptions())
		if err != nil {
			t.Fatalf("scale %g: %v", scale, err)
		}
		opt := krylov.DefaultOptions()
		opt.AbsTol = 0 // the default 1e-50 would accept x = 0 for b near 1e-180
		x := make([]float64, len(b))
		res, err := refCG(h, bs, x, opt)
		if err != nil {
			t.Fatalf("scale %g: %v", scale, err)
		}
		return res.Iterations, x
	}
	its, x := solve(1)
	for _, e := range []int{600, -600} {
		s := math.Ldexp(1, e)
		got, xs := solve(s)
		if got != its || maxDiff(xs, x) > 1e-12 {
			t.Errorf("A·2^%d: %d iterations (unscaled %d), solution differs by %.3g", e, got, its, maxDiff(xs, x))
		}
	}
}

// TestSmootherFloat32Range: with SmootherFloat32, an operator entry beyond the float32
// range would become Inf in the copy and NaN in every cycle; Setup says so instead.
func TestSmootherFloat32Range(t *testing.T) {
	A, _, ns := ex56(t, 3)
	A.Scale(1e40)
	opt := DefaultOptions()
	opt.SmootherFloat32 = true
	if _, err := Setup(A, ns, opt); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "float32") {
		t.Errorf("entries near 1e40 with SmootherFloat32: %v, want ErrInput naming float32", err)
	}
	opt.SmootherFloat32 = false
	if _, err := Setup(A, ns, opt); err != nil {
		t.Errorf("entries near 1e40 in float64: %v", err)
	}
}

// TestFailedUpdate: after an Update that fails half-way (here: the new matrix is
// negative definite), Apply must refuse to run on levels that mix two matrices, and
// a successful Update must make the hierarchy usable again, equal to a fresh Setup.
func TestFailedUpdate(t *testing.T) {
	A, b, ns := ex56(t, 3)
	h, err := Setup(A, ns, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := solveCG(t, h, b)
	neg := A.Clone()
	neg.Scale(-1)
	if err := h.Update(neg); !errors.Is(err, ErrNotSPD) {
		t.Fatalf("Update with -A: %v, want ErrNotSPD", err)
	}
	if !h.Broken() {
		t.Error("hierarchy after a failed Update does not report Broken")
	}
	if err := h.Update(A); err != nil {
		t.Fatal(err)
	}
	if res, _ := solveCG(t, h, b); res.Iterations != ref.Iterations {
		t.Errorf("after recovery: %d iterations, fresh set-up %d", res.Iterations, ref.Iterations)
	}
}

// TestNegativeDiagonalEntry: one negated diagonal entry makes A indefinite; the
// hierarchy would be built and CG would later blame the preconditioner. Setup names
// the row instead.
func TestNegativeDiagonalEntry(t *testing.T) {
	A, _, ns := ex56(t, 3)
	k, _ := A.Find(13, 13)
	A.Block(k)[4] = -A.Block(k)[4]
	_, err := Setup(A, ns, DefaultOptions())
	if !errors.Is(err, ErrNotSPD) || !strings.Contains(err.Error(), "block row 13: diagonal entry 1") {
		t.Errorf("negated diagonal entry: %v, want ErrNotSPD naming block row 13, entry 1", err)
	}
}
