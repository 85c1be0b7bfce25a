package galerkin

import "testing"

// BenchmarkKern336 measures the register kernel on L1-resident data: its ceiling.
func BenchmarkKern336(b *testing.B) {
	b.Run("go", func(b *testing.B) { benchKern(b, false) })
	b.Run("asm", func(b *testing.B) { benchKern(b, useAsm) })
}

func benchKern(b *testing.B, asm bool) {
	old := useAsm
	useAsm = asm
	defer func() { useAsm = old }()
	const nb = 16
	var a [9]float64
	for i := range a {
		a[i] = float64(i) * 0.1
	}
	src := make([]float64, nb*18)
	out := make([]float64, nb*18)
	slots := make([]int32, nb)
	for i := range slots {
		slots[i] = int32(nb - 1 - i)
		for j := 0; j < 18; j++ {
			src[i*18+j] = float64(i+j) * 0.01
		}
	}
	for b.Loop() {
		kern336(&a, src, 18, 0, slots, nil, out, 18, 0)
	}
	b.ReportMetric(float64(nb*108)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkKern336Parallel runs the kernel on every P (-cpu 1,2,4 …) at once, each
// goroutine on its own L1-resident data: the per-core ceiling under concurrency
// (shared cores or frequency limits show as a lower total than P × one core).
func BenchmarkKern336Parallel(b *testing.B) {
	const nb = 16
	b.RunParallel(func(pb *testing.PB) {
		var a [9]float64
		for i := range a {
			a[i] = float64(i) * 0.1
		}
		src := make([]float64, nb*18)
		out := make([]float64, nb*18)
		slots := make([]int32, nb)
		for i := range slots {
			slots[i] = int32(nb - 1 - i)
		}
		for pb.Next() {
			kern336(&a, src, 18, 0, slots, nil, out, 18, 0)
		}
	})
	b.ReportMetric(float64(nb*108)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
