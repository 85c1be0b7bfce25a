package bsr

import (
	"strings"
	"testing"
)

// TestCheckSymmetric: a symmetric 2×2-block matrix passes; an entry off by more than
// the tolerance, a block without its mirror and rectangular blocks are refused.
func TestCheckSymmetric(t *testing.T) {
	// Blocks (0,0), (0,1), (1,0), (1,1) of 2×2; (1,0) = (0,1)ᵀ, diagonal blocks symmetric.
	m, err := FromBlockTriplets(2, 2, 2, 2, []int32{0, 0, 1, 1}, []int32{0, 1, 0, 1}, []float64{
		4, 1, 1, 5,
		2, 3, 7, 9,
		2, 7, 3, 9,
		6, -1, -1, 8,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.CheckSymmetric(); err != nil {
		t.Fatalf("symmetric matrix: %v", err)
	}
	m.Val[5] += 1e-9 // block (0,1) entry (0,1); its mirror is block (1,0) entry (1,0)
	if err := m.CheckSymmetric(); err == nil || !strings.Contains(err.Error(), "block (0, 1) entry (0, 1)") {
		t.Errorf("perturbed entry: error %v", err)
	}
	m.Val[5] -= 1e-9
	m.Val[5] += 1e-15 // within 1e-12 of the largest entry
	if err := m.CheckSymmetric(); err != nil {
		t.Errorf("entry off by 1e-15: %v", err)
	}
	u, err := FromBlockTriplets(2, 2, 1, 1, []int32{0, 0, 1}, []int32{0, 1, 1}, []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := u.CheckSymmetric(); err == nil || !strings.Contains(err.Error(), "(0, 1) is stored, (1, 0) is not") {
		t.Errorf("missing mirror: error %v", err)
	}
	r, err := FromBlockTriplets(1, 1, 2, 3, []int32{0}, []int32{0}, make([]float64, 6))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.CheckSymmetric(); err == nil {
		t.Error("2×3 blocks: no error")
	}
}
