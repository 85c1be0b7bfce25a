package fem

import "github.com/blockamg/blockamg/bsr"

// Ex56System assembles PETSc ex56's problem with ne elements per side (Ex56's
// defaults, workers goroutines) and returns the matrix, the right-hand side and the six
// orthonormalised rigid-body modes (nodes·3 × 6, row-major): everything a solver or a
// benchmark of the ex56 hierarchy needs, in one call.
func Ex56System(ne, workers int) (A *bsr.Matrix, rhs, modes []float64, err error) {
	box, err := NewBox(Ex56(ne))
	if err != nil {
		return nil, nil, nil, err
	}
	if A, err = box.Assemble(workers); err != nil {
		return nil, nil, nil, err
	}
	if modes, _, err = RigidBodyModes(box.Coords(), 3, true); err != nil {
		return nil, nil, nil, err
	}
	return A, box.RHS(), modes, nil
}
