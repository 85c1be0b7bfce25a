package galerkin

import (
	"fmt"
	"slices"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// The symmetric half. When A is symmetric so is Ac = PᵀAP, so a plan told so
// (SetSymmetric) sums only the blocks of Ac on and above the diagonal, (I, J) with
// J ≥ I: each Pᵀ·W row operation skips the blocks of W row i left of column I (its
// columns are sorted). A last pass copies each block below the diagonal from the
// transpose of its mirror. On ex56's fine level that is 55% of the Pᵀ·W products.
// The A·P rows then also skip the W blocks the half never reads, those left of P's
// first column in their row (wRow, unreadBefore): 12% of A·P's products there.
// Every variant sums the upper blocks exactly as without the half, so they keep the
// full product's bits (and the variants still agree bitwise with each other); the
// lower blocks are their exact transposes.

// SetSymmetric declares A symmetric for the plan's Numeric calls, which then compute
// the symmetric half of Ac and mirror it. It checks A (values included, when A has
// them: bsr.Matrix.CheckSymmetric) and needs A's pattern to be the one given to
// Symbolic; later values are trusted to stay symmetric. sym false returns the plan to
// the full product.
func (p *Plan) SetSymmetric(A *bsr.Matrix, sym bool) error {
	if !sym {
		p.sym, p.mirror, p.fromP = false, nil, nil
		return nil
	}
	if A == nil || !sameIndex(A.RowPtr, A.ColIdx, p.aPtr, p.aCol) {
		return fmt.Errorf("%w: SetSymmetric's A", ErrPattern)
	}
	if err := A.CheckSymmetric(); err != nil {
		return fmt.Errorf("galerkin: SetSymmetric: A is %w", err)
	}
	mir, err := MirrorPattern(p.m, p.Ac.RowPtr, p.Ac.ColIdx)
	if err != nil {
		// Unreachable for a symmetric A: PᵀAP's pattern is then symmetric.
		return fmt.Errorf("galerkin: SetSymmetric: Ac %w", err)
	}
	// Per P block (i, I): where Ac row I's share of W row i starts (its first block
	// of column ≥ I), found once here rather than searched for in every Numeric.
	from := make([]int32, p.pPtr[p.n])
	par.For(p.n, 0, 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			wrow := p.w.colIdx[p.w.rowPtr[i]:p.w.rowPtr[i+1]]
			for q := p.pPtr[i]; q < p.pPtr[i+1]; q++ {
				f, _ := slices.BinarySearch(wrow, p.pCol[q])
				from[q] = int32(f)
			}
		}
	})
	p.sym, p.mirror, p.fromP = true, mir, from
	return nil
}

// Symmetric reports whether the plan computes the symmetric half (SetSymmetric).
func (p *Plan) Symmetric() bool { return p.sym }

// upperFrom returns, for P block q = (i, I), the first block of W row i whose column
// is at least I (0 without the symmetric half): where Ac row I's share of the row
// starts.
func (p *Plan) upperFrom(q int64) int64 {
	if !p.sym {
		return 0
	}
	return int64(p.fromP[q])
}

// mirrorLower copies each Ac block below the diagonal from the transpose of its
// mirror, once the blocks on and above it are final.
func (p *Plan) mirrorLower(workers int) {
	if !p.sym {
		return
	}
	ac := p.Ac
	k := p.k
	kk := int64(k * k)
	par.For(p.m, workers, 256, func(lo, hi int) {
		for I := lo; I < hi; I++ {
			for b := ac.RowPtr[I]; b < ac.RowPtr[I+1] && int(ac.ColIdx[b]) < I; b++ {
				dst, src := ac.Val[b*kk:(b+1)*kk], ac.Val[p.mirror[b]*kk:(p.mirror[b]+1)*kk]
				for r := 0; r < k; r++ {
					for c := 0; c < k; c++ {
						dst[r*k+c] = src[c*k+r]
					}
				}
			}
		}
	})
}
