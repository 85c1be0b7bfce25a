package dist

import (
	"fmt"
	"slices"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/dist/mpi"
)

// The set-up's products are each a symbolic phase, which agrees patterns with the
// other ranks and keeps what it agreed, and a numeric phase, which sends values only
// over the kept plans: Setup runs both, Hierarchy.Update the numeric phases alone, so
// that an update is the same arithmetic as a fresh set-up on the same patterns.

// appendRefs appends local row i's global columns, ascending (the local and ghost
// parts merged), and where each block's values lie: a block
// index q of the local part as q, of the ghost part as −1−q.
func (m *Matrix) appendRefs(i int, cols, refs []int64) ([]int64, []int64) {
	kl, kg := m.Local.RowPtr[i], m.Ghost.RowPtr[i]
	el, eg := m.Local.RowPtr[i+1], m.Ghost.RowPtr[i+1]
	for kl < el || kg < eg {
		var gl, gg int64 = 1 << 62, 1 << 62
		if kl < el {
			gl = int64(m.Local.ColIdx[kl]) + int64(m.ColLo)
		}
		if kg < eg {
			gg = int64(m.GhostCols[m.Ghost.ColIdx[kg]])
		}
		if gl < gg {
			cols, refs = append(cols, gl), append(refs, kl)
			kl++
		} else {
			cols, refs = append(cols, gg), append(refs, -1-kg)
			kg++
		}
	}
	return cols, refs
}

// gatherRefs copies the blocks refs names (appendRefs) into dst, one after another.
func (m *Matrix) gatherRefs(refs []int64, dst []float64) {
	bs := int64(m.Local.R * m.Local.C)
	for t, r := range refs {
		var src []float64
		if r >= 0 {
			src = m.Local.Val[r*bs : (r+1)*bs]
		} else {
			src = m.Ghost.Val[(-1-r)*bs : (-r)*bs]
		}
		copy(dst[int64(t)*bs:int64(t+1)*bs], src)
	}
}

// ghostRows is GhostRows kept: the fetched rows of x, and per neighbour of a's halo
// the blocks of x it is sent, so that new values of x on the same pattern travel
// again in one message per neighbour and nothing else.
type ghostRows struct {
	a, x *Matrix
	rows *bsr.Matrix // the fetched rows, in ghost order, with global block columns
	send [][]int64   // per a.Halo.Send neighbour: refs of the blocks it gets, in order
	buf  [][]float64 // the packed values per send neighbour
}

// fetchGhostRows agrees the pattern of the rows of x that a's ghost columns name and
// fetches their values (GhostRows).
func fetchGhostRows(a, x *Matrix) (*ghostRows, error) {
	if !slices.Equal(x.Layout.Offsets, a.ColLayout.Offsets) {
		panic("dist: GhostRows: x's rows are not distributed as a's columns")
	}
	c := a.Comm
	R, C := x.Local.R, x.Local.C
	bs := R * C
	h := a.Halo
	g := &ghostRows{a: a, x: x, send: make([][]int64, len(h.Send)), buf: make([][]float64, len(h.Send))}
	// Round 1: the row lengths.
	sendLen := make([][]int64, len(h.Send))
	for k, nb := range h.Send {
		sendLen[k] = make([]int64, len(nb.Rows))
		for t, r := range nb.Rows {
			sendLen[k][t] = x.rowLen(int(r))
		}
	}
	ng := len(a.GhostCols)
	recvLen := make([]int64, ng)
	var reqs []*mpi.Request
	post := func(q *mpi.Request, err error) error {
		if err == nil {
			reqs = append(reqs, q)
		}
		return err
	}
	for _, nb := range h.Recv {
		if err := post(mpi.Irecv(c, recvLen[nb.Lo:nb.Hi], nb.Rank, tagRows)); err != nil {
			return nil, err
		}
	}
	for k, nb := range h.Send {
		if err := post(mpi.Isend(c, sendLen[k], nb.Rank, tagRows)); err != nil {
			return nil, err
		}
	}
	if err := c.Waitall(reqs); err != nil {
		return nil, err
	}
	reqs = reqs[:0]
	// Round 2: the columns (global), one message per neighbour; the values follow
	// (refresh).
	out := &bsr.Matrix{BlockRows: ng, BlockCols: x.ColLayout.N(), R: R, C: C, RowPtr: make([]int64, ng+1)}
	for i, n := range recvLen {
		if n < 0 {
			return nil, fmt.Errorf("%w: a neighbour sent a row of %d blocks", ErrLayout, n)
		}
		out.RowPtr[i+1] = out.RowPtr[i] + n
	}
	nnz := out.RowPtr[ng]
	cols := make([]int64, nnz)
	out.Val = make([]float64, nnz*int64(bs))
	for _, nb := range h.Recv {
		p0, p1 := out.RowPtr[nb.Lo], out.RowPtr[nb.Hi]
		if err := post(mpi.Irecv(c, cols[p0:p1], nb.Rank, tagRows)); err != nil {
			return nil, err
		}
	}
	for k, nb := range h.Send {
		var sc []int64
		for _, r := range nb.Rows {
			sc, g.send[k] = x.appendRefs(int(r), sc, g.send[k])
		}
		g.buf[k] = make([]float64, len(g.send[k])*bs)
		if err := post(mpi.Isend(c, sc, nb.Rank, tagRows)); err != nil {
			return nil, err
		}
	}
	if err := c.Waitall(reqs); err != nil {
		return nil, err
	}
	out.ColIdx = make([]int32, nnz)
	for q, j := range cols {
		if j < 0 || j >= int64(out.BlockCols) {
			return nil, fmt.Errorf("%w: a neighbour sent column %d of %d", ErrLayout, j, out.BlockCols)
		}
		out.ColIdx[q] = int32(j)
	}
	g.rows = out
	return g, g.refresh()
}

// refresh fetches the rows' values again, x's pattern being the one they were agreed
// on: one message per neighbour each way.
func (g *ghostRows) refresh() error {
	c, h := g.a.Comm, g.a.Halo
	bs := int64(g.x.Local.R * g.x.Local.C)
	reqs := make([]*mpi.Request, 0, len(h.Send)+len(h.Recv))
	for _, nb := range h.Recv {
		p0, p1 := g.rows.RowPtr[nb.Lo], g.rows.RowPtr[nb.Hi]
		q, err := mpi.Irecv(c, g.rows.Val[p0*bs:p1*bs], nb.Rank, tagRows)
		if err != nil {
			return err
		}
		reqs = append(reqs, q)
	}
	for k, nb := range h.Send {
		g.x.gatherRefs(g.send[k], g.buf[k])
		q, err := mpi.Isend(c, g.buf[k], nb.Rank, tagRows)
		if err != nil {
			return err
		}
		reqs = append(reqs, q)
	}
	return c.Waitall(reqs)
}

// traffic returns what one refresh sends and receives.
func (g *ghostRows) traffic() mpi.Traffic {
	h := g.a.Halo
	t := mpi.Traffic{Sends: int64(len(h.Send)), Recvs: int64(len(h.Recv))}
	for _, b := range g.buf {
		t.BytesSent += int64(len(b)) * 8
	}
	for _, nb := range h.Recv {
		t.BytesRecv += (g.rows.RowPtr[nb.Hi] - g.rows.RowPtr[nb.Lo]) * int64(g.x.Local.R*g.x.Local.C) * 8
	}
	return t
}

// operand holds the rows of x that a product a·x reads on this rank, its own rows and
// the fetched ghost rows, with their columns renumbered densely: cols lists the global
// block columns they hold, ascending, and both parts' ColIdx index cols, so that a row
// of the product accumulates in an array indexed by column instead of a map.
type operand struct {
	x     *Matrix
	cols  []int64     // the global block column of each dense index, ascending
	own   *bsr.Matrix // x's own rows' pattern, dense columns (no values: ownBlock reads x's)
	refs  []int64     // where own's blocks lie in x (appendRefs)
	bs    int64       // scalars per block
	ghost *bsr.Matrix // the fetched rows, dense columns, sharing g's values
	g     *ghostRows  // nil when a has no ghost column
}

// rowUnion returns in row (reused) the dense columns of row i of a·x's pattern, sorted:
// the union of x's rows that a's row i names (its local part's own rows, its ghost
// part's fetched ones), and x's own row i too when self (the identity's term of a
// smoothing). mark is the caller's scratch, one per dense column, −1 throughout; it is
// left so.
func (op *operand) rowUnion(a *Matrix, i int, self bool, mark []int32, row []int32) []int32 {
	row = row[:0]
	add := func(m *bsr.Matrix, j int) {
		for _, c := range m.ColIdx[m.RowPtr[j]:m.RowPtr[j+1]] {
			if mark[c] < 0 {
				mark[c] = 0
				row = append(row, c)
			}
		}
	}
	if self {
		add(op.own, i)
	}
	for _, j := range a.Local.ColIdx[a.Local.RowPtr[i]:a.Local.RowPtr[i+1]] {
		add(op.own, int(j))
	}
	for _, j := range a.Ghost.ColIdx[a.Ghost.RowPtr[i]:a.Ghost.RowPtr[i+1]] {
		add(op.ghost, int(j))
	}
	slices.Sort(row)
	for _, c := range row {
		mark[c] = -1
	}
	return row
}

// newOperand gathers x's rows for a·x, fetching the ghost rows (GhostRows).
func newOperand(a, x *Matrix) (*operand, error) {
	g, err := fetchGhostRows(a, x)
	if err != nil {
		return nil, err
	}
	n := x.Hi - x.Lo
	op := &operand{x: x, g: g, bs: int64(x.Local.R * x.Local.C)}
	own := &bsr.Matrix{BlockRows: n, R: x.Local.R, C: x.Local.C, RowPtr: make([]int64, n+1)}
	var oc []int64
	for i := 0; i < n; i++ {
		oc, op.refs = x.appendRefs(i, oc, op.refs)
		own.RowPtr[i+1] = int64(len(oc))
	}
	all := make([]int64, 0, len(oc)+len(g.rows.ColIdx))
	all = append(all, oc...)
	for _, j := range g.rows.ColIdx {
		all = append(all, int64(j))
	}
	slices.Sort(all)
	op.cols = slices.Compact(all)
	dense := func(j int64) int32 {
		q, _ := slices.BinarySearch(op.cols, j)
		return int32(q)
	}
	own.BlockCols = len(op.cols)
	own.ColIdx = make([]int32, len(oc))
	for q, j := range oc {
		own.ColIdx[q] = dense(j)
	}
	op.own = own
	gh := *g.rows
	gh.BlockCols = len(op.cols)
	gh.ColIdx = make([]int32, len(g.rows.ColIdx))
	for q, j := range g.rows.ColIdx {
		gh.ColIdx[q] = dense(int64(j))
	}
	op.ghost = &gh
	return op, nil
}

// ownBlock returns block q of x's own rows (own's numbering), x's values in place.
func (op *operand) ownBlock(q int64) []float64 {
	if r := op.refs[q]; r >= 0 {
		return op.x.Local.Val[r*op.bs : (r+1)*op.bs]
	}
	r := -1 - op.refs[q]
	return op.x.Ghost.Val[r*op.bs : (r+1)*op.bs]
}

// refresh takes x's new values on its pattern: its own rows are read in place, the
// ghost rows fetched again.
func (op *operand) refresh() error { return op.g.refresh() }

// assembly is assembleRows kept: which of this rank's partial blocks go to which
// owner, and where every block received lands in this rank's rows, so that new
// partial values on the same pattern travel in one message per pair of ranks that
// share rows and are summed in the same order.
type assembly struct {
	comm    *mpi.Comm
	bs      int
	byOwner [][]int     // per rank: the partial blocks it owns, in partial order
	in      []int64     // per rank: how many blocks it sends here
	dst     [][]int64   // per rank: each received block's place in out, −1−q where it is the first
	sendBuf [][]float64 // per other rank: the values sent to it
	recvBuf [][]float64 // per other rank: the values it sent
	out     *bsr.Matrix // this rank's rows, numbered from 0, global columns
}

// newAssembly agrees the pattern of the rows that the partial blocks keys (global rows
// by lay, columns of ncols) sum to: one Alltoall of counts, then one message of
// positions per pair of ranks that share rows. Every rank must call it together.
func newAssembly(comm *mpi.Comm, lay Layout, ncols, R, C int, keys []blockKey) (*assembly, error) {
	size, me := comm.Size(), comm.Rank()
	bs := R * C
	as := &assembly{comm: comm, bs: bs, byOwner: make([][]int, size), in: make([]int64, size),
		dst: make([][]int64, size), sendBuf: make([][]float64, size), recvBuf: make([][]float64, size)}
	for s, k := range keys {
		o := lay.Owner(int(k.i))
		as.byOwner[o] = append(as.byOwner[o], s)
	}
	counts := make([]int64, size)
	for o, ss := range as.byOwner {
		counts[o] = int64(len(ss))
	}
	if err := comm.AlltoallInt64(counts, as.in); err != nil {
		return nil, err
	}
	as.in[me] = counts[me]
	pos := make([][]int64, size)
	var reqs []*mpi.Request
	for r := 0; r < size; r++ {
		if r != me && as.in[r] > 0 {
			pos[r] = make([]int64, 2*as.in[r])
			q, err := mpi.Irecv(comm, pos[r], r, tagAssemble)
			if err != nil {
				return nil, err
			}
			reqs = append(reqs, q)
		}
	}
	for o, ss := range as.byOwner {
		if len(ss) == 0 {
			continue
		}
		ps := make([]int64, 0, 2*len(ss))
		for _, s := range ss {
			ps = append(ps, keys[s].i, keys[s].j)
		}
		if o == me {
			pos[me] = ps
			continue
		}
		as.sendBuf[o] = make([]float64, len(ss)*bs)
		q, err := mpi.Isend(comm, ps, o, tagAssemble)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, q)
	}
	if err := comm.Waitall(reqs); err != nil {
		return nil, err
	}
	for r := 0; r < size; r++ {
		if r != me && as.in[r] > 0 {
			as.recvBuf[r] = make([]float64, as.in[r]*int64(bs))
		}
	}
	lo, hi := lay.Range(me)
	// Every block received, by (row, column, rank, position): sorted, the runs of one
	// block are its contributions in rank order, and the blocks are in row order.
	type got struct {
		i, j int64
		r    int
		t    int64
	}
	total := 0
	for r := range pos {
		total += len(pos[r]) / 2
	}
	all := make([]got, 0, total)
	for r := 0; r < size; r++ {
		for t := int64(0); t < int64(len(pos[r])/2); t++ {
			i, j := pos[r][2*t], pos[r][2*t+1]
			if i < int64(lo) || i >= int64(hi) || j < 0 || j >= int64(ncols) {
				return nil, fmt.Errorf("%w: rank %d sent block (%d, %d) for rows [%d,%d) of %d columns", ErrLayout, r, i, j, lo, hi, ncols)
			}
			all = append(all, got{i, j, r, t})
		}
		as.dst[r] = make([]int64, len(pos[r])/2)
	}
	slices.SortFunc(all, func(a, b got) int {
		switch {
		case a.i != b.i:
			return int(a.i - b.i)
		case a.j != b.j:
			return int(a.j - b.j)
		case a.r != b.r:
			return a.r - b.r
		}
		return int(a.t - b.t)
	})
	out := &bsr.Matrix{BlockRows: hi - lo, BlockCols: ncols, R: R, C: C, RowPtr: make([]int64, hi-lo+1),
		ColIdx: make([]int32, 0, total)}
	for g, e := range all {
		if g > 0 && all[g-1].i == e.i && all[g-1].j == e.j {
			as.dst[e.r][e.t] = int64(len(out.ColIdx) - 1)
			continue
		}
		as.dst[e.r][e.t] = -int64(len(out.ColIdx)) - 1
		out.RowPtr[e.i-int64(lo)+1]++
		out.ColIdx = append(out.ColIdx, int32(e.j))
	}
	for i := 0; i < hi-lo; i++ {
		out.RowPtr[i+1] += out.RowPtr[i]
	}
	out.Val = make([]float64, len(out.ColIdx)*bs)
	as.out = out
	return as, nil
}

// numeric sends vals (the partial blocks' values, in the order of the keys newAssembly
// took) to their owners and sums what this rank receives into out's values, each
// block over the ranks in rank order, so the result is the same bits on every run.
// Every rank must call it together.
func (as *assembly) numeric(vals []float64) error {
	c := as.comm
	size, me, bs := c.Size(), c.Rank(), as.bs
	var reqs []*mpi.Request
	for r := 0; r < size; r++ {
		if r != me && as.in[r] > 0 {
			q, err := mpi.Irecv(c, as.recvBuf[r], r, tagAssemble)
			if err != nil {
				return err
			}
			reqs = append(reqs, q)
		}
	}
	for o, ss := range as.byOwner {
		if len(ss) == 0 || o == me {
			continue
		}
		b := as.sendBuf[o]
		for t, s := range ss {
			copy(b[t*bs:(t+1)*bs], vals[s*bs:(s+1)*bs])
		}
		q, err := mpi.Isend(c, b, o, tagAssemble)
		if err != nil {
			return err
		}
		reqs = append(reqs, q)
	}
	if err := c.Waitall(reqs); err != nil {
		return err
	}
	val := as.out.Val
	for r := 0; r < size; r++ {
		for t, d := range as.dst[r] {
			var src []float64
			if r == me {
				// This rank's own share is read in place.
				s := as.byOwner[me][t]
				src = vals[s*bs : (s+1)*bs]
			} else {
				src = as.recvBuf[r][t*bs : (t+1)*bs]
			}
			if d < 0 {
				copy(val[(-1-d)*int64(bs):], src) // a block of one contribution keeps its bits (−0 included)
				continue
			}
			blk := val[d*int64(bs) : (d+1)*int64(bs)]
			for q, v := range src {
				blk[q] += v
			}
		}
	}
	return nil
}

// traffic returns what one numeric sends and receives.
func (as *assembly) traffic() mpi.Traffic {
	var t mpi.Traffic
	me := as.comm.Rank()
	for r := range as.byOwner {
		if r == me {
			continue
		}
		if n := len(as.byOwner[r]); n > 0 {
			t.Sends++
			t.BytesSent += int64(n*as.bs) * 8
		}
		if as.in[r] > 0 {
			t.Recvs++
			t.BytesRecv += as.in[r] * int64(as.bs) * 8
		}
	}
	return t
}
