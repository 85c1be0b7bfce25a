package cuda

import (
	"fmt"
	"testing"
	"time"

	"github.com/blockamg/blockamg/backend/backendtest"
	"github.com/blockamg/blockamg/backend/cpu"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
	"github.com/blockamg/blockamg/krylov"
)

// splitmix is a small deterministic generator; fill uses one per chunk so that the
// values do not depend on the worker count.
func splitmix(s *uint64) float64 {
	*s += 0x9e3779b97f4a7c15
	z := *s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11)/(1<<53)*2 - 1
}

func fill(v []float64, seed uint64) {
	const chunk = 1 << 20
	par.For((len(v)+chunk-1)/chunk, 0, 1, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			s := seed ^ uint64(c)*0x2545f4914f6cdd1d
			end := min((c+1)*chunk, len(v))
			for i := c * chunk; i < end; i++ {
				v[i] = splitmix(&s)
			}
		}
	})
}

// grid27 returns a matrix with r×c blocks on an n×n×n grid with the 27-point pattern
// (the pattern of a Q1 finite-element operator on (n-1)³ elements), random values.
func grid27(n, r, c int, seed uint64) *bsr.Matrix {
	nn := n * n * n
	m := &bsr.Matrix{BlockRows: nn, BlockCols: nn, R: r, C: c, RowPtr: make([]int64, nn+1)}
	span := func(i int) int { return min(i+1, n-1) - max(i-1, 0) + 1 }
	for k := 0; k < n; k++ {
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				row := i + n*(j+n*k)
				m.RowPtr[row+1] = int64(span(i) * span(j) * span(k))
			}
		}
	}
	for i := 0; i < nn; i++ {
		m.RowPtr[i+1] += m.RowPtr[i]
	}
	m.ColIdx = make([]int32, m.RowPtr[nn])
	par.For(n, 0, 1, func(klo, khi int) {
		for k := klo; k < khi; k++ {
			for j := 0; j < n; j++ {
				for i := 0; i < n; i++ {
					p := m.RowPtr[i+n*(j+n*k)]
					for dz := max(k-1, 0); dz <= min(k+1, n-1); dz++ {
						for dy := max(j-1, 0); dy <= min(j+1, n-1); dy++ {
							for dx := max(i-1, 0); dx <= min(i+1, n-1); dx++ {
								m.ColIdx[p] = int32(dx + n*(dy+n*dz))
								p++
							}
						}
					}
				}
			}
		}
	})
	m.Val = make([]float64, m.RowPtr[nn]*int64(r*c))
	fill(m.Val, seed)
	return m
}

// aggProlongator returns a smoothed-aggregation-like prolongator pattern with 3×6
// blocks: fine nodes on an n³ grid, aggregates of 3×3×3 nodes, and each fine node
// coupled to the aggregates of its 27-point neighbours (1 to 8 blocks per row).
func aggProlongator(n int, seed uint64) *bsr.Matrix {
	na := (n + 2) / 3
	nn := n * n * n
	m := &bsr.Matrix{BlockRows: nn, BlockCols: na * na * na, R: 3, C: 6, RowPtr: make([]int64, nn+1)}
	aggs := func(i int) (lo, hi int) { return max(i-1, 0) / 3, min(i+1, n-1) / 3 }
	cnt := func(i int) int { lo, hi := aggs(i); return hi - lo + 1 }
	for k := 0; k < n; k++ {
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				m.RowPtr[i+n*(j+n*k)+1] = int64(cnt(i) * cnt(j) * cnt(k))
			}
		}
	}
	for i := 0; i < nn; i++ {
		m.RowPtr[i+1] += m.RowPtr[i]
	}
	m.ColIdx = make([]int32, m.RowPtr[nn])
	for k := 0; k < n; k++ {
		zl, zh := aggs(k)
		for j := 0; j < n; j++ {
			yl, yh := aggs(j)
			for i := 0; i < n; i++ {
				xl, xh := aggs(i)
				p := m.RowPtr[i+n*(j+n*k)]
				for az := zl; az <= zh; az++ {
					for ay := yl; ay <= yh; ay++ {
						for ax := xl; ax <= xh; ax++ {
							m.ColIdx[p] = int32(ax + na*(ay+na*az))
							p++
						}
					}
				}
			}
		}
	}
	m.Val = make([]float64, m.RowPtr[nn]*18)
	fill(m.Val, seed)
	return m
}

// TestPerfReport measures SpMV bandwidth at the ex56 ne=100 size against the copy
// bandwidth of the same run. It needs a large GPU and several GB of host memory, so it
// runs only with -cuda.perf (-cuda.perf-ne changes ne, default 100).
func TestPerfReport(t *testing.T) {
	ne := perfNE(t, "SpMV bandwidth report")
	be := device(t)
	const reps = 20
	bw, err := be.CopyBandwidth(2<<30, reps)
	if err != nil {
		t.Fatal(err)
	}
	copyGBs := max(bw.MemcpyGBs, bw.KernelGBs)
	t.Logf("%s: copy bandwidth (read+write, 2 GiB, median of %d): cuMemcpyDtoD %.0f GB/s, copy kernel %.0f GB/s",
		be.Name(), reps, bw.MemcpyGBs, bw.KernelGBs)

	n := ne + 1
	type caseT struct {
		name  string
		m     *bsr.Matrix
		trans bool // time the transposed product (an explicit-transpose gather)
	}
	a := grid27(n, 3, 3, 1)
	p := aggProlongator(n, 2)
	na := (n + 2) / 3
	ac := grid27(na, 6, 6, 3)
	cases := []caseT{
		{fmt.Sprintf("A 3×3 27-pt, %d unknowns", a.Rows()), a, false},
		{fmt.Sprintf("P 3×6, %d×%d", p.Rows(), p.Cols()), p, false},
		{"Pᵀ 6×3 (gather)", p, true},
		{fmt.Sprintf("Ac 6×6 27-pt, %d unknowns", ac.Rows()), ac, false},
	}
	t.Logf("%-34s %8s %10s %10s %9s %7s", "product", "kernel", "MB moved", "time ms", "GB/s", "%copy")
	for _, c := range cases {
		d, err := be.UploadMatrixBSR(c.m, c.trans)
		if err != nil {
			t.Fatal(err)
		}
		op := d
		if c.trans {
			op = d.t
		}
		in, out := op.blockCols*op.c, op.blockRows*op.r
		x, err := be.NewVector(in)
		if err != nil {
			t.Fatal(err)
		}
		y, err := be.NewVector(out)
		if err != nil {
			t.Fatal(err)
		}
		xs := make([]float64, in)
		fill(xs, 9)
		be.Upload(x, xs)
		bytes := op.Bytes() + int64(in+out)*8
		// Check against the CPU once, at the default variant.
		want := make([]float64, out)
		if c.trans {
			c.m.MulTransVec(1, xs, 0, want)
		} else {
			c.m.MulVec(1, xs, 0, want)
		}
		got := make([]float64, out)
		be.SpMV(1, op, x, 0, y)
		be.Download(got, y)
		if e := relErr(got, want); e > 1e-12 {
			t.Errorf("%s: relative error %.3g against the CPU", c.name, e)
		}
		def := op.variant
		variants := append(append([]spmvVariant(nil), spmvVariants[spmvShape{op.r, op.c}]...), spmvVariant{})
		for _, g := range variants {
			op.variant = g
			ms, err := be.TimeMedian(3, reps, func() { be.spmv(op, 1, x.(*Vector), 0, y.(*Vector)) })
			if err != nil {
				t.Fatal(err)
			}
			gbs := float64(bytes) / (ms * 1e6)
			mark := ""
			if g == def {
				mark = " (default)"
			}
			label := g.String()
			t.Logf("%-34s %8s %10.1f %10.4f %9.0f %6.1f%%%s", c.name, label, float64(bytes)/1e6, ms, gbs, 100*gbs/copyGBs, mark)
		}
		op.variant = def
		x.Free()
		y.Free()
		d.Free()
	}
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}

	// Block-Jacobi PCG on a larger SPD problem, CPU and GPU, the same code over the two
	// backends.
	spd := backendtest.SPDProblem(11, 40, 0.05)
	rhs := make([]float64, spd.Rows())
	fill(rhs, 12)
	opt := krylov.Options{RelTol: 1e-10, MaxIter: 5000}
	t0 := time.Now()
	xc, rc := backendtest.SolvePCG(t, cpu.New(0), spd, rhs, opt)
	cpuTime := time.Since(t0)
	prev := be.SetPhase("perf-pcg")
	t0 = time.Now()
	xg, rg := backendtest.SolvePCG(t, be, spd, rhs, opt)
	gpuTime := time.Since(t0)
	tr := be.Counters().Phase("perf-pcg")
	be.SetPhase(prev)
	if rg.Iterations != rc.Iterations {
		t.Errorf("PCG: GPU %d iterations, CPU %d", rg.Iterations, rc.Iterations)
	}
	if e := relErr(xg, xc); e > 1e-10 {
		t.Errorf("PCG: solutions differ by %.3g", e)
	}
	t.Logf("PCG block Jacobi, %d unknowns, %d blocks: CPU %d iterations in %v; GPU %d iterations in %v (incl. upload and Jacobi set-up); solutions differ by %.2g; GPU traffic H2D %d B, D2H %d B",
		len(rhs), spd.NNZBlocks(), rc.Iterations, cpuTime.Round(time.Millisecond), rg.Iterations, gpuTime.Round(time.Millisecond), relErr(xg, xc), tr.H2DBytes, tr.D2HBytes)
}

// TestGenerators checks the synthetic patterns of the bandwidth report on small grids
// (no GPU needed): valid BSR, the expected block counts, and Pᵀ's shape.
func TestGenerators(t *testing.T) {
	a := grid27(5, 3, 3, 1)
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	if got, want := a.NNZBlocks(), int64(13*13*13); got != want { // (3n-2)³
		t.Errorf("grid27(5): %d blocks, want %d", got, want)
	}
	p := aggProlongator(7, 2)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if p.BlockCols != 27 || p.R != 3 || p.C != 6 {
		t.Errorf("aggProlongator(7): %d block columns of %d×%d, want 27 of 3×6", p.BlockCols, p.R, p.C)
	}
	// Node 0 touches only aggregate 0; node 2 (i=2) touches aggregates 0 and 1 in x.
	if n0 := p.RowPtr[1] - p.RowPtr[0]; n0 != 1 {
		t.Errorf("node 0 has %d blocks, want 1", n0)
	}
	if n2 := p.RowPtr[3] - p.RowPtr[2]; n2 != 2 {
		t.Errorf("node 2 has %d blocks, want 2", n2)
	}
}
