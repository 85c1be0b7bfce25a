package bsr

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestToDense(t *testing.T) {
	forEachCase(t, func(t *testing.T, rng *rand.Rand, nbr, nbc, r, c int) {
		m, d := randMatrix(t, rng, nbr, nbc, r, c)
		equalDense(t, "ToDense", m.ToDense(), d)
	})
}

func TestScaleAndAdd(t *testing.T) {
	withSmallChunks(t)
	forEachCase(t, func(t *testing.T, rng *rand.Rand, nbr, nbc, r, c int) {
		m, d := randMatrix(t, rng, nbr, nbc, r, c)
		o := m.ClonePattern()
		for i := range o.Val {
			o.Val[i] = rng.NormFloat64()
		}
		od := walkDense(o)
		s := m.Clone()
		s.Scale(-1.5)
		for i, v := range s.ToDense() {
			if v != -1.5*d[i] {
				t.Fatalf("Scale: entry %d = %v, want %v", i, v, -1.5*d[i])
			}
		}
		a := m.Clone()
		a.AddSamePattern(0.25, o)
		for i, v := range a.ToDense() {
			if v != d[i]+0.25*od[i] {
				t.Fatalf("AddSamePattern: entry %d = %v, want %v", i, v, d[i]+0.25*od[i])
			}
		}
		equalDense(t, "other operand unchanged", walkDense(o), od)
	})
}

func TestAddSamePatternPanics(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	m, _ := randMatrix(t, rng, 10, 10, 2, 2)
	o := m.Clone()
	o.ColIdx[0]++ // still a matrix, different pattern
	if o.ColIdx[0] >= 10 || (o.RowPtr[1] > 1 && o.ColIdx[1] == o.ColIdx[0]) {
		o.ColIdx[0] -= 2
	}
	mustPanic(t, "different pattern", func() { m.AddSamePattern(1, o) })
	mustPanic(t, "different shape", func() { m.AddSamePattern(1, Zeros(10, 10, 2, 1)) })
}

func TestNorms(t *testing.T) {
	withSmallChunks(t)
	forEachCase(t, func(t *testing.T, rng *rand.Rand, nbr, nbc, r, c int) {
		m, d := randMatrix(t, rng, nbr, nbc, r, c)
		want := 0.0
		for _, v := range d {
			want += v * v
		}
		want = math.Sqrt(want)
		if got := m.FrobeniusNorm(); math.Abs(got-want) > 1e-14*want {
			t.Fatalf("FrobeniusNorm %v, want %v", got, want)
		}
		bn := m.BlockNorms()
		if int64(len(bn)) != m.NNZBlocks() {
			t.Fatalf("%d block norms for %d blocks", len(bn), m.NNZBlocks())
		}
		total := 0.0
		for i := 0; i < m.BlockRows; i++ {
			for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
				j := int(m.ColIdx[k])
				s := 0.0
				for ii := 0; ii < r; ii++ {
					for jj := 0; jj < c; jj++ {
						v := d[(i*r+ii)*nbc*c+j*c+jj]
						s += v * v
					}
				}
				if math.Abs(bn[k]-math.Sqrt(s)) > 1e-14*math.Sqrt(s) {
					t.Fatalf("block %d norm %v, want %v", k, bn[k], math.Sqrt(s))
				}
				total += bn[k] * bn[k]
			}
		}
		if math.Abs(math.Sqrt(total)-want) > 1e-13*want {
			t.Fatalf("block norms do not add up to the Frobenius norm")
		}
	})
}

// Norms must survive values whose squares overflow or underflow.
func TestNormScaling(t *testing.T) {
	m, err := FromBlockTriplets(1, 2, 1, 2, []int32{0, 0}, []int32{0, 1}, []float64{3e200, 4e200, 3e-200, 4e-200})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.BlockNorms(); math.Abs(got[0]-5e200) > 1e186 || math.Abs(got[1]-5e-200) > 1e-214 {
		t.Fatalf("block norms %v, want [5e200 5e-200]", got)
	}
	if got := m.FrobeniusNorm(); math.Abs(got-5e200) > 1e186 {
		t.Fatalf("FrobeniusNorm %v, want 5e200", got)
	}
	if !m.ApproxEqual(m.Clone(), 0) {
		t.Fatal("huge matrix not equal to itself")
	}
}

func TestApproxEqual(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m, _ := randMatrix(t, rng, 20, 15, 3, 2)
	if !m.ApproxEqual(m.Clone(), 0) {
		t.Fatal("not equal to its clone at rtol 0")
	}
	// Perturb one value by a known relative amount.
	p := m.Clone()
	p.Val[3] += 1e-6 * m.FrobeniusNorm()
	if m.ApproxEqual(p, 1e-7) || !m.ApproxEqual(p, 1e-5) || p.ApproxEqual(m, 1e-7) {
		t.Fatal("perturbation of relative size 1e-6 misjudged")
	}
	// Same values with an extra explicit-zero block: equal although patterns differ.
	var bi, bj []int32
	var vals []float64
	for i := 0; i < m.BlockRows; i++ {
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			bi, bj = append(bi, int32(i)), append(bj, m.ColIdx[k])
		}
	}
	vals = append(vals, m.Val...)
	bi, bj = append(bi, 0, 19), append(bj, 0, 14)
	vals = append(vals, make([]float64, 12)...)
	z, err := FromBlockTriplets(20, 15, 3, 2, bi, bj, vals)
	if err != nil {
		t.Fatal(err)
	}
	if z.NNZBlocks() == m.NNZBlocks() {
		t.Fatal("test setup: explicit zeros did not change the pattern")
	}
	if !m.ApproxEqual(z, 0) || !z.ApproxEqual(m, 0) {
		t.Fatal("explicit zero blocks made matrices unequal")
	}
	// A block present in one only, with a non-zero value, is a difference.
	vals[len(vals)-1] = 1
	z, _ = FromBlockTriplets(20, 15, 3, 2, bi, bj, vals)
	rel := 1 / math.Max(m.FrobeniusNorm(), z.FrobeniusNorm())
	if m.ApproxEqual(z, 0.9*rel) || !m.ApproxEqual(z, 1.1*rel) || z.ApproxEqual(m, 0.9*rel) {
		t.Fatal("difference in a block stored on one side misjudged")
	}
	// Shapes differ, NaN.
	if m.ApproxEqual(Zeros(20, 15, 2, 3), 1) || m.ApproxEqual(Zeros(20, 16, 3, 2), 1) {
		t.Fatal("different shapes reported equal")
	}
	n := m.Clone()
	n.Val[0] = math.NaN()
	if n.ApproxEqual(m, 1e300) || m.ApproxEqual(n, 1e300) {
		t.Fatal("NaN reported equal")
	}
	if !Zeros(3, 3, 2, 2).ApproxEqual(Zeros(3, 3, 2, 2), 0) {
		t.Fatal("zero matrices unequal")
	}
}
