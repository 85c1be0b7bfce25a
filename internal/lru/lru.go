// Package lru is a fully associative least-recently-used cache of uint64 keys: the
// core of the cache simulations that check the traffic models against the address
// streams they summarise (galerkin.Plan.SimulateTraffic, cuda.SimulateFused). Keys
// map to slots through an open-addressing table (linear probing, backward-shift
// deletion); a doubly linked list over the slots keeps their recency. The cache holds
// keys only: a caller that needs per-line state (dirty bits) keeps it in arrays of its
// own, indexed by the slot Access returns.
package lru

// Cache is a fully associative LRU cache of a fixed number of slots.
type Cache struct {
	cap, used  int32
	head, tail int32 // most and least recently used slot, −1 when empty
	prev, next []int32
	key        []uint64 // the key of each slot in use
	table      []int32  // slot + 1; 0 empty
	mask       uint64
}

// New returns an empty cache of slots slots (at least one).
func New(slots int) *Cache {
	n := int32(max(slots, 1))
	size := 1
	for size < 2*int(n) {
		size *= 2
	}
	return &Cache{cap: n, head: -1, tail: -1, prev: make([]int32, n), next: make([]int32, n),
		key: make([]uint64, n), table: make([]int32, size), mask: uint64(size - 1)}
}

// Used returns the slots in use: slots 0 to Used()−1.
func (c *Cache) Used() int32 { return c.used }

// Key returns the key in slot s (s < Used()).
func (c *Cache) Key(s int32) uint64 { return c.key[s] }

// Access makes key the most recently used. It returns the key's slot and whether the
// key was present; on a miss with every slot in use, the least recently used key is
// evicted and its slot reused (evicted is true, and the caller's state for the slot
// is the evicted key's until it resets it).
func (c *Cache) Access(key uint64) (slot int32, hit, evicted bool) {
	h, ok := c.find(key)
	if ok {
		s := c.table[h] - 1
		if c.head != s {
			c.unlink(s)
			c.pushFront(s)
		}
		return s, true, false
	}
	var s int32
	if c.used < c.cap {
		s = c.used
		c.used++
	} else {
		s = c.tail
		c.unlink(s)
		g, _ := c.find(c.key[s])
		c.remove(g)
		h, _ = c.find(key) // the removal may have moved the empty position
		evicted = true
	}
	c.key[s] = key
	c.table[h] = s + 1
	c.pushFront(s)
	return s, false, evicted
}

func (c *Cache) hash(k uint64) uint64 { return (k * 0x9e3779b97f4a7c15) >> 20 & c.mask }

// find returns the table position of key k, or the empty position where it would go.
func (c *Cache) find(k uint64) (uint64, bool) {
	h := c.hash(k)
	for {
		s := c.table[h]
		if s == 0 {
			return h, false
		}
		if c.key[s-1] == k {
			return h, true
		}
		h = (h + 1) & c.mask
	}
}

// remove empties table position h, moving later entries of its probe run back so
// that every key stays reachable from its home position.
func (c *Cache) remove(h uint64) {
	for {
		c.table[h] = 0
		j := h
		for {
			j = (j + 1) & c.mask
			s := c.table[j]
			if s == 0 {
				return
			}
			home := c.hash(c.key[s-1])
			// Leave the entry at j where it is when its home lies cyclically in (h, j].
			if (h <= j && h < home && home <= j) || (h > j && (h < home || home <= j)) {
				continue
			}
			c.table[h] = s
			h = j
			break
		}
	}
}

func (c *Cache) unlink(s int32) {
	if p := c.prev[s]; p >= 0 {
		c.next[p] = c.next[s]
	} else {
		c.head = c.next[s]
	}
	if n := c.next[s]; n >= 0 {
		c.prev[n] = c.prev[s]
	} else {
		c.tail = c.prev[s]
	}
}

func (c *Cache) pushFront(s int32) {
	c.prev[s], c.next[s] = -1, c.head
	if c.head >= 0 {
		c.prev[c.head] = s
	}
	c.head = s
	if c.tail < 0 {
		c.tail = s
	}
}
