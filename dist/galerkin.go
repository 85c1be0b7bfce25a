package dist

import (
	"fmt"
	"slices"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/dist/mpi"
)

// tagAssemble tags the messages of assembleRows.
const tagAssemble = 26004

// blockKey is a block of a matrix being assembled: global row and column.
type blockKey struct{ i, j int64 }

// partial holds one rank's contributions to a matrix whose rows are distributed by a
// layout, summed by block in the order they were added, and the order their blocks
// were first added.
type partial struct {
	bs   int
	at   map[blockKey]int // block → its index in keys and vals
	keys []blockKey
	vals []float64
}

func newPartial(bs int) *partial {
	return &partial{bs: bs, at: map[blockKey]int{}}
}

// block returns the accumulator of block (i, j), zero when new.
func (p *partial) block(i, j int64) []float64 {
	k := blockKey{i, j}
	s, ok := p.at[k]
	if !ok {
		s = len(p.keys)
		p.at[k] = s
		p.keys = append(p.keys, k)
		p.vals = append(p.vals, make([]float64, p.bs)...)
	}
	return p.vals[s*p.bs : (s+1)*p.bs]
}

// assembleRows sends every rank's partial sums to the owners of their rows (by lay)
// and returns this rank's rows, numbered from 0, with global columns (ncols of them),
// each block the sum of the ranks' partial blocks in rank order, so the result is the
// same bits on every run. Every rank must call it together: one Alltoall of counts,
// then one message of blocks' positions and one of values per pair of ranks that
// share rows.
func assembleRows(comm *mpi.Comm, lay Layout, ncols, R, C int, p *partial) (*bsr.Matrix, error) {
	size, me := comm.Size(), comm.Rank()
	bs := R * C
	// Group this rank's blocks by owner, in the order they were first added.
	byOwner := make([][]int, size)
	for s, k := range p.keys {
		o := lay.Owner(int(k.i))
		byOwner[o] = append(byOwner[o], s)
	}
	counts := make([]int64, size)
	for o, ss := range byOwner {
		counts[o] = int64(len(ss))
	}
	incoming := make([]int64, size)
	if err := comm.AlltoallInt64(counts, incoming); err != nil {
		return nil, err
	}
	pos := make([][]int64, size)
	val := make([][]float64, size)
	var reqs []*mpi.Request
	post := func(q *mpi.Request, err error) error {
		if err == nil {
			reqs = append(reqs, q)
		}
		return err
	}
	for r := 0; r < size; r++ {
		if r == me {
			continue
		}
		if incoming[r] > 0 {
			pos[r], val[r] = make([]int64, 2*incoming[r]), make([]float64, incoming[r]*int64(bs))
			if err := post(mpi.Irecv(comm, pos[r], r, tagAssemble)); err != nil {
				return nil, err
			}
			if err := post(mpi.Irecv(comm, val[r], r, tagAssemble)); err != nil {
				return nil, err
			}
		}
	}
	for o, ss := range byOwner {
		if len(ss) == 0 {
			continue
		}
		ps, vs := make([]int64, 0, 2*len(ss)), make([]float64, 0, len(ss)*bs)
		for _, s := range ss {
			ps = append(ps, p.keys[s].i, p.keys[s].j)
			vs = append(vs, p.vals[s*bs:(s+1)*bs]...)
		}
		if o == me {
			pos[me], val[me] = ps, vs
			continue
		}
		if err := post(mpi.Isend(comm, ps, o, tagAssemble)); err != nil {
			return nil, err
		}
		if err := post(mpi.Isend(comm, vs, o, tagAssemble)); err != nil {
			return nil, err
		}
	}
	if err := comm.Waitall(reqs); err != nil {
		return nil, err
	}
	lo, hi := lay.Range(me)
	sum := newPartial(bs)
	for r := 0; r < size; r++ {
		for t := 0; t < len(pos[r])/2; t++ {
			i, j := pos[r][2*t], pos[r][2*t+1]
			if i < int64(lo) || i >= int64(hi) || j < 0 || j >= int64(ncols) {
				return nil, fmt.Errorf("%w: rank %d sent block (%d, %d) for rows [%d,%d) of %d columns", ErrLayout, r, i, j, lo, hi, ncols)
			}
			_, seen := sum.at[blockKey{i, j}]
			blk, src := sum.block(i, j), val[r][t*bs:(t+1)*bs]
			if !seen {
				copy(blk, src) // a block of one contribution keeps its bits (−0 included)
				continue
			}
			for q, v := range src {
				blk[q] += v
			}
		}
	}
	order := make([]int, len(sum.keys))
	for s := range order {
		order[s] = s
	}
	slices.SortFunc(order, func(a, b int) int {
		ka, kb := sum.keys[a], sum.keys[b]
		if ka.i != kb.i {
			return int(ka.i - kb.i)
		}
		return int(ka.j - kb.j)
	})
	out := &bsr.Matrix{BlockRows: hi - lo, BlockCols: ncols, R: R, C: C, RowPtr: make([]int64, hi-lo+1),
		ColIdx: make([]int32, 0, len(order)), Val: make([]float64, 0, len(order)*bs)}
	for _, s := range order {
		k := sum.keys[s]
		out.RowPtr[k.i-int64(lo)+1]++
		out.ColIdx = append(out.ColIdx, int32(k.j))
		out.Val = append(out.Val, sum.vals[s*bs:(s+1)*bs]...)
	}
	for i := 0; i < hi-lo; i++ {
		out.RowPtr[i+1] += out.RowPtr[i]
	}
	return out, nil
}

// Galerkin returns this rank's rows of the coarse operator Ac = Pᵀ·A·P (rows and
// columns on P's column layout, global columns), ready for NewMatrix. Each rank forms
// W = A·P on its own fine rows, with the rows of P that A's ghost columns name fetched
// from their owners (GhostRows), then Pᵀ·W's contributions of those rows, which it
// sends to the owners of their coarse rows (assembleRows: each block summed over the
// ranks in rank order). Every rank must call it together.
func Galerkin(a, p *Matrix) (*bsr.Matrix, error) {
	if !slices.Equal(p.Layout.Offsets, a.Layout.Offsets) || !slices.Equal(a.Layout.Offsets, a.ColLayout.Offsets) {
		panic("dist: Galerkin: P's rows are not distributed as the square operator's")
	}
	b, k := a.Local.R, p.Local.C
	ghost, err := GhostRows(a, p)
	if err != nil {
		return nil, err
	}
	n := a.Hi - a.Lo
	own := &bsr.Matrix{BlockRows: n, BlockCols: p.ColLayout.N(), R: b, C: k, RowPtr: make([]int64, n+1)}
	var oc []int64
	for i := 0; i < n; i++ {
		oc, own.Val = p.appendRow(i, oc, own.Val)
		own.RowPtr[i+1] = int64(len(oc))
	}
	bk := b * k
	acc := newPartial(k * k)
	w := newPartial(bk)
	for i := 0; i < n; i++ {
		// W_i = Σ_j A_ij P_j, the local part's columns first, then the ghost part's.
		clear(w.at)
		w.keys, w.vals = w.keys[:0], w.vals[:0]
		for q := a.Local.RowPtr[i]; q < a.Local.RowPtr[i+1]; q++ {
			j := int(a.Local.ColIdx[q])
			for t := own.RowPtr[j]; t < own.RowPtr[j+1]; t++ {
				bsr.GemmAcc(b, b, k, a.Local.Block(q), own.Val[t*int64(bk):(t+1)*int64(bk)], w.block(0, oc[t]))
			}
		}
		for q := a.Ghost.RowPtr[i]; q < a.Ghost.RowPtr[i+1]; q++ {
			j := int(a.Ghost.ColIdx[q])
			for t := ghost.RowPtr[j]; t < ghost.RowPtr[j+1]; t++ {
				bsr.GemmAcc(b, b, k, a.Ghost.Block(q), ghost.Val[t*int64(bk):(t+1)*int64(bk)], w.block(0, int64(ghost.ColIdx[t])))
			}
		}
		// Ac_IJ += P_iIᵀ·W_iJ for every block of P's row i.
		for t := own.RowPtr[i]; t < own.RowPtr[i+1]; t++ {
			pI := own.Val[t*int64(bk) : (t+1)*int64(bk)]
			for s, key := range w.keys {
				bsr.GemmTNAcc(k, b, k, pI, w.vals[s*bk:(s+1)*bk], acc.block(oc[t], key.j))
			}
		}
	}
	return assembleRows(a.Comm, p.ColLayout, p.ColLayout.N(), k, k, acc)
}

// Transpose returns this rank's rows of Pᵀ (rows on P's column layout, columns on
// its row layout, global), ready for NewRectMatrix: the restriction as a matrix of its
// own, whose rows gather the blocks of P that other ranks hold (assembleRows).
// Every rank must call it together.
func Transpose(p *Matrix) (*bsr.Matrix, error) {
	R, C := p.Local.R, p.Local.C
	part := newPartial(R * C)
	var cols []int64
	var vals []float64
	for i := 0; i < p.Hi-p.Lo; i++ {
		cols, vals = p.appendRow(i, cols[:0], vals[:0])
		for t, j := range cols {
			blk := part.block(j, int64(p.Lo+i))
			src := vals[t*R*C : (t+1)*R*C]
			for r := 0; r < R; r++ {
				for c := 0; c < C; c++ {
					blk[c*R+r] = src[r*C+c]
				}
			}
		}
	}
	return assembleRows(p.Comm, p.ColLayout, p.Layout.N(), C, R, part)
}
