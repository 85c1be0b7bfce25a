package galerkintest

import (
	"fmt"
	"math"
	"slices"

	"github.com/blockamg/blockamg/bsr"
)

// CheckHalf checks a Galerkin product computed as the symmetric half (the blocks on
// and above the diagonal summed, those below copied from their mirrors) against the
// full product full on the same pattern, as every implementation of the half must give
// it: each block (I, J) with J ≥ I bitwise full's, each block below the diagonal the
// exact transpose of its mirror (J, I), and no NaN anywhere (a NaN would pass the
// bitwise comparisons when both sides hold it). It returns an error naming the first
// block that is not, or nil.
func CheckHalf(full, half *bsr.Matrix) error {
	if half.R != half.C || !half.SamePattern(full) {
		return fmt.Errorf("half: %d×%d blocks of %d×%d, not the full product's pattern of square blocks", half.BlockRows, half.BlockCols, half.R, half.C)
	}
	k := half.R
	kk := int64(k * k)
	for I := 0; I < half.BlockRows; I++ {
		for x := half.RowPtr[I]; x < half.RowPtr[I+1]; x++ {
			J := int(half.ColIdx[x])
			blk := half.Val[x*kk : (x+1)*kk]
			for _, v := range blk {
				if math.IsNaN(v) {
					return fmt.Errorf("block (%d, %d) holds NaN", I, J)
				}
			}
			if J >= I {
				for i, v := range blk {
					if math.Float64bits(v) != math.Float64bits(full.Val[x*kk+int64(i)]) {
						return fmt.Errorf("block (%d, %d) value %d is %v, the full product's %v", I, J, i, v, full.Val[x*kk+int64(i)])
					}
				}
				continue
			}
			q, ok := slices.BinarySearch(half.ColIdx[half.RowPtr[J]:half.RowPtr[J+1]], int32(I))
			if !ok {
				return fmt.Errorf("block (%d, %d) has no mirror (%d, %d)", I, J, J, I)
			}
			m := half.Val[(half.RowPtr[J]+int64(q))*kk:]
			for r := 0; r < k; r++ {
				for c := 0; c < k; c++ {
					if math.Float64bits(blk[r*k+c]) != math.Float64bits(m[c*k+r]) {
						return fmt.Errorf("block (%d, %d) is not the transpose of (%d, %d)", I, J, J, I)
					}
				}
			}
		}
	}
	return nil
}
