package amg

import (
	"fmt"
	"math"
)

// NullSpace is a dense near-null space of the fine operator: Cols vectors of Rows
// scalar entries, stored row-major (Data[i*Cols+j] is entry i of vector j), the layout
// of matio.Dense. With b unknowns per node, node v owns rows v·b … v·b+b−1, so its
// b×Cols block is contiguous. Setup requires finite entries and no zero vector;
// linearly dependent vectors are allowed (the per-aggregate QR copes with them).
type NullSpace struct {
	Rows, Cols int       // scalar unknowns and vectors
	Data       []float64 // len Rows*Cols, row-major
}

// ConstantModes returns the near-null space used when none is given: one constant
// vector per unknown of a node (Cols = b), i.e. the translations of elasticity or the
// constant of a scalar problem.
func ConstantModes(nodes, b int) *NullSpace {
	ns := &NullSpace{Rows: nodes * b, Cols: b, Data: make([]float64, nodes*b*b)}
	for v := 0; v < nodes; v++ {
		for t := 0; t < b; t++ {
			ns.Data[(v*b+t)*b+t] = 1
		}
	}
	return ns
}

// check validates the shape and values.
func (ns *NullSpace) check() error {
	if ns.Rows < 0 || ns.Cols < 1 || len(ns.Data) != ns.Rows*ns.Cols {
		return fmt.Errorf("%w: near-null space is %d×%d with %d values", ErrInput, ns.Rows, ns.Cols, len(ns.Data))
	}
	nonzero := make([]bool, ns.Cols)
	for p, v := range ns.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: near-null space entry (%d,%d) is %v", ErrInput, p/ns.Cols, p%ns.Cols, v)
		}
		nonzero[p%ns.Cols] = nonzero[p%ns.Cols] || v != 0
	}
	// A zero vector contributes nothing to the coarse space but a coarse unknown per
	// aggregate that the prolongator fills with an arbitrary orthonormal direction:
	// a silently worse hierarchy from what is surely a mistake in the input (a column
	// left empty, the wrong file).
	for j, nz := range nonzero {
		if !nz && ns.Rows > 0 {
			return fmt.Errorf("%w: near-null space vector %d (column %d of %d) is zero", ErrInput, j, j, ns.Cols)
		}
	}
	return nil
}
