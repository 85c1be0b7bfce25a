package cuda

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blockamg/blockamg/backend/backendtest"
	"github.com/blockamg/blockamg/bsr"
)

// TestScanCounts checks the device prefix sums against the host's on sizes around
// the block size and past one scan_sums chunk per thread.
func TestScanCounts(t *testing.T) {
	be := device(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 1023, 1024, 1025, 5000, 300001, 1100003} {
		cnt := make([]int32, n)
		for i := range cnt {
			cnt[i] = int32(rng.IntN(31))
		}
		cb, err := Alloc[int32](be, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := cb.Upload(cnt); err != nil {
			t.Fatal(err)
		}
		out, err := be.scanCounts(cb)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]int64, n+1)
		if err := out.Download(got); err != nil {
			t.Fatal(err)
		}
		var run int64
		for i := 0; i <= n; i++ {
			if got[i] != run {
				t.Fatalf("n=%d: offset %d = %d, want %d", n, i, got[i], run)
			}
			if i < n {
				run += int64(cnt[i])
			}
		}
		cb.Free()
		out.Free()
	}
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
}

// smoothPattern returns Y's pattern for Y = X − ω·D⁻¹·A·X: per row, X's columns, those
// of A·X and one more column (a Y block no product reaches).
func smoothPattern(a, x *bsr.Matrix, rng *rand.Rand) *bsr.Matrix {
	var bi, bj []int32
	for i := 0; i < a.BlockRows; i++ {
		cols := map[int32]bool{int32(rng.IntN(x.BlockCols)): true}
		for k := x.RowPtr[i]; k < x.RowPtr[i+1]; k++ {
			cols[x.ColIdx[k]] = true
		}
		for ka := a.RowPtr[i]; ka < a.RowPtr[i+1]; ka++ {
			j := a.ColIdx[ka]
			for k := x.RowPtr[j]; k < x.RowPtr[j+1]; k++ {
				cols[x.ColIdx[k]] = true
			}
		}
		keys := make([]int32, 0, len(cols))
		for c := range cols {
			keys = append(keys, c)
		}
		slices.Sort(keys)
		for _, c := range keys {
			bi = append(bi, int32(i))
			bj = append(bj, c)
		}
	}
	y, err := bsr.FromBlockTriplets(a.BlockRows, x.BlockCols, x.R, x.C, bi, bj, make([]float64, len(bi)*x.R*x.C))
	if err != nil {
		panic(err)
	}
	return y
}

// TestSmoothPlanMatchesSearch: smoothing from the device product list gives the bits
// of the searching kernel (the same sums in the same order) on random patterns of
// every kernel shape, X rows with several blocks or none, and Y blocks no product
// reaches; every Y value is written (poisoned first). A second call reuses the plan.
func TestSmoothPlanMatchesSearch(t *testing.T) {
	be := device(t)
	rng := rand.New(rand.NewPCG(7, 8))
	for ci, tc := range []struct{ n, m, b, k int }{{400, 60, 3, 6}, {300, 50, 6, 6}, {200, 40, 2, 3}, {3000, 200, 3, 6}} {
		a := backendtest.RandomBSR(uint64(100+ci), tc.n, tc.n, tc.b, tc.b, 12)
		x := backendtest.RandomBSR(uint64(200+ci), tc.n, tc.m, tc.b, tc.k, 3)
		yh := smoothPattern(a, x, rng)
		da, err := be.UploadMatrixBSR(a, false)
		if err != nil {
			t.Fatal(err)
		}
		dx, err := be.UploadMatrixBSR(x, false)
		if err != nil {
			t.Fatal(err)
		}
		dy, err := be.UploadMatrixBSR(yh, false)
		if err != nil {
			t.Fatal(err)
		}
		dinv := make([]float64, tc.n*tc.b*tc.b)
		for i := range dinv {
			dinv[i] = rng.NormFloat64()
		}
		d, err := be.UploadBlockDiag(tc.n, tc.b, dinv)
		if err != nil {
			t.Fatal(err)
		}
		bd := d.(*BlockDiag)
		poisonValues(t, dy)
		be.smoothSearch(da, bd, 0.37, dx, dy)
		want := downloadAll(t, dy.val)
		for rep := 0; rep < 2; rep++ {
			poisonValues(t, dy)
			be.SmoothProlongator(da, d, 0.37, dx, dy)
			got := downloadAll(t, dy.val)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%+v, call %d: value %d = %v, searching kernel %v", tc, rep, i, got[i], want[i])
				}
			}
		}
		for i, v := range want {
			if math.IsNaN(v) {
				t.Fatalf("%+v: value %d not written", tc, i)
			}
		}
		if dy.smooth == nil {
			t.Fatalf("%+v: no plan kept", tc)
		}
		for _, m := range []*Matrix{da, dx, dy} {
			m.Free()
		}
		d.Free()
	}
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
}
