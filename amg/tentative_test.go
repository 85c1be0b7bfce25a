package amg

import (
	"math"
	"testing"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
)

// checkTentative verifies, against dense arithmetic, that P_tent·B_c = B on aggregated
// nodes (zero rows elsewhere) and, when every aggregate has at least k rows, that
// P_tentᵀ·P_tent = I (orthonormal columns per aggregate, disjoint aggregates).
func checkTentative(t *testing.T, agg *Aggregates, B []float64, b, k int, P *bsr.Matrix, Bc []float64) {
	t.Helper()
	if err := P.Validate(); err != nil {
		t.Fatal(err)
	}
	n, m := len(agg.Of), agg.Count
	if P.BlockRows != n || P.BlockCols != m || P.R != b || P.C != k || len(Bc) != m*k*k {
		t.Fatalf("shapes: P %d×%d blocks of %d×%d, Bc %d", P.BlockRows, P.BlockCols, P.R, P.C, len(Bc))
	}
	Pd := P.ToDense()
	PB := denseMul(n*b, m*k, k, Pd, Bc)
	for v := 0; v < n; v++ {
		for q := 0; q < b*k; q++ {
			want := B[v*b*k+q]
			if agg.Of[v] < 0 {
				want = 0
			}
			if d := math.Abs(PB[v*b*k+q] - want); d > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("P·Bc ≠ B at node %d entry %d: %g vs %g", v, q, PB[v*b*k+q], want)
			}
		}
	}
	full := true
	for a := 0; a < m; a++ {
		full = full && len(agg.Members(a))*b >= k
	}
	if !full {
		return
	}
	// PᵀP = I.
	rows, cols := n*b, m*k
	for i := 0; i < cols; i++ {
		for j := 0; j < cols; j++ {
			s := 0.0
			for r := 0; r < rows; r++ {
				s += Pd[r*cols+i] * Pd[r*cols+j]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(s-want) > 1e-12 {
				t.Fatalf("(PᵀP)[%d,%d] = %g, want %g", i, j, s, want)
			}
		}
	}
}

func TestTentativeRigidBodyModes(t *testing.T) {
	box, err := fem.NewBox(fem.Ex56(4))
	if err != nil {
		t.Fatal(err)
	}
	A, err := box.Assemble(1)
	if err != nil {
		t.Fatal(err)
	}
	B, _, err := fem.RigidBodyModes(box.Coords(), 3, false)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Strength(A, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	agg := Aggregate(g, true, 2)
	checkPartition(t, g, agg, 2)
	P, Bc := Tentative(agg, B, 3, 6, 1)
	checkTentative(t, agg, B, 3, 6, P, Bc)
	// Workers do not change the bits.
	P2, Bc2 := Tentative(agg, B, 3, 6, 2)
	if !sameBits(P.Val, P2.Val) || !sameBits(Bc, Bc2) {
		t.Error("tentative prolongator depends on workers")
	}
}

func TestTentativeRankDeficientAndPadded(t *testing.T) {
	// Two nodes in 3D carry only 5 independent rigid-body modes (rotation about the
	// line through them vanishes); one node has 3 rows for 6 modes (padded QR).
	coords := []float64{0, 0, 0, 1, 0, 0, 0.3, 0.7, 0.2}
	B, _, err := fem.RigidBodyModes(coords, 3, false)
	if err != nil {
		t.Fatal(err)
	}
	agg := &Aggregates{Count: 2, Of: []int32{0, 0, 1}, Ptr: []int64{0, 2, 3}, Nodes: []int32{0, 1, 2}, Roots: []int32{0, 2}}
	P, Bc := Tentative(agg, B, 3, 6, 1)
	checkTentative(t, agg, B, 3, 6, P, Bc)
	// The rank-deficient aggregate still has orthonormal columns.
	q := P.ToDense()
	for i := 0; i < 6; i++ {
		for j := 0; j < 6; j++ {
			s := 0.0
			for r := 0; r < 6; r++ {
				s += q[r*12+i] * q[r*12+j]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(s-want) > 1e-12 {
				t.Fatalf("rank-deficient aggregate: QᵀQ[%d,%d] = %g", i, j, s)
			}
		}
	}
}

func TestTentativeConstantModes(t *testing.T) {
	A := gridMatrix(t, 12, 9, 2, false, 0.1, 5)
	g, _ := Strength(A, 0, 1)
	agg := Aggregate(g, false, 1)
	ns := ConstantModes(A.BlockRows, 2)
	P, Bc := Tentative(agg, ns.Data, 2, 2, 1)
	checkTentative(t, agg, ns.Data, 2, 2, P, Bc)
}
