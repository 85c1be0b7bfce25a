package dist

import (
	"fmt"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/dist/mpi"
)

// tagMove tags the messages of moveRows.
const tagMove = 26005

// DefaultGatherRows is the block rows per rank below which a coarse level is gathered
// onto fewer ranks by default (solve --gather-rows): a level of fewer rows per rank
// spends more of its time in message latency than in arithmetic.
const DefaultGatherRows = 64

// GatheredLayout splits n block rows over the first m of size ranks, as evenly as
// EvenLayout, with m the largest count that leaves every active rank at least minRows
// rows (at least 1, at most size); the other ranks own nothing. minRows ≤ 1 is
// EvenLayout's split over all ranks.
func GatheredLayout(n, size, minRows int) Layout {
	if size < 1 || n < 0 {
		panic("dist: GatheredLayout needs size ≥ 1 and n ≥ 0")
	}
	m := size
	if minRows > 1 {
		m = min(size, max(1, n/minRows))
	}
	off := EvenLayout(n, m).Offsets
	for len(off) < size+1 {
		off = append(off, n)
	}
	return Layout{Offsets: off}
}

// Gather moves every coarse level whose rows average fewer than minRows per rank onto
// GatheredLayout's subset of ranks, the others idle on it: their rows of its operator,
// of its prolongator and of the finer level's restriction go to the subset, and every
// plan that touches the level is agreed again, so the finer level's restriction sends
// the idle ranks' residual rows to the subset and the prolongation brings the
// correction back. A coarsest level on one rank is solved there with no collective.
// The operators are the same, so the cycle gives the same result to round-off. The
// fine level never moves. It is the post-pass of Setup's hierarchy (whose coarse
// levels are owned as their aggregates are); NewHierarchy takes gathered layouts
// directly (GatheredLayout). minRows ≤ 1 moves nothing. A hierarchy whose levels
// moved keeps none of Setup's plans, so its Update is refused (ErrNoPlan). Every rank
// must call it together.
func (d *Hierarchy) Gather(minRows int) error {
	if minRows <= 1 || len(d.Levels) < 2 {
		return nil
	}
	size := d.Comm.Size()
	nl := len(d.Levels)
	old := make([]Layout, nl)
	lays := make([]Layout, nl)
	moved := false
	for l, L := range d.Levels {
		old[l], lays[l] = L.A.Layout, L.A.Layout
		if n := L.A.Layout.N(); l > 0 && n < minRows*size {
			lays[l] = GatheredLayout(n, size, minRows)
			moved = moved || !sameLayout(lays[l], old[l])
		}
	}
	if !moved {
		return nil
	}
	// Setup's kept plans are for the layouts the levels leave: Update refuses a
	// gathered hierarchy (ErrNoPlan) rather than run them on the wrong rows.
	d.gather = nil
	for l, L := range d.Levels {
		mv := !sameLayout(lays[l], old[l])
		if mv {
			rows, err := moveRows(d.Comm, old[l], lays[l], localRows(L.A))
			if err != nil {
				return fmt.Errorf("dist: gathering level %d operator: %w", l, err)
			}
			if L.A, err = NewMatrix(d.Comm, lays[l], rows); err != nil {
				return fmt.Errorf("dist: gathering level %d operator: %w", l, err)
			}
			n := L.A.LocalLen()
			L.b, L.x, L.r, L.d, L.t = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		}
		if l == nl-1 {
			break
		}
		mvC := !sameLayout(lays[l+1], old[l+1])
		if mv || mvC {
			rows, err := moveRows(d.Comm, old[l], lays[l], localRows(L.P))
			if err == nil {
				L.P, err = NewRectMatrix(d.Comm, lays[l], lays[l+1], rows)
			}
			if err != nil {
				return fmt.Errorf("dist: gathering level %d prolongator: %w", l, err)
			}
			if rows, err = moveRows(d.Comm, old[l+1], lays[l+1], localRows(L.PT)); err == nil {
				L.PT, err = NewRectMatrix(d.Comm, lays[l+1], lays[l], rows)
			}
			if err != nil {
				return fmt.Errorf("dist: gathering level %d restriction: %w", l, err)
			}
		}
		if mv {
			dinv, err := moveRows(d.Comm, old[l], lays[l], diagRows(L.A.Local.R, L.Dinv, old[l].N()))
			if err != nil {
				return fmt.Errorf("dist: gathering level %d smoother: %w", l, err)
			}
			L.Dinv = dinv.Val
		}
	}
	last := d.Levels[nl-1].A
	d.coarseGather(last.Layout, last.Local.R)
	return nil
}

// sameLayout reports whether a and b have the same offsets.
func sameLayout(a, b Layout) bool {
	if len(a.Offsets) != len(b.Offsets) {
		return false
	}
	for i := range a.Offsets {
		if a.Offsets[i] != b.Offsets[i] {
			return false
		}
	}
	return true
}

// localRows is this rank's rows of m with global columns: NewRectMatrix's argument
// that made m.
func localRows(m *Matrix) *bsr.Matrix {
	n := m.Hi - m.Lo
	out := &bsr.Matrix{BlockRows: n, BlockCols: m.ColLayout.N(), R: m.Local.R, C: m.Local.C, RowPtr: make([]int64, n+1)}
	var cols []int64
	for i := 0; i < n; i++ {
		cols, out.Val = m.appendRow(i, cols[:0], out.Val)
		for _, j := range cols {
			out.ColIdx = append(out.ColIdx, int32(j))
		}
		out.RowPtr[i+1] = int64(len(out.ColIdx))
	}
	return out
}

// diagRows holds this rank's block-diagonal inverses (r×r each) as the rows of an
// n-column block matrix, one block per row, so that moveRows carries them.
func diagRows(r int, dinv []float64, n int) *bsr.Matrix {
	rows := len(dinv) / (r * r)
	out := &bsr.Matrix{BlockRows: rows, BlockCols: n, R: r, C: r, RowPtr: make([]int64, rows+1), ColIdx: make([]int32, rows), Val: dinv}
	for i := range out.ColIdx {
		out.RowPtr[i+1] = int64(i + 1)
	}
	return out
}

// moveRows sends this rank's rows (block rows [from.Range(me)) with global columns)
// to their owners by to, over the same global numbering, and returns the rows this
// rank owns by to, in order. Every rank must call it together: one Alltoall of
// counts, then three messages (row lengths, columns, values) per pair of ranks whose
// ranges overlap.
func moveRows(comm *mpi.Comm, from, to Layout, rows *bsr.Matrix) (*bsr.Matrix, error) {
	size, me := comm.Size(), comm.Rank()
	lo, hi := from.Range(me)
	if rows.BlockRows != hi-lo {
		panic("dist: moveRows: rows are not this rank's range")
	}
	bs := int64(rows.R * rows.C)
	overlap := func(a0, a1, b0, b1 int) (int, int) { return max(a0, b0), min(a1, b1) }
	counts := make([]int64, size)
	for r := 0; r < size; r++ {
		if s, e := overlap(lo, hi, to.Offsets[r], to.Offsets[r+1]); s < e {
			counts[r] = rows.RowPtr[e-lo] - rows.RowPtr[s-lo]
		}
	}
	nnzFrom := make([]int64, size)
	if err := comm.AlltoallInt64(counts, nnzFrom); err != nil {
		return nil, err
	}
	nlo, nhi := to.Range(me)
	out := &bsr.Matrix{BlockRows: nhi - nlo, BlockCols: rows.BlockCols, R: rows.R, C: rows.C, RowPtr: make([]int64, nhi-nlo+1)}
	var total int64
	for _, c := range nnzFrom {
		total += c
	}
	out.ColIdx, out.Val = make([]int32, total), make([]float64, total*bs)
	lens := make([]int64, nhi-nlo)
	var reqs []*mpi.Request
	post := func(req *mpi.Request, err error) error {
		if err == nil {
			reqs = append(reqs, req)
		}
		return err
	}
	var at int64
	for r := 0; r < size; r++ {
		s, e := overlap(nlo, nhi, from.Offsets[r], from.Offsets[r+1])
		if s >= e {
			continue
		}
		if err := post(mpi.Irecv(comm, lens[s-nlo:e-nlo], r, tagMove)); err != nil {
			return nil, err
		}
		if c := nnzFrom[r]; c > 0 {
			if err := post(mpi.Irecv(comm, out.ColIdx[at:at+c], r, tagMove+1)); err != nil {
				return nil, err
			}
			if err := post(mpi.Irecv(comm, out.Val[at*bs:(at+c)*bs], r, tagMove+2)); err != nil {
				return nil, err
			}
		}
		at += nnzFrom[r]
	}
	myLens := make([]int64, hi-lo)
	for i := range myLens {
		myLens[i] = rows.RowPtr[i+1] - rows.RowPtr[i]
	}
	for r := 0; r < size; r++ {
		s, e := overlap(lo, hi, to.Offsets[r], to.Offsets[r+1])
		if s >= e {
			continue
		}
		if err := post(mpi.Isend(comm, myLens[s-lo:e-lo], r, tagMove)); err != nil {
			return nil, err
		}
		if c := counts[r]; c > 0 {
			p0 := rows.RowPtr[s-lo] - rows.RowPtr[0]
			if err := post(mpi.Isend(comm, rows.ColIdx[p0:p0+c], r, tagMove+1)); err != nil {
				return nil, err
			}
			if err := post(mpi.Isend(comm, rows.Val[p0*bs:(p0+c)*bs], r, tagMove+2)); err != nil {
				return nil, err
			}
		}
	}
	if err := comm.Waitall(reqs); err != nil {
		return nil, err
	}
	for i, n := range lens {
		out.RowPtr[i+1] = out.RowPtr[i] + n
	}
	if out.RowPtr[len(lens)] != total {
		return nil, fmt.Errorf("%w: %d blocks arrived for rows of %d", ErrLayout, total, out.RowPtr[len(lens)])
	}
	return out, nil
}
