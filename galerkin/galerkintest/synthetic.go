// Package galerkintest builds synthetic operators with the sparsity of 3D elasticity
// and smoothed-aggregation prolongators, for tests and benchmarks of the Galerkin
// product when no finite-element assembly or AMG setup is at hand.
package galerkintest

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/blockamg/blockamg/bsr"
)

// Problem is a fine operator and a prolongator built on a structured node grid.
type Problem struct {
	A *bsr.Matrix // n×n blocks of b×b, b = 3
	P *bsr.Matrix // n×m blocks of 3×6 (rigid-body modes), smoothed once
	// Aggregate holds the aggregate (coarse block row) of every fine node.
	Aggregate []int32
	// Coarse is the aggregate grid: aggregates are numbered x fastest on it.
	Coarse [3]int
}

// Grid returns the synthetic problem on nx×ny×nz nodes (x fastest): A has the 7- or
// 27-point block stencil with random 3×3 blocks, symmetric (A(j,i) = A(i,j)ᵀ) with
// diagonally dominant diagonal blocks; P is the tentative prolongator of the rigid-body
// modes on the aggregates of Aggregate, smoothed once by Prolongator. That product
// gives P the pattern of A·T, as a real smoothed-aggregation prolongator has.
func Grid(nx, ny, nz, stencil int, seed uint64) (*Problem, error) {
	if nx < 1 || ny < 1 || nz < 1 {
		return nil, fmt.Errorf("galerkintest: grid %d×%d×%d: every side must be at least 1", nx, ny, nz)
	}
	if stencil != 7 && stencil != 27 {
		return nil, fmt.Errorf("galerkintest: stencil %d: want 7 or 27", stencil)
	}
	n := nx * ny * nz
	if int64(n)*27 > 1<<31-1 {
		return nil, fmt.Errorf("galerkintest: grid %d×%d×%d too large", nx, ny, nz)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	id := func(x, y, z int) int { return x + nx*(y+ny*z) }

	// Pattern of A.
	rowPtr := make([]int64, n+1)
	colIdx := make([]int32, 0, n*stencil)
	for z := 0; z < nz; z++ {
		for y := 0; y < ny; y++ {
			for x := 0; x < nx; x++ {
				for dz := -1; dz <= 1; dz++ {
					for dy := -1; dy <= 1; dy++ {
						for dx := -1; dx <= 1; dx++ {
							ad := abs(dx) + abs(dy) + abs(dz)
							if stencil == 7 && ad > 1 {
								continue
							}
							X, Y, Z := x+dx, y+dy, z+dz
							if X < 0 || Y < 0 || Z < 0 || X >= nx || Y >= ny || Z >= nz {
								continue
							}
							colIdx = append(colIdx, int32(id(X, Y, Z)))
						}
					}
				}
				i := id(x, y, z)
				rowPtr[i+1] = int64(len(colIdx))
			}
		}
	}
	A, err := bsr.New(n, n, 3, 3, rowPtr, colIdx)
	if err != nil {
		return nil, err
	}
	// Values: random upper blocks mirrored, then a dominant diagonal.
	for i := 0; i < n; i++ {
		for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
			j := int(A.ColIdx[q])
			if j <= i {
				continue
			}
			blk := A.Block(q)
			for t := range blk {
				blk[t] = -0.1 * rng.Float64()
			}
			qt, _ := A.Find(j, i)
			tb := A.Block(qt)
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					tb[c*3+r] = blk[r*3+c]
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		qd, _ := A.Find(i, i)
		d := A.Block(qd)
		var rowSum [3]float64
		for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
			if q == qd {
				continue
			}
			blk := A.Block(q)
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					rowSum[r] += abs64(blk[r*3+c])
				}
			}
		}
		off := 0.05 * rng.Float64()
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				if r == c {
					d[r*3+c] = rowSum[r] + 1
				} else {
					d[r*3+c] = off
				}
			}
		}
	}

	agg, coarse, cent := Aggregate(nx, ny, nz)
	// Tentative block of node i: [I | rotations about the aggregate centroid].
	tent := make([]float64, n*18)
	for z := 0; z < nz; z++ {
		for y := 0; y < ny; y++ {
			for x := 0; x < nx; x++ {
				i := id(x, y, z)
				a := agg[i]
				px, py, pz := float64(x)-cent[a][0], float64(y)-cent[a][1], float64(z)-cent[a][2]
				out := tent[i*18 : i*18+18]
				out[0*6+0], out[1*6+1], out[2*6+2] = 1, 1, 1
				// rotation about z: (-y, x, 0); about x: (0, -z, y); about y: (z, 0, -x)
				out[0*6+3], out[1*6+3] = -py, px
				out[1*6+4], out[2*6+4] = -pz, py
				out[0*6+5], out[2*6+5] = pz, -px
			}
		}
	}
	P, err := Prolongator(A, agg, coarse[0]*coarse[1]*coarse[2], tent, 6)
	if err != nil {
		return nil, err
	}
	return &Problem{A: A, P: P, Aggregate: agg, Coarse: coarse}, nil
}

// Aggregate groups the nodes of an nx×ny×nz grid (x fastest) into cubes of 3×3×3 nodes
// (a remainder of one or two nodes along a side joins the last cube). It returns the
// aggregate of every node, the aggregate grid's dimensions (aggregates are numbered x
// fastest on that grid, so a coarse level is again a structured grid) and the
// aggregates' centroids.
func Aggregate(nx, ny, nz int) (agg []int32, coarse [3]int, centroid [][3]float64) {
	ax, ay, az := max(1, nx/3), max(1, ny/3), max(1, nz/3)
	agg = make([]int32, nx*ny*nz)
	centroid = make([][3]float64, ax*ay*az)
	cnt := make([]float64, ax*ay*az)
	for z := 0; z < nz; z++ {
		for y := 0; y < ny; y++ {
			for x := 0; x < nx; x++ {
				a := min(x/3, ax-1) + ax*(min(y/3, ay-1)+ay*min(z/3, az-1))
				agg[x+nx*(y+ny*z)] = int32(a)
				centroid[a][0] += float64(x)
				centroid[a][1] += float64(y)
				centroid[a][2] += float64(z)
				cnt[a]++
			}
		}
	}
	for a := range centroid {
		for d := 0; d < 3; d++ {
			centroid[a][d] /= cnt[a]
		}
	}
	return agg, [3]int{ax, ay, az}, centroid
}

// Prolongator returns P = T − ω D⁻¹ A T with ω = 2/3, D the scalar diagonal of A and T
// the tentative prolongator that maps aggregate agg[i] to node i through the b×k block
// tent[i*b*k:(i+1)*b*k] (b = A's block size). P has the pattern of A·T.
func Prolongator(A *bsr.Matrix, agg []int32, nAgg int, tent []float64, k int) (*bsr.Matrix, error) {
	n, b := A.BlockRows, A.R
	if A.C != b || A.BlockCols != n || len(agg) != n || len(tent) != n*b*k {
		return nil, fmt.Errorf("galerkintest: Prolongator: A is %d×%d blocks of %d×%d, %d aggregate ids, %d tentative values for k = %d",
			A.BlockRows, A.BlockCols, A.R, A.C, len(agg), len(tent), k)
	}
	const omega = 2.0 / 3
	bk := b * k
	pPtr := make([]int64, n+1)
	var pCol []int32
	var pVal []float64
	acc := map[int32][]float64{}
	for i := 0; i < n; i++ {
		clear(acc)
		qd, ok := A.Find(i, i)
		if !ok {
			return nil, fmt.Errorf("galerkintest: Prolongator: block row %d has no diagonal block", i)
		}
		dblk := A.Block(qd)
		for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
			j := int(A.ColIdx[q])
			tb := tent[j*bk : (j+1)*bk]
			a := agg[j]
			blk := acc[a]
			if blk == nil {
				blk = make([]float64, bk)
				acc[a] = blk
			}
			ab := A.Block(q)
			for r := 0; r < b; r++ {
				for c := 0; c < k; c++ {
					s := 0.0
					for l := 0; l < b; l++ {
						s += ab[r*b+l] * tb[l*k+c]
					}
					blk[r*k+c] -= omega / dblk[r*b+r] * s
				}
			}
		}
		own := acc[agg[i]]
		for t := range own {
			own[t] += tent[i*bk+t]
		}
		keys := make([]int32, 0, len(acc))
		for a := range acc {
			keys = append(keys, a)
		}
		slices.Sort(keys)
		for _, a := range keys {
			pCol = append(pCol, a)
			pVal = append(pVal, acc[a]...)
		}
		pPtr[i+1] = int64(len(pCol))
	}
	P, err := bsr.New(n, nAgg, b, k, pPtr, pCol)
	if err != nil {
		return nil, err
	}
	copy(P.Val, pVal)
	return P, nil
}

// NextProlongator returns a prolongator for a coarse level whose operator Ac has k×k
// blocks on the structured grid coarse (as Grid and Aggregate number it): 3×3×3
// aggregates, a tentative block of the identity plus a small random perturbation, one
// smoothing step with Ac. It has the pattern a smoothed-aggregation P of that level has.
func NextProlongator(Ac *bsr.Matrix, coarse [3]int, seed uint64) (*bsr.Matrix, [3]int, error) {
	if Ac.BlockRows != coarse[0]*coarse[1]*coarse[2] {
		return nil, coarse, fmt.Errorf("galerkintest: NextProlongator: %d block rows for a %v grid", Ac.BlockRows, coarse)
	}
	rng := rand.New(rand.NewPCG(seed, 0xc0a5e))
	agg, next, _ := Aggregate(coarse[0], coarse[1], coarse[2])
	k := Ac.R
	tent := make([]float64, Ac.BlockRows*k*k)
	for i := 0; i < Ac.BlockRows; i++ {
		for r := 0; r < k; r++ {
			for c := 0; c < k; c++ {
				v := 0.1 * (rng.Float64() - 0.5)
				if r == c {
					v++
				}
				tent[(i*k+r)*k+c] = v
			}
		}
	}
	P, err := Prolongator(Ac, agg, next[0]*next[1]*next[2], tent, k)
	return P, next, err
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func abs64(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
