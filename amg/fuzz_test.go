package amg

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/galerkin"
	"github.com/blockamg/blockamg/krylov"
)

// FuzzSetupSolve builds a small block matrix, a near-null space, amg options and CG
// options from the bytes, runs Setup and preconditioned CG, and checks three oracles:
//
//  1. every error wraps one of the documented sentinels (fuzzErrOK);
//  2. every success passes an independent residual check: ‖b − A·x‖₂, computed here
//     with a naive loop over the BSR arrays, meets CG's target up to rounding;
//  3. Workers 1 and 2 give the same bits of x, the same iteration count and the same
//     error text. minChunk is lowered so that this package's phases split even these
//     small levels; bsr's and galerkin's thresholds are their packages' own and
//     cannot be lowered from here, so their kernels run on one goroutine at these sizes.
//
// The matrices are random: some SPD by construction (symmetric and diagonally
// dominant), some symmetric and indefinite, some not symmetric at all, some with
// missing or singular diagonal blocks. Inputs shorter than what they describe are
// continued by a generator seeded from the input, so a few bytes make a full problem.
func FuzzSetupSolve(f *testing.F) {
	old := minChunk
	minChunk = 1
	f.Cleanup(func() { minChunk = old })
	for _, s := range [][]byte{
		{},
		{0, 0, 0, 0},
		{2, 40, 0x10, 1, 7, 3, 1, 0, 0, 9, 2, 1, 2, 0, 0, 0, 1},
		{1, 59, 0x31, 3, 1, 0, 2, 200, 255, 0, 1, 0, 2, 4},
		[]byte("blockamg fuzz: a few words make a whole problem"),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := newFuzzProblem(data)
		var xs [2][]float64
		var res [2]krylov.Result
		var errs [2]error
		for k, w := range []int{1, 2} {
			xs[k], res[k], errs[k] = p.run(w)
			if err := errs[k]; err != nil && !fuzzErrOK(err) {
				t.Fatalf("workers %d: error wraps no documented sentinel: %v (%T)\n%s", w, err, err, p)
			}
			if errs[k] == nil {
				p.checkResidual(t, xs[k], res[k])
			}
		}
		if fmt.Sprint(errs[0]) != fmt.Sprint(errs[1]) {
			t.Fatalf("error depends on workers:\n 1: %v\n 2: %v\n%s", errs[0], errs[1], p)
		}
		if res[0].Iterations != res[1].Iterations || !sameBits(xs[0], xs[1]) {
			t.Fatalf("solution depends on workers: %d vs %d iterations, same bits %v\n%s",
				res[0].Iterations, res[1].Iterations, sameBits(xs[0], xs[1]), p)
		}
	})
}

// fuzzSolve is the one place the fuzz target solves: preconditioned CG on the
// hierarchy's fine operator. Re-point it to fuzz another solve path.
func fuzzSolve(h *Hierarchy, b, x []float64, opt krylov.Options) (krylov.Result, error) {
	return refCG(h, b, x, opt)
}

// fuzzErrOK reports whether err wraps one of the errors Setup and CG document.
func fuzzErrOK(err error) bool {
	var nc *krylov.NotConvergedError
	var bd *krylov.BreakdownError
	for _, s := range []error{ErrOptions, ErrInput, ErrNotSPD, ErrStalled, ErrPattern, bsr.ErrSingular, krylov.ErrTolerance} {
		if errors.Is(err, s) {
			return true
		}
	}
	return errors.As(err, &nc) || errors.As(err, &bd)
}

// fuzzBytes hands out the input's bytes and, once they run out, bytes of a generator
// seeded from the whole input.
type fuzzBytes struct {
	data  []byte
	state uint64
	wild  bool // value may return extreme magnitudes and signed zeros
}

func (r *fuzzBytes) byte() byte {
	if len(r.data) > 0 {
		c := r.data[0]
		r.data = r.data[1:]
		return c
	}
	// splitmix64
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return byte(z ^ z>>31)
}

// intn returns a value in [0, n).
func (r *fuzzBytes) intn(n int) int { return int(r.byte()) % n }

// value returns a matrix or vector entry: modest values of either sign, some zero, and
// for a wild problem now and then a huge or tiny magnitude or a negative zero.
func (r *fuzzBytes) value() float64 {
	c := r.byte()
	v := float64(int8(r.byte())) / 32
	if c%8 == 0 {
		return 0
	}
	if !r.wild || c%4 != 1 {
		return v
	}
	switch c >> 5 {
	case 0:
		return v * 1e100
	case 1:
		return v * 1e-100
	case 2:
		return math.Copysign(0, -1)
	}
	return math.Ldexp(v, int(int8(r.byte())))
}

// fuzzProblem is what one input describes.
type fuzzProblem struct {
	A    *bsr.Matrix
	ns   *NullSpace // nil: the default constant modes
	b    []float64
	opt  Options
	kopt krylov.Options
	kind string // how A was made, for messages
}

func newFuzzProblem(data []byte) *fuzzProblem {
	r := &fuzzBytes{data: data, state: 0x5eed}
	for _, c := range data {
		r.state = (r.state ^ uint64(c)) * 0x100000001b3
	}
	p := &fuzzProblem{}
	bs := 1 + r.intn(4)
	nb := r.intn(61)
	shape := r.byte()
	// Half the problems SPD by construction, a quarter symmetric but (likely)
	// indefinite, a quarter not symmetric (diagonally dominant or not).
	symmetric := shape&3 != 3
	dominant := shape&3 <= 1 || shape&3 == 3 && shape&4 != 0
	r.wild = shape&0x18 == 0x18                 // a quarter with extreme values
	dropDiag := shape&0x20 != 0 && shape&4 != 0 // now and then a row without its diagonal block
	deg := 1 + int(shape>>6)                    // off-diagonal blocks per block row
	band := 1 + r.intn(8)                       // how far neighbours reach (8: anywhere)
	p.kind = fmt.Sprintf("%d block rows of %d×%d, symmetric %v, diagonally dominant %v (SPD when both), wild values %v, drop diagonals %v, %d neighbours within %d",
		nb, bs, bs, symmetric, dominant, r.wild, dropDiag, deg, band)

	var bi, bj []int32
	var vals []float64
	add := func(i, j int, blk []float64) {
		bi, bj = append(bi, int32(i)), append(bj, int32(j))
		vals = append(vals, blk...)
	}
	blk := make([]float64, bs*bs)
	tr := make([]float64, bs*bs)
	for i := 0; i < nb; i++ {
		for range deg {
			j := r.intn(nb)
			if band < 8 {
				j = i + r.intn(2*band+1) - band
			}
			if j < 0 || j >= nb || j == i {
				continue
			}
			for q := range blk {
				blk[q] = r.value()
			}
			add(i, j, blk)
			if symmetric {
				for a := 0; a < bs; a++ {
					for c := 0; c < bs; c++ {
						tr[c*bs+a] = blk[a*bs+c]
					}
				}
				add(j, i, tr)
			}
		}
	}
	// Diagonal blocks: symmetric ones for a symmetric matrix; for a dominant one, made
	// strictly diagonally dominant by a shift once the off-diagonal sums are known
	// (with symmetry, that makes the matrix SPD).
	diag := make([][]float64, nb)
	for i := range diag {
		d := make([]float64, bs*bs)
		for a := 0; a < bs; a++ {
			for c := 0; c < bs; c++ {
				if !symmetric || c >= a {
					d[a*bs+c] = r.value()
				} else {
					d[a*bs+c] = d[c*bs+a]
				}
			}
		}
		diag[i] = d
	}
	if dominant {
		rowAbs := make([]float64, nb*bs)
		for k := range bi {
			for a := 0; a < bs; a++ {
				for c := 0; c < bs; c++ {
					rowAbs[int(bi[k])*bs+a] += math.Abs(vals[k*bs*bs+a*bs+c])
				}
			}
		}
		shift := math.Ldexp(1, r.intn(20)-10)
		for i, d := range diag {
			for a := 0; a < bs; a++ {
				s := rowAbs[i*bs+a]
				for c := 0; c < bs; c++ {
					if c != a {
						s += math.Abs(d[a*bs+c])
					}
				}
				d[a*bs+a] = s + shift
			}
		}
	}
	for i, d := range diag {
		if dropDiag && r.intn(16) == 0 {
			continue
		}
		add(i, i, d)
	}
	// Values stay below 2¹³⁰ in magnitude, so summing duplicates cannot overflow.
	A, err := bsr.FromBlockTriplets(nb, nb, bs, bs, bi, bj, vals)
	if err != nil {
		panic(err)
	}
	p.A = A

	// Near-null space: mostly the default constant modes, at times random vectors.
	if c := r.byte(); c%4 == 0 {
		k := 1 + int(c>>2)%(bs+2)
		p.ns = &NullSpace{Rows: nb * bs, Cols: k, Data: make([]float64, nb*bs*k)}
		for q := range p.ns.Data {
			p.ns.Data[q] = r.value()
		}
	}

	o := DefaultOptions()
	switch c := r.byte(); c % 4 {
	case 0:
		o.Threshold = 0
	case 1:
		o.Threshold = -1
	default:
		o.Threshold = float64(c) / 255 * 0.5
	}
	o.SmootherIts = 1 + r.intn(3)
	o.AggNSmooths = r.intn(3)
	o.AggressiveLevels = r.intn(3)
	if c := r.byte(); c%2 == 0 {
		o.FilterTheta = float64(c) / 254
		o.FilterScale = []float64{1, 0.5, 2}[int(c>>1)%3]
	}
	o.MaxLevels = 1 + r.intn(6)
	o.CoarseEqLimit = 1 + r.intn(100)
	o.EstEigKSPMaxIt = 1 + r.intn(12)
	flags := r.byte()
	o.Symmetric = flags&1 != 0
	o.SmootherFloat32 = flags&2 != 0
	if flags&4 != 0 {
		o.GalerkinVariant = galerkin.Variants[int(flags>>3)%len(galerkin.Variants)]
	}
	if flags&0x80 != 0 {
		o.ProlongDamping = float64(1+r.intn(254)) / 128
	}
	p.opt = o

	p.b = make([]float64, nb*bs)
	switch r.intn(4) {
	case 0: // zero: converged at once
	case 1: // A·1
		one := make([]float64, nb*bs)
		for q := range one {
			one[q] = 1
		}
		A.MulVec(1, one, 0, p.b)
	default:
		for q := range p.b {
			p.b[q] = r.value()
		}
	}
	p.kopt = krylov.DefaultOptions()
	p.kopt.RelTol = []float64{1e-8, 1e-6, 1e-10, 1e-3}[r.intn(4)]
	p.kopt.MaxIter = 1 + r.intn(200)
	return p
}

func (p *fuzzProblem) String() string {
	return fmt.Sprintf("problem: %s\nnear-null space %v, options %+v\nCG options %+v",
		p.kind, p.ns != nil, p.opt, p.kopt)
}

// run sets up with the given worker count and solves from x = 0.
func (p *fuzzProblem) run(workers int) ([]float64, krylov.Result, error) {
	opt := p.opt
	opt.Workers = workers
	x := make([]float64, len(p.b))
	h, err := Setup(p.A, p.ns, opt)
	if err != nil {
		return x, krylov.Result{}, err
	}
	kopt := p.kopt
	kopt.Workers = workers
	res, err := fuzzSolve(h, p.b, x, kopt)
	return x, res, err
}

// checkResidual recomputes ‖b − A·x‖₂ by a naive loop over the BSR arrays and checks it
// against CG's target, with slack for the different order of the sums: each entry of
// A·x may differ by about (stored entries in its row)·ε·(|A|·|x|)_i.
func (p *fuzzProblem) checkResidual(t *testing.T, x []float64, res krylov.Result) {
	t.Helper()
	A, bs := p.A, p.A.R
	var rr, slack float64
	for i := 0; i < A.BlockRows; i++ {
		nnz := float64((A.RowPtr[i+1] - A.RowPtr[i]) * int64(bs))
		for a := 0; a < bs; a++ {
			s, abs := p.b[i*bs+a], math.Abs(p.b[i*bs+a])
			for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
				j := int(A.ColIdx[k])
				for c := 0; c < bs; c++ {
					v := A.Val[k*int64(bs*bs)+int64(a*bs+c)] * x[j*bs+c]
					s -= v
					abs += math.Abs(v)
				}
			}
			rr += s * s
			e := 4 * (nnz + 2) * 0x1p-52 * abs
			slack += e * e
		}
	}
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("converged to a non-finite x\n%s", p)
		}
	}
	got := math.Sqrt(rr)
	if !(res.Residual <= res.Target) {
		t.Fatalf("success with residual %g above the target %g\n%s", res.Residual, res.Target, p)
	}
	if !(got <= res.Target+math.Sqrt(slack)+1e-300) {
		t.Fatalf("success, but ‖b − A·x‖₂ = %g > target %g (+ rounding slack %g); CG reported %g after %d iterations\n%s",
			got, res.Target, math.Sqrt(slack), res.Residual, res.Iterations, p)
	}
}
