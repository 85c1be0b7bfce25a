package galerkin

import (
	"math/rand/v2"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// naiveLRU is the reference cache: a slice of lines, most recent first.
type naiveLRU struct {
	cap               int
	lines             []uint64
	dirty             []bool
	reads, writebacks int64
}

func (c *naiveLRU) access(l uint64, write bool) {
	for k, x := range c.lines {
		if x == l {
			d := c.dirty[k] || write
			copy(c.lines[1:k+1], c.lines[:k])
			copy(c.dirty[1:k+1], c.dirty[:k])
			c.lines[0], c.dirty[0] = l, d
			return
		}
	}
	c.reads++
	if len(c.lines) == c.cap {
		if c.dirty[c.cap-1] {
			c.writebacks++
		}
		c.lines, c.dirty = c.lines[:c.cap-1], c.dirty[:c.cap-1]
	}
	c.lines = append([]uint64{l}, c.lines...)
	c.dirty = append([]bool{write}, c.dirty...)
}

func TestLRUAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, lines := range []int{1, 2, 7, 64, 300} {
		c := newLRU(int64(lines) * simLine)
		ref := &naiveLRU{cap: lines}
		for k := 0; k < 20000; k++ {
			// A mix of a hot set, a sweep and far lines, to exercise hits, evictions and
			// table collisions.
			var l uint64
			switch rng.IntN(3) {
			case 0:
				l = uint64(rng.IntN(lines + 3))
			case 1:
				l = uint64(k % (4 * lines))
			default:
				l = rng.Uint64() >> 30
			}
			w := rng.IntN(4) == 0
			c.access(l, w)
			ref.access(l, w)
		}
		var refDirty int64
		for _, d := range ref.dirty {
			if d {
				refDirty++
			}
		}
		if c.reads != ref.reads || c.writebacks != ref.writebacks || c.dirtyLines() != refDirty {
			t.Errorf("%d lines: reads %d, write-backs %d, dirty %d; reference %d, %d, %d",
				lines, c.reads, c.writebacks, c.dirtyLines(), ref.reads, ref.writebacks, refDirty)
		}
	}
}

// linesOf returns the cache lines of an array of the given bytes (arrays start at a
// line boundary in the simulation).
func linesOf(bytes int64) int64 { return (bytes + simLine - 1) / simLine }

// TestSimulateCompulsory checks the replays against the arrays each variant must
// touch: with a cache larger than everything, every line is read exactly once and
// written back once if written, so the traffic is the sum of the arrays' sizes,
// counted here from the patterns independently of the replay. With a one-line cache,
// every touch misses. A smaller cache never moves less (LRU's inclusion property).
func TestSimulateCompulsory(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, shape := range [][2]int{{3, 6}, {6, 6}, {2, 3}} {
		b, k := shape[0], shape[1]
		n, m := 60, 9
		A := randomBSR(rng, n, n, b, b, 0.15, 3)
		// P: every row has its aggregate's column and some random others, so no P row
		// is empty and every A block's values are read.
		ptr := make([]int64, n+1)
		var col []int32
		for i := 0; i < n; i++ {
			for j := 0; j < m; j++ {
				if j == i*m/n || rng.Float64() < 0.2 {
					col = append(col, int32(j))
				}
			}
			ptr[i+1] = int64(len(col))
		}
		P, err := bsr.New(n, m, b, k, ptr, col)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range Variants {
			p, err := Symbolic(A, P, v)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Numeric(A, P, 1); err != nil {
				t.Fatal(err)
			}
			st := p.Stats()
			nn, mm := int64(n), int64(m)
			bb, bk, kk := int64(b*b), int64(b*k), int64(k*k)
			// The arrays each replay touches, every element of them: values and
			// patterns, the position map (all coarse columns occur in W rows), the plan's
			// Pᵀ pattern and permutation or slot lists.
			aPtr, aCol, aVal := linesOf(8*(nn+1)), linesOf(4*st.NnzA), linesOf(8*bb*st.NnzA)
			pPtr, pCol, pVal := linesOf(8*(nn+1)), linesOf(4*st.NnzP), linesOf(8*bk*st.NnzP)
			wPtr, wCol, wVal := linesOf(8*(nn+1)), linesOf(4*st.NnzW), linesOf(8*bk*st.NnzW)
			ptPtr, ptCol, perm := linesOf(8*(mm+1)), linesOf(4*st.NnzP), linesOf(8*st.NnzP)
			acPtr, acCol, acVal := linesOf(8*(mm+1)), linesOf(4*st.NnzAc), linesOf(8*kk*st.NnzAc)
			pos := linesOf(4 * mm)
			var read, write int64
			switch v {
			case TwoPass:
				read = aPtr + aCol + aVal + pPtr + pCol + pVal + wPtr + wCol + wVal + ptPtr + ptCol + perm + acPtr + acCol + acVal + pos
				write = wVal + acVal + pos
			case Inspector:
				// No column lookups: no P or W columns, no Ac pattern beyond its row
				// pointer, no position map; the slot lists instead.
				d := p.extra.insp
				slots := linesOf(8*(nn+1)) + linesOf(4*int64(len(d.wSlots))) + linesOf(8*(mm+1)) + linesOf(4*int64(len(d.acSlots)))
				read = aPtr + aCol + aVal + pPtr + pVal + wPtr + wVal + ptPtr + ptCol + perm + acPtr + acVal + slots
				write = wVal + acVal
			default:
				continue // the fused variants' batch bookkeeping is replay-shaped; covered below
			}
			got, err := p.SimulateTraffic(A, P, 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			if got.ReadBytes != read*simLine || got.WriteBytes != write*simLine {
				t.Errorf("%d×%d %s: infinite cache read %d, wrote %d bytes; want %d, %d", b, k, v,
					got.ReadBytes, got.WriteBytes, read*simLine, write*simLine)
			}
		}
		for _, v := range Variants {
			p, err := Symbolic(A, P, v)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Numeric(A, P, 1); err != nil {
				t.Fatal(err)
			}
			one, err := p.SimulateTraffic(A, P, simLine)
			if err != nil {
				t.Fatal(err)
			}
			if one.ReadBytes != one.Touches*simLine {
				t.Errorf("%d×%d %s: one-line cache read %d lines in %d touches", b, k, v, one.ReadBytes/simLine, one.Touches)
			}
			prev := one.Bytes()
			for _, size := range []int64{1 << 10, 4 << 10, 16 << 10, 1 << 30} {
				s, err := p.SimulateTraffic(A, P, size)
				if err != nil {
					t.Fatal(err)
				}
				if s.Bytes() > prev {
					t.Errorf("%d×%d %s: %d-byte cache moved %d bytes, more than a smaller one (%d)", b, k, v, size, s.Bytes(), prev)
				}
				if s.Touches != one.Touches {
					t.Errorf("%d×%d %s: touches depend on the cache size (%d vs %d)", b, k, v, s.Touches, one.Touches)
				}
				prev = s.Bytes()
			}
			// Every variant at least reads A, P and writes Ac.
			st := p.Stats()
			min := 8*(int64(b*b)*st.NnzA+int64(b*k)*st.NnzP) + 2*8*int64(k*k)*st.NnzAc
			if prev < min {
				t.Errorf("%d×%d %s: infinite cache moved %d bytes, less than A, P and Ac (%d)", b, k, v, prev, min)
			}
		}
	}
	if _, err := (&Plan{}).SimulateTraffic(nil, nil, 1<<20); err == nil {
		t.Error("nil operands: no error")
	}
}
