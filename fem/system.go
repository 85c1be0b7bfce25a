package fem

import (
	"fmt"

	"github.com/blockamg/blockamg/bsr"
)

// Ex56System assembles PETSc ex56's problem with ne elements per side (Ex56's
// defaults, workers goroutines) and returns the matrix, the right-hand side and the six
// orthonormalised rigid-body modes (nodes·3 × 6, row-major): everything a solver or a
// benchmark of the ex56 hierarchy needs, in one call. A system that does not fit under
// the process's memory limits (SystemBytes against MemoryLimits) is an error wrapping
// ErrTooLarge, returned before anything is allocated.
func Ex56System(ne, workers int) (A *bsr.Matrix, rhs, modes []float64, err error) {
	box, err := NewBox(Ex56(ne))
	if err != nil {
		return nil, nil, nil, err
	}
	if err := CheckMemory(fmt.Sprintf("the ex56 system for ne = %d (%d unknowns)", ne, box.Unknowns()),
		box.SystemBytes(), MemoryLimits()); err != nil {
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

// SystemBytes returns the memory Ex56System allocates at its peak: the matrix
// (MatrixBytes), the element moduli, and per unknown the right-hand side, the
// coordinates and the six rigid-body modes with RigidBodyModes' copy of them.
func (b *Box) SystemBytes() int64 {
	return b.MatrixBytes() + int64(b.Elements())*8 + int64(b.Unknowns())*8*(1+1+2*6)
}
