package dist

import (
	"github.com/blockamg/blockamg/bsr"
)

// BlockJacobi is the block-Jacobi preconditioner of a distributed matrix: the
// inverses of its diagonal blocks, which lie in the local part, so applying it needs
// no communication.
type BlockJacobi struct {
	n    int       // block size
	Dinv []float64 // the inverses, one row-major n×n block per owned block row
}

// NewBlockJacobi inverts the diagonal blocks of a's local part. A singular or
// missing block is an error wrapping bsr.ErrSingular.
func NewBlockJacobi(a *Matrix) (*BlockJacobi, error) {
	d, err := a.Local.InvertDiag()
	if err != nil {
		return nil, err
	}
	return &BlockJacobi{n: a.Local.R, Dinv: d}, nil
}

// Apply sets z = D⁻¹r on this rank's part.
func (p *BlockJacobi) Apply(r, z []float64) {
	n := p.n
	if len(r) != len(z) || len(r)*n != len(p.Dinv) {
		panic("dist: BlockJacobi.Apply: length mismatch")
	}
	clear(z)
	for i := 0; i < len(r)/n; i++ {
		bsr.GemvAcc(n, n, p.Dinv[i*n*n:(i+1)*n*n], r[i*n:(i+1)*n], z[i*n:(i+1)*n])
	}
}
