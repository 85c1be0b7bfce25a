package fem

import (
	"fmt"
	"math"
)

// GatherTables is what another implementation of Assembly.Numeric (a GPU kernel) needs
// to produce bitwise the same values: the mesh size and the small tables of the row
// gather. It holds no per-element or per-slot data; the element→slot map is arithmetic.
//
// Block row n, at grid position (i, j, k), is computed as Numeric does it:
//
//   - The row's 27 stencil blocks start at +0. Stencil position
//     s = (dz+1)·9 + (dy+1)·3 + (dx+1) is the block of column n + dx + Nn·(dy + Nn·dz);
//     the row stores, from RowPtr[n] on, the positions whose column lies in the grid,
//     in increasing s.
//   - For p = ex + 2ey + 4ez from 0 to 7 (ascending element order), the element at
//     (i−1+ex, j−1+ey, k−1+ez), when all three lie in [0, Ne), has modulus m and holds
//     n as its local node la = Local[p].
//   - If k = 0 (n is clamped), m·Diag[la][c] is added to entry (c, c) of block 13 for
//     c = 0, 1, 2, and nothing else.
//   - Otherwise, for every local node lb of the element, from FirstNode(k, ek) to 7,
//     where ek = k−1+ez, the product m·Ref[la][lb][e] is added to entry e of block
//     Slot[p][lb] (e = 0…8, row-major). Each block receives at most one product per
//     element.
//
// Every addition is acc = acc + (m·ref), the product rounded to float64 before the sum
// (no fused multiply-add), which is what Go computes for Numeric's code on amd64.
type GatherTables struct {
	Ne int // elements per side
	Nn int // nodes per side, Ne+1

	// Ref[la][lb] is the 3×3 block (row-major) of the unit-modulus reference element
	// matrix coupling local nodes la and lb (Box.ReferenceStiffness as blocks).
	Ref [8][8][9]float64
	// Diag[la][c] is what a clamped node keeps of its element's diagonal entry (c, c):
	// 0.1·Ref[la][la][4c], rounded once as Numeric uses it.
	Diag [8][3]float64
	// Local[p] is the local index of the row's node inside the element at position p.
	Local [8]int
	// Slot[p][lb] is the stencil position (0…26) of local node lb of the element at
	// position p, seen from the row's node.
	Slot [8][8]int8
}

// FirstNode returns the first local node of an element (lowest corner at grid layer ek)
// that contributes to a block row at grid layer k ≥ 1: 4 when the row lies just above
// the clamped face and the element is in the bottom layer (its local nodes 0…3 are
// clamped, their couplings dropped), else 0.
func FirstNode(k, ek int) int {
	if k == 1 && ek == 0 {
		return 4
	}
	return 0
}

// GatherTables returns a copy of the tables of the numeric phase.
func (a *Assembly) GatherTables() GatherTables { return a.tables }

// GatherTables returns the tables of the numeric phase of the box's assembly, the
// same as Symbolic's Assembly has, without building the matrix: for an
// implementation that makes the pattern and the values elsewhere (on a GPU).
func (b *Box) GatherTables() GatherTables { return b.gatherTables() }

func (b *Box) gatherTables() GatherTables {
	g := GatherTables{Ne: b.ne, Nn: b.nn, Ref: b.kb}
	for p := 0; p < 8; p++ {
		ex, ey, ez := p&1, (p>>1)&1, p>>2
		g.Local[p] = localIndex[1-ex][1-ey][1-ez]
		for lb, o := range localNode {
			dx, dy, dz := o[0]+ex-1, o[1]+ey-1, o[2]+ez-1
			g.Slot[p][lb] = int8(stencil(dx, dy, dz))
		}
	}
	for la := 0; la < 8; la++ {
		for c := 0; c < 3; c++ {
			g.Diag[la][c] = dirichletDiag * b.kb[la][la][4*c]
		}
	}
	return g
}

// CheckModulus reports whether modulus is valid input for Numeric: one value per
// element, each finite and non-negative. It returns Numeric's error for it (nil for a
// nil modulus, which means the default material).
func (a *Assembly) CheckModulus(modulus []float64) error { return a.box.CheckModulus(modulus) }

// CheckModulus is Assembly.CheckModulus for the box's assembly.
func (b *Box) CheckModulus(modulus []float64) error {
	if modulus == nil {
		return nil
	}
	if len(modulus) != b.Elements() {
		return fmt.Errorf("fem: %d element moduli for %d elements", len(modulus), b.Elements())
	}
	for e, m := range modulus {
		if !(m >= 0) || math.IsInf(m, 0) {
			return fmt.Errorf("fem: element %d: modulus %v is not finite and non-negative", e, m)
		}
	}
	return nil
}
