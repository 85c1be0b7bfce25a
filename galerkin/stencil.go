package galerkin

import (
	"fmt"
	"math/rand/v2"

	"github.com/blockamg/blockamg/bsr"
)

// stencilProduct returns a product with the sparsity of a smoothed-aggregation level
// on a side³ node grid (x fastest), for Calibrate's timings (calibrationProblems): A
// has b×b blocks coupling every node to the nodes within radius along each axis
// ((2·radius+1)³-point stencil, cut at the boundary); aggregates are cubes of agg³
// nodes (a remainder along a side joins the last cube), numbered x fastest; P has b×k
// blocks with the pattern of A·T, T the aggregate map, as a once-smoothed prolongator
// has. Values are uniform in [−1, 1): the operators are not meant to be solved with.
// Radius 2 with agg 3 gives the wide rows of the coarse levels of an aggressive
// elasticity hierarchy (A about 80 blocks a row, P about 8). It lives here, not in
// galerkintest, so that Calibrate does not link test support into every binary.
func stencilProduct(side, b, k, radius, agg int, seed uint64) (A, P *bsr.Matrix, err error) {
	if side < 1 || b < 1 || k < 1 || radius < 0 || agg < 1 {
		return nil, nil, fmt.Errorf("galerkin: stencilProduct: side %d, blocks %d and %d, radius %d, aggregate side %d: want positive (radius ≥ 0)", side, b, k, radius, agg)
	}
	n := side * side * side
	w := 2*radius + 1
	if int64(n)*int64(w*w*w)*int64(b*b) > 1<<31 {
		return nil, nil, fmt.Errorf("galerkin: stencilProduct: side %d radius %d too large", side, radius)
	}
	rng := rand.New(rand.NewPCG(seed, 0x57e4c11))
	na := max(1, side/agg)
	aggOf := func(x int) int { return min(x/agg, na-1) }
	aPtr := make([]int64, n+1)
	var aCol []int32
	pPtr := make([]int64, n+1)
	var pCol []int32
	i := 0
	for z := 0; z < side; z++ {
		for y := 0; y < side; y++ {
			for x := 0; x < side; x++ {
				for Z := max(z-radius, 0); Z <= min(z+radius, side-1); Z++ {
					for Y := max(y-radius, 0); Y <= min(y+radius, side-1); Y++ {
						for X := max(x-radius, 0); X <= min(x+radius, side-1); X++ {
							aCol = append(aCol, int32(X+side*(Y+side*Z)))
						}
					}
				}
				aPtr[i+1] = int64(len(aCol))
				// Aggregates of the nodes within radius, in increasing number (z
				// slowest, as the nested ranges give them).
				for az := aggOf(max(z-radius, 0)); az <= aggOf(min(z+radius, side-1)); az++ {
					for ay := aggOf(max(y-radius, 0)); ay <= aggOf(min(y+radius, side-1)); ay++ {
						for ax := aggOf(max(x-radius, 0)); ax <= aggOf(min(x+radius, side-1)); ax++ {
							pCol = append(pCol, int32(ax+na*(ay+na*az)))
						}
					}
				}
				pPtr[i+1] = int64(len(pCol))
				i++
			}
		}
	}
	if A, err = bsr.New(n, n, b, b, aPtr, aCol); err != nil {
		return nil, nil, err
	}
	if P, err = bsr.New(n, na*na*na, b, k, pPtr, pCol); err != nil {
		return nil, nil, err
	}
	for _, v := range [][]float64{A.Val, P.Val} {
		for t := range v {
			v[t] = 2*rng.Float64() - 1
		}
	}
	return A, P, nil
}
