package blockamg

import (
	"fmt"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/fem"
)

// NullSpace is a near-null space: Cols vectors of Rows entries, row-major (see
// amg.NullSpace).
type NullSpace = amg.NullSpace

// RigidBodyModes returns the rigid-body modes of elasticity for nodes at coords
// (nodes×dim, row-major, dim 2 or 3), orthonormalized: 3 vectors in 2D (two
// translations, one rotation), 6 in 3D, for a matrix with dim unknowns per node
// ordered node by node.
func RigidBodyModes(coords []float64, dim int) (*NullSpace, error) {
	B, _, err := fem.RigidBodyModes(coords, dim, true)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	n := len(coords)
	return &NullSpace{Rows: n, Cols: len(B) / n, Data: B}, nil
}

// ConstantModes returns one constant vector per unknown of a node (b vectors): the
// translations of elasticity, or the constant of a scalar problem (b = 1). It is what
// NewSolver uses when given no near-null space.
func ConstantModes(nodes, b int) *NullSpace { return amg.ConstantModes(nodes, b) }
