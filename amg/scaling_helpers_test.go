package amg

import (
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cpu"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/krylov"
	"github.com/blockamg/blockamg/matio"
)

// Badly scaled but valid systems: a symmetric diagonal scaling D·A·D of a solvable
// system, with the near-null space D⁻¹·B that goes with it, and any scaling of the
// near-null space's columns must set up and converge like the unscaled system. Block
// norms, the strength test and the per-aggregate QR once formed plain sums of squares
// that underflowed or overflowed for entries beyond 1e±154 ("diagonal block missing,
// zero or not finite", NaN coarse operators, skipped reflections).

// logScaling returns a diagonal scaling of n unknowns (b per node) with entries
// 10^u, u uniform in [−span, span]; perNode gives all unknowns of a node one factor.
func logScaling(n, b int, span float64, perNode bool, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 31))
	d := make([]float64, n)
	for i := range d {
		if perNode && i%b != 0 {
			d[i] = d[i-1]
			continue
		}
		d[i] = math.Pow(10, span*(2*rng.Float64()-1))
	}
	return d
}

// scaleSystem returns D·A·D, D⁻¹·B (nil for nil) and D·rhs.
func scaleSystem(A *bsr.Matrix, ns *NullSpace, rhs, d []float64) (*bsr.Matrix, *NullSpace, []float64) {
	As := A.Clone()
	r := A.R
	for i := 0; i < A.BlockRows; i++ {
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			j := int(A.ColIdx[k])
			blk := As.Block(k)
			for p := 0; p < r; p++ {
				for q := 0; q < r; q++ {
					blk[p*r+q] *= d[i*r+p] * d[j*r+q]
				}
			}
		}
	}
	var nss *NullSpace
	if ns != nil {
		nss = &NullSpace{Rows: ns.Rows, Cols: ns.Cols, Data: append([]float64(nil), ns.Data...)}
		for i := 0; i < ns.Rows; i++ {
			for j := 0; j < ns.Cols; j++ {
				nss.Data[i*ns.Cols+j] /= d[i]
			}
		}
	}
	bs := make([]float64, len(rhs))
	for i, v := range rhs {
		bs[i] = v * d[i]
	}
	return As, nss, bs
}

// scaleColumns returns ns with column j multiplied by s[j].
func scaleColumns(ns *NullSpace, s []float64) *NullSpace {
	out := &NullSpace{Rows: ns.Rows, Cols: ns.Cols, Data: append([]float64(nil), ns.Data...)}
	for i := 0; i < ns.Rows; i++ {
		for j := 0; j < ns.Cols; j++ {
			out.Data[i*ns.Cols+j] *= s[j]
		}
	}
	return out
}

// loadCase reads a system of /work/shared/data (skipping when absent) with its dense
// near-null space.
func loadCase(t *testing.T, dir string, bs int, modes, rhs string) (*bsr.Matrix, *NullSpace, []float64) {
	t.Helper()
	d := filepath.Join(dataDir, dir)
	if _, err := os.Stat(filepath.Join(d, "A.mtx")); err != nil {
		t.Skipf("shared data absent: %v", err)
	}
	A, err := matio.ReadMatrix(filepath.Join(d, "A.mtx"), bs)
	if err != nil {
		t.Fatal(err)
	}
	m, err := matio.ReadDense(filepath.Join(d, modes))
	if err != nil {
		t.Fatal(err)
	}
	b := make([]float64, A.Rows())
	for i := range b {
		b[i] = 1
	}
	if rhs != "" {
		r, err := matio.ReadDense(filepath.Join(d, rhs))
		if err != nil {
			t.Fatal(err)
		}
		b = r.Data
	}
	return A, &NullSpace{Rows: A.Rows(), Cols: m.Cols, Data: m.Data}, b
}

// scaledPre is the preconditioner of the unscaled system that a hierarchy h' of
// D·A·D defines: M = D·h'·D. When the set-up is invariant under the scaling, CG on A
// with it takes the iterations of CG with A's own hierarchy; the outer CG's own norm
// (‖D·r‖ on the scaled system) plays no part.
type scaledPre struct {
	h   *Hierarchy
	d   []float64
	tmp []float64
}

func (p *scaledPre) Apply(r, z []float64) {
	for i := range r {
		p.tmp[i] = r[i] * p.d[i]
	}
	refApply(p.h, p.tmp, z)
	for i := range z {
		z[i] *= p.d[i]
	}
}

// cgIterations runs CG on A·x = b with preconditioner M (a hierarchy, through the
// test's reference cycle, or a *scaledPre) to rtol 1e-8 (no absolute floor) and
// returns the iterations and x, failing the test when CG does.
func cgIterations(t *testing.T, A *bsr.Matrix, M any, b []float64) (int, []float64) {
	t.Helper()
	var apply func(r, z []float64)
	switch m := M.(type) {
	case *Hierarchy:
		apply = func(r, z []float64) { refApply(m, r, z) }
	case *scaledPre:
		apply = m.Apply
	default:
		panic("cgIterations: unknown preconditioner")
	}
	x := make([]float64, len(b))
	opt := krylov.DefaultOptions()
	opt.AbsTol = 0
	res, err := backend.PCG(cpu.New(0), cpu.WrapMatrix(A), hostPC(apply), cpu.WrapVector(b), cpu.WrapVector(x), opt)
	if err != nil {
		t.Fatal(err)
	}
	return res.Iterations, x
}

// hostPC is a host function as a backend.Preconditioner on the CPU backend.
type hostPC func(r, z []float64)

func (f hostPC) Apply(r, z backend.Vector) { f(r.(*cpu.Vector).Data(), z.(*cpu.Vector).Data()) }
