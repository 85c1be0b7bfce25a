package filter

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/blockamg/blockamg/bsr"
)

// kernelTol bounds ‖(P_f·B_c)_i − (P·B_c)_i‖_F / ‖(P·B_c)_i‖_F on every corrected row.
const kernelTol = 1e-12

// checkFiltered verifies P_f against P, B_c and θ with plain loops and gonum, and
// returns the worst relative kernel error over the corrected rows:
//   - P_f's pattern is a sub-pattern of P's and every value was written (no NaN);
//   - every row keeps its strongest block;
//   - a corrected row keeps exactly the blocks with ‖P_iJ‖ ≥ θ·max and those the
//     column rule kept (checked by checkColumnRule), and restores (P·B_c)_i to
//     kernelTol;
//   - an uncorrected row equals P's bit for bit, and when it has blocks under θ (left
//     unfiltered) its surviving stack G_S is ill-conditioned by gonum's SVD;
//   - the stats agree with these counts.
func checkFiltered(t *testing.T, P *bsr.Matrix, Bc []float64, theta float64, plan *Plan, Pf *bsr.Matrix) float64 {
	t.Helper()
	if err := Pf.Validate(); err != nil {
		t.Fatalf("P_f invalid (a value left unwritten?): %v", err)
	}
	b, k := P.R, P.C
	bk := int64(b * k)
	worst := 0.0
	keep, restored := decide(P, theta, DefaultPivotTol, 1)
	checkColumnRule(t, P, theta, keep, restored)
	kept := func(s int64) bool { return keep == nil || keep[s] }
	corrected, unfiltered, notDropped := 0, 0, int64(0)
	for i := 0; i < P.BlockRows; i++ {
		s0, s1 := P.RowPtr[i], P.RowPtr[i+1]
		t0, t1 := Pf.RowPtr[i], Pf.RowPtr[i+1]
		mx, arg := 0.0, int32(-1)
		for s := s0; s < s1; s++ {
			if nb := blockNorm(P, s); nb > mx || arg < 0 {
				mx, arg = nb, P.ColIdx[s]
			}
		}
		under := int64(0)
		for s := s0; s < s1; s++ {
			if !kept(s) {
				under++
			}
		}
		if arg >= 0 {
			if _, ok := Pf.Find(i, int(arg)); !ok {
				t.Fatalf("row %d: strongest block (column %d) dropped", i, arg)
			}
		}
		if t1-t0 == s1-s0 {
			for q := t0; q < t1; q++ {
				if Pf.ColIdx[q] != P.ColIdx[s0+q-t0] {
					t.Fatalf("row %d: full-length row with another pattern", i)
				}
			}
			for v := t0 * bk; v < t1*bk; v++ {
				if math.Float64bits(Pf.Val[v]) != math.Float64bits(P.Val[v-t0*bk+s0*bk]) {
					t.Fatalf("row %d: uncorrected row differs from P", i)
				}
			}
			if under > 0 {
				unfiltered++
				notDropped += under
				if c := stackCond(P, Bc, i, kept); c*c < 0.5/DefaultPivotTol {
					t.Errorf("row %d left unfiltered though cond(G_S) = %.3g", i, c)
				}
			}
			continue
		}
		corrected++
		q := t0
		for s := s0; s < s1; s++ {
			want := kept(s)
			got := q < t1 && Pf.ColIdx[q] == P.ColIdx[s]
			if got {
				q++
			}
			if got != want {
				t.Fatalf("row %d column %d: kept %v, rule says %v (‖P_iJ‖ %.6g, θ·max %.6g)", i, P.ColIdx[s], got, want, blockNorm(P, s), theta*mx)
			}
		}
		if q != t1 {
			t.Fatalf("row %d: P_f has columns P lacks", i)
		}
		T := rowTimesBc(P, Bc, i)
		Tf := rowTimesBc(Pf, Bc, i)
		rel := diffNorm(T, Tf) / norm2(T)
		worst = max(worst, rel)
		if !(rel <= kernelTol) {
			t.Errorf("row %d: ‖(P_f·B_c)_i − (P·B_c)_i‖ / ‖(P·B_c)_i‖ = %.3g > %g", i, rel, kernelTol)
		}
	}
	s := plan.Stats()
	want := Stats{Theta: theta, BlockRows: P.BlockRows, BlockCols: P.BlockCols, R: b, C: k,
		NNZBlocksBefore: P.NNZBlocks(), NNZBlocksAfter: Pf.NNZBlocks(), DroppedBlocks: P.NNZBlocks() - Pf.NNZBlocks(),
		RowsCorrected: corrected, RowsUnfiltered: unfiltered, BlocksNotDropped: notDropped, BlocksKeptForRank: restored,
		BytesBefore: P.Bytes(), BytesAfter: Pf.Bytes(), PlanBytes: s.PlanBytes}
	if s != want {
		t.Errorf("stats\n got %+v\nwant %+v", s, want)
	}
	return worst
}

// checkColumnRule checks the column rule's part of a drop decision (keep, with
// restored blocks turned back on) against the row rule, by gonum's SVD: the count of
// blocks the row rule drops but keep keeps is restored; a column gets back its
// strongest dropped blocks, never a weaker one before a stronger; every coarse column
// that still drops blocks keeps survivors of full rank (to a loose bound on their
// condition); and when P has full column
// rank, so does the surviving pattern filled with random values (full structural rank:
// no two coarse columns crowded into too few fine rows).
func checkColumnRule(t *testing.T, P *bsr.Matrix, theta float64, keep []bool, restored int64) {
	t.Helper()
	k := P.C
	rowRule := make([]bool, P.NNZBlocks())
	rowMax := make([]float64, P.NNZBlocks()) // the largest block norm of each block's row
	for i := 0; i < P.BlockRows; i++ {
		mx := 0.0
		for s := P.RowPtr[i]; s < P.RowPtr[i+1]; s++ {
			mx = max(mx, blockNorm(P, s))
		}
		for s := P.RowPtr[i]; s < P.RowPtr[i+1]; s++ {
			rowRule[s] = !(blockNorm(P, s) < theta*mx)
			rowMax[s] = mx
		}
	}
	cols := make([][]int64, P.BlockCols)
	for s, J := range P.ColIdx {
		cols[J] = append(cols[J], int64(s))
	}
	// cond returns the condition number of the stack of column J's blocks chosen by in,
	// each block divided by its row's largest block norm and each scalar column then
	// scaled to unit largest magnitude over the whole column (the rule's scaling, up to
	// factors of 2).
	cond := func(J int, in func(s int64) bool) float64 {
		val := func(s int64, p int) float64 {
			if rowMax[s] == 0 {
				return 0
			}
			return P.Block(s)[p] / rowMax[s]
		}
		scale := make([]float64, k)
		for _, s := range cols[J] {
			for p := range P.Block(s) {
				scale[p%k] = max(scale[p%k], math.Abs(val(s, p)))
			}
		}
		var rows []float64
		for _, s := range cols[J] {
			if in(s) {
				for p := range P.Block(s) {
					rows = append(rows, val(s, p)/scale[p%k])
				}
			}
		}
		if len(rows) < k*k {
			return math.Inf(1)
		}
		var svd mat.SVD
		if !svd.Factorize(mat.NewDense(len(rows)/k, k, rows), mat.SVDNone) {
			return math.Inf(1)
		}
		v := svd.Values(nil)
		return v[0] / v[len(v)-1]
	}
	got := int64(0)
	for J, blks := range cols {
		back, dropped := 0, 0
		weakestBack, strongestDropped := math.Inf(1), 0.0
		for _, s := range blks {
			switch {
			case keep != nil && !keep[s]:
				dropped++
				strongestDropped = max(strongestDropped, blockNorm(P, s))
			case !rowRule[s]:
				back++
				weakestBack = min(weakestBack, blockNorm(P, s))
			}
		}
		got += int64(back)
		if back > 0 && weakestBack < strongestDropped {
			t.Errorf("column %d: a block of norm %.6g kept for rank, one of %.6g dropped", J, weakestBack, strongestDropped)
		}
		if dropped > 0 {
			// A pivot test passed bounds the condition only loosely (cond² under about
			// k·4^k/tol); rank deficiency shows as an infinite or huge cond.
			if c := cond(J, func(s int64) bool { return keep[s] }); c*c >= float64(k)*math.Pow(4, float64(k))/DefaultPivotTol {
				t.Errorf("column %d drops %d blocks but its survivors have cond %.3g", J, dropped, c)
			}
		}
	}
	if got != restored {
		t.Errorf("column rule: %d blocks back on, decide says %d", got, restored)
	}
	if keep != nil && P.Rows()*P.Cols() <= 1<<20 {
		rng := rand.New(rand.NewPCG(99, 98))
		filled := func(in func(s int64) bool) int {
			Q := P.Clone()
			for s := range Q.ColIdx {
				for p := range Q.Block(int64(s)) {
					Q.Block(int64(s))[p] = 0
					if in(int64(s)) {
						Q.Block(int64(s))[p] = rng.Float64() + 0.5
					}
				}
			}
			return numRank(Q.ToDense(), Q.Rows(), Q.Cols())
		}
		if full := filled(func(int64) bool { return true }); full == P.Cols() {
			if r := filled(func(s int64) bool { return keep[s] }); r != full {
				t.Errorf("surviving pattern has structural rank %d, P's %d", r, full)
			}
		}
	}
}

// numRank returns the numerical rank of the r×c row-major a (singular values above
// 1e-10 of the largest) by gonum's SVD.
func numRank(a []float64, r, c int) int {
	if r == 0 || c == 0 {
		return 0
	}
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(r, c, a), mat.SVDNone) {
		return -1
	}
	v := svd.Values(nil)
	n := 0
	for _, x := range v {
		if x > 1e-10*v[0] {
			n++
		}
	}
	return n
}

// stackCond returns the 2-norm condition number of G_S, the stack of B_cJ over the
// columns of row i of P kept by keep (nil: all), by gonum's SVD.
func stackCond(P *bsr.Matrix, Bc []float64, i int, keep func(s int64) bool) float64 {
	k := P.C
	var rows []float64
	for s := P.RowPtr[i]; s < P.RowPtr[i+1]; s++ {
		if keep == nil || keep(s) {
			J := int(P.ColIdx[s])
			rows = append(rows, Bc[J*k*k:(J+1)*k*k]...)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(len(rows)/k, k, rows), mat.SVDNone) {
		return math.Inf(1)
	}
	v := svd.Values(nil)
	return v[0] / v[len(v)-1]
}

// shapes are the block shapes of the random tests: elasticity's 3×6, 2D elasticity's
// 2×3, scalar 1×1 and a coarse level's 6×6.
var shapes = [][2]int{{3, 6}, {2, 3}, {1, 1}, {6, 6}}

var thetas = []float64{0.01, 0.05, 0.1, 0.3, 1}

func TestRandomKernelPreserved(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sh := range shapes {
		b, k := sh[0], sh[1]
		n, m := 300, 40
		P := randomP(rng, n, m, b, k, 0.15)
		Bc := randomBc(rng, m, k, 0.3)
		for _, theta := range thetas {
			t.Run(fmt.Sprintf("%dx%d/theta=%g", b, k, theta), func(t *testing.T) {
				plan, err := Symbolic(P, Bc, theta, Options{})
				if err != nil {
					t.Fatal(err)
				}
				Pf := poisoned(plan)
				if err := plan.Numeric(P, Bc, Pf, 3); err != nil {
					t.Fatal(err)
				}
				worst := checkFiltered(t, P, Bc, theta, plan, Pf)
				s := plan.Stats()
				if s.RowsCorrected == 0 {
					t.Fatalf("nothing corrected: the test exercises nothing")
				}
				t.Logf("dropped %d of %d blocks, %d rows corrected, worst kernel error %.2g", s.DroppedBlocks, s.NNZBlocksBefore, s.RowsCorrected, worst)
			})
		}
	}
}

func TestThetaZeroIsIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sh := range shapes {
		P := randomP(rng, 200, 30, sh[0], sh[1], 0.2)
		Bc := randomBc(rng, 30, sh[1], 0.3)
		plan, err := Symbolic(P, Bc, 0, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !plan.Identity() || plan.Stats().DroppedBlocks != 0 {
			t.Fatalf("%v: θ = 0 plan is not the identity", sh)
		}
		orig := P.Clone()
		if err := plan.Numeric(P, Bc, P, 2); err != nil { // in place: nothing to do
			t.Fatal(err)
		}
		Pf := poisoned(plan)
		if err := plan.Numeric(P, Bc, Pf, 2); err != nil {
			t.Fatal(err)
		}
		if !Pf.SamePattern(orig) || !P.SamePattern(orig) {
			t.Fatalf("%v: pattern changed", sh)
		}
		for v := range orig.Val {
			if math.Float64bits(Pf.Val[v]) != math.Float64bits(orig.Val[v]) || math.Float64bits(P.Val[v]) != math.Float64bits(orig.Val[v]) {
				t.Fatalf("%v: value %d differs from P's bits", sh, v)
			}
		}
	}
}

// TestMinimalCorrection compares the correction of corrected rows with the minimum-norm
// solution of Δ·G_S = E computed densely by gonum's SVD, and checks that it is strictly
// smaller than another feasible correction.
func TestMinimalCorrection(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sh := range shapes {
		b, k := sh[0], sh[1]
		P := randomP(rng, 120, 25, b, k, 0.25)
		Bc := randomBc(rng, 25, k, 0.3)
		plan, err := Symbolic(P, Bc, 0.1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		Pf := poisoned(plan)
		if err := plan.Numeric(P, Bc, Pf, 1); err != nil {
			t.Fatal(err)
		}
		checked := 0
		for i := 0; i < P.BlockRows && checked < 6; i++ {
			if Pf.RowPtr[i+1]-Pf.RowPtr[i] == P.RowPtr[i+1]-P.RowPtr[i] {
				continue
			}
			checked++
			checkMinimal(t, P, Pf, Bc, i, rng)
		}
		if checked == 0 {
			t.Fatalf("%v: no corrected row", sh)
		}
	}
}

// checkMinimal solves min ‖Δ‖_F s.t. Δ·G_S = E for row i with gonum (Gᵀ·Δᵀ = Eᵀ,
// minimum-norm via SVD) and compares with P_f − P on the survivors.
func checkMinimal(t *testing.T, P, Pf *bsr.Matrix, Bc []float64, i int, rng *rand.Rand) {
	t.Helper()
	b, k := P.R, P.C
	bk := int64(b * k)
	nS := int(Pf.RowPtr[i+1] - Pf.RowPtr[i])
	G := mat.NewDense(nS*k, k, nil) // G_S
	E := mat.NewDense(b, k, nil)    // what the dropped blocks carried
	D := mat.NewDense(b, nS*k, nil) // P_f − P on the survivors
	X := mat.NewDense(b, nS*k, nil) // P on the survivors
	for s, q := P.RowPtr[i], 0; s < P.RowPtr[i+1]; s++ {
		J := int(P.ColIdx[s])
		blk := mat.NewDense(b, k, append([]float64(nil), P.Val[s*bk:(s+1)*bk]...))
		BJ := mat.NewDense(k, k, append([]float64(nil), Bc[J*k*k:(J+1)*k*k]...))
		if tq, ok := Pf.Find(i, J); ok {
			G.Slice(q*k, (q+1)*k, 0, k).(*mat.Dense).Copy(BJ)
			X.Slice(0, b, q*k, (q+1)*k).(*mat.Dense).Copy(blk)
			f := mat.NewDense(b, k, append([]float64(nil), Pf.Val[tq*bk:(tq+1)*bk]...))
			f.Sub(f, blk)
			D.Slice(0, b, q*k, (q+1)*k).(*mat.Dense).Copy(f)
			q++
		} else {
			var c mat.Dense
			c.Mul(blk, BJ)
			E.Add(E, &c)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(G.T(), mat.SVDThin) {
		t.Fatal("SVD failed")
	}
	var DT mat.Dense
	svd.SolveTo(&DT, E.T(), k)
	ref := mat.DenseCopyOf(DT.T())
	var diff mat.Dense
	diff.Sub(ref, D)
	if r := mat.Norm(&diff, 2) / mat.Norm(ref, 2); !(r < 1e-10) {
		t.Errorf("row %d: correction differs from the dense minimum-norm one by %.3g (relative)", i, r)
	}
	// Another feasible correction: add N with N·G_S = 0 (N = Z·(I − G(GᵀG)⁻¹Gᵀ)); it
	// must be larger.
	if nS > 1 {
		Z := mat.NewDense(b, nS*k, nil)
		for r := 0; r < b; r++ {
			for c := 0; c < nS*k; c++ {
				Z.Set(r, c, rng.NormFloat64())
			}
		}
		var zg, zgp mat.Dense
		zg.Mul(Z, G)
		// Z·G·pinv(G) is Z's component that G sees; what remains maps to zero.
		var pinvGT mat.Dense
		svdG := mat.SVD{}
		svdG.Factorize(G.T(), mat.SVDThin)
		svdG.SolveTo(&pinvGT, zg.T(), k) // pinv(Gᵀ)·(ZG)ᵀ
		zgp.Sub(Z, pinvGT.T())           // Z − ZG·pinv(G) = Z(I − G pinv(G))
		var check mat.Dense
		check.Mul(&zgp, G)
		if mat.Norm(&check, 2) > 1e-10*mat.Norm(Z, 2) {
			t.Fatalf("row %d: null-space perturbation not in the null space", i)
		}
		var other mat.Dense
		other.Add(D, &zgp)
		if !(mat.Norm(&other, 2) > mat.Norm(D, 2)) {
			t.Errorf("row %d: another feasible correction is not larger (%.6g vs %.6g)", i, mat.Norm(&other, 2), mat.Norm(D, 2))
		}
	}
}

// TestNumericReuse checks the recurring path: Numeric on new values of P reuses the
// pattern and equals a plan built from scratch on that pattern, bit for bit.
func TestNumericReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sh := range shapes {
		b, k := sh[0], sh[1]
		P1 := randomP(rng, 250, 35, b, k, 0.2)
		Bc := randomBc(rng, 35, k, 0.3)
		plan, err := Symbolic(P1, Bc, 0.05, Options{})
		if err != nil {
			t.Fatal(err)
		}
		Pf1 := poisoned(plan)
		if err := plan.Numeric(P1, Bc, Pf1, 2); err != nil {
			t.Fatal(err)
		}
		// P2 = 2·P1: every norm doubles exactly, so a fresh Symbolic decides the same
		// pattern, and the projection is linear in P with exact scaling: 2·P_f1.
		P2 := P1.Clone()
		for v := range P2.Val {
			P2.Val[v] *= 2
		}
		Pf2 := poisoned(plan)
		if err := plan.Numeric(P2, Bc, Pf2, 3); err != nil {
			t.Fatal(err)
		}
		fresh, err := Symbolic(P2, Bc, 0.05, Options{})
		if err != nil {
			t.Fatal(err)
		}
		Pf2f := poisoned(fresh)
		if err := fresh.Numeric(P2, Bc, Pf2f, 1); err != nil {
			t.Fatal(err)
		}
		if !Pf2f.SamePattern(Pf2) {
			t.Fatalf("%v: fresh plan on 2·P has another pattern", sh)
		}
		for v := range Pf2.Val {
			if math.Float64bits(Pf2.Val[v]) != math.Float64bits(Pf2f.Val[v]) || Pf2.Val[v] != 2*Pf1.Val[v] {
				t.Fatalf("%v: value %d: reused %v, fresh %v, 2·P_f1 %v", sh, v, Pf2.Val[v], Pf2f.Val[v], 2*Pf1.Val[v])
			}
		}
		// P3: new random values on P1's pattern. The plan keeps its pattern (no
		// re-decision); a plan built from scratch on that pattern gives the same bits,
		// and the kernel is preserved for the new values.
		P3 := P1.Clone()
		for v := range P3.Val {
			P3.Val[v] = rng.NormFloat64()
		}
		Pf3 := poisoned(plan)
		if err := plan.Numeric(P3, Bc, Pf3, 2); err != nil {
			t.Fatal(err)
		}
		ref := fromPattern(t, P3, Bc, Pf3)
		Pf3r := poisoned(ref)
		if err := ref.Numeric(P3, Bc, Pf3r, 1); err != nil {
			t.Fatal(err)
		}
		for v := range Pf3.Val {
			if math.Float64bits(Pf3.Val[v]) != math.Float64bits(Pf3r.Val[v]) {
				t.Fatalf("%v: value %d: reused plan %v, plan from the pattern %v", sh, v, Pf3.Val[v], Pf3r.Val[v])
			}
		}
		for i := 0; i < P3.BlockRows; i++ {
			if Pf3.RowPtr[i+1]-Pf3.RowPtr[i] == P3.RowPtr[i+1]-P3.RowPtr[i] {
				continue
			}
			T, Tf := rowTimesBc(P3, Bc, i), rowTimesBc(Pf3, Bc, i)
			if rel := diffNorm(T, Tf) / norm2(T); !(rel <= kernelTol) {
				t.Errorf("%v row %d: kernel error %.3g after new values", sh, i, rel)
			}
		}
	}
}

func TestWorkersDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	P := randomP(rng, 3000, 200, 3, 6, 0.03)
	Bc := randomBc(rng, 200, 6, 0.3, 3, 17)
	var ref *bsr.Matrix
	var refPlan *Plan
	for _, w := range []int{1, 2, 3, 7, 16} {
		plan, err := Symbolic(P, Bc, 0.1, Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		Pf := poisoned(plan)
		if err := plan.Numeric(P, Bc, Pf, w); err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref, refPlan = Pf, plan
			continue
		}
		if !Pf.SamePattern(ref) || plan.Stats() != refPlan.Stats() {
			t.Fatalf("workers %d: pattern or stats differ", w)
		}
		for v := range Pf.Val {
			if math.Float64bits(Pf.Val[v]) != math.Float64bits(ref.Val[v]) {
				t.Fatalf("workers %d: value %d differs", w, v)
			}
		}
		for v := range plan.fac {
			if math.Float64bits(plan.fac[v]) != math.Float64bits(refPlan.fac[v]) {
				t.Fatalf("workers %d: factor value %d differs", w, v)
			}
		}
	}
}

// TestUnfilteredRows uses rank-deficient coarse blocks: a row whose survivors are only
// such blocks cannot be projected and must be kept whole and counted; a row with a
// full-rank survivor next to them is corrected as usual.
func TestUnfilteredRows(t *testing.T) {
	const b, k = 3, 6
	Bc := randomBc(rand.New(rand.NewPCG(11, 12)), 3, k, 0.3, 0) // block 0 has rank 5
	big, small := 1.0, 1e-3
	// Row 0: strong block in column 0 (singular), small in 1 and 2 → unfiltered.
	// Row 1: strong blocks in 0 and 1, small in 2 → corrected (block 1 is full rank).
	// Row 2: strong block in 2 only → corrected.
	// Rows 3 and 4: strong blocks in every column, nothing dropped; they give every
	// coarse column survivors of full rank, so the column rule keeps nothing back.
	rowsCols := [][]int32{{0, 1, 2}, {0, 1, 2}, {1, 2}, {0, 1, 2}, {0, 1, 2}}
	scales := [][]float64{{big, small, small}, {big, big, small}, {small, big}, {big, big, big}, {big, big, big}}
	rng := rand.New(rand.NewPCG(13, 14))
	var bi, bj []int32
	var vals []float64
	for i, cols := range rowsCols {
		for q, J := range cols {
			bi, bj = append(bi, int32(i)), append(bj, J)
			for range b * k {
				vals = append(vals, scales[i][q]*(1+rng.Float64()))
			}
		}
	}
	P, err := bsr.FromBlockTriplets(5, 3, b, k, bi, bj, vals)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := Symbolic(P, Bc, 0.1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	Pf := poisoned(plan)
	if err := plan.Numeric(P, Bc, Pf, 1); err != nil {
		t.Fatal(err)
	}
	checkFiltered(t, P, Bc, 0.1, plan, Pf)
	s := plan.Stats()
	if s.RowsUnfiltered != 1 || s.BlocksNotDropped != 2 || s.RowsCorrected != 2 || s.DroppedBlocks != 2 {
		t.Errorf("stats %+v: want 1 row unfiltered (2 blocks kept), 2 corrected, 2 dropped", s)
	}
	if Pf.RowPtr[1] != 3 {
		t.Errorf("row 0 has %d blocks, want all 3", Pf.RowPtr[1])
	}
}

func TestLevelTheta(t *testing.T) {
	for _, c := range []struct {
		theta, scale float64
		level        int
		want         float64
	}{
		{0.08, 0.5, 0, 0.08}, {0.08, 0.5, 1, 0.04}, {0.08, 0.5, 3, 0.01},
		{0.1, 1, 5, 0.1}, {0.5, 4, 2, 1}, {0, 2, 3, 0}, {0.02, 0, 0, 0.02}, {0.02, 0, 1, 0},
	} {
		if got := LevelTheta(c.theta, c.scale, c.level); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("LevelTheta(%g, %g, %d) = %g, want %g", c.theta, c.scale, c.level, got, c.want)
		}
	}
}

func TestErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	P := randomP(rng, 50, 10, 3, 6, 0.3)
	Bc := randomBc(rng, 10, 6, 0.3)
	for name, f := range map[string]func() error{
		"nil P":    func() error { _, err := Symbolic(nil, Bc, 0.1, Options{}); return err },
		"θ < 0":    func() error { _, err := Symbolic(P, Bc, -0.1, Options{}); return err },
		"θ > 1":    func() error { _, err := Symbolic(P, Bc, 1.5, Options{}); return err },
		"θ NaN":    func() error { _, err := Symbolic(P, Bc, math.NaN(), Options{}); return err },
		"short Bc": func() error { _, err := Symbolic(P, Bc[1:], 0.1, Options{}); return err },
		"NaN in Bc": func() error {
			b := append([]float64(nil), Bc...)
			b[7] = math.NaN()
			_, err := Symbolic(P, b, 0.1, Options{})
			return err
		},
		"tol ≥ 1": func() error { _, err := Symbolic(P, Bc, 0.1, Options{PivotTol: 1}); return err },
		"NaN in P": func() error {
			Q := P.Clone()
			Q.Val[3] = math.NaN()
			_, err := Symbolic(Q, Bc, 0.1, Options{})
			return err
		},
		"bad P ptrs": func() error {
			Q := P.Clone()
			Q.RowPtr[2] = Q.RowPtr[3] + 1
			_, err := Symbolic(Q, Bc, 0.1, Options{})
			return err
		},
	} {
		if err := f(); !errors.Is(err, ErrInput) {
			t.Errorf("%s: error %v, want ErrInput", name, err)
		}
	}
	plan, err := Symbolic(P, Bc, 0.1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Identity() {
		t.Fatal("θ = 0.1 dropped nothing")
	}
	Pf := plan.NewPf()
	Q := randomP(rng, 50, 10, 3, 6, 0.3) // another pattern
	if err := plan.Numeric(Q, Bc, Pf, 1); !errors.Is(err, ErrPattern) {
		t.Errorf("Numeric with another P pattern: %v, want ErrPattern", err)
	}
	if err := plan.Numeric(P, Bc, P.Clone(), 1); !errors.Is(err, ErrPattern) {
		t.Errorf("Numeric into a Pf with P's pattern: %v, want ErrPattern", err)
	}
	mustPanic(t, "Bc length", func() { _ = plan.Numeric(P, Bc[:6], Pf, 1) })
	mustPanic(t, "Pf = P", func() {
		q, _ := Symbolic(P, Bc, 0.1, Options{})
		Same := &bsr.Matrix{BlockRows: P.BlockRows, BlockCols: P.BlockCols, R: 3, C: 6, RowPtr: q.rowPtr, ColIdx: q.colIdx, Val: P.Val[:len(Pf.Val)]}
		_ = q.Numeric(P, Bc, Same, 1)
	})
}

func TestEmpty(t *testing.T) {
	for _, P := range []*bsr.Matrix{bsr.Zeros(0, 0, 3, 6), bsr.Zeros(5, 2, 3, 6)} {
		Bc := make([]float64, P.BlockCols*36)
		for J := 0; J < P.BlockCols; J++ {
			for d := 0; d < 6; d++ {
				Bc[J*36+d*7] = 1
			}
		}
		plan, err := Symbolic(P, Bc, 0.5, Options{})
		if err != nil {
			t.Fatal(err)
		}
		Pf := plan.NewPf()
		if err := plan.Numeric(P, Bc, Pf, 2); err != nil {
			t.Fatal(err)
		}
		if !plan.Identity() || Pf.NNZBlocks() != 0 || Pf.BlockRows != P.BlockRows {
			t.Errorf("%d×%d empty P: identity %v, %d blocks", P.BlockRows, P.BlockCols, plan.Identity(), Pf.NNZBlocks())
		}
	}
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", name)
		}
	}()
	f()
}

// TestIllConditionedBound uses coarse blocks with condition numbers up to ~1e3, where
// ‖(P·B_c)_i‖ alone is not the scale of the round-off: the error of a corrected row
// must stay within 8·ε·cond(G_S)·(Σ_J ‖P_iJ‖‖B_cJ‖ + Σ_J ‖P_f,iJ‖‖B_cJ‖), the
// accuracy the package documents (measured: under 1).
func TestIllConditionedBound(t *testing.T) {
	const eps = 0x1p-52
	rng := rand.New(rand.NewPCG(17, 18))
	for _, sh := range shapes {
		b, k := sh[0], sh[1]
		P := randomP(rng, 300, 40, b, k, 0.15)
		Bc := randomBc(rng, 40, k, 1)
		for _, theta := range thetas {
			plan, err := Symbolic(P, Bc, theta, Options{})
			if err != nil {
				t.Fatal(err)
			}
			Pf := poisoned(plan)
			if err := plan.Numeric(P, Bc, Pf, 2); err != nil {
				t.Fatal(err)
			}
			worst, maxCond := 0.0, 0.0
			for i := 0; i < P.BlockRows; i++ {
				if Pf.RowPtr[i+1]-Pf.RowPtr[i] == P.RowPtr[i+1]-P.RowPtr[i] {
					continue
				}
				cond := stackCond(Pf, Bc, i, nil) // G_S: the survivors are P_f's row
				e := diffNorm(rowTimesBc(P, Bc, i), rowTimesBc(Pf, Bc, i)) / (eps * cond * rowScale(P, Pf, Bc, i))
				worst, maxCond = max(worst, e), max(maxCond, cond)
				if !(e <= 8) {
					t.Errorf("%dx%d θ=%g row %d: error %.3g·ε·cond·scale (cond %.3g)", b, k, theta, i, e, cond)
				}
			}
			t.Logf("%dx%d θ=%g: worst %.2g·ε·cond·scale, max cond(G_S) %.3g", b, k, theta, worst, maxCond)
		}
	}
}
