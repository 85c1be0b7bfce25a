package cuda

import (
	"slices"
	"testing"

	"github.com/blockamg/blockamg/backend/backendtest"
)

// TestTransposePattern checks the pattern-only transpose against bsr.Matrix.Transpose
// (same row pointers and columns) and the permutation against the values: block q of
// mᵀ is the transpose of block perm[q] of m. Runs without a GPU.
func TestTransposePattern(t *testing.T) {
	for ci, tc := range [][5]int{{40, 30, 3, 6, 5}, {30, 40, 6, 3, 9}, {25, 25, 6, 6, 7}, {0, 4, 3, 6, 1}, {4, 0, 3, 6, 1}} {
		m := backendtest.RandomBSR(uint64(70+ci), tc[0], tc[1], tc[2], tc[3], tc[4])
		want := m.Transpose()
		got, perm := transposePattern(m)
		if got.Val != nil || got.BlockRows != want.BlockRows || got.BlockCols != want.BlockCols || got.R != want.R || got.C != want.C ||
			!slices.Equal(got.RowPtr, want.RowPtr) || !slices.Equal(got.ColIdx, want.ColIdx) {
			t.Fatalf("case %d: pattern differs from bsr.Matrix.Transpose", ci)
		}
		r, c := m.R, m.C
		for q, k := range perm {
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					if want.Val[int64(q)*int64(r*c)+int64(j*r+i)] != m.Val[k*int64(r*c)+int64(i*c+j)] {
						t.Fatalf("case %d: block %d of the transpose is not block %d of m transposed", ci, q, k)
					}
				}
			}
		}
	}
}
