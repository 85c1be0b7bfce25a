package fem

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

// benchSizes are the mesh sizes of the assembly benchmarks: ne = 39 always, 63 and 100
// (0.8M and 3.1M unknowns, 0.5 and 2 GB of values) only with FEM_BENCH_LARGE=1.
func benchSizes() []int {
	if os.Getenv("FEM_BENCH_LARGE") != "" {
		return []int{39, 63, 100}
	}
	return []int{39}
}

func BenchmarkSymbolic(b *testing.B) {
	for _, ne := range benchSizes() {
		box := mustBox(b, Ex56(ne))
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("ne=%d/workers=%d", ne, w), func(b *testing.B) {
				for b.Loop() {
					mustSymbolic(b, box, w)
				}
			})
		}
	}
}

func BenchmarkNumeric(b *testing.B) {
	for _, ne := range benchSizes() {
		box := mustBox(b, Ex56(ne))
		a := mustSymbolic(b, box, 0)
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("ne=%d/workers=%d", ne, w), func(b *testing.B) {
				for b.Loop() {
					if err := a.Numeric(a.Matrix, nil, w); err != nil {
						b.Fatal(err)
					}
				}
				sec := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(float64(len(a.Matrix.Val))*8/sec/1e9, "GB/s")
				b.ReportMetric(float64(box.Unknowns())/sec/1e6, "Munknowns/s")
			})
		}
	}
}

// TestAssembleLarge assembles one big problem, for measuring time and peak memory:
//
//	go test -c -o /tmp/fem.test ./fem
//	FEM_LARGE_NE=160 /usr/bin/time -v /tmp/fem.test -test.run TestAssembleLarge -test.v
//
// It is skipped unless FEM_LARGE_NE is set.
func TestAssembleLarge(t *testing.T) {
	s := os.Getenv("FEM_LARGE_NE")
	if s == "" {
		t.Skip("set FEM_LARGE_NE=160 to assemble a large problem (about 8.5 GB)")
	}
	ne, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("FEM_LARGE_NE=%q: %v", s, err)
	}
	box := mustBox(t, Ex56(ne))
	t0 := time.Now()
	a := mustSymbolic(t, box, 0)
	t1 := time.Now()
	if err := a.Numeric(a.Matrix, nil, 0); err != nil {
		t.Fatal(err)
	}
	t2 := time.Now()
	if err := a.Numeric(a.Matrix, nil, 0); err != nil {
		t.Fatal(err)
	}
	t3 := time.Now()
	t.Logf("ne=%d: %d unknowns, %d blocks, matrix %.2f GB; symbolic %v, numeric %v (first touch), numeric %v (again)",
		ne, box.Unknowns(), a.Matrix.NNZBlocks(), float64(a.Matrix.Bytes())/1e9, t1.Sub(t0), t2.Sub(t1), t3.Sub(t2))
	// A cheap sanity check on the result: the diagonal of a clamped corner node.
	if d := a.Matrix.Block(0)[0]; !(d > 0) {
		t.Errorf("A[0][0] = %v", d)
	}
}
