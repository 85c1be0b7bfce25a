package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDMMA16Layout runs one mma.m16n8kK (K = 4, 8, 16) on the device with the
// fragment layout kernels/galerkin.cu documents and compares D with the dense product
// on the host; it also measures the three shapes' rates next to m8n8k4's, which says
// whether the larger shapes are worth a kernel.
func TestDMMA16Layout(t *testing.T) {
	be := device(t)
	if be.info.CCMajor < 9 {
		t.Skipf("mma.m16n8kK f64 needs sm_90; the device is sm_%d%d", be.info.CCMajor, be.info.CCMinor)
	}
	rng := rand.New(rand.NewPCG(7, 16))
	for _, k := range []int{4, 8, 16} {
		a := make([]float64, 16*k)
		bm := make([]float64, k*8)
		for i := range a {
			a[i] = rng.Float64()*2 - 1
		}
		for i := range bm {
			bm[i] = rng.Float64()*2 - 1
		}
		da, err := Alloc[float64](be, len(a))
		if err != nil {
			t.Fatal(err)
		}
		db, _ := Alloc[float64](be, len(bm))
		dd, _ := Alloc[float64](be, 16*8)
		nan := make([]float64, 16*8)
		for i := range nan {
			nan[i] = math.NaN()
		}
		if err := da.Upload(a); err != nil {
			t.Fatal(err)
		}
		if err := db.Upload(bm); err != nil {
			t.Fatal(err)
		}
		if err := dd.Upload(nan); err != nil {
			t.Fatal(err)
		}
		be.run(fmt.Sprintf("gal_dmma16_probe_k%d", k), 1, func() { be.args.Ptr(da.Ptr()).Ptr(db.Ptr()).Ptr(dd.Ptr()) })
		got := make([]float64, 16*8)
		if err := dd.Download(got); err != nil {
			t.Fatal(err)
		}
		for r := 0; r < 16; r++ {
			for c := 0; c < 8; c++ {
				want := 0.0
				for q := 0; q < k; q++ {
					want += a[r*k+q] * bm[q*8+c]
				}
				if d := math.Abs(got[r*8+c] - want); !(d <= 1e-14*(1+math.Abs(want))) {
					t.Errorf("m16n8k%d: D[%d][%d] = %g, want %g", k, r, c, got[r*8+c], want)
				}
			}
		}
		da.Free()
		db.Free()
		dd.Free()
	}
	r8, err := be.DMMARate(5)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("mma.m8n8k4 f64: %.1f TFLOP/s", r8/1e12)
	for _, k := range []int{4, 8, 16} {
		r, err := be.DMMA16Rate(5, k)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("mma.m16n8k%d f64: %.1f TFLOP/s (%.2f× m8n8k4 a flop, %.2f× an instruction)", k, r/1e12, r/r8, r/r8*256/float64(16*8*k))
	}
}
