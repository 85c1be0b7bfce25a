package dist_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/dist"
	"github.com/blockamg/blockamg/dist/internal/mpitest"
	"github.com/blockamg/blockamg/dist/mpi"
)

// TestDigest: the same matrix gives the same sum; one ulp in any value, one column
// index, the shape, a string's last byte or the order of two parts changes it.
func TestDigest(t *testing.T) {
	a, _ := ex56(t, 3)
	sum := func(f func(d *dist.Digest)) uint64 {
		var d dist.Digest
		f(&d)
		return d.Sum()
	}
	ref := sum(func(d *dist.Digest) { d.Matrix(a) })
	if again := sum(func(d *dist.Digest) { d.Matrix(a) }); again != ref {
		t.Fatalf("the same matrix: %x then %x", ref, again)
	}
	seen := map[uint64]string{ref: "the matrix"}
	check := func(what string, s uint64) {
		t.Helper()
		if prev, ok := seen[s]; ok {
			t.Errorf("%s: the same sum %x as %s", what, s, prev)
		}
		seen[s] = what
	}
	for _, k := range []int{0, 1, 5, len(a.Val) / 2, len(a.Val) - 2, len(a.Val) - 1} {
		v := a.Val[k]
		a.Val[k] = math.Nextafter(v, math.Inf(1))
		check(fmt.Sprintf("one ulp in value %d", k), sum(func(d *dist.Digest) { d.Matrix(a) }))
		a.Val[k] = v
	}
	j := a.ColIdx[len(a.ColIdx)-1]
	a.ColIdx[len(a.ColIdx)-1] = j - 1
	check("a column index", sum(func(d *dist.Digest) { d.Matrix(a) }))
	a.ColIdx[len(a.ColIdx)-1] = j
	a.BlockCols++
	check("the shape", sum(func(d *dist.Digest) { d.Matrix(a) }))
	a.BlockCols--
	check("a string", sum(func(d *dist.Digest) { d.String("--ne=9 --rtol=1e-08") }))
	check("its last byte", sum(func(d *dist.Digest) { d.String("--ne=9 --rtol=1e-09") }))
	check("two parts", sum(func(d *dist.Digest) { d.Int(1); d.Int(2) }))
	check("swapped", sum(func(d *dist.Digest) { d.Int(2); d.Int(1) }))
	if sum(func(d *dist.Digest) { d.Matrix(a) }) != ref {
		t.Fatal("the matrix's sum changed after its values were restored")
	}
}

// TestAgree: equal sums agree; a sum that differs on some ranks is ErrMismatch on
// every rank, naming them.
func TestAgree(t *testing.T) {
	mpitest.Run(t, []int{2, 3}, func(t *testing.T, c *mpi.Comm) {
		if err := dist.Agree(c, "inputs", 42); err != nil {
			t.Fatalf("equal sums: %v", err)
		}
		s := uint64(42)
		if c.Rank() == c.Size()-1 {
			s = 43
		}
		err := dist.Agree(c, "options", s)
		if !errors.Is(err, dist.ErrMismatch) {
			t.Fatalf("rank %d: one rank's sum differs: %v, want ErrMismatch", c.Rank(), err)
		}
		want := fmt.Sprintf("the options of rank %d differ", c.Size()-1)
		if !strings.Contains(err.Error(), want) {
			t.Errorf("rank %d: %q does not say %q", c.Rank(), err, want)
		}
	})
}
