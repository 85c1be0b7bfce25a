package cpu

import (
	"github.com/blockamg/blockamg/backend"
)

var _ backend.Lanczoser = (*Backend)(nil)

// CGLanczos implements backend.Lanczoser with backend.CGLanczos: on the CPU an inner
// product costs no transfer, so the generic recurrence is the one to run.
func (b *Backend) CGLanczos(a backend.Matrix, dinv backend.BlockDiag, start backend.Vector, steps int,
	r, z, p, q backend.Vector) (backend.LanczosResult, error) {
	return backend.CGLanczos(b, a, dinv, start, steps, r, z, p, q), nil
}
