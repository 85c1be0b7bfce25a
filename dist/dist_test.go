package dist_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/dist"
	"github.com/blockamg/blockamg/dist/internal/mpitest"
	"github.com/blockamg/blockamg/dist/mpi"
	"github.com/blockamg/blockamg/fem"
)

func TestLayout(t *testing.T) {
	l := dist.EvenLayout(10, 3)
	if got := l.Offsets; got[0] != 0 || got[1] != 4 || got[2] != 7 || got[3] != 10 {
		t.Fatalf("EvenLayout(10, 3) = %v", got)
	}
	for g := 0; g < 10; g++ {
		want := 0
		if g >= 4 {
			want = 1
		}
		if g >= 7 {
			want = 2
		}
		if o := l.Owner(g); o != want {
			t.Errorf("Owner(%d) = %d, want %d", g, o, want)
		}
	}
	e, err := dist.NewLayout([]int{0, 0, 5, 5, 8})
	if err != nil {
		t.Fatal(err)
	}
	if e.Owner(0) != 1 || e.Owner(4) != 1 || e.Owner(5) != 3 || e.N() != 8 || e.Size() != 4 {
		t.Errorf("layout with empty ranks: owners %d %d %d", e.Owner(0), e.Owner(4), e.Owner(5))
	}
	for _, bad := range [][]int{{1, 3}, {0, 4, 2}, {0}} {
		if _, err := dist.NewLayout(bad); !errors.Is(err, dist.ErrLayout) {
			t.Errorf("NewLayout(%v) = %v, want ErrLayout", bad, err)
		}
	}
}

// ex56 returns the global ex56 system; every rank builds the same one, the reference.
func ex56(t *testing.T, ne int) (*bsr.Matrix, []float64) {
	a, rhs, _, err := fem.Ex56System(ne, 0)
	if err != nil {
		t.Fatal(err)
	}
	return a, rhs
}

// namedLayout is a layout a test runs on.
type namedLayout struct {
	name string
	l    dist.Layout
}

// layouts returns the layouts a test runs on, in a fixed order (every rank must build
// the same matrices in the same order): even, and one skewed towards the last rank
// so that ranges differ in size.
func layouts(n, size int) []namedLayout {
	off := make([]int, size+1)
	for r := 1; r < size; r++ {
		off[r] = n * r / (2 * size)
	}
	off[size] = n
	skew, err := dist.NewLayout(off)
	if err != nil {
		panic(err)
	}
	return []namedLayout{{"even", dist.EvenLayout(n, size)}, {"skewed", skew}}
}

// worldMax returns the maximum of v over the ranks.
func worldMax(t *testing.T, c *mpi.Comm, v float64) float64 {
	b := []float64{v}
	if err := c.AllreduceFloat64(mpi.Max, b); err != nil {
		t.Fatal(err)
	}
	return b[0]
}

func TestMulVec(t *testing.T) {
	mpitest.Run(t, []int{2, 3}, func(t *testing.T, c *mpi.Comm) {
		for _, ne := range []int{6, 9} {
			a, _ := ex56(t, ne)
			for _, nl := range layouts(a.BlockRows, c.Size()) {
				name, l := nl.name, nl.l
				lo, hi := l.Range(c.Rank())
				m, err := dist.NewMatrix(c, l, dist.Slice(a, lo, hi))
				if err != nil {
					t.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(uint64(ne), 26))
				x := make([]float64, a.Cols())
				for i := range x {
					x[i] = rng.Float64()*2 - 1
				}
				ys := make([]float64, a.Rows())
				a.MulVec(1, x, 0, ys)
				xl, yd := x[lo*3:hi*3], make([]float64, m.LocalLen())
				if err := m.MulVec(xl, yd); err != nil {
					t.Fatal(err)
				}
				ymax, diff := 0.0, 0.0
				for i, v := range ys {
					ymax = math.Max(ymax, math.Abs(v))
					if i >= lo*3 && i < hi*3 {
						diff = math.Max(diff, math.Abs(yd[i-lo*3]-v))
					}
				}
				if rel := worldMax(t, c, diff) / ymax; rel > 1e-14 {
					t.Errorf("ne=%d %s: MulVec differs from the serial SpMV by %.3g relative", ne, name, rel)
				}
				// The same bits on every repeat and from a matrix built again.
				m2, err := dist.NewMatrix(c, l, dist.Slice(a, lo, hi))
				if err != nil {
					t.Fatal(err)
				}
				for rep := 0; rep < 3; rep++ {
					y2 := make([]float64, len(yd))
					mm := m
					if rep == 2 {
						mm = m2
					}
					if err := mm.MulVec(xl, y2); err != nil {
						t.Fatal(err)
					}
					for i := range y2 {
						if math.Float64bits(y2[i]) != math.Float64bits(yd[i]) {
							t.Fatalf("ne=%d %s: repeat %d differs at %d: %v vs %v", ne, name, rep, i, y2[i], yd[i])
						}
					}
				}
				// Dot against the serial dot.
				d, err := dist.Dot(c, xl, yd)
				if err != nil {
					t.Fatal(err)
				}
				s := 0.0
				for i := range x {
					s += x[i] * ys[i]
				}
				if math.Abs(d-s) > 1e-13*math.Abs(s) {
					t.Errorf("ne=%d %s: Dot %v, serial %v", ne, name, d, s)
				}
				checkPlan(t, c, a, m, name)
			}
		}
	})
}

// checkPlan checks the halo plan against the ghost columns counted from the global
// matrix, and the counters of MulVec against the plan.
func checkPlan(t *testing.T, c *mpi.Comm, a *bsr.Matrix, m *dist.Matrix, name string) {
	want := map[int32]bool{}
	for i := m.Lo; i < m.Hi; i++ {
		for _, j := range a.ColIdx[a.RowPtr[i]:a.RowPtr[i+1]] {
			if int(j) < m.Lo || int(j) >= m.Hi {
				want[j] = true
			}
		}
	}
	if len(m.GhostCols) != len(want) || m.Halo.RecvBlocks() != len(want) {
		t.Errorf("%s: %d ghosts, %d received blocks, the global pattern has %d", name, len(m.GhostCols), m.Halo.RecvBlocks(), len(want))
	}
	for k, g := range m.GhostCols {
		if !want[g] || (k > 0 && m.GhostCols[k-1] >= g) {
			t.Errorf("%s: ghost %d is column %d: not needed or not ascending", name, k, g)
		}
	}
	// What all ranks send is what all ranks receive.
	tot := []int64{m.Halo.SendBytes(), m.Halo.RecvBytes()}
	if err := c.AllreduceInt64(mpi.Sum, tot); err != nil {
		t.Fatal(err)
	}
	if tot[0] != tot[1] || (c.Size() > 1 && tot[0] == 0) {
		t.Errorf("%s: world sends %d bytes and receives %d", name, tot[0], tot[1])
	}
	const k = 4
	prev := c.SetPhase("halo-" + name)
	x, y := make([]float64, m.LocalLen()), make([]float64, m.LocalLen())
	for range k {
		if err := m.MulVec(x, y); err != nil {
			t.Fatal(err)
		}
	}
	tr := c.Traffic("halo-" + name)
	c.SetPhase(prev)
	c.ResetCounters()
	h := m.Halo
	if tr.Sends != k*int64(len(h.Send)) || tr.Recvs != k*int64(len(h.Recv)) ||
		tr.BytesSent != k*h.SendBytes() || tr.BytesRecv != k*h.RecvBytes() || tr.Collectives != 0 {
		t.Errorf("%s: %d MulVec counted %+v; the plan has %d sends of %d bytes, %d receives of %d bytes",
			name, k, tr, len(h.Send), h.SendBytes(), len(h.Recv), h.RecvBytes())
	}
	if c.Rank() == 0 {
		t.Logf("%s: rank 0 per MulVec: %d sends %d B, %d receives %d B", name, len(h.Send), h.SendBytes(), len(h.Recv), h.RecvBytes())
	}
}

// serialCG is block-Jacobi CG on the global matrix, written independently of dist.CG:
// same stopping rule, ‖r‖ ≤ rtol‖b‖ from x = 0.
func serialCG(a *bsr.Matrix, b []float64, rtol float64, maxIter int) ([]float64, int) {
	dinv, err := a.InvertDiag()
	if err != nil {
		panic(err)
	}
	n := len(b)
	prec := func(r, z []float64) {
		for i := 0; i < n/3; i++ {
			d := dinv[9*i : 9*i+9]
			for s := 0; s < 3; s++ {
				z[3*i+s] = d[3*s]*r[3*i] + d[3*s+1]*r[3*i+1] + d[3*s+2]*r[3*i+2]
			}
		}
	}
	dot := func(u, v []float64) float64 {
		s := 0.0
		for i := range u {
			s += u[i] * v[i]
		}
		return s
	}
	x, r, z, p, q := make([]float64, n), append([]float64(nil), b...), make([]float64, n), make([]float64, n), make([]float64, n)
	bn := math.Sqrt(dot(b, b))
	prec(r, z)
	copy(p, z)
	rz := dot(r, z)
	for it := 1; it <= maxIter; it++ {
		a.MulVec(1, p, 0, q)
		alpha := rz / dot(p, q)
		for i := range x {
			x[i] += alpha * p[i]
			r[i] -= alpha * q[i]
		}
		if math.Sqrt(dot(r, r)) <= rtol*bn {
			return x, it
		}
		prec(r, z)
		rz1 := dot(r, z)
		for i := range p {
			p[i] = z[i] + rz1/rz*p[i]
		}
		rz = rz1
	}
	return x, -1
}

func TestBlockJacobiCG(t *testing.T) {
	mpitest.Run(t, []int{2, 3}, func(t *testing.T, c *mpi.Comm) {
		const rtol = 1e-8
		a, rhs := ex56(t, 9)
		xs, its := serialCG(a, rhs, rtol, 2000)
		if its < 0 {
			t.Fatal("the serial CG did not converge")
		}
		l := dist.EvenLayout(a.BlockRows, c.Size())
		lo, hi := l.Range(c.Rank())
		m, err := dist.NewMatrix(c, l, dist.Slice(a, lo, hi))
		if err != nil {
			t.Fatal(err)
		}
		pc, err := dist.NewBlockJacobi(m)
		if err != nil {
			t.Fatal(err)
		}
		var first []float64
		for run := 0; run < 2; run++ {
			x := make([]float64, m.LocalLen())
			res, err := dist.CG(m, pc, rhs[lo*3:hi*3], x, rtol, 2000)
			if err != nil {
				t.Fatal(err)
			}
			if d := res.Iterations - its; d < -1 || d > 1 {
				t.Errorf("distributed CG: %d iterations, serial %d", res.Iterations, its)
			}
			diff, xmax := 0.0, 0.0
			for i, v := range xs {
				xmax = math.Max(xmax, math.Abs(v))
				if i >= lo*3 && i < hi*3 {
					diff = math.Max(diff, math.Abs(x[i-lo*3]-v))
				}
			}
			if rel := worldMax(t, c, diff) / xmax; rel > 1e-8 {
				t.Errorf("solutions differ by %.3g relative", rel)
			}
			if run == 0 {
				first = x
				if c.Rank() == 0 {
					t.Logf("ne=9 on %d ranks: %d iterations (serial %d), residual %.3g", c.Size(), res.Iterations, its, res.Residual)
				}
				continue
			}
			for i := range x {
				if math.Float64bits(x[i]) != math.Float64bits(first[i]) {
					t.Fatalf("second solve differs at %d", i)
				}
			}
		}
	})
}
