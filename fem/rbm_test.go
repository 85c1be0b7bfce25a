package fem

import (
	"fmt"
	"math"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

func TestRigidBodyModesValues(t *testing.T) {
	// Two nodes in 3D, raw modes: check against the definitions written out by hand.
	coords := []float64{1, 2, 3, -4, 5, -6}
	B, Bb, err := RigidBodyModes(coords, 3, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{
		// Tx Ty Tz  (y,−x,0) (0,−z,y) (z,0,−x)
		1, 0, 0, 2, 0, 3, // node 0, x
		0, 1, 0, -1, -3, 0, // node 0, y
		0, 0, 1, 0, 2, -1, // node 0, z
		1, 0, 0, 5, 0, -6,
		0, 1, 0, 4, 6, 0,
		0, 0, 1, 0, 5, 4,
	}
	for i := range want {
		if B[i] != want[i] {
			t.Fatalf("B[%d][%d] = %v, want %v", i/6, i%6, B[i], want[i])
		}
	}
	if err := Bb.Validate(); err != nil {
		t.Fatal(err)
	}
	if Bb.BlockRows != 2 || Bb.BlockCols != 1 || Bb.R != 3 || Bb.C != 6 {
		t.Fatalf("block form %d×%d blocks of %d×%d", Bb.BlockRows, Bb.BlockCols, Bb.R, Bb.C)
	}
	for p := 0; p < 2; p++ {
		blk := Bb.Block(int64(p))
		for e, v := range blk {
			if v != B[p*18+e] {
				t.Fatalf("block %d entry %d = %v, dense %v", p, e, v, B[p*18+e])
			}
		}
	}

	B2, Bb2, err := RigidBodyModes([]float64{1, 2, 3, 4}, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	want2 := []float64{1, 0, -2, 0, 1, 1, 1, 0, -4, 0, 1, 3}
	for i := range want2 {
		if B2[i] != want2[i] {
			t.Fatalf("2D: B[%d][%d] = %v, want %v", i/3, i%3, B2[i], want2[i])
		}
	}
	if Bb2.R != 2 || Bb2.C != 3 || Bb2.BlockRows != 2 {
		t.Fatalf("2D block form %d blocks of %d×%d", Bb2.BlockRows, Bb2.R, Bb2.C)
	}
}

// TestRigidBodyModesOrthonormal: BᵀB = I, and the orthonormal columns span the raw
// modes (each raw mode equals its projection).
func TestRigidBodyModesOrthonormal(t *testing.T) {
	for _, dim := range []int{2, 3} {
		b := mustBox(t, Ex56(5))
		c3 := b.Coords()
		coords := c3
		if dim == 2 {
			coords = nil
			for p := 0; p < len(c3)/3; p++ {
				// Shift far from the origin: rotations then nearly contain the
				// translations, which is what makes one Gram–Schmidt pass lose
				// orthogonality.
				coords = append(coords, 1e4+c3[3*p], -3e3+c3[3*p+1])
			}
		}
		raw, _, err := RigidBodyModes(coords, dim, false)
		if err != nil {
			t.Fatal(err)
		}
		Q, _, err := RigidBodyModes(coords, dim, true)
		if err != nil {
			t.Fatal(err)
		}
		k := 3 * (dim - 1)
		n := len(Q) / k
		for a := 0; a < k; a++ {
			for c := 0; c < k; c++ {
				s := 0.0
				for i := 0; i < n; i++ {
					s += Q[i*k+a] * Q[i*k+c]
				}
				want := 0.0
				if a == c {
					want = 1
				}
				if math.Abs(s-want) > 1e-14 {
					t.Errorf("dim %d: (QᵀQ)[%d][%d] = %.17g", dim, a, c, s)
				}
			}
		}
		for m := 0; m < k; m++ {
			var coef [6]float64
			for q := 0; q < k; q++ {
				for i := 0; i < n; i++ {
					coef[q] += Q[i*k+q] * raw[i*k+m]
				}
			}
			var res, nrm float64
			for i := 0; i < n; i++ {
				p := 0.0
				for q := 0; q < k; q++ {
					p += Q[i*k+q] * coef[q]
				}
				res += (raw[i*k+m] - p) * (raw[i*k+m] - p)
				nrm += raw[i*k+m] * raw[i*k+m]
			}
			if math.Sqrt(res/nrm) > 1e-12 {
				t.Errorf("dim %d: raw mode %d leaves the span of the orthonormal ones by %.3g", dim, m, math.Sqrt(res/nrm))
			}
		}
	}
}

func TestRigidBodyModesRejects(t *testing.T) {
	line := []float64{0, 0, 0, 1, 1, 1, 2, 2, 2} // collinear: a rotation about the line is zero
	if _, _, err := RigidBodyModes(line, 3, true); err == nil {
		t.Error("collinear nodes orthonormalized without error")
	}
	if _, _, err := RigidBodyModes(line, 3, false); err != nil {
		t.Errorf("raw modes of collinear nodes: %v", err)
	}
	for _, c := range []struct {
		coords []float64
		dim    int
	}{
		{[]float64{1, 2, 3}, 4},
		{[]float64{1, 2, 3, 4}, 3},
		{nil, 3},
		{[]float64{1, math.NaN()}, 2},
	} {
		if _, _, err := RigidBodyModes(c.coords, c.dim, false); err == nil {
			t.Errorf("RigidBodyModes(%v, %d) accepted", c.coords, c.dim)
		}
	}
}

// checkNullRows asserts that (A·B)[i][m] vanishes to round-off on every row i that keep
// selects: |(A·b_m)_i| ≤ 1e-13·Σ_j |a_ij·b_jm|, the size of the terms the row sums.
// It returns the number of rows checked and the largest ratio met.
func checkNullRows(t *testing.T, name string, A *bsr.Matrix, B []float64, k int, keep func(row int) bool) int {
	t.Helper()
	rows := A.Rows()
	n := 0
	worst := 0.0
	bad := 0
	for i := 0; i < rows; i++ {
		if !keep(i) {
			continue
		}
		n++
		bi := i / A.R
		r := i % A.R
		for m := 0; m < k; m++ {
			var s, mag float64
			for p := A.RowPtr[bi]; p < A.RowPtr[bi+1]; p++ {
				blk := A.Block(p)
				for c := 0; c < A.C; c++ {
					term := blk[r*A.C+c] * B[(int(A.ColIdx[p])*A.C+c)*k+m]
					s += term
					mag += math.Abs(term)
				}
			}
			if mag == 0 {
				continue
			}
			ratio := math.Abs(s) / mag
			worst = math.Max(worst, ratio)
			if ratio > 1e-13 {
				if bad++; bad <= 5 {
					t.Errorf("%s: (A·B)[%d][%d] = %.3g against terms of total size %.3g", name, i, m, s, mag)
				}
			}
		}
	}
	t.Logf("%s: %d rows checked, largest |A·B| / Σ|terms| = %.2g", name, n, worst)
	return n
}

// TestRigidBodyModesNullOnEx56: on the generated problem, A annihilates the six modes
// on every row whose couplings the clamp left intact (nodes at z ≥ 2h), for the soft
// sphere and for random element moduli, raw and orthonormalized.
func TestRigidBodyModesNullOnEx56(t *testing.T) {
	b := mustBox(t, Ex56(7))
	a := mustSymbolic(t, b, 2)
	nn := 8
	for _, mod := range [][]float64{nil, randomModulus(b.Elements(), 3)} {
		if err := a.Numeric(a.Matrix, mod, 2); err != nil {
			t.Fatal(err)
		}
		for _, orth := range []bool{false, true} {
			B, _, err := RigidBodyModes(b.Coords(), 3, orth)
			if err != nil {
				t.Fatal(err)
			}
			checkNullRows(t, fmt.Sprintf("ex56 random=%v orth=%v", mod != nil, orth), a.Matrix, B, 6,
				func(i int) bool { return i/3 >= 2*nn*nn })
			// The rows next to the clamp are not null: the check can fail.
			row := 3 * (nn*nn + nn + 1) // node (1,1,1), x
			s := 0.0
			for p := a.Matrix.RowPtr[row/3]; p < a.Matrix.RowPtr[row/3+1]; p++ {
				blk := a.Matrix.Block(p)
				for c := 0; c < 3; c++ {
					s += blk[c] * B[(int(a.Matrix.ColIdx[p])*3+c)*6]
				}
			}
			if math.Abs(s) < 1e-3 {
				t.Errorf("row %d next to the clamp: (A·Tx) = %v, expected clearly nonzero", row, s)
			}
		}
	}
}

// TestRigidBodyModesNullOnHypreBeam uses a matrix nobody here generated: MFEM's Q1 beam
// through hypre, clamped by identity rows with the matching columns zeroed.
func TestRigidBodyModesNullOnHypreBeam(t *testing.T) {
	_, _, _, ref, err := readMTX(dataPath(t, "hypre_beam_hex_459/A.mtx"))
	if err != nil {
		t.Fatal(err)
	}
	coords, nodes, dim, _, err := readMTX(dataPath(t, "hypre_beam_hex_459/coords.mtx"))
	if err != nil {
		t.Fatal(err)
	}
	if dim != 3 || 3*nodes != ref.rows {
		t.Fatalf("coordinates %d×%d for a %d-row matrix", nodes, dim, ref.rows)
	}
	A := toBSR(t, ref, 3)
	// Clamped unknowns: identity rows. Rows with a stored entry in a clamped column lost
	// that coupling to the elimination.
	clamped := map[int]bool{}
	for i := 0; i < ref.rows; i++ {
		id := true
		for p := ref.ptr[i]; p < ref.ptr[i+1]; p++ {
			if want := b2f(ref.col[p] == i); ref.val[p] != want {
				id = false
			}
		}
		if id {
			clamped[i] = true
		}
	}
	touched := map[int]bool{}
	for i := 0; i < ref.rows; i++ {
		for p := ref.ptr[i]; p < ref.ptr[i+1]; p++ {
			if clamped[ref.col[p]] {
				touched[i] = true
			}
		}
	}
	for _, orth := range []bool{false, true} {
		B, _, err := RigidBodyModes(coords, 3, orth)
		if err != nil {
			t.Fatal(err)
		}
		n := checkNullRows(t, fmt.Sprintf("beam orth=%v", orth), A, B, 6, func(i int) bool { return !touched[i] })
		if n < ref.rows*3/4 {
			t.Errorf("only %d of %d rows checked", n, ref.rows)
		}
	}
}

// TestRigidBodyModes2D uses hypre's 2D elasticity matrix. It ships no coordinates, only
// modes; its rotation (−y, x), up to scale and shift, gives them back. Rows where both
// translations vanish are the ones the boundary left alone; the rotation built from the
// recovered coordinates must vanish there too.
func TestRigidBodyModes2D(t *testing.T) {
	_, _, _, ref, err := readMTX(dataPath(t, "hypre_elast2d/A.mtx"))
	if err != nil {
		t.Fatal(err)
	}
	R, rows, cols, _, err := readMTX(dataPath(t, "hypre_elast2d/rbm3.mtx"))
	if err != nil {
		t.Fatal(err)
	}
	if rows != ref.rows || cols != 3 {
		t.Fatalf("modes %d×%d for a %d-row matrix", rows, cols, ref.rows)
	}
	coords := make([]float64, rows)
	for p := 0; p < rows/2; p++ {
		coords[2*p], coords[2*p+1] = R[(2*p+1)*cols], -R[2*p*cols]
	}
	A := toBSR(t, ref, 2)
	B, _, err := RigidBodyModes(coords, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	interior := func(i int) bool {
		for m := 0; m < 2; m++ {
			var s, mag float64
			for p := ref.ptr[i]; p < ref.ptr[i+1]; p++ {
				term := ref.val[p] * B[ref.col[p]*3+m]
				s += term
				mag += math.Abs(term)
			}
			if math.Abs(s) > 1e-13*mag {
				return false
			}
		}
		return true
	}
	n := checkNullRows(t, "elast2d", A, B, 3, interior)
	if n < ref.rows*3/4 {
		t.Errorf("only %d of %d rows free of the boundary", n, ref.rows)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// toBSR converts a reference CSR matrix to r×r blocks through scalar triplets.
func toBSR(t *testing.T, m *csrRef, r int) *bsr.Matrix {
	t.Helper()
	bi := make([]int32, 0, len(m.val))
	bj := make([]int32, 0, len(m.val))
	for i := 0; i < m.rows; i++ {
		for p := m.ptr[i]; p < m.ptr[i+1]; p++ {
			bi = append(bi, int32(i))
			bj = append(bj, int32(m.col[p]))
		}
	}
	A, err := bsr.FromScalarTriplets(m.rows, m.cols, r, r, bi, bj, m.val)
	if err != nil {
		t.Fatal(err)
	}
	return A
}
