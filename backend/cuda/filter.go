package cuda

import (
	"fmt"

	"github.com/blockamg/blockamg/filter"
	"github.com/blockamg/blockamg/internal/cudadrv"
)

// filterKMax mirrors FILTER_KMAX in kernels/filter.cu: the largest k of the generic
// kernel.
const filterKMax = 8

// FilterPlan is the numeric phase of a filter.Plan on the device: the per-row factor
// index, the packed Cholesky factors and the coarse near-null space B_c, uploaded once
// by NewFilterPlan. Numeric then writes P_f's values from a device smoothed
// prolongator without any host copy (kernels/filter.cu: one thread per scalar row of
// P, the CPU's summation order, deterministic).
type FilterPlan struct {
	b          *Backend
	n, m, r, k int
	nnzP       int64 // stored blocks of P (the pattern given to Symbolic)
	nnzPf      int64 // stored blocks of P_f
	identity   bool
	plan       *filter.Plan

	rowFac *Buffer[int32]   // n factor indices (−1: copy the row)
	fac    *Buffer[float64] // packed factors, k(k+1)/2 per corrected row
	bc     *Buffer[float64] // B_c, m blocks of k×k
	fn     cudadrv.Function
	kernel string
	freed  bool
}

// NewFilterPlan uploads what the numeric phase of p needs (counted under the current
// phase): the factor index of every fine row, the factors and Bc, which must be the
// coarse near-null space given to filter.Symbolic (m blocks of k×k; only its length is
// checked). An identity plan uploads nothing: its Numeric is a copy. Blocks wider
// than filterKMax (8) columns are refused.
func (b *Backend) NewFilterPlan(p *filter.Plan, Bc []float64) (*FilterPlan, error) {
	if p == nil {
		return nil, fmt.Errorf("cuda: NewFilterPlan: nil plan")
	}
	n, m, r, k := p.Dims()
	if want := int64(m) * int64(k*k); int64(len(Bc)) != want {
		return nil, fmt.Errorf("cuda: NewFilterPlan: %w: coarse near-null space has %d values, want %d (%d coarse nodes × %d×%d)",
			filter.ErrInput, len(Bc), want, m, k, k)
	}
	prp, _ := p.PPattern()
	frp, _ := p.PfPattern()
	fp := &FilterPlan{b: b, n: n, m: m, r: r, k: k, nnzP: prp[n], nnzPf: frp[n], identity: p.Identity(), plan: p}
	fp.rowFac, fp.fac, fp.bc = &Buffer[int32]{b: b}, &Buffer[float64]{b: b}, &Buffer[float64]{b: b}
	if fp.identity {
		return fp, nil
	}
	if k > filterKMax {
		return nil, fmt.Errorf("cuda: NewFilterPlan: blocks of %d×%d: at most %d columns on the device", r, k, filterKMax)
	}
	if int64(n)*int64(r) >= 1<<31*int64(threads) {
		return nil, fmt.Errorf("cuda: NewFilterPlan: %d block rows of %d rows: too many threads for one launch", n, r)
	}
	fp.kernel = "filter_numeric_generic"
	if k == 6 {
		fp.kernel = "filter_numeric_k6"
	}
	var err error
	if fp.fn, err = b.fnGlobal(fp.kernel); err != nil {
		return nil, fmt.Errorf("cuda: NewFilterPlan: kernel %s: %w", fp.kernel, err)
	}
	fail := func(e error) (*FilterPlan, error) {
		fp.Free()
		return nil, fmt.Errorf("cuda: NewFilterPlan: uploading %d rows, %d factors: %w", n, p.Stats().RowsCorrected, e)
	}
	if err := upload(b, &fp.rowFac, p.RowFactors()); err != nil {
		return fail(err)
	}
	if err := upload(b, &fp.fac, p.Factors()); err != nil {
		return fail(err)
	}
	if err := upload(b, &fp.bc, Bc); err != nil {
		return fail(err)
	}
	return fp, nil
}

// Identity reports whether the plan drops nothing (Numeric copies, or does nothing
// when Pf is Psmooth).
func (fp *FilterPlan) Identity() bool { return fp.identity }

// Plan returns the host plan the device plan was made from.
func (fp *FilterPlan) Plan() *filter.Plan { return fp.plan }

// Bytes returns the device memory the plan holds (factor index, factors, B_c), not
// counting P_f.
func (fp *FilterPlan) Bytes() int64 { return fp.rowFac.Bytes() + fp.fac.Bytes() + fp.bc.Bytes() }

// Free releases the plan's device memory; a second Free is a no-op.
func (fp *FilterPlan) Free() {
	if fp.freed {
		return
	}
	fp.freed = true
	fp.rowFac.Free()
	fp.fac.Free()
	fp.bc.Free()
}

// NewPf returns a device matrix with P_f's pattern (uploaded from the plan, counted
// under the current phase) and zero values (set on the device, no host array), the
// output for Numeric. For an identity plan it has P's pattern.
func (fp *FilterPlan) NewPf() (*Matrix, error) {
	fp.live()
	b := fp.b
	rp, col := fp.plan.PfPattern()
	d := &Matrix{b: b, blockRows: fp.n, blockCols: fp.m, r: fp.r, c: fp.k,
		variant: chooseVariant(fp.r, fp.k, fp.nnzPf, fp.n)}
	d.rowPtr, d.col, d.val = &Buffer[int64]{b: b}, &Buffer[int32]{b: b}, &Buffer[float64]{b: b}
	fail := func(e error) (*Matrix, error) {
		d.Free()
		return nil, fmt.Errorf("cuda: FilterPlan.NewPf: %d×%d blocks of %d×%d, %d stored: %w", fp.n, fp.m, fp.r, fp.k, fp.nnzPf, e)
	}
	if err := upload(b, &d.rowPtr, rp); err != nil {
		return fail(err)
	}
	if err := upload(b, &d.col, col); err != nil {
		return fail(err)
	}
	val, err := Alloc[float64](b, int(fp.nnzPf)*fp.r*fp.k)
	if err != nil {
		return fail(err)
	}
	d.val = val
	return d, nil
}

func (fp *FilterPlan) live() {
	if fp.freed {
		panic("cuda: FilterPlan used after Free")
	}
}

// Numeric queues the filtering of the device smoothed prolongator Psmooth into Pf:
// Psmooth must have the pattern given to filter.Symbolic and Pf the plan's P_f pattern
// (NewPf, or an upload of Plan.NewPf()); their shapes and block counts are checked
// (errors wrap filter.ErrPattern), their column indices are trusted. Rows the plan
// corrects get their surviving blocks plus the minimum-norm correction, so that
// P_f·B_c = P·B_c row by row; other rows (nothing dropped, or left unfiltered by the
// CPU's pivot test) are copied. Nothing crosses the bus; every value is computed by
// one thread in a fixed order, so the result is the same bits on every run (and, on
// amd64, the CPU's Plan.Numeric's bits). For an identity plan Pf may be Psmooth itself
// (nothing to do); otherwise they must be distinct. Failures of the queued work are
// sticky and reported by Err.
func (fp *FilterPlan) Numeric(Psmooth, Pf *Matrix) error {
	fp.live()
	b := fp.b
	P := b.mat(Psmooth)
	F := b.mat(Pf)
	check := func(what string, M *Matrix, nnz int64) error {
		n, m, r, c := M.Dims()
		if n != fp.n || m != fp.m || r != fp.r || c != fp.k || int64(M.col.Len()) != nnz || int64(M.val.Len()) != nnz*int64(r*c) {
			return fmt.Errorf("cuda: FilterPlan.Numeric: %w: %s is %d×%d blocks of %d×%d with %d stored, want %d×%d of %d×%d with %d",
				filter.ErrPattern, what, n, m, r, c, M.col.Len(), fp.n, fp.m, fp.r, fp.k, nnz)
		}
		return nil
	}
	if err := check("Psmooth", P, fp.nnzP); err != nil {
		return err
	}
	if err := check("Pf", F, fp.nnzPf); err != nil {
		return err
	}
	if fp.identity {
		if P.val == F.val || P.val.Len() == 0 {
			return nil
		}
		nv, src, dst := int64(P.val.Len()), P.val.Ptr(), F.val.Ptr()
		b.enqueue(func() error { return b.launchCopy(nv, src, dst) })
		return nil
	}
	if P.val == F.val {
		return fmt.Errorf("cuda: FilterPlan.Numeric: Pf is Psmooth but the plan drops blocks")
	}
	rows := int64(fp.n) * int64(fp.r)
	if rows == 0 {
		return nil
	}
	br, k := int32(fp.r), int32(fp.k)
	prp, pcol, pval := P.rowPtr.Ptr(), P.col.Ptr(), P.val.Ptr()
	frp, fcol, fval := F.rowPtr.Ptr(), F.col.Ptr(), F.val.Ptr()
	rowFac, fac, bc := fp.rowFac.Ptr(), fp.fac.Ptr(), fp.bc.Ptr()
	generic := fp.kernel != "filter_numeric_k6"
	f, name := fp.fn, fp.kernel
	b.enqueue(func() error {
		b.args.I64(rows).I32(br)
		if generic {
			b.args.I32(k)
		}
		b.args.Ptr(prp).Ptr(pcol).Ptr(pval).Ptr(frp).Ptr(fcol).Ptr(fval).Ptr(rowFac).Ptr(fac).Ptr(bc)
		return b.launch(name, f, blocksFor(rows))
	})
	return nil
}
