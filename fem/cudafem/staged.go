package cudafem

import (
	"fmt"
	"slices"

	"github.com/blockamg/blockamg/fem"
)

// stagedMap is elas_staged's grouping of the upper blocks (kernels/elasticity.cu):
// group g holds upper blocks gw[g] … gw[g+1] (of upperWork's list; at most the
// group's threads) and stages
// elems[ge[g] … ge[g+1]); block v's contributions are lpairs[lptr[v] … lptr[v+1]),
// each local·256 + la·16 + b with local the element's index in its group's list;
// order[gw[g] + i] is the block (relative to gw[g]) that thread i integrates.
type stagedMap struct {
	gw, ge, lptr         []int64
	elems, order, lpairs []int32
	// maxSlice is the most shared memory (doubles) one group's records and
	// contributions take.
	maxSlice int
}

// stagedThreads is THREADS of kernels/elasticity.cu, the most threads of a group.
const stagedThreads = 256

// errStagedFit says that one block sums more elements than a group may stage.
var errStagedFit = fmt.Errorf("a block sums more elements than shared memory holds")

// stagedSlice is the shared memory (doubles) of a group staging ne elements of rec
// doubles each and np contributions (int32).
func stagedSlice(ne, rec, np int) int { return ne*rec + (np+1)/2 }

// stagedGroups cuts the upper blocks (upperWork's work: the blocks (a, c), c ≥ a, in
// stored order) into consecutive groups of at most size blocks (a thread each)
// whose elements (rec doubles each) and contributions fit in budget doubles
// (stagedSlice). A block's contributions are its row's incidences
// (ascending element order) whose slots hold it, as inverseSlots lists them, but
// with no bound on the element count. Each group's elements are listed in the order
// its blocks first name them; every block keeps its contributions' order, so the
// sums do not change. Within a group the threads take the blocks by descending
// contribution count (ties in stored order), so that a warp's lanes have about as
// many.
func stagedGroups(l fem.ElasticityLayout, rec, budget, size int) (stagedMap, error) {
	var s stagedMap
	s.gw, s.ge, s.lptr = []int64{0}, []int64{0}, []int64{0}
	stamp := make([]int32, l.Elements) // the group that last listed the element, +1
	local := make([]int32, l.Elements)
	g, count, nw, v, np := int32(1), 0, 0, int64(0), 0
	// The row's contributions bucketed by slot: row[start[s] … start[s+1]).
	var start []int
	var row []int64 // element<<8 | la<<4 | b
	for a := 0; a < l.Nodes; a++ {
		r0, r1 := l.RowPtr[a], l.RowPtr[a+1]
		start = append(start[:0], make([]int, r1-r0+1)...)
		for k := l.IncPtr[a]; k < l.IncPtr[a+1]; k++ {
			for u := l.SlotPtr[k]; u < l.SlotPtr[k+1]; u++ {
				start[l.Slot[u]+1]++
			}
		}
		for i := 1; i < len(start); i++ {
			start[i] += start[i-1]
		}
		row = append(row[:0], make([]int64, start[len(start)-1])...)
		next := append([]int(nil), start[:len(start)-1]...)
		for k := l.IncPtr[a]; k < l.IncPtr[a+1]; k++ {
			e, la := int64(l.IncElem[k]), int64(l.IncLocal[k])
			for u := l.SlotPtr[k]; u < l.SlotPtr[k+1]; u++ {
				sl := l.Slot[u]
				row[next[sl]] = e<<8 | la<<4 | (u - l.SlotPtr[k])
				next[sl]++
			}
		}
		for t := r0; t < r1; t++ {
			if int(l.ColIdx[t]) < a {
				continue
			}
			ds := row[start[t-r0]:start[t-r0+1]]
			if stagedSlice(len(ds), rec, len(ds)) > budget {
				return stagedMap{}, fmt.Errorf("cuda: elasticity: block %d sums %d elements, more than %d doubles of shared memory hold: %w", t, len(ds), budget, errStagedFit)
			}
			fresh := 0
			for _, d := range ds {
				if stamp[d>>8] != g {
					fresh++
				}
			}
			if nw == size || stagedSlice(count+fresh, rec, np+len(ds)) > budget {
				s.gw = append(s.gw, v)
				s.ge = append(s.ge, int64(len(s.elems)))
				g, count, nw, np = g+1, 0, 0, 0
			}
			for _, d := range ds {
				e := d >> 8
				if stamp[e] != g {
					stamp[e], local[e] = g, int32(count)
					count++
					s.elems = append(s.elems, int32(e))
				}
				s.lpairs = append(s.lpairs, local[e]<<8|int32(d&255))
			}
			s.lptr = append(s.lptr, int64(len(s.lpairs)))
			np += len(ds)
			s.maxSlice = max(s.maxSlice, stagedSlice(count, rec, np))
			nw++
			v++
		}
	}
	if nw > 0 {
		s.gw = append(s.gw, v)
		s.ge = append(s.ge, int64(len(s.elems)))
	}
	s.order = make([]int32, v)
	for k := 0; k+1 < len(s.gw); k++ {
		w0, w1 := s.gw[k], s.gw[k+1]
		o := s.order[w0:w1]
		for i := range o {
			o[i] = int32(i)
		}
		size := func(i int32) int64 { v := w0 + int64(i); return s.lptr[v+1] - s.lptr[v] }
		slices.SortStableFunc(o, func(a, b int32) int { return int(size(b) - size(a)) })
	}
	return s, nil
}
