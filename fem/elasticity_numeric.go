package fem

import (
	"fmt"
	"math"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// numericGrain is the least work (element nodes × quadrature points summed over a
// row's incidences) of one worker's rows.
const numericGrain = 1 << 12

// CheckMaterial returns nil when E and nu are valid per-element material data for
// Numeric and VonMises: one value each per element, E positive and finite, nu in
// (−1, 0.5); otherwise an error wrapping ErrMaterial naming the first bad element.
func (el *Elasticity) CheckMaterial(E, nu []float64) error {
	ne := len(el.elemSet)
	if len(E) != ne || len(nu) != ne {
		return fmt.Errorf("%w: %d moduli and %d Poisson ratios for %d elements", ErrMaterial, len(E), len(nu), ne)
	}
	for e := range E {
		if !(E[e] > 0) || math.IsInf(E[e], 0) {
			return fmt.Errorf("%w: %s: Young's modulus %v is not positive and finite", ErrMaterial, el.describe(e), E[e])
		}
		if !(nu[e] > -1 && nu[e] < 0.5) {
			return fmt.Errorf("%w: %s: Poisson ratio %v outside (−1, 0.5)", ErrMaterial, el.describe(e), nu[e])
		}
	}
	return nil
}

// lame returns the Lamé parameters μ = E / (2(1+ν)) and λ = Eν / ((1+ν)(1−2ν)), every
// product rounded before it is used (the operation order of the package
// documentation).
func lame(E, nu float64) (mu, lambda float64) {
	t := 1 + nu
	mu = E / float64(2*t)
	lambda = float64(E*nu) / float64(t*(1-float64(2*nu)))
	return mu, lambda
}

// Numeric writes the stiffness matrix for Young's moduli E and Poisson ratios nu (one
// per element) into A, which must have the pattern of NewMatrix, and eliminates the
// fixed degrees of freedom. It uses up to workers goroutines (≤ 0: par.Workers()),
// allocates nothing, and A's values are bitwise the same for any worker count. Bad
// material data is an error wrapping ErrMaterial, and A is then left unchanged.
//
// Block row a is computed by the one worker that owns it, in the order the package
// documentation gives ("Numeric phase"): its incident elements in ascending order,
// each element's block row a integrated point by point, every product rounded before
// it is added (no fused multiply-add), then added into the row's slots. The
// elimination then zeroes, in the blocks of the row, the entries of fixed rows and
// fixed columns except the diagonal, which keeps its assembled value; the couplings
// it removes from free rows are kept for RHS. The matrix is exactly symmetric.
func (el *Elasticity) Numeric(A *bsr.Matrix, E, nu []float64, workers int) error {
	el.checkMatrix(A, "Numeric")
	if err := el.CheckMaterial(E, nu); err != nil {
		return err
	}
	par.ForWeighted(el.rowWork, workers, numericGrain, func(lo, hi int) {
		el.numericRows(lo, hi, A.Val, E, nu)
	})
	el.last = A
	return nil
}

// checkMatrix panics unless A has the assembly's pattern.
func (el *Elasticity) checkMatrix(A *bsr.Matrix, who string) {
	p := el.pattern
	if A == nil || A.R != 3 || A.C != 3 || int64(len(A.Val)) != 9*p.NNZBlocks() || !(sameSlice(A.RowPtr, p.RowPtr) && sameSlice(A.ColIdx, p.ColIdx) || A.SamePattern(p)) {
		panic("fem: " + who + ": matrix does not have the assembly's pattern")
	}
}

func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// numericRows computes block rows [lo, hi). The scratch (one element's block row and
// its nodes' gradients at one point) lives on the stack.
func (el *Elasticity) numericRows(lo, hi int, val, E, nu []float64) {
	var kr [maxNodes][9]float64
	var g [maxNodes][3]float64
	rowPtr := el.pattern.RowPtr
	for a := lo; a < hi; a++ {
		base := rowPtr[a]
		row := val[base*9 : rowPtr[a+1]*9]
		clear(row)
		for k := el.incPtr[a]; k < el.incPtr[a+1]; k++ {
			e := el.incElem[k]
			la := int(el.incLocal[k])
			s := &el.sets[el.elemSet[e]]
			n := s.n
			mu, lambda := lame(E[e], nu[e])
			ratio := lambda / mu
			for q := 0; q < s.nq; q++ {
				p := (el.qptr[e] + int64(q)) * qRecord
				rec := (*[qRecord]float64)(el.qdata[p : p+qRecord])
				r0, r1, r2, r3, r4, r5, r6, r7, r8 := rec[0], rec[1], rec[2], rec[3], rec[4], rec[5], rec[6], rec[7], rec[8]
				h := math.Sqrt(float64(rec[9] * mu))
				grad := s.grad[q*n*3 : (q+1)*n*3]
				for b := 0; b < n; b++ {
					d := (*[3]float64)(grad[3*b:])
					d0, d1, d2 := d[0], d[1], d[2]
					g[b] = [3]float64{
						float64(h * (float64(float64(d0*r0)+float64(d1*r3)) + float64(d2*r6))),
						float64(h * (float64(float64(d0*r1)+float64(d1*r4)) + float64(d2*r7))),
						float64(h * (float64(float64(d0*r2)+float64(d1*r5)) + float64(d2*r8))),
					}
				}
				ga0, ga1, ga2 := g[la][0], g[la][1], g[la][2]
				for b := 0; b < n; b++ {
					// M_ij = Σ_q s_a[i]·s_b[j], the first point's products taken as
					// they are.
					gb0, gb1, gb2 := g[b][0], g[b][1], g[b][2]
					p := [9]float64{
						float64(ga0 * gb0), float64(ga0 * gb1), float64(ga0 * gb2),
						float64(ga1 * gb0), float64(ga1 * gb1), float64(ga1 * gb2),
						float64(ga2 * gb0), float64(ga2 * gb1), float64(ga2 * gb2),
					}
					if q == 0 {
						kr[b] = p
						continue
					}
					kb := &kr[b]
					for r := range p {
						kb[r] += p[r]
					}
				}
			}
			for b := 0; b < n; b++ {
				// K_ij = M_ji + (tr M if i = j) + ratio·M_ij.
				m := kr[b]
				tr := float64(m[0]+m[4]) + m[8]
				kr[b] = [9]float64{
					float64(m[0]+tr) + float64(ratio*m[0]), m[3] + float64(ratio*m[1]), m[6] + float64(ratio*m[2]),
					m[1] + float64(ratio*m[3]), float64(m[4]+tr) + float64(ratio*m[4]), m[7] + float64(ratio*m[5]),
					m[2] + float64(ratio*m[6]), m[5] + float64(ratio*m[7]), float64(m[8]+tr) + float64(ratio*m[8]),
				}
			}
			sl := el.slot[el.slotPtr[k]:el.slotPtr[k+1]]
			for b := 0; b < n; b++ {
				blk := (*[9]float64)(row[int(sl[b])*9:])
				for r := 0; r < 9; r++ {
					blk[r] += kr[b][r]
				}
			}
		}
		if el.fixed != nil {
			el.eliminate(a, base, row)
		}
	}
}

// eliminate saves block row a's couplings of free rows to fixed columns and zeroes the
// entries of fixed rows and columns, the diagonal excepted.
func (el *Elasticity) eliminate(a int, base int64, row []float64) {
	for s := el.elimPtr[a]; s < el.elimPtr[a+1]; s++ {
		o := (el.elimSlot[s] - base) * 9
		copy(el.saved[s*9:s*9+9], row[o:o+9])
	}
	ma := el.fixed[a]
	cols := el.pattern.ColIdx[base:el.pattern.RowPtr[a+1]]
	for k, c := range cols {
		mc := el.fixed[c]
		if ma|mc == 0 {
			continue
		}
		blk := row[9*k : 9*k+9]
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				if (ma>>i|mc>>j)&1 != 0 && (int(c) != a || i != j) {
					blk[3*i+j] = 0
				}
			}
		}
	}
}
