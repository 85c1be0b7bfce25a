package cuda

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/filter"
)

// filterRandomP returns an n×m-block prolongator of b×k blocks: each row a random
// subset of about density·m columns (at least one), block norms spread over four
// decades; a few rows empty and a few all zero, as in amg's P.
func filterRandomP(rng *rand.Rand, n, m, b, k int, density float64) *bsr.Matrix {
	P := &bsr.Matrix{BlockRows: n, BlockCols: m, R: b, C: k, RowPtr: make([]int64, n+1), Val: []float64{}}
	for i := 0; i < n; i++ {
		if rng.IntN(25) == 0 {
			P.RowPtr[i+1] = P.RowPtr[i]
			continue
		}
		zero := rng.IntN(30) == 0
		start := len(P.ColIdx)
		for J := 0; J < m; J++ {
			if rng.Float64() < density {
				P.ColIdx = append(P.ColIdx, int32(J))
			}
		}
		if len(P.ColIdx) == start {
			P.ColIdx = append(P.ColIdx, int32(rng.IntN(m)))
		}
		for range len(P.ColIdx) - start {
			scale := math.Pow(10, -4*rng.Float64())
			if zero {
				scale = 0
			}
			for range b * k {
				P.Val = append(P.Val, scale*rng.NormFloat64())
			}
		}
		P.RowPtr[i+1] = int64(len(P.ColIdx))
	}
	if err := P.Validate(); err != nil {
		panic(err)
	}
	return P
}

// filterRandomBc returns m coarse blocks k×k, well conditioned (diagonal in [1, 2],
// off-diagonal noise 0.3), except every block J ≡ 0 mod every, whose last row is
// zero (rank k−1): rows whose survivors are only such blocks are left unfiltered.
func filterRandomBc(rng *rand.Rand, m, k, every int) []float64 {
	Bc := make([]float64, m*k*k)
	for J := 0; J < m; J++ {
		B := Bc[J*k*k : (J+1)*k*k]
		for r := 0; r < k; r++ {
			for c := 0; c < k; c++ {
				B[r*k+c] = 0.3 * rng.NormFloat64()
				if r == c {
					B[r*k+c] += 1 + rng.Float64()
				}
			}
		}
		if J%every == 0 {
			clear(B[(k-1)*k:])
		}
	}
	return Bc
}

// filterRowTimesBc returns (M·B_c)_i (b×k) by plain loops.
func filterRowTimesBc(M *bsr.Matrix, Bc []float64, i int) []float64 {
	b, k := M.R, M.C
	T := make([]float64, b*k)
	for s := M.RowPtr[i]; s < M.RowPtr[i+1]; s++ {
		J := int(M.ColIdx[s])
		blk := M.Block(s)
		for r := 0; r < b; r++ {
			for c := 0; c < k; c++ {
				for l := 0; l < k; l++ {
					T[r*k+c] += blk[r*k+l] * Bc[J*k*k+l*k+c]
				}
			}
		}
	}
	return T
}

func filterNorm(a []float64) float64 {
	s := 0.0
	for _, v := range a {
		s += v * v
	}
	return math.Sqrt(s)
}

// filterDiff returns ‖a − b‖_F, +Inf when a has a NaN.
func filterDiff(a, b []float64) float64 {
	s := 0.0
	for t := range a {
		if math.IsNaN(a[t]) {
			return math.Inf(1)
		}
		d := a[t] - b[t]
		s += d * d
	}
	return math.Sqrt(s)
}

// filterDeviceResult is what checkFilterDevice measured.
type filterDeviceResult struct {
	rowsCorrected, rowsCopied int
	worstRow, worstKernel     float64 // vs the CPU per block row; ‖P_f·B_c − P·B_c‖ rel.
	notBitwise                int     // values not bitwise equal to the CPU's
	ms                        float64 // median Numeric time
}

// checkFilterDevice runs the device Numeric of plan on P (twice, the output poisoned
// with NaN before each run) and checks: nothing crosses the bus during Numeric; every
// block row of P_f equals the CPU's Plan.Numeric to 1e-12 relative (rows the plan
// copies — nothing dropped, or left unfiltered — bit for bit equal to P's); every
// corrected row restores ‖(P_f·B_c)_i − (P·B_c)_i‖ ≤ 1e-12·‖(P·B_c)_i‖ on the
// device's values; the two runs give the same bits.
func checkFilterDevice(t *testing.T, be *Backend, name string, P *bsr.Matrix, Bc []float64, plan *filter.Plan) filterDeviceResult {
	t.Helper()
	var res filterDeviceResult
	want := plan.NewPf()
	if err := plan.Numeric(P, Bc, want, 0); err != nil {
		t.Fatal(err)
	}
	prev := be.SetPhase("filter-setup")
	defer be.SetPhase(prev)
	fp, err := be.NewFilterPlan(plan, Bc)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer fp.Free()
	dP, err := be.UploadMatrixBSR(P, false)
	if err != nil {
		t.Fatal(err)
	}
	defer dP.Free()
	dPf, err := fp.NewPf()
	if err != nil {
		t.Fatal(err)
	}
	defer dPf.Free()
	if n, m, r, c := dPf.Dims(); n != want.BlockRows || m != want.BlockCols || r != want.R || c != want.C || dPf.val.Len() != len(want.Val) {
		t.Fatalf("%s: NewPf is %d×%d of %d×%d with %d values, want %d values", name, n, m, r, c, dPf.val.Len(), len(want.Val))
	}
	nan := make([]float64, len(want.Val))
	for v := range nan {
		nan[v] = math.NaN()
	}
	var first []float64
	for run := 0; run < 2; run++ {
		be.SetPhase("filter-setup")
		if err := dPf.val.Upload(nan); err != nil {
			t.Fatal(err)
		}
		phase := "filter-numeric " + name
		be.SetPhase(phase)
		if err := fp.Numeric(dP, dPf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := be.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tr := be.Counters().Phase(phase); tr.H2DBytes != 0 || tr.D2HBytes != 0 {
			t.Errorf("%s: Numeric copied %d B to and %d B from the device, want none", name, tr.H2DBytes, tr.D2HBytes)
		}
		be.SetPhase("filter-setup")
		got := make([]float64, len(want.Val))
		if err := dPf.val.Download(got); err != nil {
			t.Fatal(err)
		}
		if run == 1 {
			for v := range got {
				if math.Float64bits(got[v]) != math.Float64bits(first[v]) {
					t.Fatalf("%s: value %d differs between two runs (%v, %v)", name, v, first[v], got[v])
				}
			}
			break
		}
		first = got
		res = checkFilterValues(t, name, P, Bc, plan, want, got)
	}
	be.SetPhase(prev)
	res.ms, err = be.TimeMedian(1, 5, func() { fp.Numeric(dP, dPf) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d rows corrected, %d copied; worst row vs CPU %.2g, worst kernel error %.2g; %d of %d values not bitwise the CPU's; Numeric %.3f ms",
		name, res.rowsCorrected, res.rowsCopied, res.worstRow, res.worstKernel, res.notBitwise, len(want.Val), res.ms)
	return res
}

// checkFilterValues compares P_f's values got (from the device or its emulation)
// with the CPU's want: every block row to 1e-12 relative, rows the plan copies bit for
// bit equal to P's, and on every corrected row
// ‖(P_f·B_c)_i − (P·B_c)_i‖ ≤ 1e-12·‖(P·B_c)_i‖ with got's values.
func checkFilterValues(t *testing.T, name string, P *bsr.Matrix, Bc []float64, plan *filter.Plan, want *bsr.Matrix, got []float64) filterDeviceResult {
	t.Helper()
	var res filterDeviceResult
	rowFac := plan.RowFactors()
	bk := int64(P.R * P.C)
	gotM := *want
	gotM.Val = got
	for i := 0; i < P.BlockRows; i++ {
		lo, hi := want.RowPtr[i]*bk, want.RowPtr[i+1]*bk
		d, w := filterDiff(got[lo:hi], want.Val[lo:hi]), filterNorm(want.Val[lo:hi])
		if !(d <= 1e-12*w) {
			t.Fatalf("%s: row %d: ‖device − CPU‖ = %.3g, ‖CPU row‖ = %.3g", name, i, d, w)
		}
		if w > 0 {
			res.worstRow = max(res.worstRow, d/w)
		}
		if plan.Identity() || rowFac[i] < 0 {
			res.rowsCopied++
			s0 := P.RowPtr[i] * bk
			for v := lo; v < hi; v++ {
				if math.Float64bits(got[v]) != math.Float64bits(P.Val[s0+v-lo]) {
					t.Fatalf("%s: row %d is copied by the plan but value %d is %v, P's %v", name, i, v-lo, got[v], P.Val[s0+v-lo])
				}
			}
			continue
		}
		res.rowsCorrected++
		T, Tf := filterRowTimesBc(P, Bc, i), filterRowTimesBc(&gotM, Bc, i)
		e, nt := filterDiff(Tf, T), filterNorm(T)
		if !(e <= 1e-12*nt) {
			t.Errorf("%s: row %d: ‖(P_f·B_c)_i − (P·B_c)_i‖ = %.3g, ‖(P·B_c)_i‖ = %.3g", name, i, e, nt)
		}
		if nt > 0 {
			res.worstKernel = max(res.worstKernel, e/nt)
		}
	}
	for v := range got {
		if math.Float64bits(got[v]) != math.Float64bits(want.Val[v]) {
			res.notBitwise++
		}
	}
	return res
}

// filterCase is one filtering to check: the smoothed P, B_c and the CPU plan.
type filterCase struct {
	name string
	P    *bsr.Matrix
	Bc   []float64
	plan *filter.Plan
}

// filterRandomCases: random prolongators of every shape (k = 6 through the
// specialised kernel, k = 7, 3 and 1 through the generic one), θ from 0 (identity: a
// copy) to 1, coarse blocks of which some are rank-deficient so that rows are left
// unfiltered.
func filterRandomCases(t *testing.T) []filterCase {
	rng := rand.New(rand.NewPCG(8, 8))
	var cs []filterCase
	unfiltered := 0
	for _, sh := range [][2]int{{3, 6}, {6, 6}, {2, 3}, {1, 1}, {3, 7}} {
		b, k := sh[0], sh[1]
		n, m := 2000, 150
		P := filterRandomP(rng, n, m, b, k, 0.06)
		Bc := filterRandomBc(rng, m, k, 5)
		for _, theta := range []float64{0, 0.05, 0.3, 1} {
			plan, err := filter.Symbolic(P, Bc, theta, filter.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if theta > 0 && plan.Identity() {
				t.Fatalf("%d×%d θ=%g: nothing dropped, the case tests nothing", b, k, theta)
			}
			unfiltered += plan.Stats().RowsUnfiltered
			cs = append(cs, filterCase{fmt.Sprintf("random %d×%d θ=%g", b, k, theta), P, Bc, plan})
		}
	}
	if unfiltered == 0 {
		t.Fatalf("no row was left unfiltered: the singular path is untested")
	}
	return cs
}

// filterEx56Cases: every level of amg's hierarchy on PETSc's ex56 problem with ne
// elements a side (FilterTheta 0.05, default coarse limit, so that ne ≥ 8 has a
// 6×6 level too): the level's own plan on its
// Psmooth (what the hierarchy's P was made with), then θ = 0.02 and 0.1 on the same
// Psmooth.
func filterEx56Cases(t *testing.T, ne int) []filterCase {
	A, _, B, err := fem.Ex56System(ne, 0)
	if err != nil {
		t.Fatal(err)
	}
	opt := amg.DefaultOptions()
	opt.FilterTheta = 0.05
	h, err := amg.Setup(A, &amg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, opt)
	if err != nil {
		t.Fatal(err)
	}
	var cs []filterCase
	filtered := 0
	for l := 0; l+1 < len(h.Levels); l++ {
		L := h.Levels[l]
		Bc := h.Levels[l+1].B
		if L.Filter == nil {
			t.Fatalf("ex56 ne=%d level %d: no filter plan with FilterTheta %g", ne, l, opt.FilterTheta)
		}
		if !L.Filter.Identity() {
			filtered++
		}
		cs = append(cs, filterCase{fmt.Sprintf("ex56 ne=%d level %d %d×%d θ=%g", ne, l, L.P.R, L.P.C, L.Filter.Theta()), L.Psmooth, Bc, L.Filter})
		for _, theta := range []float64{0.02, 0.1} {
			plan, err := filter.Symbolic(L.Psmooth, Bc, theta, filter.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cs = append(cs, filterCase{fmt.Sprintf("ex56 ne=%d level %d θ=%g", ne, l, theta), L.Psmooth, Bc, plan})
		}
	}
	if filtered == 0 {
		t.Fatalf("ex56 ne=%d: no level dropped a block at θ = %g", ne, opt.FilterTheta)
	}
	return cs
}

var flagFilterNE = flag.String("cuda.filter-ne", "8,16", "ex56 sizes of the device filtering tests, comma-separated")

// filterNEs returns the ex56 sizes of -cuda.filter-ne.
func filterNEs(t *testing.T) []int {
	list := *flagFilterNE
	var nes []int
	for _, f := range strings.Split(list, ",") {
		ne, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || ne < 1 {
			t.Fatalf("-cuda.filter-ne %q: want positive integers", list)
		}
		nes = append(nes, ne)
	}
	return nes
}

// filterEmulate runs kernels/filter.cu's algorithm on the host, thread by thread
// (one per scalar row (i, q)), in its order of operations, from the plan's read-only
// views only.
func filterEmulate(plan *filter.Plan, P *bsr.Matrix, Bc []float64) []float64 {
	n, _, b, k := plan.Dims()
	frp, fcol := plan.PfPattern()
	out := make([]float64, frp[n]*int64(b*k))
	for v := range out {
		out[v] = math.NaN()
	}
	if plan.Identity() {
		copy(out, P.Val)
		return out
	}
	rowFac, fac := plan.RowFactors(), plan.Factors()
	prp, pcol, pval := P.RowPtr, P.ColIdx, P.Val
	bk, kk := int64(b*k), int64(k*k)
	e, y, pr := make([]float64, k), make([]float64, k), make([]float64, k)
	for g := int64(0); g < int64(n)*int64(b); g++ {
		i := g / int64(b)
		q := g - i*int64(b)
		s0, s1, t0, t1 := prp[i], prp[i+1], frp[i], frp[i+1]
		f := rowFac[i]
		if f < 0 {
			for s, t := s0, t0; s < s1; s, t = s+1, t+1 {
				copy(out[t*bk+q*int64(k):t*bk+q*int64(k)+int64(k)], pval[s*bk+q*int64(k):])
			}
			continue
		}
		clear(e)
		t := t0
		for s := s0; s < s1; s++ {
			J := int64(pcol[s])
			if t < t1 && int64(fcol[t]) == J {
				t++
				continue
			}
			copy(pr, pval[s*bk+q*int64(k):])
			B := Bc[J*kk:]
			for c := 0; c < k; c++ {
				acc := e[c]
				for l := 0; l < k; l++ {
					acc = acc + pr[l]*B[l*k+c]
				}
				e[c] = acc
			}
		}
		L := fac[int64(f)*int64(k*(k+1)/2):]
		for j := 0; j < k; j++ {
			rj := j * (j + 1) / 2
			s := e[j]
			for l := 0; l < j; l++ {
				s = s - L[rj+l]*y[l]
			}
			y[j] = s * L[rj+j]
		}
		for j := k - 1; j >= 0; j-- {
			s := y[j]
			for l := j + 1; l < k; l++ {
				s = s - L[l*(l+1)/2+j]*y[l]
			}
			y[j] = s * L[j*(j+1)/2+j]
		}
		t = t0
		for s := s0; s < s1 && t < t1; s++ {
			J := int64(pcol[s])
			if int64(fcol[t]) != J {
				continue
			}
			B := Bc[J*kk:]
			for c := 0; c < k; c++ {
				acc := 0.0
				for l := 0; l < k; l++ {
					acc = acc + y[l]*B[c*k+l]
				}
				out[t*bk+q*int64(k)+int64(c)] = pval[s*bk+q*int64(k)+int64(c)] + acc
			}
			t++
		}
	}
	return out
}

// TestFilterHostEmulation runs the device algorithm's host transliteration on the
// cases of the GPU tests (no GPU needed) through the same checks as the device output:
// it validates the kernel's algorithm, the plan's views it relies on, and that the
// 1e-12 bounds hold on these cases. Values not bitwise the CPU's are logged (none
// where Go fuses no multiply-add, as on amd64 by default).
func TestFilterHostEmulation(t *testing.T) {
	cs := filterRandomCases(t)
	cs = append(cs, filterEx56Cases(t, 8)...)
	for _, c := range cs {
		want := c.plan.NewPf()
		if err := c.plan.Numeric(c.P, c.Bc, want, 0); err != nil {
			t.Fatal(err)
		}
		res := checkFilterValues(t, c.name, c.P, c.Bc, c.plan, want, filterEmulate(c.plan, c.P, c.Bc))
		t.Logf("%s: %d rows corrected, %d copied; worst row vs CPU %.2g, worst kernel error %.2g; %d of %d values not bitwise the CPU's",
			c.name, res.rowsCorrected, res.rowsCopied, res.worstRow, res.worstKernel, res.notBitwise, len(want.Val))
	}
}

// TestFilterGPURandom checks the device Numeric on filterRandomCases (see
// checkFilterDevice).
func TestFilterGPURandom(t *testing.T) {
	be := device(t)
	for _, c := range filterRandomCases(t) {
		checkFilterDevice(t, be, c.name, c.P, c.Bc, c.plan)
	}
}

// TestFilterGPUEx56 checks the device Numeric on filterEx56Cases for the sizes in
// -cuda.filter-ne (comma-separated, default 8,16; see checkFilterDevice).
func TestFilterGPUEx56(t *testing.T) {
	be := device(t)
	for _, ne := range filterNEs(t) {
		for _, c := range filterEx56Cases(t, ne) {
			checkFilterDevice(t, be, c.name, c.P, c.Bc, c.plan)
		}
	}
}

// TestFilterGPUIdentityAndErrors: an identity plan's Numeric copies (and does nothing
// when Pf is Psmooth); mismatched shapes wrap filter.ErrPattern; Pf = Psmooth with a
// dropping plan is refused.
func TestFilterGPUIdentityAndErrors(t *testing.T) {
	be := device(t)
	rng := rand.New(rand.NewPCG(3, 9))
	P := filterRandomP(rng, 300, 40, 3, 6, 0.2)
	Bc := filterRandomBc(rng, 40, 6, 1000)
	id, err := filter.Symbolic(P, Bc, 0, filter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fid, err := be.NewFilterPlan(id, Bc)
	if err != nil {
		t.Fatal(err)
	}
	defer fid.Free()
	if !fid.Identity() || fid.Bytes() != 0 {
		t.Errorf("identity plan: Identity %v, %d bytes on the device", fid.Identity(), fid.Bytes())
	}
	dP, err := be.UploadMatrixBSR(P, false)
	if err != nil {
		t.Fatal(err)
	}
	defer dP.Free()
	if err := fid.Numeric(dP, dP); err != nil {
		t.Errorf("identity plan, Pf = Psmooth: %v", err)
	}
	plan, err := filter.Symbolic(P, Bc, 0.1, filter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fp, err := be.NewFilterPlan(plan, Bc)
	if err != nil {
		t.Fatal(err)
	}
	defer fp.Free()
	if fp.Bytes() <= 0 {
		t.Errorf("dropping plan holds %d bytes", fp.Bytes())
	}
	if err := fp.Numeric(dP, dP); err == nil {
		t.Errorf("dropping plan accepted Pf = Psmooth")
	}
	dPf, err := fp.NewPf()
	if err != nil {
		t.Fatal(err)
	}
	defer dPf.Free()
	if err := fp.Numeric(dPf, dPf); !errors.Is(err, filter.ErrPattern) {
		t.Errorf("Psmooth with P_f's block count: got %v, want filter.ErrPattern", err)
	}
	if err := fid.Numeric(dP, dPf); !errors.Is(err, filter.ErrPattern) {
		t.Errorf("identity plan, Pf with fewer blocks: got %v, want filter.ErrPattern", err)
	}
	if _, err := be.NewFilterPlan(plan, Bc[:len(Bc)-1]); !errors.Is(err, filter.ErrInput) {
		t.Errorf("short Bc: got %v, want filter.ErrInput", err)
	}
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
}
