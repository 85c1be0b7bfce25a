package lru

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// naive is the reference: keys in a slice, least recent first.
type naive struct {
	cap   int
	order []uint64
}

// access returns whether k was present and the key evicted (ok false when none).
func (c *naive) access(k uint64) (hit bool, gone uint64, ok bool) {
	if i := slices.Index(c.order, k); i >= 0 {
		c.order = append(c.order[:i], c.order[i+1:]...)
		hit = true
	} else if len(c.order) == c.cap {
		gone, ok = c.order[0], true
		c.order = c.order[1:]
	}
	c.order = append(c.order, k)
	return hit, gone, ok
}

// TestCacheMatchesNaive drives the cache and a naive LRU with random streams (reuse at
// every distance, and far keys that land in other probe runs) and checks every
// access: hit or miss, the key evicted, and that the slot returned holds the key.
func TestCacheMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, slots := range []int{1, 2, 7, 64, 333} {
		c, ref := New(slots), &naive{cap: slots}
		owner := map[int32]uint64{}
		for n := 0; n < 20000; n++ {
			k := rng.Uint64N(uint64(3 * slots))
			if rng.IntN(4) == 0 {
				k = rng.Uint64() >> 20
			}
			s, hit, ev := c.Access(k)
			rhit, gone, rok := ref.access(k)
			if hit != rhit || ev != rok {
				t.Fatalf("%d slots, access %d (key %d): hit %v evicted %v, the reference %v %v", slots, n, k, hit, ev, rhit, rok)
			}
			if ev && owner[s] != gone {
				t.Fatalf("%d slots, access %d: slot %d held key %d, the reference evicted %d", slots, n, s, owner[s], gone)
			}
			owner[s] = k
			if c.Key(s) != k {
				t.Fatalf("%d slots: slot %d holds key %d after accessing %d", slots, s, c.Key(s), k)
			}
		}
		if int(c.Used()) != len(ref.order) {
			t.Errorf("%d slots: %d in use, the reference holds %d", slots, c.Used(), len(ref.order))
		}
	}
}
