package cudafem

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/backend/cuda"
	"github.com/blockamg/blockamg/backend/cuda/cudatest"
	"github.com/blockamg/blockamg/fem"
)

func device(t *testing.T) *cuda.Backend {
	t.Helper()
	return cudatest.Device(t)
}

func TestMain(m *testing.M) { cudatest.Main(m) }

func perfNE(t *testing.T, what string) int {
	t.Helper()
	return cudatest.PerfNE(t, what)
}

// splitmix is a small deterministic generator.
func splitmix(s *uint64) float64 {
	*s += 0x9e3779b97f4a7c15
	z := *s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11)/(1<<53)*2 - 1
}

func asmSymbolic(t testing.TB, ne int) *fem.Assembly {
	t.Helper()
	box, err := fem.NewBox(fem.Ex56(ne))
	if err != nil {
		t.Fatal(err)
	}
	fa, err := box.Symbolic(0)
	if err != nil {
		t.Fatal(err)
	}
	return fa
}

// asmModulus returns per-element moduli spread over six decades, with some zeros, from
// a fixed seed.
func asmModulus(n int, seed uint64) []float64 {
	m := make([]float64, n)
	for i := range m {
		m[i] = math.Pow(10, 3*splitmix(&seed))
		if i%7 == 3 {
			m[i] = 0
		}
	}
	return m
}

func asmUpload(t testing.TB, be *cuda.Backend, v []float64) *cuda.Buffer[float64] {
	t.Helper()
	u, err := cuda.Alloc[float64](be, len(v))
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Upload(v); err != nil {
		u.Free()
		t.Fatal(err)
	}
	return u
}

// asmDevice returns fa's device assembly and a device matrix with fa's pattern (no
// transpose), both freed when the test ends.
func asmDevice(t testing.TB, be *cuda.Backend, fa *fem.Assembly) (*Assembly, *cuda.Matrix) {
	t.Helper()
	da, err := New(be, fa)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(da.Free)
	dA, err := be.UploadMatrixBSR(fa.Matrix, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dA.Free)
	return da, dA
}

// asmPoison fills the device values of A (and of its transpose) with NaN.
func asmPoison(t testing.TB, A *cuda.Matrix) {
	t.Helper()
	for _, m := range []*cuda.Matrix{A, A.Transpose()} {
		if m == nil {
			continue
		}
		nan := make([]float64, m.Values().Len())
		for i := range nan {
			nan[i] = math.NaN()
		}
		if err := m.Values().Upload(nan); err != nil {
			t.Fatal(err)
		}
	}
}

func asmDownload(t testing.TB, u *cuda.Buffer[float64]) []float64 {
	t.Helper()
	v := make([]float64, u.Len())
	if err := u.Download(v); err != nil {
		t.Fatal(err)
	}
	return v
}

// medianMs times f on the device (cuda.Backend.TimeMedian: warm runs, then the median
// of reps) and fails the test on f's first error or the timing's.
func medianMs(t testing.TB, be *cuda.Backend, warm, reps int, f func() error) float64 {
	t.Helper()
	var ferr error
	ms, err := be.TimeMedian(warm, reps, func() {
		if e := f(); e != nil && ferr == nil {
			ferr = e
		}
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// asmSameBits fails at the first value whose bits differ, naming its block row, block
// and entry.
func asmSameBits(t testing.TB, what string, rowPtr []int64, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			q := int64(i / 9)
			row := 0
			for row+1 < len(rowPtr) && rowPtr[row+1] <= q {
				row++
			}
			t.Fatalf("%s: value %d (block row %d, stored block %d of the row, entry %d) = %v (bits %016x), want %v (bits %016x)",
				what, i, row, q-rowPtr[row], i%9, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
		}
	}
}

// TestAssemblyGPUMatchesCPU: the device assembly gives bitwise fem.Numeric's values
// (default material through NumericHost, random moduli with zeros through Numeric on a
// device buffer), writes every value (NaN poison), is the same on a second run, passes
// CheckPattern, and fills the transpose of a matrix uploaded with one.
func TestAssemblyGPUMatchesCPU(t *testing.T) {
	be := device(t)
	if runtime.GOARCH != "amd64" {
		t.Logf("GOARCH=%s: Go may fuse fem.Numeric's multiply-adds here, which would break bitwise equality", runtime.GOARCH)
	}
	for _, ne := range []int{3, 5, 8} {
		fa := asmSymbolic(t, ne)
		da, err := New(be, fa)
		if err != nil {
			t.Fatal(err)
		}
		withT := ne == 3
		dA, err := be.UploadMatrixBSR(fa.Matrix, withT)
		if err != nil {
			da.Free()
			t.Fatal(err)
		}
		if err := da.CheckPattern(dA); err != nil {
			t.Errorf("ne=%d: CheckPattern on the assembly's own pattern: %v", ne, err)
		}
		for _, mc := range []struct {
			name string
			m    []float64
		}{{"default material", nil}, {"random moduli", asmModulus(fa.Box().Elements(), uint64(ne))}} {
			ref := fa.NewMatrix()
			if err := fa.Numeric(ref, mc.m, 0); err != nil {
				t.Fatal(err)
			}
			var refT []float64
			if withT {
				refT = ref.Transpose().Val
			}
			var first []float64
			for run := 0; run < 2; run++ {
				what := fmt.Sprintf("ne=%d, %s, run %d", ne, mc.name, run+1)
				asmPoison(t, dA)
				if mc.m == nil {
					err = da.NumericHost(dA, nil)
				} else {
					mod := asmUpload(t, be, mc.m)
					err = da.Numeric(dA, mod)
					mod.Free()
				}
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if err := be.Err(); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				got := asmDownload(t, dA.Values())
				asmSameBits(t, what, ref.RowPtr, got, ref.Val)
				if first != nil {
					asmSameBits(t, what+" against run 1", ref.RowPtr, got, first)
				}
				first = got
				if withT {
					asmSameBits(t, what+", transpose", ref.RowPtr, asmDownload(t, dA.Transpose().Values()), refT)
				}
			}
		}
		t.Logf("ne=%d: %d block rows, %d blocks bitwise equal to fem.Numeric; assembly tables %d bytes on the device",
			ne, fa.Matrix.BlockRows, fa.Matrix.NNZBlocks(), da.Bytes())
		dA.Free()
		da.Free()
	}
}

// TestAssemblyGPUErrors: a matrix of another size is an error for Numeric, NumericHost
// and CheckPattern; one of the right sizes with a different column is CheckPattern's
// error; bad moduli are errors that leave A's values untouched; none is sticky.
func TestAssemblyGPUErrors(t *testing.T) {
	be := device(t)
	fa := asmSymbolic(t, 3)
	da, dA := asmDevice(t, be, fa)
	d4, err := be.UploadMatrixBSR(asmSymbolic(t, 4).Matrix, false)
	if err != nil {
		t.Fatal(err)
	}
	defer d4.Free()
	mod := asmUpload(t, be, fa.Box().ElementModulus())
	defer mod.Free()

	if err := da.Numeric(d4, mod); err == nil {
		t.Error("Numeric into a matrix of ne=4 for an assembly of ne=3: no error")
	}
	if err := da.NumericHost(d4, nil); err == nil {
		t.Error("NumericHost into a matrix of ne=4 for an assembly of ne=3: no error")
	}
	if err := da.CheckPattern(d4); err == nil {
		t.Error("CheckPattern of a matrix of ne=4 for an assembly of ne=3: no error")
	}

	// Same sizes, one column moved: row 0's last block (node (1,1,1)) to node (2,1,1).
	for _, row := range []int{0, fa.Matrix.BlockRows / 2} {
		m := fa.Matrix.Clone()
		m.ColIdx[m.RowPtr[row+1]-1]++
		if err := m.Validate(); err != nil {
			t.Fatalf("row %d: test matrix: %v", row, err)
		}
		bad, err := be.UploadMatrixBSR(m, false)
		if err != nil {
			t.Fatal(err)
		}
		err = da.CheckPattern(bad)
		bad.Free()
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("block row %d ", row)) {
			t.Errorf("CheckPattern with block row %d's last column moved: %v, want an error naming row %d", row, err, row)
		}
	}

	asmPoison(t, dA)
	n := fa.Box().Elements()
	neg := fa.Box().ElementModulus()
	neg[5] = -1
	inf := fa.Box().ElementModulus()
	inf[n-1] = math.Inf(1)
	nan := fa.Box().ElementModulus()
	nan[n/2] = math.NaN()
	for _, c := range []struct {
		m    []float64
		want string
	}{{neg, "element 5:"}, {inf, fmt.Sprintf("element %d:", n-1)}, {nan, fmt.Sprintf("element %d:", n/2)},
		{[]float64{math.NaN()}, "moduli"}, {make([]float64, n+1), "moduli"}} {
		// The device check must stop the assembly and name the first bad element.
		if err := da.NumericHost(dA, c.m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NumericHost with %d moduli (bad): %v, want an error containing %q", len(c.m), err, c.want)
		}
	}
	short := asmUpload(t, be, make([]float64, n-1))
	if err := da.Numeric(dA, short); err == nil {
		t.Error("Numeric with a device buffer of n−1 moduli: no error")
	}
	short.Free()
	for i, v := range asmDownload(t, dA.Values()) {
		if !math.IsNaN(v) {
			t.Fatalf("value %d = %v after rejected calls, want the NaN poison left alone", i, v)
		}
	}
	if err := be.Err(); err != nil {
		t.Fatalf("rejected calls left a sticky error: %v", err)
	}
	// The flag is reset after a rejection: good moduli assemble again.
	if err := da.NumericHost(dA, nil); err != nil {
		t.Fatalf("NumericHost with the default material after rejected calls: %v", err)
	}
	if err := fa.Numeric(fa.Matrix, nil, 0); err != nil {
		t.Fatal(err)
	}
	asmSameBits(t, "after rejected calls", fa.Matrix.RowPtr, asmDownload(t, dA.Values()), fa.Matrix.Val)
}

// TestAssemblyGPUPerf times the numeric assembly at ne = 100 (-cuda.perf-ne changes
// it) and reports its bandwidth: bytes it must move (values written + moduli read) over
// the median of 20 launches timed with CUDA events, next to the copy bandwidth of the
// same run. It checks the values bitwise against fem.Numeric first. Runs only with
// -cuda.perf (GBs of host and device memory).
func TestAssemblyGPUPerf(t *testing.T) {
	ne := perfNE(t, "device assembly bandwidth report")
	be := device(t)
	const reps = 20
	bw, err := be.CopyBandwidth(1<<30, reps)
	if err != nil {
		t.Fatal(err)
	}
	copyGBs := max(bw.MemcpyGBs, bw.KernelGBs)

	fa := asmSymbolic(t, ne)
	da, dA := asmDevice(t, be, fa)
	mod := asmUpload(t, be, fa.Box().ElementModulus())
	defer mod.Free()

	asmPoison(t, dA)
	if err := da.Numeric(dA, mod); err != nil {
		t.Fatal(err)
	}
	if err := fa.Numeric(fa.Matrix, nil, 0); err != nil {
		t.Fatal(err)
	}
	asmSameBits(t, fmt.Sprintf("ne=%d", ne), fa.Matrix.RowPtr, asmDownload(t, dA.Values()), fa.Matrix.Val)

	ms := medianMs(t, be, 2, reps, func() error { return da.Numeric(dA, mod) })
	bytes := da.ValueBytes()
	gbs := float64(bytes) / (ms * 1e6)
	floor := float64(bytes) / (copyGBs * 1e6)
	t.Logf("%s: copy bandwidth (read+write, 1 GiB, median of %d): cuMemcpyDtoD %.0f GB/s, copy kernel %.0f GB/s",
		be.Name(), reps, bw.MemcpyGBs, bw.KernelGBs)
	t.Logf("asm_numeric ne=%d (%d unknowns, %d blocks): %.3f ms median of %d; %.3f GB must move (values written + moduli read) → %.0f GB/s = %.0f%% of copy; floor %.3f ms, %.2f× it (bitwise equal to fem.Numeric)",
		ne, 3*fa.Matrix.BlockRows, fa.Matrix.NNZBlocks(), ms, reps, float64(bytes)/1e9, gbs, 100*gbs/copyGBs, floor, ms/floor)
}

// TestSymbolicGPUMatchesCPU: the device's symbolic phase makes fem.Box.Symbolic's
// pattern (row pointers and columns downloaded and compared), its values are zero, and the numeric phase on it gives fem.Numeric's
// values bit for bit.
func TestSymbolicGPUMatchesCPU(t *testing.T) {
	be := device(t)
	for _, ne := range []int{1, 2, 3, 6} {
		fa := asmSymbolic(t, ne)
		da, dA, err := Symbolic(be, fa.Box())
		if err != nil {
			t.Fatal(err)
		}
		rp := make([]int64, dA.RowPtr().Len())
		col := make([]int32, dA.ColIdx().Len())
		if err := dA.RowPtr().Download(rp); err != nil {
			t.Fatal(err)
		}
		if err := dA.ColIdx().Download(col); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rp, fa.Matrix.RowPtr) {
			t.Fatalf("ne=%d: device row pointers differ from fem's", ne)
		}
		if !slices.Equal(col, fa.Matrix.ColIdx) {
			t.Fatalf("ne=%d: device columns differ from fem's", ne)
		}
		for i, v := range asmDownload(t, dA.Values()) {
			if v != 0 {
				t.Fatalf("ne=%d: value %d = %v before the numeric phase, want 0", ne, i, v)
			}
		}
		if err := da.CheckPattern(dA); err != nil {
			t.Errorf("ne=%d: CheckPattern: %v", ne, err)
		}
		if err := fa.Numeric(fa.Matrix, nil, 0); err != nil {
			t.Fatal(err)
		}
		asmPoison(t, dA)
		if err := da.NumericHost(dA, nil); err != nil {
			t.Fatal(err)
		}
		asmSameBits(t, fmt.Sprintf("ne=%d, device pattern", ne), fa.Matrix.RowPtr, asmDownload(t, dA.Values()), fa.Matrix.Val)
		dA.Free()
		da.Free()
	}
}
