package cpu

import (
	"fmt"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/filter"
	"github.com/blockamg/blockamg/galerkin"
	"github.com/blockamg/blockamg/internal/par"
)

// The CPU side of backend.Resetter: the re-setup primitives over host BSR, written
// independently of amg's set-up code so that amg/cycle's device re-setup can be
// checked against amg.Hierarchy.Update without a GPU.

var _ backend.Resetter = (*Backend)(nil)

// UploadPattern returns a new matrix with m's pattern and zero values. The transpose
// is applied by MulTransVec, so withTranspose needs nothing.
func (b *Backend) UploadPattern(m *bsr.Matrix, withTranspose bool) (backend.Matrix, error) {
	p := &bsr.Matrix{BlockRows: m.BlockRows, BlockCols: m.BlockCols, R: m.R, C: m.C,
		RowPtr: append([]int64(nil), m.RowPtr...), ColIdx: append([]int32(nil), m.ColIdx...)}
	p.Val = make([]float64, int64(len(p.ColIdx))*int64(m.R*m.C))
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Matrix{m: p}, nil
}

// UploadValues copies src into a's values (a's storage: with UploadMatrix, the
// caller's matrix).
func (b *Backend) UploadValues(a backend.Matrix, src []float64) error {
	m := mat(a)
	if len(src) != len(m.Val) {
		panic("cpu: UploadValues: length mismatch")
	}
	copy(m.Val, src)
	b.counters.AddH2D(b.phase, int64(len(src))*8)
	return nil
}

// DownloadValues copies a's values into dst.
func (b *Backend) DownloadValues(dst []float64, a backend.Matrix) error {
	m := mat(a)
	if len(dst) != len(m.Val) {
		panic("cpu: DownloadValues: length mismatch")
	}
	copy(dst, m.Val)
	b.counters.AddD2H(b.phase, int64(len(dst))*8)
	return nil
}

// ScaleValues multiplies a's values by f.
func (b *Backend) ScaleValues(a backend.Matrix, f float64) { mat(a).Scale(f) }

// NewBlockDiag returns zero blocks.
func (b *Backend) NewBlockDiag(blocks, n int) (backend.BlockDiag, error) {
	return &BlockDiag{blocks: blocks, b: n, val: make([]float64, blocks*n*n)}, nil
}

// InvertBlockDiag sets d to the inverses of a's diagonal blocks (bsr.InvertDiag).
func (b *Backend) InvertBlockDiag(a backend.Matrix, d backend.BlockDiag) error {
	m := mat(a)
	bd := diag(d)
	if bd.blocks != m.BlockRows || bd.b != m.R || m.R != m.C {
		panic("cpu: InvertBlockDiag: shapes do not match")
	}
	inv, err := m.InvertDiag()
	if err != nil {
		return err
	}
	copy(bd.val, inv)
	return nil
}

// SmoothProlongator sets y = x − ω·D⁻¹·a·x on y's pattern. Each block of y is summed
// over row i of a in storage order, looking its column up in x's rows.
func (b *Backend) SmoothProlongator(a backend.Matrix, d backend.BlockDiag, omega float64, x, y backend.Matrix) {
	A, X, Y, bd := mat(a), mat(x), mat(y), diag(d)
	n := A.BlockRows
	if A.BlockCols != n || X.BlockRows != n || Y.BlockRows != n || X.BlockCols != Y.BlockCols ||
		X.R != A.R || Y.R != A.R || X.C != Y.C || bd.blocks != n || bd.b != A.R {
		panic("cpu: SmoothProlongator: shapes do not match")
	}
	bs, k := A.R, X.C
	bb, bk := int64(bs*bs), int64(bs*k)
	par.ForWeighted(Y.RowPtr, b.workers, 1024, func(lo, hi int) {
		acc := make([]float64, bk)
		tmp := make([]float64, bk)
		for i := lo; i < hi; i++ {
			dinv := bd.val[int64(i)*bb : int64(i+1)*bb]
			for s := Y.RowPtr[i]; s < Y.RowPtr[i+1]; s++ {
				c := int(Y.ColIdx[s])
				clear(acc)
				for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
					if t, ok := X.Find(int(A.ColIdx[q]), c); ok {
						bsr.GemmAcc(bs, bs, k, A.Val[q*bb:(q+1)*bb], X.Val[t*bk:(t+1)*bk], acc)
					}
				}
				clear(tmp)
				bsr.GemmAcc(bs, bs, k, dinv, acc, tmp)
				out := Y.Val[s*bk : (s+1)*bk]
				if t, ok := X.Find(i, c); ok {
					copy(out, X.Val[t*bk:(t+1)*bk])
				} else {
					clear(out)
				}
				for e := range out {
					out[e] -= omega * tmp[e]
				}
			}
		}
	})
}

// RefreshTranspose does nothing: the CPU applies Pᵀ from P itself.
func (b *Backend) RefreshTranspose(a backend.Matrix) { mat(a) }

// cpuGalerkin is a galerkin.Plan as a backend.Galerkin.
type cpuGalerkin struct {
	pl      *galerkin.Plan
	ac      *Matrix
	workers int
}

// NewGalerkin plans Ac = PᵀAP with the CPU planner's variant.
func (b *Backend) NewGalerkin(A, P *bsr.Matrix) (backend.Galerkin, error) {
	pl, err := galerkin.Symbolic(A, P, galerkin.Auto)
	if err != nil {
		return nil, err
	}
	return &cpuGalerkin{pl: pl, ac: &Matrix{m: pl.Ac}, workers: b.workers}, nil
}

func (g *cpuGalerkin) Numeric(a, p backend.Matrix) error {
	return g.pl.Numeric(mat(a), mat(p), g.workers)
}
func (g *cpuGalerkin) Ac() backend.Matrix { return g.ac }
func (g *cpuGalerkin) Name() string       { return string(g.pl.Variant()) }
func (g *cpuGalerkin) Free()              { g.ac.Free() }

// cpuFilter is a filter.Plan as a backend.Filter.
type cpuFilter struct {
	pl      *filter.Plan
	bc      []float64
	workers int
}

// NewFilter keeps the plan and a copy of Bc.
func (b *Backend) NewFilter(p *filter.Plan, Bc []float64) (backend.Filter, error) {
	if p == nil {
		return nil, fmt.Errorf("cpu: NewFilter: nil plan")
	}
	return &cpuFilter{pl: p, bc: append([]float64(nil), Bc...), workers: b.workers}, nil
}

func (f *cpuFilter) Numeric(psmooth, pf backend.Matrix) error {
	return f.pl.Numeric(mat(psmooth), f.bc, mat(pf), f.workers)
}
func (f *cpuFilter) Free() {}

func diag(d backend.BlockDiag) *BlockDiag {
	bd, ok := d.(*BlockDiag)
	if !ok {
		panic("cpu: block diagonal from another backend")
	}
	if bd.free {
		panic("cpu: block diagonal used after Free")
	}
	return bd
}
