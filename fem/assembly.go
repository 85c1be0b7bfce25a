package fem

import (
	"fmt"
	"math"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// dirichletDiag is ex56's factor on the clamped nodes' diagonal: each element keeps
// 0.1 times its own diagonal entries there and drops every other coupling.
const dirichletDiag = 0.1

// rowGrain is the least number of block rows a worker takes: about 576 multiply-adds
// per row, so a few hundred rows outweigh a goroutine's start.
const rowGrain = 256

// Assembly is the product of the symbolic phase: the block pattern of the stiffness
// matrix and what the numeric phase needs to fill it with no search and no allocation.
//
// On the structured grid the element→slot map is arithmetic (see ElementSlots), so no
// table of slots is stored: the memory of an Assembly is that of its matrix plus one
// float64 per element for the default material.
type Assembly struct {
	box *Box

	// Matrix is the stiffness matrix: Nodes()×Nodes() blocks of 3×3, the 27-point
	// stencil of every node with sorted columns, explicit zeros included where the
	// boundary condition removes a coupling (as in the matrix ex56 writes). Its values
	// are zero until Numeric fills them.
	Matrix *bsr.Matrix

	defaultModulus []float64 // ElementModulus(), for Numeric with nil modulus

	// tables are the row gather's: the local index, slots and clamped diagonals of
	// the (up to) eight elements around a node (GatherTables).
	tables GatherTables
}

// Symbolic builds the block pattern and the tables of the numeric phase, using up to
// workers goroutines (≤ 0: par.Workers()). It allocates the matrix values (zero).
// A matrix larger than the machine's memory (MatrixBytes) is an error wrapping
// ErrTooLarge, returned before anything is allocated.
func (b *Box) Symbolic(workers int) (*Assembly, error) {
	if err := b.checkMemory(); err != nil {
		return nil, err
	}
	nn := b.nn
	nodes := b.Nodes()
	rowPtr := make([]int64, nodes+1)
	n := 0
	for k := 0; k < nn; k++ {
		cz := span(k, nn)
		for j := 0; j < nn; j++ {
			cyz := cz * span(j, nn)
			for i := 0; i < nn; i++ {
				rowPtr[n+1] = rowPtr[n] + int64(cyz*span(i, nn))
				n++
			}
		}
	}
	nnzb := rowPtr[nodes]
	colIdx := make([]int32, nnzb)
	par.For(nodes, workers, 4*rowGrain, func(lo, hi int) {
		for n := lo; n < hi; n++ {
			i, j, k := b.gridPos(n)
			p := rowPtr[n]
			for dz := lower(k); dz <= upper(k, nn); dz++ {
				for dy := lower(j); dy <= upper(j, nn); dy++ {
					for dx := lower(i); dx <= upper(i, nn); dx++ {
						colIdx[p] = int32(n + dx + nn*(dy+nn*dz))
						p++
					}
				}
			}
		}
	})
	val := make([]float64, nnzb*9)
	adviseHugePages(val)
	a := &Assembly{
		box: b,
		Matrix: &bsr.Matrix{BlockRows: nodes, BlockCols: nodes, R: 3, C: 3,
			RowPtr: rowPtr, ColIdx: colIdx, Val: val},
		defaultModulus: b.ElementModulus(),
		tables:         b.gatherTables(),
	}
	return a, nil
}

// span is the number of stencil neighbours along one axis of a node at grid index t.
func span(t, nn int) int { return 1 + upper(t, nn) - lower(t) }

// lower and upper bound the stencil offsets along one axis at grid index t.
func lower(t int) int {
	if t > 0 {
		return -1
	}
	return 0
}

func upper(t, nn int) int {
	if t < nn-1 {
		return 1
	}
	return 0
}

// stencil numbers the 27 offsets in block-column order (z slowest, x fastest).
func stencil(dx, dy, dz int) int { return (dz+1)*9 + (dy+1)*3 + dx + 1 }

func (b *Box) gridPos(n int) (i, j, k int) {
	i = n % b.nn
	t := n / b.nn
	return i, t % b.nn, t / b.nn
}

// Box returns the mesh the assembly belongs to.
func (a *Assembly) Box() *Box { return a.box }

// NewMatrix returns a matrix with the assembly's pattern (shared, read-only) and fresh
// zero values, for a second operator with the same structure.
func (a *Assembly) NewMatrix() *bsr.Matrix { return a.Matrix.ClonePattern() }

// ElementSlots writes the block slots of element e: slots[8·la+lb] is the storage index
// (into Matrix's blocks) of the block coupling its local nodes la and lb, or −1 where
// the boundary condition drops the coupling. It returns a mask whose bit la is set when
// local node la is clamped; for such a node only the diagonal entries of block
// (la, la), scaled by 0.1, are kept.
//
// The slots are computed from the grid, not stored: on the structured mesh the
// position of column m in row n follows from their grid offsets.
func (a *Assembly) ElementSlots(e int, slots *[64]int64) (clamped uint8) {
	b := a.box
	if e < 0 || e >= b.Elements() {
		panic("fem: element index out of range")
	}
	ei, ej, ek := e%b.ne, (e/b.ne)%b.ne, e/(b.ne*b.ne)
	for la, oa := range localNode {
		i, j, k := ei+oa[0], ej+oa[1], ek+oa[2]
		n := b.Node(i, j, k)
		if b.Dirichlet(n) {
			clamped |= 1 << la
		}
		cx, cy := span(i, b.nn), span(j, b.nn)
		for lb, ob := range localNode {
			dx, dy, dz := ob[0]-oa[0], ob[1]-oa[1], ob[2]-oa[2]
			pos := ((dz-lower(k))*cy+dy-lower(j))*cx + dx - lower(i)
			slots[8*la+lb] = a.Matrix.RowPtr[n] + int64(pos)
		}
	}
	for la := 0; la < 8; la++ {
		for lb := 0; lb < 8; lb++ {
			if la != lb && (clamped>>la|clamped>>lb)&1 != 0 {
				slots[8*la+lb] = -1
			}
		}
	}
	return clamped
}

// Numeric writes the stiffness values into A, which must have the assembly's pattern
// (a.Matrix, a.NewMatrix() or a copy of either). Element e contributes modulus[e] times
// the reference element matrix; a nil modulus means ElementModulus() (ex56's soft
// sphere). It uses up to workers goroutines (≤ 0: par.Workers()) and allocates nothing.
//
// Each block row is owned by one worker, which gathers the contributions of the
// elements around its node in ascending element order, so A's values are bitwise the
// same for any worker count. A modulus of the wrong length or with negative or
// non-finite values is an error, and A is then left unchanged.
func (a *Assembly) Numeric(A *bsr.Matrix, modulus []float64, workers int) error {
	b := a.box
	if A.BlockRows != a.Matrix.BlockRows || A.BlockCols != a.Matrix.BlockCols || A.R != 3 || A.C != 3 ||
		len(A.RowPtr) != len(a.Matrix.RowPtr) || len(A.ColIdx) != len(a.Matrix.ColIdx) || len(A.Val) != len(a.Matrix.Val) {
		panic("fem: Numeric: matrix does not have the assembly's pattern")
	}
	if modulus == nil {
		modulus = a.defaultModulus
	} else {
		if len(modulus) != b.Elements() {
			return fmt.Errorf("fem: %d element moduli for %d elements", len(modulus), b.Elements())
		}
		for e, m := range modulus {
			if !(m >= 0) || math.IsInf(m, 0) {
				return fmt.Errorf("fem: element %d: modulus %v is not finite and non-negative", e, m)
			}
		}
	}
	par.For(b.Nodes(), workers, rowGrain, func(lo, hi int) {
		a.numericRows(lo, hi, A.RowPtr, A.Val, modulus)
	})
	return nil
}

// numericRows fills block rows [lo, hi). The 27 stencil blocks of a row are summed in
// a local buffer and then copied, in column order, to the row's stored blocks.
func (a *Assembly) numericRows(lo, hi int, rowPtr []int64, val, modulus []float64) {
	b := a.box
	nn, ne := b.nn, b.ne
	var buf [27][9]float64
	for n := lo; n < hi; n++ {
		i, j, k := b.gridPos(n)
		buf = [27][9]float64{}
		for ez := 0; ez < 2; ez++ {
			ek := k - 1 + ez
			if ek < 0 || ek >= ne {
				continue
			}
			// Nodes of the plane z = 0 are clamped: a row at k = 1 drops the
			// couplings to the bottom face (local nodes 0…3) of the elements below.
			first := 0
			if ek == 0 && k == 1 {
				first = 4
			}
			for ey := 0; ey < 2; ey++ {
				ej := j - 1 + ey
				if ej < 0 || ej >= ne {
					continue
				}
				for ex := 0; ex < 2; ex++ {
					ei := i - 1 + ex
					if ei < 0 || ei >= ne {
						continue
					}
					m := modulus[ei+ne*(ej+ne*ek)]
					p := ex + 2*ey + 4*ez
					la := a.tables.Local[p]
					if k == 0 {
						d, s := &buf[13], &a.tables.Diag[la]
						d[0] += m * s[0]
						d[4] += m * s[1]
						d[8] += m * s[2]
						continue
					}
					kr := &b.kb[la]
					sl := &a.tables.Slot[p]
					for lb := first; lb < 8; lb++ {
						d, s := &buf[sl[lb]], &kr[lb]
						d[0] += m * s[0]
						d[1] += m * s[1]
						d[2] += m * s[2]
						d[3] += m * s[3]
						d[4] += m * s[4]
						d[5] += m * s[5]
						d[6] += m * s[6]
						d[7] += m * s[7]
						d[8] += m * s[8]
					}
				}
			}
		}
		q := rowPtr[n] * 9
		for dz := lower(k); dz <= upper(k, nn); dz++ {
			for dy := lower(j); dy <= upper(j, nn); dy++ {
				for dx := lower(i); dx <= upper(i, nn); dx++ {
					*(*[9]float64)(val[q : q+9]) = buf[stencil(dx, dy, dz)]
					q += 9
				}
			}
		}
	}
}

// Assemble runs Symbolic and Numeric with the default material and returns the matrix.
func (b *Box) Assemble(workers int) (*bsr.Matrix, error) {
	a, err := b.Symbolic(workers)
	if err != nil {
		return nil, err
	}
	if err := a.Numeric(a.Matrix, nil, workers); err != nil {
		return nil, err
	}
	return a.Matrix, nil
}
