package dist

import (
	"fmt"
	"sort"
)

// Layout splits n global block rows into contiguous ranges, one per rank: rank r owns
// block rows [Offsets[r], Offsets[r+1]). The same layout numbers vector blocks.
type Layout struct {
	Offsets []int // len size+1, non-decreasing, Offsets[0] == 0, Offsets[size] == n
}

// EvenLayout splits n block rows over size ranks as evenly as possible, the first
// n mod size ranks holding one row more. It panics when size < 1 or n < 0.
func EvenLayout(n, size int) Layout {
	if size < 1 || n < 0 {
		panic("dist: EvenLayout needs size ≥ 1 and n ≥ 0")
	}
	off := make([]int, size+1)
	q, r := n/size, n%size
	for i := 0; i < size; i++ {
		off[i+1] = off[i] + q
		if i < r {
			off[i+1]++
		}
	}
	return Layout{Offsets: off}
}

// NewLayout returns the layout with the given offsets (copied), or an error wrapping
// ErrLayout when they do not start at 0 or decrease.
func NewLayout(offsets []int) (Layout, error) {
	if len(offsets) < 2 || offsets[0] != 0 {
		return Layout{}, fmt.Errorf("%w: offsets must start at 0 and name at least one rank", ErrLayout)
	}
	for i := 1; i < len(offsets); i++ {
		if offsets[i] < offsets[i-1] {
			return Layout{}, fmt.Errorf("%w: offset %d (%d) below offset %d (%d)", ErrLayout, i, offsets[i], i-1, offsets[i-1])
		}
	}
	return Layout{Offsets: append([]int(nil), offsets...)}, nil
}

// Size returns the number of ranks.
func (l Layout) Size() int { return len(l.Offsets) - 1 }

// N returns the number of global block rows.
func (l Layout) N() int { return l.Offsets[len(l.Offsets)-1] }

// Range returns the block rows rank owns, [lo, hi).
func (l Layout) Range(rank int) (lo, hi int) { return l.Offsets[rank], l.Offsets[rank+1] }

// Owner returns the rank owning global block row g (of a range that is not empty).
// It panics when g is outside [0, N()).
func (l Layout) Owner(g int) int {
	if g < 0 || g >= l.N() {
		panic("dist: Owner: block row outside the layout")
	}
	// The first rank whose end passes g; empty ranges are skipped by the strict test.
	return sort.Search(l.Size(), func(r int) bool { return l.Offsets[r+1] > g })
}
