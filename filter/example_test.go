package filter_test

import (
	"fmt"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/filter"
)

// A prolongator with 1×1 blocks: fine node 0 interpolates from coarse nodes 0, 1, 2,
// fine node 1 from coarse node 1 alone. With θ = 0.1 the block (0, 1) falls under
// 0.1·max and is dropped; what it carried, E = 0.05·B_c1 = 0.1, is spread over the
// survivors in proportion to their B_cJ (M = 1² + 1² = 2, Y = E/M = 0.05), so
// P_f·B_c = P·B_c = 1.6 on row 0.
func Example() {
	P, _ := bsr.FromBlockTriplets(2, 3, 1, 1,
		[]int32{0, 0, 0, 1}, []int32{0, 1, 2, 1}, []float64{1, 0.05, 0.5, 0.2})
	Bc := []float64{1, 2, 1} // coarse near-null space: one 1×1 block per coarse node

	plan, err := filter.Symbolic(P, Bc, 0.1, filter.Options{})
	if err != nil {
		panic(err)
	}
	Pf := plan.NewPf()
	if err := plan.Numeric(P, Bc, Pf, 1); err != nil {
		panic(err)
	}
	for i := 0; i < Pf.BlockRows; i++ {
		for t := Pf.RowPtr[i]; t < Pf.RowPtr[i+1]; t++ {
			fmt.Printf("P_f(%d,%d) = %.4g\n", i, Pf.ColIdx[t], Pf.Val[t])
		}
	}
	s := plan.Stats()
	fmt.Printf("dropped %d of %d blocks, %d row corrected\n", s.DroppedBlocks, s.NNZBlocksBefore, s.RowsCorrected)
	// Output:
	// P_f(0,0) = 1.05
	// P_f(0,2) = 0.55
	// P_f(1,1) = 0.2
	// dropped 1 of 4 blocks, 1 row corrected
}
