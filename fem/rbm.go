package fem

import (
	"fmt"
	"math"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// RigidBodyModes returns the rigid-body modes of a body whose nodes sit at coords
// (nodes×dim, row-major, node i owning unknowns dim·i … dim·i+dim−1): the near-null
// space of linear elasticity that smoothed aggregation needs.
//
// dim 3 gives six modes, in PETSc's order (MatNullSpaceCreateRigidBody): translations
// along x, y, z, then the rotations (y, −x, 0), (0, −z, y), (z, 0, −x). dim 2 gives three:
// translations along x and y, then the rotation (−y, x).
//
// B is the dense (nodes·dim)×k array, row-major, that AMG consumes. Bb is the same data
// as a block column: nodes×1 blocks of dim×k, block i holding node i's rows, the shape
// of one block column of a tentative prolongator. Bb.Val aliases B (each node's dim
// rows of k values are contiguous in both).
//
// With orthonormalize the columns are made orthonormal (Euclidean, over the whole
// vectors) by modified Gram–Schmidt, run twice for orthogonality to round-off, from
// rotations about the centroid (the same span, without the cancellation that a mesh
// far from the origin causes); coords whose modes are linearly dependent (all nodes on
// one line, say) are then an error.
// Without it, translations are all ones and rotations are the raw coordinate
// expressions above.
func RigidBodyModes(coords []float64, dim int, orthonormalize bool) (B []float64, Bb *bsr.Matrix, err error) {
	if dim != 2 && dim != 3 {
		return nil, nil, fmt.Errorf("fem: rigid-body modes for dimension %d, want 2 or 3", dim)
	}
	if len(coords) == 0 || len(coords)%dim != 0 {
		return nil, nil, fmt.Errorf("fem: %d coordinates are not a positive multiple of dimension %d", len(coords), dim)
	}
	for i, x := range coords {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, nil, fmt.Errorf("fem: coordinate %d of node %d is %v", i%dim, i/dim, x)
		}
	}
	nodes := len(coords) / dim
	k := 3
	if dim == 3 {
		k = 6
	}
	// With orthonormalize, rotate about the centroid c instead of the origin: the
	// rotation about the origin is that about c plus a translation, so the span and the
	// Gram–Schmidt result are the same in exact arithmetic, but a mesh far from the
	// origin (coordinates 1e9 with unit spacing, say) no longer makes the rotations
	// nearly translations, which cost digits and, beyond about 1e10, failed as
	// "degenerate coordinates".
	var c [3]float64
	if orthonormalize {
		for p := 0; p < nodes; p++ {
			for d := 0; d < dim; d++ {
				c[d] += coords[p*dim+d]
			}
		}
		for d := range c {
			c[d] /= float64(nodes)
		}
	}
	n := nodes * dim
	B = make([]float64, n*k)
	for p := 0; p < nodes; p++ {
		row := B[p*dim*k : (p+1)*dim*k] // dim rows of k
		if dim == 2 {
			x, y := coords[2*p]-c[0], coords[2*p+1]-c[1]
			row[0], row[k+1] = 1, 1
			row[2], row[k+2] = -y, x
			continue
		}
		x, y, z := coords[3*p]-c[0], coords[3*p+1]-c[1], coords[3*p+2]-c[2]
		r0, r1, r2 := row[:k], row[k:2*k], row[2*k:]
		r0[0], r1[1], r2[2] = 1, 1, 1
		r0[3], r1[3] = y, -x
		r1[4], r2[4] = -z, y
		r0[5], r2[5] = z, -x
	}
	if orthonormalize {
		if err := orthonormalizeColumns(B, n, k); err != nil {
			return nil, nil, err
		}
	}
	rowPtr := make([]int64, nodes+1)
	for p := range rowPtr {
		rowPtr[p] = int64(p)
	}
	Bb = &bsr.Matrix{BlockRows: nodes, BlockCols: 1, R: dim, C: k,
		RowPtr: rowPtr, ColIdx: make([]int32, nodes), Val: B}
	return B, Bb, nil
}

// dependentTol is the fraction of a column's norm below which what is left after
// projecting out the previous columns counts as zero: the column is (numerically) in
// their span.
const dependentTol = 1e-10

// orthonormalizeColumns makes the k columns of the n×k row-major array b orthonormal by
// modified Gram–Schmidt, two passes.
func orthonormalizeColumns(b []float64, n, k int) error {
	// The columns are copied out contiguous (the node-blocked B strides them by k):
	// the same sums in the same order, so the same bits, but each pass reads only the
	// two columns it uses. The dot products and norms stay serial — their order is
	// the result — and the updates, element by element, run in parallel.
	cols := make([][]float64, k)
	for c := range cols {
		cols[c] = make([]float64, n)
	}
	par.For(n, 0, 1<<16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for c := 0; c < k; c++ {
				cols[c][i] = b[i*k+c]
			}
		}
	})
	for c := 0; c < k; c++ {
		x := cols[c]
		orig := norm2(x)
		for pass := 0; pass < 2; pass++ {
			for q := 0; q < c; q++ {
				y := cols[q]
				dot := 0.0
				for i, v := range y {
					dot += v * x[i]
				}
				par.For(n, 0, 1<<16, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						x[i] -= dot * y[i]
					}
				})
			}
		}
		nrm := norm2(x)
		if !(nrm > dependentTol*orig) {
			return fmt.Errorf("fem: rigid-body mode %d is linearly dependent on the previous ones (norm %.3g of %.3g left): degenerate coordinates", c, nrm, orig)
		}
		par.For(n, 0, 1<<16, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				x[i] /= nrm
			}
		})
	}
	par.For(n, 0, 1<<16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for c := 0; c < k; c++ {
				b[i*k+c] = cols[c][i]
			}
		}
	})
	return nil
}

// norm2 is the Euclidean norm of x, its squares summed in order.
func norm2(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

// FreeRigidModes returns how many independent rigid-body motions of the nodes at
// coords (3D, three per node) the clamps leave free: fixed holds a mask per node (1:
// x, 2: y, 4: z clamped), as ElasticityOptions.Fixed. A result above 0 means the
// elastic operator with those clamps is singular (one clamped node leaves its three
// rotations free, nodes on one line the rotation about it). The motions are the six
// orthonormal modes of RigidBodyModes; a motion counts as free when its clamped
// components hold less than 1e-13 of it in squared norm: round-off leaves about
// 1e-16 where a motion is free, while a clamp that holds keeps about its share of the
// nodes times the square of its extent over the part's (a hundred nodes of a bolt
// hole a hundredth of the part's size among fifty million nodes: about 1e-10).
func FreeRigidModes(coords []float64, fixed []uint8) (int, error) {
	if len(fixed) != len(coords)/3 {
		return 0, fmt.Errorf("fem: %d clamp masks for %d nodes", len(fixed), len(coords)/3)
	}
	B, _, err := RigidBodyModes(coords, 3, true)
	if err != nil {
		return 0, err
	}
	// G = the modes' Gram matrix over the clamped components: a motion B·c keeps
	// cᵀGc of its squared norm ‖c‖² there.
	var G [6][6]float64
	for p, m := range fixed {
		for d := range 3 {
			if m&(1<<d) == 0 {
				continue
			}
			row := B[(3*p+d)*6 : (3*p+d)*6+6]
			for i := range 6 {
				for j := range 6 {
					G[i][j] += row[i] * row[j]
				}
			}
		}
	}
	// G's rank by Cholesky with symmetric pivoting: the modes left when the largest
	// remaining pivot is below the tolerance are free.
	const tol = 1e-13
	var done [6]bool
	for k := range 6 {
		piv := -1
		for i := range 6 {
			if !done[i] && (piv < 0 || G[i][i] > G[piv][piv]) {
				piv = i
			}
		}
		d := G[piv][piv]
		if !(d >= tol) {
			return 6 - k, nil
		}
		done[piv] = true
		for i := range 6 {
			for j := range 6 {
				if !done[i] && !done[j] {
					G[i][j] -= G[i][piv] * G[piv][j] / d
				}
			}
		}
	}
	return 0, nil
}
