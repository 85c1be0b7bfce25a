package cuda

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/krylov"
)

// coarsenCase is a level to coarsen on both sides: its operator, near-null space
// (node-blocked, k vectors) and whether it aggregates at distance 2.
type coarsenCase struct {
	name      string
	A         *bsr.Matrix
	B         []float64
	k         int
	distance2 bool
	threshold float64
}

// coarsenCases: ex56's fine level at three thresholds, its first coarse level (6×6
// blocks, distance 1), a structurally unsymmetric strength graph, and D·A·D with D
// over 1e±120 (the scale-safe norms and the QR's row weights).
func coarsenCases(t *testing.T) []coarsenCase {
	A, _, modes, err := fem.Ex56System(10, 2)
	if err != nil {
		t.Fatal(err)
	}
	var cs []coarsenCase
	for _, th := range []float64{-0.01, 0, 0.08} {
		cs = append(cs, coarsenCase{fmt.Sprintf("ex56 ne=10 θ=%g", th), A, modes, 6, true, th})
	}
	opt := amg.DefaultOptions()
	opt.Threshold, opt.CoarseEqLimit = -0.01, 200
	h, err := amg.Setup(A, &amg.NullSpace{Rows: A.Rows(), Cols: 6, Data: modes}, opt)
	if err != nil {
		t.Fatal(err)
	}
	L1 := h.Levels[1]
	cs = append(cs, coarsenCase{"ex56 ne=10 level 1 (6×6)", L1.A, L1.B, 6, false, 0})
	// One direction of some couplings made weak: the strength test keeps i→j but not
	// j→i, and the graph is the union.
	U := A.Clone()
	for i := 0; i < U.BlockRows; i += 7 {
		for k := U.RowPtr[i]; k < U.RowPtr[i+1]; k++ {
			if int(U.ColIdx[k]) != i {
				for p := range U.Block(k) {
					U.Block(k)[p] *= 0.05
				}
			}
		}
	}
	cs = append(cs, coarsenCase{"unsymmetric strength θ=0.08", U, modes, 6, true, 0.08})
	// D·A·D with D = 10^(±120) on alternating planes of nodes, and B scaled by D⁻¹.
	S := A.Clone()
	Bs := slices.Clone(modes)
	d := make([]float64, S.BlockRows)
	for i := range d {
		d[i] = 1
		if (i/121)%2 == 1 {
			d[i] = 1e-120
		}
	}
	for i := 0; i < S.BlockRows; i++ {
		for k := S.RowPtr[i]; k < S.RowPtr[i+1]; k++ {
			f := d[i] * d[S.ColIdx[k]]
			for p := range S.Block(k) {
				S.Block(k)[p] *= f
			}
		}
		for p := 0; p < 18; p++ {
			Bs[i*18+p] /= d[i]
		}
	}
	cs = append(cs, coarsenCase{"D·A·D, D over 1e±120, θ=0", S, Bs, 6, true, 0})
	return cs
}

// TestCoarsenMatchesCPU builds the strength graph, the aggregates, P_tent with B_c and
// the smoothed pattern on the device and compares each, bit for bit, with package
// amg's host functions (the oracle), and the smoothed pattern with one computed here
// from its definition.
func TestCoarsenMatchesCPU(t *testing.T) {
	be := device(t)
	for _, c := range coarsenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			A, b, k := c.A, c.A.R, c.k
			gw, err := amg.Strength(A, c.threshold, 2)
			if err != nil {
				t.Fatal(err)
			}
			minNodes := (k + b - 1) / b
			aw := amg.Aggregate(gw, c.distance2, minNodes)
			pw, bcw := amg.Tentative(aw, c.B, b, k, 2)

			da, err := be.UploadMatrixBSR(A, false)
			if err != nil {
				t.Fatal(err)
			}
			defer da.Free()
			g, err := be.Strength(da, c.threshold)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Free()
			rp, adj, de, err := g.Download()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rp, gw.RowPtr) || !slices.Equal(adj, gw.Adj) || !slices.Equal(de, gw.DiagExp) {
				t.Fatalf("strength graph: device %d edges, host %d (or other edges or scales)", len(adj), len(gw.Adj))
			}
			agg, err := be.Aggregate(g, c.distance2, minNodes)
			if err != nil {
				t.Fatal(err)
			}
			defer agg.Free()
			if agg.Small() {
				t.Fatalf("device reports aggregates under %d nodes", minNodes)
			}
			of, ptr, members, roots, err := agg.Download()
			if err != nil {
				t.Fatal(err)
			}
			if agg.Count() != aw.Count || !slices.Equal(of, aw.Of) || !slices.Equal(ptr, aw.Ptr) ||
				!slices.Equal(members, aw.Nodes) || !slices.Equal(roots, aw.Roots) {
				t.Fatalf("aggregates: device %d, host %d (or other members)", agg.Count(), aw.Count)
			}
			t.Logf("%d nodes, %d edges, %d aggregates in %d MIS rounds (symmetrized: %v)",
				g.Nodes(), g.Edges(), agg.Count(), agg.Rounds(), g.Symmetrized)

			dB, err := Alloc[float64](be, len(c.B))
			if err != nil {
				t.Fatal(err)
			}
			defer dB.Free()
			if err := dB.Upload(c.B); err != nil {
				t.Fatal(err)
			}
			P, bc, err := be.Tentative(agg, dB, b, k)
			if err != nil {
				t.Fatal(err)
			}
			defer P.Free()
			defer bc.Free()
			got := downloadMatrix(t, P)
			if !slices.Equal(got.RowPtr, pw.RowPtr) || !slices.Equal(got.ColIdx, pw.ColIdx) {
				t.Fatal("P_tent pattern differs")
			}
			if i := firstBitDiff(got.Val, pw.Val); i >= 0 {
				t.Fatalf("P_tent value %d: device %v, host %v", i, got.Val[i], pw.Val[i])
			}
			bcg := make([]float64, bc.Len())
			if err := bc.Download(bcg); err != nil {
				t.Fatal(err)
			}
			if i := firstBitDiff(bcg, bcw); i >= 0 {
				t.Fatalf("B_c value %d: device %v, host %v", i, bcg[i], bcw[i])
			}

			Y, err := be.SmoothPattern(da, agg, k)
			if err != nil {
				t.Fatal(err)
			}
			defer Y.Free()
			yg := downloadMatrix(t, Y)
			wantRP, wantCol := smoothedPattern(A, aw.Of)
			if !slices.Equal(yg.RowPtr, wantRP) || !slices.Equal(yg.ColIdx, wantCol) {
				t.Fatalf("smoothed pattern: device %d blocks, want %d", len(yg.ColIdx), len(wantCol))
			}
		})
	}
}

// TestCoarsenBadDiagonal: a zero diagonal block is refused with its row, as on the host.
func TestCoarsenBadDiagonal(t *testing.T) {
	be := device(t)
	A, _, _, err := fem.Ex56System(4, 1)
	if err != nil {
		t.Fatal(err)
	}
	A = A.Clone()
	k, _ := A.Find(17, 17)
	clear(A.Block(k))
	da, err := be.UploadMatrixBSR(A, false)
	if err != nil {
		t.Fatal(err)
	}
	defer da.Free()
	_, err = be.Strength(da, 0)
	if err == nil || !errors.Is(err, bsr.ErrInvalid) || !strings.Contains(err.Error(), "block row 17") {
		t.Fatalf("got %v, want an error wrapping bsr.ErrInvalid naming block row 17", err)
	}
}

// smoothedPattern is the pattern of (I − ωD⁻¹A)·P_tent from its definition: row i
// holds the distinct aggregates of i and of A's columns in row i.
func smoothedPattern(A *bsr.Matrix, of []int32) ([]int64, []int32) {
	rp := make([]int64, A.BlockRows+1)
	var col []int32
	for i := 0; i < A.BlockRows; i++ {
		set := map[int32]bool{}
		if of[i] >= 0 {
			set[of[i]] = true
		}
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			if a := of[A.ColIdx[k]]; a >= 0 {
				set[a] = true
			}
		}
		row := make([]int32, 0, len(set))
		for a := range set {
			row = append(row, a)
		}
		slices.Sort(row)
		col = append(col, row...)
		rp[i+1] = int64(len(col))
	}
	return rp, col
}

func downloadMatrix(t *testing.T, m *Matrix) *bsr.Matrix {
	t.Helper()
	out := &bsr.Matrix{BlockRows: m.blockRows, BlockCols: m.blockCols, R: m.r, C: m.c,
		RowPtr: make([]int64, m.rowPtr.Len()), ColIdx: make([]int32, m.col.Len()), Val: make([]float64, m.val.Len())}
	for _, err := range []error{m.rowPtr.Download(out.RowPtr), m.col.Download(out.ColIdx), m.val.Download(out.Val)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// firstBitDiff returns the first index where a and b differ in bits (−1: none; a
// length difference counts at the shorter length).
func firstBitDiff(a, b []float64) int {
	for i := range min(len(a), len(b)) {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// TestPerfCoarsen times the device's symbolic stages of the fine level at ex56
// -cuda.perf-ne (default 100) next to the host's, with the same options as the
// benchmarks (θ = −0.01, distance-2 aggregation), checking that they agree.
func TestPerfCoarsen(t *testing.T) {
	ne := perfNE(t, "device coarsening report")
	be := device(t)
	A, _, modes, err := fem.Ex56System(ne, 0)
	if err != nil {
		t.Fatal(err)
	}
	const th = -0.01
	t0 := time.Now()
	gw, err := amg.Strength(A, th, 0)
	if err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	aw := amg.Aggregate(gw, true, 2)
	t2 := time.Now()
	pw, _ := amg.Tentative(aw, modes, 3, 6, 0)
	t3 := time.Now()
	da, err := be.UploadMatrixBSR(A, false)
	if err != nil {
		t.Fatal(err)
	}
	defer da.Free()
	dB, err := Alloc[float64](be, len(modes))
	if err != nil {
		t.Fatal(err)
	}
	defer dB.Free()
	if err := dB.Upload(modes); err != nil {
		t.Fatal(err)
	}
	for run := 0; run < 3; run++ {
		s0 := time.Now()
		g, err := be.Strength(da, th)
		if err != nil {
			t.Fatal(err)
		}
		s1 := time.Now()
		agg, err := be.Aggregate(g, true, 2)
		if err != nil {
			t.Fatal(err)
		}
		s2 := time.Now()
		P, bc, err := be.Tentative(agg, dB, 3, 6)
		if err != nil {
			t.Fatal(err)
		}
		if err := be.Err(); err != nil {
			t.Fatal(err)
		}
		s3 := time.Now()
		Y, err := be.SmoothPattern(da, agg, 6)
		if err != nil {
			t.Fatal(err)
		}
		if err := be.Err(); err != nil {
			t.Fatal(err)
		}
		s4 := time.Now()
		if run == 2 {
			if agg.Count() != aw.Count {
				t.Fatalf("device %d aggregates, host %d", agg.Count(), aw.Count)
			}
			got := downloadMatrix(t, P)
			if i := firstBitDiff(got.Val, pw.Val); i >= 0 {
				t.Fatalf("P_tent value %d differs", i)
			}
		}
		t.Logf("ne=%d run %d: device strength %.2f ms, aggregation %.2f ms (%d rounds), P_tent %.2f ms, smoothed pattern %.2f ms; host (%d threads) %.1f / %.1f / %.1f ms",
			ne, run, ms(s1.Sub(s0)), ms(s2.Sub(s1)), agg.Rounds(), ms(s3.Sub(s2)), ms(s4.Sub(s3)),
			runtime.GOMAXPROCS(0), ms(t1.Sub(t0)), ms(t2.Sub(t1)), ms(t3.Sub(t2)))
		Y.Free()
		P.Free()
		bc.Free()
		agg.Free()
		g.Free()
	}
}

func ms(d time.Duration) float64 { return d.Seconds() * 1e3 }

// TestFillStartVector: the device's start vector is krylov.StartVector's, bit for bit.
func TestFillStartVector(t *testing.T) {
	be := device(t)
	const n = 100003
	v, err := be.NewVector(n)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Free()
	be.FillStartVector(v)
	got, want := make([]float64, n), make([]float64, n)
	be.Download(got, v)
	krylov.StartVector(want, 0)
	if i := firstBitDiff(got, want); i >= 0 {
		t.Fatalf("entry %d: device %v, krylov %v", i, got[i], want[i])
	}
}
