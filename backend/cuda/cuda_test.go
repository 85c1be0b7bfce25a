package cuda

import (
	"errors"
	"flag"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/backendtest"
	"github.com/blockamg/blockamg/backend/cpu"
	"github.com/blockamg/blockamg/internal/cudadrv"
	"github.com/blockamg/blockamg/krylov"
)

var shared struct {
	once sync.Once
	be   *Backend
	err  error
}

// device returns the backend shared by the tests of this package, or skips the test
// with the one-line reason when there is no driver or no device.
func device(t *testing.T) *Backend {
	t.Helper()
	shared.once.Do(func() { shared.be, shared.err = New(Options{}) })
	if err := shared.err; err != nil {
		if errors.Is(err, cudadrv.ErrNoDriver) || errors.Is(err, cudadrv.ErrNoDevice) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	return shared.be
}

// The opt-in performance reports: test flags, e.g.
// cuda.test -test.run PerfReport -cuda.perf -cuda.perf-ne 64.
var (
	flagPerf   = flag.Bool("cuda.perf", false, "run the performance reports (GBs of host and device memory)")
	flagPerfNE = flag.Int("cuda.perf-ne", 100, "ex56 size of the performance reports")
)

// perfNE skips an opt-in performance report unless -cuda.perf (what names the report
// in the skip line) and returns its problem size, -cuda.perf-ne.
func perfNE(t *testing.T, what string) int {
	t.Helper()
	if !*flagPerf {
		t.Skip("-cuda.perf runs the " + what)
	}
	if *flagPerfNE < 2 {
		t.Fatalf("-cuda.perf-ne %d: want an integer ≥ 2", *flagPerfNE)
	}
	return *flagPerfNE
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.be != nil {
		if err := shared.be.Close(); err != nil && code == 0 {
			os.Stderr.WriteString("closing the CUDA backend: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}

func TestConformance(t *testing.T) {
	be := device(t)
	in := be.Info()
	t.Logf("%s, sm_%d%d, driver %d, NVRTC %d.%d (%s), kernels from disk cache: %v",
		be.Name(), in.CCMajor, in.CCMinor, in.DriverVersion, in.NVRTCMajor, in.NVRTCMinor, in.NVRTCPath, in.KernelsFromDisk)
	backendtest.TestAll(t, be)
}

func relErr(got, want []float64) float64 {
	num, den := 0.0, 0.0
	for i := range got {
		if math.IsNaN(got[i]) {
			return math.Inf(1)
		}
		num = max(num, math.Abs(got[i]-want[i]))
		den = max(den, math.Abs(want[i]))
	}
	if den == 0 {
		return num
	}
	return num / den
}

// TestPCGMatchesCPU solves the same problem with block-Jacobi PCG on the CPU and the
// GPU backends: same iteration count, solutions equal to 1e-10, and nothing but the
// reductions' scalars crossing the bus during the solve.
func TestPCGMatchesCPU(t *testing.T) {
	be := device(t)
	for _, n := range []int{7, 16} {
		a := backendtest.SPDProblem(uint64(n), n, 0.05)
		rhs := make([]float64, a.Rows())
		for i := range rhs {
			rhs[i] = math.Sin(float64(i) * 0.37)
		}
		opt := krylov.Options{RelTol: 1e-10, MaxIter: 5000}
		xc, rc := backendtest.SolvePCG(t, cpu.New(0), a, rhs, opt)

		// Count the solve's traffic separately from set-up.
		am, err := be.UploadMatrix(a, false)
		if err != nil {
			t.Fatal(err)
		}
		m, err := backend.NewBlockJacobi(be, a)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := be.NewVector(len(rhs))
		x, _ := be.NewVector(len(rhs))
		be.Upload(b, rhs)
		prev := be.SetPhase("pcg-solve")
		before := be.Counters().Phase("pcg-solve")
		rg, err := backend.PCG(be, am, backend.Jacobi{Be: be, D: m}, b, x, opt)
		if err != nil {
			t.Fatal(err)
		}
		tr := be.Counters().Phase("pcg-solve")
		be.SetPhase(prev)
		xg := make([]float64, len(rhs))
		be.Download(xg, x)
		for _, v := range []backend.Vector{b, x} {
			v.Free()
		}
		am.Free()
		m.Free()
		if err := be.Err(); err != nil {
			t.Fatal(err)
		}
		if rg.Iterations != rc.Iterations {
			t.Errorf("n=%d: GPU %d iterations, CPU %d", n, rg.Iterations, rc.Iterations)
		}
		if e := relErr(xg, xc); e > 1e-10 {
			t.Errorf("n=%d: GPU and CPU solutions differ by %.3g (relative, max norm)", n, e)
		}
		// Only scalars: per iteration the CGStepper's state, breakdown and rᵀr (five,
		// 8 bytes each; the generic path's pᵀq, ‖r‖ and rᵀz are three); plus ‖b‖ and
		// the true residual's norm at the end.
		wantD2H := int64(8 * (5*rg.Iterations + 2))
		if h2d, d2h := tr.H2DBytes-before.H2DBytes, tr.D2HBytes-before.D2HBytes; h2d != 0 || d2h > wantD2H {
			t.Errorf("n=%d: PCG moved %d B host→device and %d B device→host, want 0 and ≤ %d", n, h2d, d2h, wantD2H)
		}
		t.Logf("n=%d (%d unknowns): CPU %d iterations, GPU %d, solutions differ by %.2g; solve traffic H2D %d B, D2H %d B",
			n, len(rhs), rc.Iterations, rg.Iterations, relErr(xg, xc), tr.H2DBytes, tr.D2HBytes)
	}
}

// TestSpMVMatchesCPU compares the GPU products with bsr's CPU kernels on matrices
// large enough to use every lane-group size, and checks that every group size and the
// generic kernel give the same result to rounding and repeat their own bits.
func TestSpMVMatchesCPU(t *testing.T) {
	be := device(t)
	for _, s := range []struct{ r, c, per int }{{3, 3, 30}, {3, 6, 8}, {6, 3, 3}, {6, 6, 20}, {5, 2, 7}} {
		a := backendtest.RandomBSR(uint64(s.r*10+s.c), 2000, 1500, s.r, s.c, s.per)
		x := make([]float64, a.Cols())
		for i := range x {
			x[i] = math.Cos(float64(i))
		}
		want := make([]float64, a.Rows())
		a.MulVec(1, x, 0, want)
		d, err := be.UploadMatrixBSR(a, false)
		if err != nil {
			t.Fatal(err)
		}
		xv, _ := be.NewVector(len(x))
		yv, _ := be.NewVector(len(want))
		be.Upload(xv, x)
		variants := append([]spmvVariant{{}}, spmvVariants[spmvShape{s.r, s.c}]...)
		for _, g := range variants {
			d.variant = g
			got := make([]float64, len(want))
			again := make([]float64, len(want))
			be.SpMV(1, d, xv, 0, yv)
			be.Download(got, yv)
			be.SpMV(1, d, xv, 0, yv)
			be.Download(again, yv)
			if e := relErr(got, want); e > 1e-12 {
				t.Errorf("%d×%d %v: relative error %.3g against bsr.MulVec", s.r, s.c, g, e)
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(again[i]) {
					t.Errorf("%d×%d %v: not bitwise reproducible at %d", s.r, s.c, g, i)
					break
				}
			}
		}
		xv.Free()
		yv.Free()
		d.Free()
	}
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestCounters checks that uploads and downloads are counted per phase, with exact
// byte counts.
func TestCounters(t *testing.T) {
	be := device(t)
	be.Counters().Reset()
	prev := be.SetPhase("setup")
	a := backendtest.RandomBSR(5, 100, 80, 3, 6, 5)
	d, err := be.UploadMatrix(a, true)
	if err != nil {
		t.Fatal(err)
	}
	at := a.Transpose()
	if got, want := be.Counters().Phase("setup").H2DBytes, a.Bytes()+at.Bytes(); got != want {
		t.Errorf("setup H2D %d B, want %d (A and Aᵀ)", got, want)
	}
	be.SetPhase("solve")
	v, _ := be.NewVector(1000)
	be.Upload(v, make([]float64, 1000))
	out := make([]float64, 1000)
	be.Download(out, v)
	be.Dot(v, v)
	s := be.Counters().Phase("solve")
	if s.H2DBytes != 8000 || s.D2HBytes != 8008 || s.H2DCalls != 1 || s.D2HCalls != 2 {
		t.Errorf("solve traffic %+v, want 8000 B up in 1 copy, 8008 B down in 2", s)
	}
	be.SetPhase(prev)
	v.Free()
	d.Free()
}

// TestKernelCache starts a backend with a fresh cache directory twice: the first
// compiles the start set's units and writes one CUBIN each, the second loads them
// from disk. On each, a kernel of a later unit (galerkin.cu) loads its unit on first
// use; the first start's background preparation writes its CUBIN.
func TestKernelCache(t *testing.T) {
	device(t)
	dir := t.TempDir()
	var start []string
	for _, u := range units(t).units {
		if u.start {
			start = append(start, u.file)
		}
	}
	for i, fromDisk := range []bool{false, true} {
		b, err := New(Options{CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		in := b.Info()
		t.Logf("start %d: the start set's %d units in %v, compiled %v", i, len(start), in.KernelTime, in.KernelsCompiled)
		if in.KernelsFromDisk != fromDisk || in.KernelCache != dir {
			t.Errorf("start %d: kernels from disk %v (want %v), cache %q (want %q)", i, in.KernelsFromDisk, fromDisk, in.KernelCache, dir)
		}
		if want := map[bool][]string{false: start, true: nil}[fromDisk]; !slices.Equal(in.KernelsCompiled, want) {
			t.Errorf("start %d: compiled %v, want %v", i, in.KernelsCompiled, want)
		}
		if _, err := b.fnGlobal("gal_zero"); err != nil {
			t.Errorf("start %d: %v", i, err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		for _, f := range append(start, "galerkin.cu") {
			if m, _ := filepath.Glob(filepath.Join(dir, "kernels-"+strings.TrimSuffix(f, ".cu")+"-*.cubin")); len(m) != 1 {
				t.Errorf("start %d: cache files of kernels/%s: %v, want one", i, f, m)
			}
		}
	}
}

// TestKernelLookup checks the kernel lookup beyond the index: a name that no unit
// defines is an error that says so, and a kernel the index does not know (here:
// removed from a copy of it) is found by asking every unit, a loaded one (scan.cu)
// and one loaded for it (filter.cu).
func TestKernelLookup(t *testing.T) {
	device(t)
	b, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.fnGlobal("no_such_kernel"); err == nil || !strings.Contains(err.Error(), "no kernels/*.cu defines it") {
		t.Errorf("an unknown kernel: error %v", err)
	}
	names := []string{"scan_add", "filter_numeric_k6"}
	b.call(func() error {
		tab := *b.kern.tab
		tab.index = maps.Clone(tab.index)
		for _, n := range names {
			delete(tab.index, n)
		}
		b.kern.tab = &tab
		return nil
	})
	for _, n := range names {
		if _, err := b.fnGlobal(n); err != nil {
			t.Errorf("kernel %s, not in the index: %v", n, err)
		}
	}
}

// poisonValues fills the device values of A (and of its transpose) with NaN.
func poisonValues(t testing.TB, A *Matrix) {
	t.Helper()
	for _, m := range []*Matrix{A, A.t} {
		if m == nil {
			continue
		}
		nan := make([]float64, m.val.Len())
		for i := range nan {
			nan[i] = math.NaN()
		}
		if err := m.val.Upload(nan); err != nil {
			t.Fatal(err)
		}
	}
}

// downloadAll returns the values of u.
func downloadAll(t testing.TB, u *Buffer[float64]) []float64 {
	t.Helper()
	v := make([]float64, u.Len())
	if err := u.Download(v); err != nil {
		t.Fatal(err)
	}
	return v
}
