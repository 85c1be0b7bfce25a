package galerkintest

import (
	"math"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// TestCheckHalf: a correct half passes; a changed upper block, a lower block that is
// not its mirror's transpose, a NaN and a different pattern are each reported.
func TestCheckHalf(t *testing.T) {
	// 2×2 blocks of 2×2: (0,0), (0,1), (1,0), (1,1).
	full := &bsr.Matrix{BlockRows: 2, BlockCols: 2, R: 2, C: 2, RowPtr: []int64{0, 2, 4}, ColIdx: []int32{0, 1, 0, 1},
		Val: []float64{1, 2, 2, 3, 4, 5, 6, 7, 4.5, 6.5, 5.5, 7.5, 8, 9, 9, 10}}
	half := full.Clone()
	copy(half.Val[8:12], []float64{4, 6, 5, 7}) // (1,0) = transpose of (0,1)
	if err := CheckHalf(full, half); err != nil {
		t.Fatalf("a correct half: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(m *bsr.Matrix)
		want string
	}{
		{"upper changed", func(m *bsr.Matrix) { m.Val[5] = math.Nextafter(m.Val[5], 10) }, "block (0, 1) value 1"},
		{"lower not the transpose", func(m *bsr.Matrix) { m.Val[9] = 5.5 }, "not the transpose of (0, 1)"},
		{"NaN", func(m *bsr.Matrix) { m.Val[12] = math.NaN() }, "block (1, 1) holds NaN"},
		{"pattern", func(m *bsr.Matrix) { m.ColIdx = []int32{0, 1, 0, 0} }, "pattern"},
	} {
		m := half.Clone()
		m.ColIdx = append([]int32(nil), half.ColIdx...)
		tc.edit(m)
		if err := CheckHalf(full, m); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
