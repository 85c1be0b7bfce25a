package fem

import (
	"errors"
	"fmt"
)

// ErrTooLarge is wrapped by the error Symbolic returns when the matrix would not fit in
// the machine's memory.
var ErrTooLarge = errors.New("fem: problem too large for this machine's memory")

// MatrixBytes returns the memory of the assembled stiffness matrix: int64 row
// pointers, int32 block columns and float64 3×3 blocks. Along each axis the stencil
// spans of the nn nodes add up to 3·nn−2, so the 27-point pattern stores (3·nn−2)³
// blocks in all.
func (b *Box) MatrixBytes() int64 {
	nn := int64(b.nn)
	s := 3*nn - 2
	nnzb := s * s * s
	return (nn*nn*nn+1)*8 + nnzb*4 + nnzb*9*8
}

// checkMemory refuses an assembly whose matrix and per-element moduli need more than
// the machine's memory, before anything is allocated: otherwise a mistyped ne ends in
// the Go runtime's fatal "out of memory" (not an error, not recoverable) minutes into
// the symbolic phase. Where the memory size is unknown nothing is checked.
func (b *Box) checkMemory() error {
	need := b.MatrixBytes() + int64(b.Elements())*8
	if have := memoryLimit(); have > 0 && need > have {
		return fmt.Errorf("%w: ne = %d (%d unknowns) needs %.1f GB for the matrix, the machine has %.1f GB",
			ErrTooLarge, b.ne, b.Unknowns(), float64(need)/1e9, float64(have)/1e9)
	}
	return nil
}
