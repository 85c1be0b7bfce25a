package cuda

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/galerkin"
	"github.com/blockamg/blockamg/galerkin/galerkintest"
)

// randomPattern returns a rows×cols matrix of r×c blocks with about per random blocks
// per row (the diagonal always, when square), random values in [-1, 1).
func randomPattern(rng *rand.Rand, rows, cols, r, c, per int, square bool) *bsr.Matrix {
	rp := make([]int64, rows+1)
	var ci []int32
	for i := 0; i < rows; i++ {
		set := map[int32]bool{}
		if square {
			set[int32(i)] = true
		}
		k := 1 + rng.IntN(per)
		for len(set) < min(k, cols) {
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
		m.Val[i] = rng.Float64()*2 - 1
	}
	return m
}

// cpuGalerkin is the oracle: the CPU package's two-pass product.
func cpuGalerkin(t *testing.T, A, P *bsr.Matrix) *bsr.Matrix {
	t.Helper()
	pl, err := galerkin.Symbolic(A, P, galerkin.TwoPass)
	if err != nil {
		t.Fatal(err)
	}
	if err := pl.Numeric(A, P, 0); err != nil {
		t.Fatal(err)
	}
	return pl.Ac
}

// frobRel returns ‖got − want‖_F / ‖want‖_F (NaN anywhere gives +Inf).
func frobRel(got, want []float64) float64 {
	num, den := 0.0, 0.0
	for i := range got {
		if math.IsNaN(got[i]) {
			return math.Inf(1)
		}
		d := got[i] - want[i]
		num += d * d
		den += want[i] * want[i]
	}
	if den == 0 {
		return math.Sqrt(num)
	}
	return math.Sqrt(num / den)
}

// hostExecute runs the inspector schedule on the host: W from the W lists, Ac from
// the Ac lists, in the order the kernels use. It checks the schedule without a GPU.
func hostExecute(s *hostSchedule, A, P *bsr.Matrix) []float64 {
	R, C := P.R, P.C
	W := hostW(s, A, P)
	Ac := make([]float64, len(s.accol)*C*C)
	for b := range s.accol {
		I := s.acrow[b]
		for _, u := range s.aclist[s.acptr[b]:s.acptr[b+1]] {
			e := s.ptrp[I] + int64(u>>16)
			p, i := s.ptidx[e], s.ptrow[e]
			w := s.wrp[i] + int64(u&0xffff)
			for k := 0; k < R; k++ {
				for r := 0; r < C; r++ {
					pv := P.Val[p*int64(R*C)+int64(k*C+r)]
					for c := 0; c < C; c++ {
						Ac[b*C*C+r*C+c] += pv * W[w*int64(R*C)+int64(k*C+c)]
					}
				}
			}
		}
	}
	return Ac
}

// hostW is W = A·P from the schedule's W lists, on the host.
func hostW(s *hostSchedule, A, P *bsr.Matrix) []float64 {
	R, C := P.R, P.C
	W := make([]float64, len(s.wcol)*R*C)
	for w := range s.wcol {
		i := s.wrow[w]
		for _, u := range s.wlist[s.wptr[w]:s.wptr[w+1]] {
			a := A.RowPtr[i] + int64(u>>16)
			j := A.ColIdx[a]
			p := P.RowPtr[j] + int64(u&0xffff)
			for r := 0; r < R; r++ {
				for k := 0; k < R; k++ {
					av := A.Val[a*int64(R*R)+int64(r*R+k)]
					for c := 0; c < C; c++ {
						W[w*R*C+r*C+c] += av * P.Val[p*int64(R*C)+int64(k*C+c)]
					}
				}
			}
		}
	}
	return W
}

// TestGalerkinScheduleHost checks the host symbolic phase without a GPU: Ac's pattern
// equals the CPU package's, and executing the schedules on the host gives its values
// to 1e-13.
func TestGalerkinScheduleHost(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	for r := 1; r <= 6; r++ {
		for c := 1; c <= 6; c++ {
			n, m := 40+rng.IntN(30), 5+rng.IntN(15)
			A := randomPattern(rng, n, n, r, r, 7, true)
			P := randomPattern(rng, n, m, r, c, 3, false)
			want := cpuGalerkin(t, A, P)
			s, err := galerkinSchedule(A, P)
			if err != nil {
				t.Fatal(err)
			}
			got := &bsr.Matrix{BlockRows: m, BlockCols: m, R: c, C: c, RowPtr: s.acrp, ColIdx: s.accol}
			if !got.SamePattern(want) {
				t.Fatalf("%d×%d: Ac pattern differs from the CPU package's", r, c)
			}
			if e := frobRel(hostExecute(s, A, P), want.Val); e > 1e-13 {
				t.Errorf("%d×%d: host execution of the schedule: relative error %.3g", r, c, e)
			}
		}
	}
}

// numericTwice runs variant v of plan pl twice on the device, each time into a
// poisoned Ac, and checks each result against the CPU's (want, 1e-12 relative), that
// nothing crossed the bus during the numeric phase, and for a deterministic variant
// that the two runs agree bitwise. It returns the first run's Ac values (nil after a
// failed download).
func numericTwice(t *testing.T, be *Backend, label string, pl *GalerkinPlan, v GalerkinVariant, dA, dP *Matrix, want *bsr.Matrix) []float64 {
	t.Helper()
	var first []float64
	for run := 0; run < 2; run++ {
		be.SetPhase("galerkin-setup")
		if err := pl.PoisonAc(); err != nil {
			t.Fatal(err)
		}
		phase := "galerkin-numeric-" + label
		be.SetPhase(phase)
		if err := pl.Numeric(v, dA, dP); err != nil {
			t.Fatal(err)
		}
		if err := be.Err(); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if tr := be.Counters().Phase(phase); tr.H2DBytes != 0 || tr.D2HBytes != 0 {
			t.Errorf("%s: numeric phase copied %d B to and %d B from the device, want none", label, tr.H2DBytes, tr.D2HBytes)
		}
		be.SetPhase("galerkin-setup")
		got, err := pl.DownloadAc()
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if e := frobRel(got.Val, want.Val); !(e <= 1e-12) {
			t.Errorf("%s: relative Frobenius error %.3g against the CPU package", label, e)
		}
		if run == 0 {
			first = got.Val
			continue
		}
		if v.Deterministic() {
			for i := range first {
				if math.Float64bits(first[i]) != math.Float64bits(got.Val[i]) {
					t.Errorf("%s: value %d differs between two runs (%v, %v)", label, i, first[i], got.Val[i])
					break
				}
			}
		}
	}
	return first
}

// checkGalerkinDevice runs every variant on the device (specialised and, when asked,
// generic kernels), compares with the CPU result, checks bitwise determinism over two
// runs for the deterministic variants and that nothing crosses the bus during the
// numeric phase.
func checkGalerkinDevice(t *testing.T, be *Backend, name string, A, P *bsr.Matrix, generic bool) {
	t.Helper()
	want := cpuGalerkin(t, A, P)
	prev := be.SetPhase("galerkin-setup")
	defer be.SetPhase(prev)
	pl, err := be.GalerkinSymbolic(A, P)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Free()
	if !pl.Ac.SamePattern(want) {
		t.Fatalf("%s: Ac pattern differs from the CPU package's", name)
	}
	dA, err := be.UploadMatrixBSR(A, false)
	if err != nil {
		t.Fatal(err)
	}
	defer dA.Free()
	dP, err := be.UploadMatrixBSR(P, false)
	if err != nil {
		t.Fatal(err)
	}
	defer dP.Free()
	gens := []bool{false}
	if generic {
		gens = append(gens, true)
	}
	full := map[GalerkinVariant][]float64{}  // the specialised kernels' Ac of each variant
	fullW := map[GalerkinVariant][]float64{} // and their W, for tc-block and tc-pairs
	for _, gen := range gens {
		pl.Generic = gen
		for _, v := range GalerkinVariants {
			label := fmt.Sprintf("%s %s %s", name, v, pl.tag())
			if !pl.Available(v) {
				t.Logf("%s: not offered (%s)", label, pl.Unavailable(v))
				continue
			}
			first := numericTwice(t, be, label, pl, v, dA, dP, want)
			if first != nil && !gen {
				full[v] = first
				if v == GalerkinTCBlock || v == GalerkinTCPairs {
					w := make([]float64, pl.wval.Len())
					if err := pl.wval.Download(w); err != nil {
						t.Fatal(err)
					}
					fullW[v] = w
				}
			}
		}
	}
	// tc-pairs sums tc-block's terms in tc-block's order: the same bits, in W and in Ac
	// (its Pᵀ·W is tc-block's kernel).
	if x, y := fullW[GalerkinTCBlock], fullW[GalerkinTCPairs]; x != nil && y != nil {
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				t.Errorf("%s: tc-pairs W value %d is %v, tc-block's %v", name, i, y[i], x[i])
				break
			}
		}
	}
	if x, y := full[GalerkinTCBlock], full[GalerkinTCPairs]; x != nil && y != nil {
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				t.Errorf("%s: tc-pairs value %d is %v, tc-block's %v", name, i, y[i], x[i])
				break
			}
		}
	}
	if A.CheckSymmetric() == nil {
		checkSymmetricHalf(t, be, name, A, P, dA, dP, want, full)
	}
	// A plan prepared for one variant (GalerkinSymbolicFor) offers only it, holds no
	// more device memory, and gives the full plan's bits (its buffers are the same).
	pl.Generic = false
	for _, v := range GalerkinVariants {
		if !v.Deterministic() || full[v] == nil {
			continue
		}
		one, err := be.GalerkinSymbolicFor(A, P, func(GalerkinStats) ([]GalerkinVariant, error) { return []GalerkinVariant{v}, nil })
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range GalerkinVariants {
			if one.Available(u) != (u == v) {
				t.Errorf("%s plan for %s: Available(%s) = %v (%s)", name, v, u, one.Available(u), one.Unavailable(u))
			}
		}
		if one.Bytes() > pl.Bytes() {
			t.Errorf("%s plan for %s holds %d B, the plan for all %d B", name, v, one.Bytes(), pl.Bytes())
		}
		if err := one.PoisonAc(); err != nil {
			t.Fatal(err)
		}
		if err := one.Numeric(v, dA, dP); err != nil {
			t.Fatal(err)
		}
		got, err := one.DownloadAc()
		if err != nil {
			t.Fatalf("%s plan for %s: %v", name, v, err)
		}
		for i, x := range full[v] {
			if math.Float64bits(x) != math.Float64bits(got.Val[i]) {
				t.Errorf("%s plan for %s: value %d is %v, the full plan's %v", name, v, i, got.Val[i], x)
				break
			}
		}
		one.Free()
	}
}

// TestGalerkinRandom: every variant on random block patterns, every shape R, C in
// 1..6 (the generic kernels) and the specialised shapes run both ways; then wide
// patterns whose W and Ac rows pass 32 blocks (the tc-rows windows) and whose A rows
// pass 32 blocks and P rows 8 (the tc-rows metadata chunks and slot words).
func TestGalerkinRandom(t *testing.T) {
	be := device(t)
	rng := rand.New(rand.NewPCG(11, 3))
	for r := 1; r <= 6; r++ {
		for c := 1; c <= 6; c++ {
			n, m := 60+rng.IntN(60), 6+rng.IntN(20)
			A := randomPattern(rng, n, n, r, r, 9, true)
			P := randomPattern(rng, n, m, r, c, 4, false)
			_, special := galerkinShapes[[2]int{r, c}]
			checkGalerkinDevice(t, be, fmt.Sprintf("random %d×%d", r, c), A, P, special)
		}
	}
	for _, sh := range [][2]int{{3, 6}, {6, 6}, {2, 5}} {
		A := randomPattern(rng, 300, 300, sh[0], sh[0], 45, true)
		P := randomPattern(rng, 300, 90, sh[0], sh[1], 12, false)
		_, special := galerkinShapes[sh]
		checkGalerkinDevice(t, be, fmt.Sprintf("wide random %d×%d", sh[0], sh[1]), A, P, special)
	}
	// Symmetric A (A + Aᵀ of a random one): tc-pairs' symmetric half too.
	for _, sh := range [][2]int{{3, 6}, {1, 1}, {2, 5}, {4, 4}} {
		A := symmetrize(t, randomPattern(rng, 150, 150, sh[0], sh[0], 12, true))
		P := randomPattern(rng, 150, 40, sh[0], sh[1], 5, false)
		_, special := galerkinShapes[sh]
		checkGalerkinDevice(t, be, fmt.Sprintf("symmetric random %d×%d", sh[0], sh[1]), A, P, special)
	}
}

// ex56Levels builds the ex56 smoothed-aggregation hierarchy (threshold −0.01, coarse
// equation limit 200) and returns its (A, P) pairs, finest first.
func ex56Levels(t testing.TB, ne int) [][2]*bsr.Matrix {
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
	var lv [][2]*bsr.Matrix
	for _, L := range h.Levels {
		if L.P != nil {
			lv = append(lv, [2]*bsr.Matrix{L.A, L.P})
		}
	}
	return lv
}

var flagGalerkinNE = flag.String("cuda.galerkin-ne", "9", "ex56 sizes of TestGalerkinEx56, comma-separated (39,64,100 for the production sizes)")

// TestGalerkinEx56 checks every variant on every level of the ex56 hierarchy for the
// sizes of -cuda.galerkin-ne, the generic kernels too up to ne = 39.
func TestGalerkinEx56(t *testing.T) {
	be := device(t)
	list := *flagGalerkinNE
	for _, f := range strings.Split(list, ",") {
		ne, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || ne < 1 {
			t.Fatalf("-cuda.galerkin-ne %q: want positive integers", list)
		}
		for l, ap := range ex56Levels(t, ne) {
			checkGalerkinDevice(t, be, fmt.Sprintf("ex56 ne=%d level %d", ne, l), ap[0], ap[1], ne <= 39)
		}
	}
}

// TestGalerkinModel checks the model's invariants on a synthetic pattern (no GPU):
// every variant predicts at least the floor's bytes and flops, the inspector's A·P
// stage adds exactly the schedule and W's values, and the chooser never picks the
// nondeterministic baseline.
func TestGalerkinModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	A := randomPattern(rng, 500, 500, 3, 3, 20, true)
	P := randomPattern(rng, 500, 30, 3, 6, 5, false)
	s, err := galerkinSchedule(A, P)
	if err != nil {
		t.Fatal(err)
	}
	st := GalerkinStats{N: 500, M: 30, R: 3, C: 6, NnzA: A.NNZBlocks(), NnzP: P.NNZBlocks(), NnzW: int64(len(s.wcol)),
		NnzAc: int64(len(s.accol)), ProdAP: int64(len(s.wlist)), ProdPW: int64(len(s.aclist)), ProdAPFused: s.prodFused,
		ScheduleW: int64(len(s.wlist)) * 4, ScheduleAc: int64(len(s.aclist)) * 4}
	mc := GalerkinMachine{L2Bytes: 1 << 10, Bandwidth: 4e12, FMARate: 3e13, SMs: 132}
	for _, v := range GalerkinVariants {
		p := PredictGalerkin(st, mc, v, StageAll)
		if p.Bytes < st.FloorBytes()-st.bytesAcVal() || p.Flops < st.FloorFlops() {
			t.Errorf("%s: predicted %d B, %d flops below the floor's %d B, %d flops", v, p.Bytes, p.Flops, st.FloorBytes(), st.FloorFlops())
		}
	}
	if got, want := PredictGalerkin(st, mc, GalerkinInspectorBlock, StageAP).Bytes, st.bytesA()+st.bytesP()+st.bytesWVal()+st.ScheduleW; got != want {
		t.Errorf("inspector A·P bytes %d, want %d", got, want)
	}
	if st.ProdAPFused < st.ProdAP {
		t.Errorf("fused recomputes %d A·P products, fewer than the %d of W", st.ProdAPFused, st.ProdAP)
	}
	if v := ChooseGalerkin(st, mc); !v.Deterministic() {
		t.Errorf("chooser picked %s", v)
	}
}

// TestGalerkinModelAgainstNcu pins the GPU traffic model's DRAM bytes for the fine
// level of ex56 ne = 64 against Nsight Compute's dram__bytes_read.sum +
// dram__bytes_write.sum measured on an H200 (60 MiB L2, 132 SMs; BENCHMARKS.md: every
// kernel of the variant, gal_zero included): within
// 25% for every variant, fused-recompute's from the replay of its loads
// (SimulateFused, which takes several seconds here). No GPU needed.
func TestGalerkinModelAgainstNcu(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the ne = 64 hierarchy")
	}
	lv := ex56Levels(t, 64)
	st, err := GalerkinStatsOf(lv[0][0], lv[0][1])
	if err != nil {
		t.Fatal(err)
	}
	mc := GalerkinMachine{L2Bytes: 60 << 20, Bandwidth: 4.2e12, FMARate: 3.3e13, SMs: 132}
	if st.FusedSimBytes, err = SimulateFused(lv[0][0], lv[0][1], mc); err != nil {
		t.Fatal(err)
	}
	measured := map[GalerkinVariant]float64{ // MB
		GalerkinTwoPassND: 2072.7, GalerkinInspector: 4272.7, GalerkinInspectorBlock: 4345.5,
		GalerkinInspectorRows: 2947.5, GalerkinFused: 12723.4,
		GalerkinTCBlock:  2504.3, // gal_w_tcb_3x6 (1010.2 + 468.8) + gal_ac_tcb_3x6 (952.7 + 72.6), with the L2 prefetch
		GalerkinTCRows16: 2656.6, GalerkinTCRows32: 2038.0,
		GalerkinSmemRows:  2312.2, // gal_w_smr_3x6 + gal_ac_smr_3x6
		GalerkinSmemTiles: 2374.0, // gal_w_tile_3x6 + gal_ac_tcb_3x6
		GalerkinTCPairs:   2523.5, // --symmetric=false: gal_w_tcp_3x6 (1029.8 + 468.2) + gal_ac_tcb_3x6 (952.7 + 72.8)
	}
	// The pick on this level is the fastest measured (tc-pairs; BENCHMARKS.md), whatever
	// the measured copy bandwidth: a quick measurement can find half the true one, and
	// with bytes and L1 lines alone ranking the tensor-core kernels that makes the
	// model pick tc-block.
	for _, bw := range []float64{2e12, 4.2e12} {
		full := mc
		full.Bandwidth, full.TCRate, full.L1Rate = bw, 5.5e13, 132*1.98e9
		if v := ChooseGalerkin(st, full); v != GalerkinTCPairs {
			t.Errorf("bandwidth %.1f TB/s: the model picks %s, want tc-pairs", bw/1e12, v)
		}
	}
	// A plan for the symmetric A (Options.Symmetric): tc-pairs with the symmetric half
	// of Pᵀ·W, leaving out the W blocks the half never reads, its A·P asking L2 ahead
	// for its first-touch lines (BENCHMARKS.md).
	stSym, err := GalerkinStatsSymmetric(lv[0][0], lv[0][1])
	if err != nil {
		t.Fatal(err)
	}
	// Nsight Compute (W in pair order, halfSlots): A·P
	// kernel read + write, then the half's Pᵀ·W kernel read + write, MB.
	measuredSym := map[GalerkinVariant]float64{
		GalerkinTCPairs:   1033.8 + 361.8 + 670.8 + 72.0, // gal_w_tcp_3x6, gal_ac_tcb_3x6 with sel
		GalerkinTCBlock:   1031.9 + 362.8 + 669.9 + 72.0, // gal_w_tcb_3x6 with sel, gal_ac_tcb_3x6 with sel
		GalerkinSmemTiles: 879.4 + 367.1 + 667.1 + 72.1,  // gal_w_tile_3x6 with wslot, gal_ac_tcb_3x6 with sel
	}
	// within25 checks the model's bytes for v against the pinned measurement.
	within25 := func(label string, st GalerkinStats, v GalerkinVariant, measured float64) {
		got := float64(PredictGalerkin(st, mc, v, StageAll).Bytes) / 1e6
		rel := got/measured - 1
		t.Logf("%-18s%s predicted %8.1f MB, measured %8.1f MB: %+.1f%%", v, label, got, measured, 100*rel)
		if math.Abs(rel) > 0.25 {
			t.Errorf("%s%s: predicted %.1f MB, %+.1f%% from the measured %.1f MB", v, label, got, 100*rel, measured)
		}
	}
	for _, v := range []GalerkinVariant{GalerkinTCPairs, GalerkinTCBlock, GalerkinSmemTiles} {
		within25(" symmetric A:", stSym, v, measuredSym[v])
	}
	if v := ChooseGalerkin(stSym, GalerkinMachine{L2Bytes: 60 << 20, Bandwidth: 4.2e12, FMARate: 3.3e13, SMs: 132, TCRate: 5.5e13, L1Rate: 132 * 1.98e9}); v != GalerkinTCPairs {
		t.Errorf("symmetric A: the model picks %s, want tc-pairs (measured fastest: 1.434 ms, smem-tiles 2.01, tc-block 2.10)", v)
	}
	for _, v := range GalerkinVariants {
		if measured[v] == 0 {
			t.Errorf("%s: no Nsight Compute measurement pinned", v)
			continue
		}
		within25("", st, v, measured[v])
	}
}

// checkSymmetricHalf makes a plan with Options.Symmetric for a symmetric A and checks
// the variants whose Pᵀ·W is the symmetric half (tc-block, smem-tiles, tc-pairs, where
// offered): Ac within 1e-12 of the CPU, the same bits on two runs, its blocks on and
// above the diagonal the bits of the variant's full product (each block's terms are
// summed in the same order), and exactly symmetric (each block below the diagonal the
// transpose of its mirror).
func checkSymmetricHalf(t *testing.T, be *Backend, name string, A, P *bsr.Matrix, dA, dP *Matrix, want *bsr.Matrix, full map[GalerkinVariant][]float64) {
	t.Helper()
	be.opt.Symmetric = true
	defer func() { be.opt.Symmetric = false }()
	pl, err := be.GalerkinSymbolicFor(A, P, func(GalerkinStats) ([]GalerkinVariant, error) { return halfVariants(), nil })
	if err != nil {
		t.Fatalf("%s symmetric: %v", name, err)
	}
	defer pl.Free()
	if !pl.Symmetric || !pl.Stats.Symmetric {
		t.Fatalf("%s: plan made with Options.Symmetric says it is not symmetric", name)
	}
	ac := pl.Ac
	withVal := func(val []float64) *bsr.Matrix { m := *ac; m.Val = val; return &m }
	for _, v := range halfVariants() {
		if !pl.Available(v) || full[v] == nil {
			continue
		}
		label := fmt.Sprintf("%s symmetric %s", name, v)
		first := numericTwice(t, be, label, pl, v, dA, dP, want)
		if first == nil {
			continue
		}
		if err := galerkintest.CheckHalf(withVal(full[v]), withVal(first)); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		t.Logf("%s: %d of %d Ac blocks, %d of %d Pᵀ·W products", label, pl.Stats.NnzAcUpper, pl.Stats.NnzAc, pl.Stats.ProdPWUpper, pl.Stats.ProdPW)
	}
}
