package galerkin

import (
	"fmt"
	"slices"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/lru"
)

// A software cache simulation, to measure what the traffic model predicts on a
// machine that exposes no cache-miss counters (the development VM: perf reports
// every hardware event as not supported). SimulateTraffic replays, for one worker,
// the sequence of memory accesses of a plan's numeric phase, array by array and in
// the order the variant's loops make them (the row operations of rows.go, the
// batching of fusedrow.go, the slot lists of inspector.go), through a fully
// associative least-recently-used cache of 64-byte lines with write-allocate and
// write-back, starting cold as after the benchmark's cache flush. What it measures is
// the traffic the variant's address stream causes in that idealised cache; not what
// a real cache with limited associativity, prefetchers and other tenants does.
// Comparing it with Predict checks the model's formulas (its reuse interpolation, the
// live-bytes averages, the data it leaves out) against the accesses they summarise.

// simLine is the cache line of the simulation, in bytes.
const simLine = 64

// SimulatedTraffic is the result of a cache simulation.
type SimulatedTraffic struct {
	CacheBytes int64 // the simulated cache's capacity
	Touches    int64 // line accesses (consecutive accesses to one line count once)
	ReadBytes  int64 // lines brought in from memory (reads and reads for ownership) × 64
	WriteBytes int64 // dirty lines written back (evicted, or still dirty at the end) × 64
}

// Bytes returns the memory traffic: lines read plus lines written back.
func (t SimulatedTraffic) Bytes() int64 { return t.ReadBytes + t.WriteBytes }

// lruCache is the simulated cache: an LRU of lines (internal/lru) with a dirty bit per
// slot and the counts SimulatedTraffic reports.
type lruCache struct {
	lru               *lru.Cache
	dirty             []bool
	reads, writebacks int64
	touches           int64
	last              int32 // slot of the most recent access, -1 none
}

func newLRU(bytes int64) *lruCache {
	n := int(max(bytes/simLine, 1))
	return &lruCache{lru: lru.New(n), dirty: make([]bool, n), last: -1}
}

// access touches line l, for writing if write.
func (c *lruCache) access(l uint64, write bool) {
	if c.last >= 0 && c.lru.Key(c.last) == l {
		c.dirty[c.last] = c.dirty[c.last] || write
		return
	}
	c.touches++
	s, hit, evicted := c.lru.Access(l)
	if !hit {
		c.reads++
		if evicted && c.dirty[s] {
			c.writebacks++
		}
		c.dirty[s] = false
	}
	c.dirty[s] = c.dirty[s] || write
	c.last = s
}

// dirtyLines returns the lines still dirty.
func (c *lruCache) dirtyLines() int64 {
	var n int64
	for s := int32(0); s < c.lru.Used(); s++ {
		if c.dirty[s] {
			n++
		}
	}
	return n
}

// simMem lays arrays out in a simulated address space (each at a 4 KiB boundary, as
// separate allocations are) and sends accesses to their bytes to the cache.
type simMem struct {
	c    *lruCache
	next uint64
}

// simArray is one array of the simulated address space: base address and element size.
type simArray struct {
	m    *simMem
	base uint64
	elem uint64
}

func (m *simMem) array(n int64, elem int) simArray {
	a := simArray{m: m, base: m.next, elem: uint64(elem)}
	m.next += (uint64(max(n, 0))*uint64(elem) + 4095) &^ 4095
	m.next += 4096 // a gap: arrays never share a line
	return a
}

// rw touches elements [i, i+n) of a, for writing if write.
func (a simArray) rw(i, n int64, write bool) {
	if n <= 0 {
		return
	}
	lo := a.base + uint64(i)*a.elem
	hi := lo + uint64(n)*a.elem - 1
	for l := lo / simLine; l <= hi/simLine; l++ {
		a.m.c.access(l, write)
	}
}

func (a simArray) r(i, n int64) { a.rw(i, n, false) }
func (a simArray) w(i, n int64) { a.rw(i, n, true) }

// simArrays are the arrays a numeric phase touches.
type simArrays struct {
	aPtr, aCol, aVal    simArray
	pPtr, pCol, pVal    simArray
	wPtr, wCol, wVal    simArray // wVal: stored W (two-pass, inspector) or the batch buffer (fused)
	ptPtr, ptCol, pPerm simArray
	acPtr, acCol, acVal simArray
	pos                 simArray
	// fused variants: batch bookkeeping
	first, head, tail, touched, pairRow, pairQ, next, rows simArray
	// inspector
	wSlotStart, wSlots, acSlotStart, acSlots simArray
}

// SimulateTraffic replays the numeric phase of the plan's variant on one worker (see
// the comment at the top of cachesim.go) through a fully associative LRU cache of
// cacheBytes, cold at the start, and returns the lines it moved. A and P must have
// the patterns given to Symbolic; their values are not read. It takes roughly a
// hundred times as long as the numeric phase itself.
func (p *Plan) SimulateTraffic(A, P *bsr.Matrix, cacheBytes int64) (SimulatedTraffic, error) {
	if err := p.checkSame(A, P); err != nil {
		return SimulatedTraffic{}, err
	}
	if cacheBytes < simLine {
		return SimulatedTraffic{}, fmt.Errorf("galerkin: simulated cache of %d bytes: want at least one %d-byte line", cacheBytes, simLine)
	}
	c := newLRU(cacheBytes)
	m := &simMem{c: c, next: 1 << 20}
	n, mm := int64(p.n), int64(p.m)
	bb, bk, kk := p.b*p.b, p.b*p.k, p.k*p.k
	var s simArrays
	s.aPtr, s.aCol, s.aVal = m.array(n+1, 8), m.array(p.aPtr[n], 4), m.array(p.aPtr[n], 8*bb)
	s.pPtr, s.pCol, s.pVal = m.array(n+1, 8), m.array(p.pPtr[n], 4), m.array(p.pPtr[n], 8*bk)
	s.wPtr, s.wCol = m.array(n+1, 8), m.array(p.w.nnz(), 4)
	s.ptPtr, s.ptCol, s.pPerm = m.array(mm+1, 8), m.array(p.pt.nnz(), 4), m.array(p.pt.nnz(), 8)
	s.acPtr, s.acCol, s.acVal = m.array(mm+1, 8), m.array(p.Ac.RowPtr[mm], 4), m.array(p.Ac.RowPtr[mm], 8*kk)
	s.pos = m.array(mm, 4)
	switch p.variant {
	case TwoPass:
		s.wVal = m.array(p.w.nnz(), 8*bk)
		p.simTwoPass(&s, false)
	case Inspector:
		d := p.extra.insp
		s.wVal = m.array(p.w.nnz(), 8*bk)
		s.wSlotStart, s.wSlots = m.array(n+1, 8), m.array(int64(len(d.wSlots)), 4)
		s.acSlotStart, s.acSlots = m.array(mm+1, 8), m.array(int64(len(d.acSlots)), 4)
		p.simTwoPass(&s, true)
	case FusedRow, FusedRecompute:
		capBlocks := max(int64(p.stats.MaxRowW), fusedBatchBytes/(8*int64(bk)))
		s.wVal = m.array(capBlocks, 8*bk)
		s.first, s.head, s.tail = m.array(mm, 4), m.array(mm, 4), m.array(mm, 4)
		s.touched, s.pairRow, s.next = m.array(mm, 4), m.array(capBlocks*int64(p.stats.MaxRowP+1), 4), m.array(capBlocks*int64(p.stats.MaxRowP+1), 4)
		s.pairQ = m.array(capBlocks*int64(p.stats.MaxRowP+1), 8)
		s.rows = m.array(n, 4)
		p.simFused(&s, capBlocks, p.variant == FusedRecompute)
	default:
		return SimulatedTraffic{}, fmt.Errorf("galerkin: plan has no variant")
	}
	return SimulatedTraffic{
		CacheBytes: cacheBytes, Touches: c.touches,
		ReadBytes:  c.reads * simLine,
		WriteBytes: (c.writebacks + c.dirtyLines()) * simLine,
	}, nil
}

// simWRow replays wRow (or, with slots, the inspector's W row) for fine row i into
// the W values at block offset out of s.wVal.
func (p *Plan) simWRow(s *simArrays, i int, out int64, slots bool) {
	w0, w1 := p.w.rowPtr[i], p.w.rowPtr[i+1]
	s.wPtr.r(int64(i), 2)
	x := int64(0)
	if slots {
		s.wSlotStart.r(int64(i), 1)
		x = p.extra.insp.wSlotStart[i]
	} else {
		s.wCol.r(w0, w1-w0)
		for _, c := range p.w.colIdx[w0:w1] {
			s.pos.w(int64(c), 1)
		}
	}
	s.wVal.w(out, w1-w0) // clear
	s.aPtr.r(int64(i), 2)
	for q := p.aPtr[i]; q < p.aPtr[i+1]; q++ {
		s.aCol.r(q, 1)
		j := int64(p.aCol[q])
		s.pPtr.r(j, 2)
		r0, r1 := p.pPtr[j], p.pPtr[j+1]
		if r0 == r1 {
			continue
		}
		s.aVal.r(q, 1)
		for r := r0; r < r1; r++ {
			var slot int64
			if slots {
				s.wSlots.r(x, 1)
				slot = int64(p.extra.insp.wSlots[x])
				x++
			} else {
				s.pCol.r(r, 1)
				s.pos.r(int64(p.pCol[r]), 1)
				slot = p.findW(i, p.pCol[r])
			}
			s.pVal.r(r, 1)
			s.wVal.rw(out+slot, 1, true)
		}
	}
}

// findW returns the slot of column c in W row i (a binary search; the numeric phase
// reads it from pos, whose access simWRow replays).
func (p *Plan) findW(i int, c int32) int64 {
	k, _ := slices.BinarySearch(p.w.colIdx[p.w.rowPtr[i]:p.w.rowPtr[i+1]], c)
	return int64(k)
}

// findAc returns the slot of column c in Ac row I.
func (p *Plan) findAc(I int, c int32) int64 {
	k, _ := slices.BinarySearch(p.Ac.ColIdx[p.Ac.RowPtr[I]:p.Ac.RowPtr[I+1]], c)
	return int64(k)
}

// simAcAdd replays acAdd of fine row i's W row (at block offset wOff of s.wVal) times
// P block q into Ac row I; x is the inspector's slot cursor (slots) or ignored.
func (p *Plan) simAcAdd(s *simArrays, I, i int, q, wOff int64, slots bool, x int64) {
	w0, w1 := p.w.rowPtr[i], p.w.rowPtr[i+1]
	s.wPtr.r(int64(i), 2)
	s.pVal.r(q, 1)
	a0 := p.Ac.RowPtr[I]
	if !slots {
		s.wCol.r(w0, w1-w0)
	}
	for t := w0; t < w1; t++ {
		var slot int64
		if slots {
			s.acSlots.r(x, 1)
			slot = int64(p.extra.insp.acSlots[x])
			x++
		} else {
			s.pos.r(int64(p.w.colIdx[t]), 1)
			slot = p.findAc(I, p.w.colIdx[t])
		}
		s.wVal.r(wOff+t-w0, 1)
		s.acVal.rw(a0+slot, 1, true)
	}
}

// simSetAcPos replays setAcPos.
func (p *Plan) simSetAcPos(s *simArrays, I int) {
	a0, a1 := p.Ac.RowPtr[I], p.Ac.RowPtr[I+1]
	s.acCol.r(a0, a1-a0)
	for _, c := range p.Ac.ColIdx[a0:a1] {
		s.pos.w(int64(c), 1)
	}
}

// simTwoPass replays numericTwoPass (slots false) or numericInspector on one worker.
func (p *Plan) simTwoPass(s *simArrays, slots bool) {
	for i := 0; i < p.n; i++ {
		p.simWRow(s, i, p.w.rowPtr[i], slots)
	}
	for I := 0; I < p.m; I++ {
		s.acPtr.r(int64(I), 2)
		a0, a1 := p.Ac.RowPtr[I], p.Ac.RowPtr[I+1]
		s.acVal.w(a0, a1-a0) // clear
		var x int64
		if slots {
			s.acSlotStart.r(int64(I), 1)
			x = p.extra.insp.acSlotStart[I]
		} else {
			p.simSetAcPos(s, I)
		}
		s.ptPtr.r(int64(I), 2)
		for t := p.pt.rowPtr[I]; t < p.pt.rowPtr[I+1]; t++ {
			s.ptCol.r(t, 1)
			s.pPerm.r(t, 1)
			i := int(p.pt.colIdx[t])
			p.simAcAdd(s, I, i, p.ptPerm[t], p.w.rowPtr[i], slots, x)
			x += p.w.rowPtr[i+1] - p.w.rowPtr[i]
		}
	}
}

// simFused replays numericFusedRow or numericRecompute on one worker (one chunk: no
// deferred rows, no recomputation), batch by batch as fusedBatch makes them.
func (p *Plan) simFused(s *simArrays, capBlocks int64, recompute bool) {
	var rows []int32
	if recompute {
		for i := 0; i < p.n; i++ {
			if p.pPtr[i] < p.pPtr[i+1] {
				rows = append(rows, int32(i))
			}
		}
	}
	count := p.n
	if recompute {
		count = len(rows)
	}
	row := func(r int) int {
		if recompute {
			s.rows.r(int64(r), 1)
			return int(rows[r])
		}
		return r
	}
	head := make([]int32, p.m)
	for I := range head {
		head[I] = -1
	}
	tail := make([]int32, p.m)
	type pair struct {
		wOff, q int64
		i       int
		next    int32
	}
	var pairs []pair
	var touched []int32
	for r0 := 0; r0 < count; {
		r1, used := r0, int64(0)
		for r1 < count {
			i := row(r1)
			s.wPtr.r(int64(i), 2)
			nw := p.w.rowPtr[i+1] - p.w.rowPtr[i]
			if r1 > r0 && used+nw > capBlocks {
				break
			}
			used += nw
			r1++
		}
		pairs, touched = pairs[:0], touched[:0]
		var off int64
		for r := r0; r < r1; r++ {
			i := row(r)
			nw := p.w.rowPtr[i+1] - p.w.rowPtr[i]
			p.simWRow(s, i, off, false)
			s.pPtr.r(int64(i), 2)
			for q := p.pPtr[i]; q < p.pPtr[i+1]; q++ {
				s.pCol.r(q, 1)
				I := p.pCol[q]
				if !recompute {
					s.first.r(int64(I), 1)
				}
				x := int32(len(pairs))
				s.pairRow.w(int64(x), 1)
				s.pairQ.w(int64(x), 1)
				s.next.w(int64(x), 1)
				pairs = append(pairs, pair{wOff: off, q: q, i: i, next: -1})
				s.head.r(int64(I), 1)
				if head[I] < 0 {
					head[I] = x
					s.head.w(int64(I), 1)
					s.touched.w(int64(len(touched)), 1)
					touched = append(touched, I)
				} else {
					s.tail.r(int64(I), 1)
					s.next.w(int64(tail[I]), 1)
					pairs[tail[I]].next = x
				}
				tail[I] = x
				s.tail.w(int64(I), 1)
			}
			off += nw
		}
		for k, I32 := range touched {
			s.touched.r(int64(k), 1)
			I := int(I32)
			s.acPtr.r(int64(I), 2)
			p.simSetAcPos(s, I)
			s.head.r(int64(I), 1)
			for x, first := head[I], true; x >= 0; x, first = pairs[x].next, false {
				s.next.r(int64(x), 1)
				s.pairRow.r(int64(x), 1)
				s.pairQ.r(int64(x), 1)
				pr := pairs[x]
				if first {
					s.ptPtr.r(int64(I), 1)
					s.ptCol.r(p.pt.rowPtr[I], 1)
					if pr.i == p.firstFine(I) {
						a0, a1 := p.Ac.RowPtr[I], p.Ac.RowPtr[I+1]
						s.acVal.w(a0, a1-a0)
					}
				}
				p.simAcAdd(s, I, pr.i, pr.q, pr.wOff, false, 0)
			}
			head[I] = -1
			s.head.w(int64(I), 1)
		}
		r0 = r1
	}
}
