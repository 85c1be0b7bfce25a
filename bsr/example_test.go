package bsr_test

import (
	"fmt"

	"github.com/blockamg/blockamg/bsr"
)

// A 2×2-block matrix with 2×1 blocks, assembled from block triplets (the duplicate at
// (0,0) is summed), then multiplied and transposed.
func ExampleFromBlockTriplets() {
	m, err := bsr.FromBlockTriplets(2, 2, 2, 1,
		[]int32{0, 1, 0},
		[]int32{0, 1, 0},
		[]float64{1, 2, 3, 4, 10, 20})
	if err != nil {
		fmt.Println(err)
		return
	}
	y := make([]float64, m.Rows())
	m.MulVec(1, []float64{1, 2}, 0, y)
	fmt.Println(m.NNZBlocks(), y)
	t := m.Transpose()
	fmt.Println(t.R, t.C, t.ToDense())
	// Output:
	// 2 [11 22 6 8]
	// 1 2 [11 22 0 0 0 0 3 4]
}
