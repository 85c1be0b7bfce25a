package cusparsebench

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/backend/cuda"
	"github.com/blockamg/blockamg/backend/cuda/cudatest"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/galerkin"
	"github.com/blockamg/blockamg/internal/cudadrv"
)

var flagNE = flag.Int("cusparse.ne", 6, "ex56 size of TestCusparseGalerkinEx56")

// cusparseRandomBSR returns a rows×cols matrix of r×c blocks with 0 to per random
// blocks per row (some rows empty), values in [-1, 1) and a few explicit zeros.
func cusparseRandomBSR(rng *rand.Rand, rows, cols, r, c, per int) *bsr.Matrix {
	rp := make([]int64, rows+1)
	var ci []int32
	for i := 0; i < rows; i++ {
		set := map[int32]bool{}
		for k := rng.IntN(per + 1); len(set) < min(k, cols); {
			set[int32(rng.IntN(cols))] = true
		}
		row := make([]int32, 0, len(set))
		for j := range set {
			row = append(row, j)
		}
		slices.Sort(row)
		ci = append(ci, row...)
		rp[i+1] = int64(len(ci))
	}
	m, err := bsr.New(rows, cols, r, c, rp, ci)
	if err != nil {
		panic(err)
	}
	for i := range m.Val {
		if rng.IntN(10) > 0 {
			m.Val[i] = rng.Float64()*2 - 1
		}
	}
	return m
}

// TestExpandCSR32 checks the int32 scalar expansion against bsr's ToCSR (same entries,
// explicit zeros included, same order) and against the dense form, for several block
// shapes, and the int32 overflow refusal (no GPU needed).
func TestExpandCSR32(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, sh := range [][2]int{{3, 3}, {3, 6}, {6, 3}, {6, 6}, {1, 1}, {2, 5}} {
		r, c := sh[0], sh[1]
		m := cusparseRandomBSR(rng, 37, 23, r, c, 6)
		got, err := ExpandCSR32(m)
		if err != nil {
			t.Fatal(err)
		}
		want := m.ToCSR()
		if got.Rows != want.Rows || got.Cols != want.Cols || len(got.RowPtr) != len(want.RowPtr) {
			t.Fatalf("%d×%d: shape %d×%d (%d offsets), want %d×%d", r, c, got.Rows, got.Cols, len(got.RowPtr), want.Rows, want.Cols)
		}
		for i := range want.RowPtr {
			if int64(got.RowPtr[i]) != want.RowPtr[i] {
				t.Fatalf("%d×%d: row offset %d = %d, want %d", r, c, i, got.RowPtr[i], want.RowPtr[i])
			}
		}
		if !slices.Equal(got.ColIdx, want.ColIdx) || !slices.Equal(got.Val, want.Val) {
			t.Fatalf("%d×%d: columns or values differ from ToCSR", r, c)
		}
		if got.Nnz() != ScalarNnz(m) {
			t.Fatalf("%d×%d: Nnz %d, ScalarNnz %d", r, c, got.Nnz(), ScalarNnz(m))
		}
		// Dense check: scatter the expansion and compare with ToDense.
		d := make([]float64, got.Rows*got.Cols)
		for i := 0; i < got.Rows; i++ {
			for k := got.RowPtr[i]; k < got.RowPtr[i+1]; k++ {
				if k > got.RowPtr[i] && got.ColIdx[k] <= got.ColIdx[k-1] {
					t.Fatalf("%d×%d: row %d columns not increasing", r, c, i)
				}
				d[i*got.Cols+int(got.ColIdx[k])] = got.Val[k]
			}
		}
		if !slices.Equal(d, m.ToDense()) {
			t.Fatalf("%d×%d: dense scatter differs from ToDense", r, c)
		}
	}
	// 2²⁶ blocks of 6×6 are 2.4·10⁹ scalars: refused before anything is read or
	// allocated (the pattern here is only the count).
	huge := &bsr.Matrix{BlockRows: 1, BlockCols: 1 << 26, R: 6, C: 6, RowPtr: []int64{0, 1 << 26}}
	if _, err := ExpandCSR32(huge); !errors.Is(err, ErrInt32Overflow) {
		t.Fatalf("2.4e9 scalar nonzeros: error %v, want ErrInt32Overflow", err)
	}
	wide := &bsr.Matrix{BlockRows: 1, BlockCols: 1 << 29, R: 1, C: 6, RowPtr: []int64{0, 0}}
	if _, err := ExpandCSR32(wide); !errors.Is(err, ErrInt32Overflow) {
		t.Fatalf("3.2e9 columns: error %v, want ErrInt32Overflow", err)
	}
}

// TestCompareCSR32 checks the comparison on known differences: exact, one value off,
// one entry missing, one extra entry, an empty result, a NaN (no GPU needed).
func TestCompareCSR32(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ref := cusparseRandomBSR(rng, 20, 20, 6, 6, 4)
	norm := ref.FrobeniusNorm()
	exact, err := ExpandCSR32(ref)
	if err != nil {
		t.Fatal(err)
	}
	if ck := CompareCSR32(exact, ref, 1e-12); ck.Verdict != "ok" || ck.RelErr != 0 || ck.Outside != 0 || ck.Missing != 0 || ck.Nnz != ck.WantNnz {
		t.Fatalf("exact copy: %+v", ck)
	}
	// One value off by 1: error 1/‖ref‖.
	off, _ := ExpandCSR32(ref)
	off.Val[17]++
	if ck := CompareCSR32(off, ref, 1e-12); math.Abs(ck.RelErr-1/norm) > 1e-12 || ck.Verdict == "ok" {
		t.Fatalf("one value +1: rel %g, want %g; %+v", ck.RelErr, 1/norm, ck)
	}
	// Drop the first entry of row 0: it counts as missing, its value as the error.
	drop, _ := ExpandCSR32(ref)
	r0 := slices.IndexFunc(drop.RowPtr[1:], func(p int32) bool { return p > 0 }) // first non-empty row
	k := drop.RowPtr[r0]
	lost := drop.Val[k]
	drop.ColIdx = slices.Delete(drop.ColIdx, int(k), int(k)+1)
	drop.Val = slices.Delete(drop.Val, int(k), int(k)+1)
	for i := r0 + 1; i < len(drop.RowPtr); i++ {
		drop.RowPtr[i]--
	}
	if ck := CompareCSR32(drop, ref, 1e-12); ck.Missing != 1 || math.Abs(ck.RelErr-math.Abs(lost)/norm) > 1e-12 {
		t.Fatalf("one entry dropped (value %g): %+v, want rel %g", lost, ck, math.Abs(lost)/norm)
	}
	// An entry in a block the reference lacks counts as outside.
	ext := &bsr.Matrix{BlockRows: 1, BlockCols: 2, R: 1, C: 1, RowPtr: []int64{0, 1}, ColIdx: []int32{0}, Val: []float64{2}}
	extra := &CSR32{Rows: 1, Cols: 2, RowPtr: []int32{0, 2}, ColIdx: []int32{0, 1}, Val: []float64{2, 1}}
	if ck := CompareCSR32(extra, ext, 1e-12); ck.Outside != 1 || math.Abs(ck.RelErr-0.5) > 1e-15 {
		t.Fatalf("one extra entry: %+v, want outside 1, rel 0.5", ck)
	}
	empty := &CSR32{Rows: ref.Rows(), Cols: ref.Cols(), RowPtr: make([]int32, ref.Rows()+1)}
	if ck := CompareCSR32(empty, ref, 1e-12); ck.Verdict != "wrong: empty" || math.Abs(ck.RelErr-1) > 1e-12 {
		t.Fatalf("empty result: %+v", ck)
	}
	nan, _ := ExpandCSR32(ref)
	nan.Val[3] = math.NaN()
	if ck := CompareCSR32(nan, ref, 1e-12); ck.Verdict != "wrong: NaN" || !math.IsInf(ck.RelErr, 1) {
		t.Fatalf("NaN: %+v", ck)
	}
	if ck := CompareCSR32(&CSR32{Rows: 1, Cols: 1, RowPtr: []int32{0, 0}}, ref, 1e-12); ck.Verdict[:12] != "wrong: shape" {
		t.Fatalf("shape: %+v", ck)
	}
}

// cusparseOrSkip opens cuSPARSE on the test backend or skips with the one-line reason.
func cusparseOrSkip(t *testing.T, be *cuda.Backend) *Handle {
	t.Helper()
	cs, err := Open(be)
	if errors.Is(err, cudadrv.ErrNoCusparse) {
		t.Skip("no cuSPARSE library (set BLOCKAMG_CUSPARSE): " + err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cuSPARSE %s", cs.Version())
	return cs
}

// TestCusparseGalerkinEx56 computes Ac = Pᵀ·(A·P) with cuSPARSE on the scalar
// expansion of every level of the ex56 hierarchy (ne from -cusparse.ne, default 6)
// and compares it with the CPU galerkin package to 1e-12 relative, with exactly the
// reference's scalar pattern; the products are poisoned before the checked run. It also times both stages once to see that the timing path works.
func TestCusparseGalerkinEx56(t *testing.T) {
	be := device(t)
	cs := cusparseOrSkip(t, be)
	defer cs.Close()
	ne := *flagNE
	if ne < 1 {
		t.Fatalf("-cusparse.ne %d: want a positive integer", ne)
	}
	A, _, B, err := fem.Ex56System(ne, 0)
	if err != nil {
		t.Fatal(err)
	}
	opt := amg.DefaultOptions()
	opt.Threshold = -0.01
	opt.CoarseEqLimit = 200
	h, err := amg.Setup(A, &amg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, opt)
	if err != nil {
		t.Fatal(err)
	}
	levels := 0
	for l, L := range h.Levels {
		if L.P == nil {
			continue
		}
		levels++
		name := fmt.Sprintf("ne=%d level %d", ne, l)
		pl, err := galerkin.Symbolic(L.A, L.P, galerkin.TwoPass)
		if err != nil {
			t.Fatal(err)
		}
		if err := pl.Numeric(L.A, L.P, 0); err != nil {
			t.Fatal(err)
		}
		g, err := cs.Galerkin(L.A, L.P)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := g.Run(cuda.StageAll); err != nil {
			g.Free()
			t.Fatalf("%s: %v", name, err)
		}
		if err := g.Poison(); err != nil {
			t.Fatal(err)
		}
		if err := g.Run(cuda.StageAll); err != nil {
			g.Free()
			t.Fatalf("%s: %v", name, err)
		}
		got, err := g.DownloadAc()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ck := CompareCSR32(got, pl.Ac, 1e-12)
		t.Logf("%s: A %d, P %d, W %d, Ac %d scalar nonzeros (want %d); rel err %.2e; %s; device memory %.1f MB (work %.1f MB)",
			name, g.NnzA(), g.NnzP(), g.NnzW(), ck.Nnz, ck.WantNnz, ck.RelErr, ck.Verdict, float64(g.Bytes())/1e6, float64(g.WorkBytes())/1e6)
		if ck.Verdict != "ok" || ck.Nnz != ck.WantNnz || ck.Outside != 0 || ck.Missing != 0 {
			t.Errorf("%s: cuSPARSE Pᵀ(AP) against the CPU: %+v", name, ck)
		}
		if st := pl.Stats(); g.NnzW() != st.NnzW*int64(L.P.R*L.P.C) {
			t.Errorf("%s: W has %d scalar nonzeros, the CPU's W %d blocks of %d×%d", name, g.NnzW(), st.NnzW, L.P.R, L.P.C)
		}
		ap, err := g.TimeMedian(1, 3, cuda.StageAP)
		if err != nil {
			t.Fatal(err)
		}
		all, err := g.TimeMedian(1, 3, cuda.StageAll)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: cuSPARSE A·P %.3f ms, whole %.3f ms (median of 3)", name, ap, all)
		if !(ap > 0 && all > 0) {
			t.Errorf("%s: times A·P %g ms, whole %g ms: want positive", name, ap, all)
		}
		checkCusparseReuse(t, name, g, pl.Ac)
		g.Free()
	}
	if levels == 0 {
		t.Fatalf("ne=%d: hierarchy has no level with a prolongator", ne)
	}
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
}

// checkCusparseReuse checks cuSPARSE's reuse pipeline on g's operands: after a first
// numeric run and poisoned values, a second run's Ac has the reference's scalar
// pattern and values to 1e-12; then it times the numeric stages once.
func checkCusparseReuse(t *testing.T, name string, g *Galerkin, want *bsr.Matrix) {
	t.Helper()
	r, err := g.Reuse()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer r.Free()
	if err := r.Run(cuda.StageAll); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := r.PoisonValues(); err != nil {
		t.Fatal(err)
	}
	if err := r.Run(cuda.StageAll); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got, err := r.DownloadAc()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	ck := CompareCSR32(got, want, 1e-12)
	if ck.Verdict != "ok" || ck.Nnz != ck.WantNnz || ck.Outside != 0 || ck.Missing != 0 {
		t.Errorf("%s: cuSPARSE reuse Pᵀ(AP) against the CPU: %+v", name, ck)
	}
	if r.NnzW() != g.NnzW() {
		t.Errorf("%s: reuse W has %d scalar nonzeros, cusparseSpGEMM's %d", name, r.NnzW(), g.NnzW())
	}
	ms, err := r.TimeMedian(1, 3, cuda.StageAll)
	if err != nil {
		t.Fatal(err)
	}
	if !(ms > 0) {
		t.Errorf("%s: reuse time %g ms, want positive", name, ms)
	}
	t.Logf("%s: cuSPARSE reuse numeric %.3f ms (median of 3), rel err %.2e, holds %.1f MB", name, ms, ck.RelErr, float64(r.Bytes())/1e6)
}

func device(t *testing.T) *cuda.Backend {
	t.Helper()
	return cudatest.Device(t)
}

func TestMain(m *testing.M) { cudatest.Main(m) }
