package par

import (
	"sync/atomic"
	"testing"
)

// cover checks that body saw every index of [0, n) exactly once.
func cover(t *testing.T, name string, n int, run func(body func(lo, hi int))) {
	t.Helper()
	seen := make([]int32, n)
	run(func(lo, hi int) {
		if lo < 0 || hi > n || lo >= hi {
			t.Errorf("%s: bad chunk [%d,%d) of %d", name, lo, hi, n)
			return
		}
		for i := lo; i < hi; i++ {
			atomic.AddInt32(&seen[i], 1)
		}
	})
	for i, s := range seen {
		if s != 1 {
			t.Fatalf("%s: index %d of %d visited %d times", name, i, n, s)
		}
	}
}

func TestFor(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100, 1001} {
		for _, w := range []int{0, 1, 2, 3, 8, 2000} {
			for _, g := range []int{0, 1, 16} {
				cover(t, "For", n, func(body func(lo, hi int)) { For(n, w, g, body) })
			}
		}
	}
}

func TestForWeighted(t *testing.T) {
	for _, n := range []int{0, 1, 5, 333} {
		prefix := make([]int64, n+1)
		for i := 0; i < n; i++ {
			prefix[i+1] = prefix[i] + int64((i*7919)%13) // uneven rows, some empty
		}
		for _, w := range []int{1, 2, 3, 16} {
			cover(t, "ForWeighted", n, func(body func(lo, hi int)) { ForWeighted(prefix, w, 1, body) })
		}
	}
}

func TestSplit(t *testing.T) {
	for n := 0; n < 50; n++ {
		for chunks := 1; chunks < 9; chunks++ {
			next := 0
			for c := 0; c < chunks; c++ {
				lo, hi := Split(n, chunks, c)
				if lo != next || hi < lo || hi-lo > n/chunks+1 {
					t.Fatalf("Split(%d,%d,%d) = [%d,%d), previous end %d", n, chunks, c, lo, hi, next)
				}
				next = hi
			}
			if next != n {
				t.Fatalf("Split(%d,%d) covers [0,%d)", n, chunks, next)
			}
		}
	}
}
