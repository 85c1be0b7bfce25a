package cuda

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/backend/backendtest"
	"github.com/blockamg/blockamg/bsr"
)

// TestInvertBlockDiagSingular: a zero diagonal block is InvertBlockDiag's error naming
// its block row (the least one), after which the flag is reset: a regular matrix
// inverts without error, and a later singular row is reported by its own number.
func TestInvertBlockDiagSingular(t *testing.T) {
	be := device(t)
	a := backendtest.SPDProblem(7, 4, 0.05)
	inv, err := a.InvertDiag()
	if err != nil {
		t.Fatal(err)
	}
	d, err := be.UploadBlockDiag(a.BlockRows, a.R, make([]float64, len(inv)))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free()
	zeroDiag := func(rows ...int) *Matrix {
		m := a.Clone()
		for _, i := range rows {
			k, ok := m.Find(i, i)
			if !ok {
				t.Fatalf("row %d has no diagonal block", i)
			}
			clear(m.Block(k))
		}
		dm, err := be.UploadMatrixBSR(m, false)
		if err != nil {
			t.Fatal(err)
		}
		return dm
	}
	for _, c := range []struct {
		rows []int
		want int // −1: no error
	}{{[]int{9, 5}, 5}, {nil, -1}, {[]int{2}, 2}, {nil, -1}} {
		dm := zeroDiag(c.rows...)
		err := be.InvertBlockDiag(dm, d)
		dm.Free()
		switch {
		case c.want < 0 && err != nil:
			t.Errorf("regular matrix after a rejected one: %v", err)
		case c.want >= 0 && (!errors.Is(err, ErrSingularBlock) || !strings.Contains(err.Error(), fmt.Sprintf("block row %d:", c.want))):
			t.Errorf("zero diagonal blocks in rows %v: %v, want ErrSingularBlock naming block row %d", c.rows, err, c.want)
		}
	}
	got := make([]float64, len(inv))
	if err := d.(*BlockDiag).val.Download(got); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if math.Abs(got[i]-inv[i]) > 1e-12*math.Max(1, math.Abs(inv[i])) {
			t.Fatalf("inverse entry %d: %v, host %v", i, got[i], inv[i])
		}
	}
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestInvertBlockDiagSizes: the inverses of 3×3 and 6×6 blocks (specialised kernels)
// and of 1×1, 2×2 and 4×4 blocks (the run-time-size kernel) against bsr.InvertDiag, on
// random diagonally dominant blocks with one off-diagonal block per row.
func TestInvertBlockDiagSizes(t *testing.T) {
	be := device(t)
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 300
	for _, bs := range []int{1, 2, 3, 4, 6} {
		var bi, bj []int32
		var vals []float64
		for i := 0; i < n; i++ {
			for _, j := range []int{i, (i + 7) % n} {
				bi, bj = append(bi, int32(i)), append(bj, int32(j))
				for r := 0; r < bs; r++ {
					for c := 0; c < bs; c++ {
						v := rng.NormFloat64()
						if i == j && r == c {
							v += 4 * float64(bs)
						}
						vals = append(vals, v)
					}
				}
			}
		}
		a, err := bsr.FromBlockTriplets(n, n, bs, bs, bi, bj, vals)
		if err != nil {
			t.Fatal(err)
		}
		inv, err := a.InvertDiag()
		if err != nil {
			t.Fatal(err)
		}
		nan := make([]float64, len(inv))
		for i := range nan {
			nan[i] = math.NaN()
		}
		d, err := be.UploadBlockDiag(n, bs, nan)
		if err != nil {
			t.Fatal(err)
		}
		dm, err := be.UploadMatrixBSR(a, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := be.InvertBlockDiag(dm, d); err != nil {
			t.Fatalf("%d×%d blocks: %v", bs, bs, err)
		}
		got := make([]float64, len(inv))
		if err := d.(*BlockDiag).val.Download(got); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if !(math.Abs(got[i]-inv[i]) <= 1e-12*math.Max(1, math.Abs(inv[i]))) {
				t.Fatalf("%d×%d blocks: inverse entry %d = %v, host %v", bs, bs, i, got[i], inv[i])
			}
		}
		dm.Free()
		d.Free()
	}
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
}
