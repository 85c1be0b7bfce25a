package cuda

import (
	"fmt"
	"math"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/cudadrv"
)

// tentKMax mirrors TENT_KMAX in kernels/coarsen.cu: the most near-null vectors the
// device QR takes.
const tentKMax = 8

// Graph is a level's strength graph in device memory, in amg.Graph's layout: row
// pointers, sorted adjacency lists, and the scale exponent of every unknown
// (DiagExp, amg's int16 values widened to int32).
type Graph struct {
	b       *Backend
	nodes   int
	rowPtr  *Buffer[int64]
	adj     *Buffer[int32]
	diagExp *Buffer[int32]
	// Symmetrized reports whether the strength test kept an edge in one direction
	// only somewhere, so that the graph is the union S ∪ Sᵀ (amg's symmetrize).
	Symmetrized bool
}

// Nodes returns the number of nodes (block rows).
func (g *Graph) Nodes() int { return g.nodes }

// Edges returns the number of stored edges (each undirected edge twice).
func (g *Graph) Edges() int64 { return int64(g.adj.Len()) }

// Download copies the graph to the host in amg.Graph's layout, for tests and for
// host steps that need it.
func (g *Graph) Download() (rowPtr []int64, adj []int32, diagExp []int16, err error) {
	rowPtr = make([]int64, g.nodes+1)
	adj = make([]int32, g.adj.Len())
	de := make([]int32, g.diagExp.Len())
	for _, e := range []error{g.rowPtr.Download(rowPtr), g.adj.Download(adj), g.diagExp.Download(de)} {
		if e != nil {
			return nil, nil, nil, e
		}
	}
	diagExp = make([]int16, len(de))
	for i, v := range de {
		diagExp[i] = int16(v)
	}
	return rowPtr, adj, diagExp, nil
}

// Free releases the graph.
func (g *Graph) Free() {
	for _, f := range []func(){g.rowPtr.Free, g.adj.Free, g.diagExp.Free} {
		f()
	}
}

// alloc allocates n values, or records the first error in *err and returns an empty
// buffer, so that a chain of allocations checks once.
func alloc[T Elem](b *Backend, n int, err *error) *Buffer[T] {
	if *err != nil {
		return &Buffer[T]{b: b}
	}
	u, e := Alloc[T](b, n)
	if e != nil {
		*err = e
		return &Buffer[T]{b: b}
	}
	return u
}

// readInt32 waits for the device and returns v[i].
func readInt32(v *Buffer[int32], i int) (int32, error) {
	var x [1]int32
	err := v.downloadAt(i, x[:])
	return x[0], err
}

// Strength builds the strength graph of the square-blocked device matrix a, as
// amg.Strength does on the host, edge for edge: ‖A_ij‖² > θ²·‖A_ii‖·‖A_jj‖ with the
// same scale-safe norms (bsr.SumSquares), every stored off-diagonal block for a
// negative threshold, symmetrised when the test kept an edge one way only. A
// missing, zero or non-finite diagonal block is an error wrapping bsr.ErrInvalid that
// names the lowest such block row. Nothing but a few counters crosses the bus.
func (b *Backend) Strength(a *Matrix, threshold float64) (*Graph, error) {
	if a.blockRows != a.blockCols || a.r != a.c {
		panic("cuda: Strength: matrix not square-blocked")
	}
	if math.IsNaN(threshold) || math.IsInf(threshold, 0) {
		return nil, fmt.Errorf("cuda: Strength: threshold %g is not finite", threshold)
	}
	n, bs := a.blockRows, a.r
	var err error
	diag := alloc[float64](b, n, &err)
	dexp := alloc[int32](b, n, &err)
	cnt := alloc[int32](b, n, &err)
	flags := alloc[int32](b, 2, &err) // lowest bad row, asymmetry
	g := &Graph{b: b, nodes: n, rowPtr: &Buffer[int64]{b: b}, adj: &Buffer[int32]{b: b}}
	g.diagExp = alloc[int32](b, n*bs, &err)
	defer func() {
		for _, f := range []func(){diag.Free, dexp.Free, cnt.Free, flags.Free} {
			f()
		}
	}()
	if err != nil {
		g.Free()
		return nil, fmt.Errorf("cuda: Strength: %w", err)
	}
	if err := flags.Upload([]int32{int32(n), 0}); err != nil {
		g.Free()
		return nil, err
	}
	ni, bi := int32(n), int32(bs)
	rp, cp, vp := a.rowPtr.Ptr(), a.col.Ptr(), a.val.Ptr()
	dp, ep, up, fp := diag.Ptr(), dexp.Ptr(), g.diagExp.Ptr(), flags.Ptr()
	blocks := blocksFor(int64(n))
	b.run("strength_diag", blocks, func() { b.args.I32(ni).I32(bi).Ptr(rp).Ptr(cp).Ptr(vp).Ptr(dp).Ptr(ep).Ptr(up).Ptr(fp) })
	bad, err := readInt32(flags, 0)
	if err == nil && bad < ni {
		err = fmt.Errorf("cuda: Strength: %w: block row %d: diagonal block missing, zero or not finite", bsr.ErrInvalid, bad)
	}
	if err != nil {
		g.Free()
		return nil, err
	}
	all := int32(0)
	if threshold < 0 {
		all = 1
	}
	th2 := threshold * threshold
	edges := func(fill int32, sp, ap cudadrv.DevPtr) {
		np := cnt.Ptr()
		b.run("strength_edges", blocks, func() {
			b.args.I32(ni).I32(bi).Ptr(rp).Ptr(cp).Ptr(vp).Ptr(dp).Ptr(ep).F64(th2).I32(all).I32(fill).Ptr(np)
			b.args.Ptr(sp).Ptr(ap)
		})
	}
	edges(0, 0, 0)
	sp, adj, err := b.pattern(cnt)
	if err != nil {
		g.Free()
		return nil, fmt.Errorf("cuda: Strength: %w", err)
	}
	g.rowPtr, g.adj = sp, adj
	edges(1, sp.Ptr(), g.adj.Ptr())
	gp, ap := g.rowPtr.Ptr(), g.adj.Ptr()
	b.run("graph_asym", blocks, func() { b.args.I32(ni).Ptr(gp).Ptr(ap).Ptr(fp + 4) })
	asym, err := readInt32(flags, 1)
	if err == nil && asym != 0 {
		g.Symmetrized = true
		err = b.symmetrize(g)
	}
	if err != nil {
		g.Free()
		return nil, err
	}
	return g, nil
}

// lastOffset waits for the device and returns the last of the n+1 offsets of a scan.
func lastOffset(off *Buffer[int64]) (int64, error) {
	var x [1]int64
	err := off.downloadAt(off.Len()-1, x[:])
	return x[0], err
}

// symmetrize replaces g's edges by those of S ∪ Sᵀ: the rows of Sᵀ appended by
// atomics and then sorted, merged row by row with S's (amg's symmetrize).
func (b *Backend) symmetrize(g *Graph) error {
	n := g.nodes
	ni, blocks := int32(n), blocksFor(int64(n))
	var err error
	tcnt := alloc[int32](b, n, &err)
	next := alloc[int32](b, n, &err)
	if err != nil {
		tcnt.Free()
		next.Free()
		return err
	}
	defer tcnt.Free()
	defer next.Free()
	gp, ap, tc := g.rowPtr.Ptr(), g.adj.Ptr(), tcnt.Ptr()
	b.run("graph_tcount", blocks, func() { b.args.I32(ni).Ptr(gp).Ptr(ap).Ptr(tc) })
	tp, err := b.scanCounts(tcnt)
	if err != nil {
		return err
	}
	defer tp.Free()
	tadj, err := Alloc[int32](b, g.adj.Len())
	if err != nil {
		return err
	}
	defer tadj.Free()
	tpp, np, tap := tp.Ptr(), next.Ptr(), tadj.Ptr()
	b.run("graph_tfill", blocks, func() { b.args.I32(ni).Ptr(gp).Ptr(ap).Ptr(tpp).Ptr(np).Ptr(tap) })
	b.run("sort_segments", blocks, func() { b.args.I32(ni).Ptr(tpp).Ptr(tap) })
	uc := tcnt.Ptr() // reused for the union's counts
	b.run("graph_union", blocks, func() {
		b.args.I32(ni).Ptr(gp).Ptr(ap).Ptr(tpp).Ptr(tap).I32(0).Ptr(uc).Ptr(0).Ptr(0)
	})
	up, uadj, err := b.pattern(tcnt)
	if err != nil {
		return err
	}
	upp, uap := up.Ptr(), uadj.Ptr()
	b.run("graph_union", blocks, func() {
		b.args.I32(ni).Ptr(gp).Ptr(ap).Ptr(tpp).Ptr(tap).I32(1).Ptr(uc).Ptr(upp).Ptr(uap)
	})
	g.rowPtr.Free()
	g.adj.Free()
	g.rowPtr, g.adj = up, uadj
	return nil
}

// Aggregates is a level's aggregation in device memory, in amg.Aggregates' layout.
type Aggregates struct {
	b       *Backend
	nodes   int
	count   int
	rounds  int
	small   bool
	of      *Buffer[int32] // aggregate of each node, −1 for none
	ptr     *Buffer[int64] // members of aggregate a: members[ptr[a]:ptr[a+1]], ascending
	members *Buffer[int32]
	roots   *Buffer[int32]
	aggd    *Buffer[int32] // 1 for each node in an aggregate (P_tent's row counts)
	diagExp *Buffer[int32] // the graph's (not owned)
}

// Count returns the number of aggregates.
func (a *Aggregates) Count() int { return a.count }

// Rounds returns the number of MIS rounds the aggregation ran.
func (a *Aggregates) Rounds() int { return a.rounds }

// Small reports whether some aggregate has fewer nodes than the minimum asked for:
// amg merges such aggregates (a serial pass, done on the host with the downloaded
// aggregates); the device's aggregates are then not final.
func (a *Aggregates) Small() bool { return a.small }

// Download copies the aggregation to the host in amg.Aggregates' layout (without
// DiagExp): aggregate of each node, member pointers and lists, roots.
func (a *Aggregates) Download() (of []int32, ptr []int64, members, roots []int32, err error) {
	of, ptr = make([]int32, a.nodes), make([]int64, a.count+1)
	members, roots = make([]int32, a.members.Len()), make([]int32, a.count)
	for _, e := range []error{a.of.Download(of), a.ptr.Download(ptr), a.members.Download(members), a.roots.Download(roots)} {
		if e != nil {
			return nil, nil, nil, nil, e
		}
	}
	return of, ptr, members, roots, nil
}

// Free releases the aggregation (not the graph's DiagExp).
func (a *Aggregates) Free() {
	for _, f := range []func(){a.of.Free, a.ptr.Free, a.members.Free, a.roots.Free, a.aggd.Free} {
		f()
	}
}

// misBatch is the number of MIS rounds queued between two reads of the undecided
// count: rounds after the last decision change nothing, so the batch trades a few
// idle rounds for fewer waits.
const misBatch = 16

// Aggregate builds the aggregates of g as amg.AggregateRounds does (and therefore as
// amg.Aggregate's greedy pass does), node for node: the maximal independent set at
// distance 2 (distance2) or 1 in synchronous rounds (mis_sweep, mis_decide), roots
// numbered in node order, the nodes next to a root and then, at distance 2, those two
// edges away given the lowest neighbouring aggregate, member lists sorted. Aggregates
// under minNodes nodes are reported by Small, not merged.
func (b *Backend) Aggregate(g *Graph, distance2 bool, minNodes int) (*Aggregates, error) {
	n := g.nodes
	ni, blocks := int32(n), blocksFor(int64(n))
	var err error
	state := alloc[int32](b, n, &err)
	key := alloc[int64](b, n, &err)
	t1 := alloc[int64](b, n, &err)
	settled := alloc[int32](b, n, &err) // mis_sweep's nodes with a final maximum
	left := alloc[int32](b, misBatch, &err)
	flag := alloc[int32](b, n, &err)
	agg := &Aggregates{b: b, nodes: n, diagExp: g.diagExp,
		of: alloc[int32](b, n, &err), ptr: &Buffer[int64]{b: b}, members: &Buffer[int32]{b: b},
		roots: &Buffer[int32]{b: b}, aggd: alloc[int32](b, n, &err)}
	near := alloc[int32](b, n, &err)
	defer func() {
		for _, f := range []func(){state.Free, key.Free, t1.Free, settled.Free, left.Free, flag.Free, near.Free} {
			f()
		}
	}()
	fail := func(e error) (*Aggregates, error) {
		agg.Free()
		return nil, fmt.Errorf("cuda: Aggregate: %w", e)
	}
	if err != nil {
		return fail(err)
	}
	gp, ap, sp, kp := g.rowPtr.Ptr(), g.adj.Ptr(), state.Ptr(), key.Ptr()
	b.run("mis_init", blocks, func() { b.args.I32(ni).Ptr(gp).Ptr(sp).Ptr(kp) })
	t1p, dp := t1.Ptr(), settled.Ptr()
	for done := false; !done; {
		lp := left.Ptr()
		nb := uint64(left.Bytes())
		b.enqueue(func() error { return cudadrv.MemsetD8(lp, 0, nb) })
		for r := 0; r < misBatch; r++ {
			lr := lp + cudadrv.DevPtr(4*r)
			b.run("mis_sweep", blocks, func() { b.args.I32(ni).Ptr(gp).Ptr(ap).Ptr(kp).Ptr(t1p).Ptr(dp) })
			if distance2 {
				b.run("mis_decide2", blocks, func() { b.args.I32(ni).Ptr(gp).Ptr(ap).Ptr(sp).Ptr(kp).Ptr(t1p).Ptr(lr) })
			} else {
				b.run("mis_decide", blocks, func() { b.args.I32(ni).Ptr(sp).Ptr(kp).Ptr(t1p).Ptr(lr) })
			}
		}
		counts := make([]int32, misBatch)
		if err := left.Download(counts); err != nil {
			return fail(err)
		}
		for r, c := range counts {
			if c == 0 {
				agg.rounds += r + 1
				done = true
				break
			}
		}
		if !done {
			agg.rounds += misBatch
		}
		if n == 0 {
			done = true
		}
	}
	// Roots, numbered in node order.
	fl := flag.Ptr()
	b.run("agg_isroot", blocks, func() { b.args.I32(ni).Ptr(sp).Ptr(fl) })
	off, m, err := b.offsets(flag)
	if err != nil {
		return fail(err)
	}
	defer off.Free()
	agg.count = int(m)
	if agg.roots, err = Alloc[int32](b, agg.count); err != nil {
		return fail(err)
	}
	op, ofp, rtp, nrp := off.Ptr(), agg.of.Ptr(), agg.roots.Ptr(), near.Ptr()
	b.run("agg_roots", blocks, func() { b.args.I32(ni).Ptr(sp).Ptr(op).Ptr(ofp).Ptr(rtp) })
	b.run("agg_lowest", blocks, func() { b.args.I32(ni).Ptr(gp).Ptr(ap).Ptr(ofp).Ptr(nrp) })
	if distance2 {
		b.run("agg_lowest", blocks, func() { b.args.I32(ni).Ptr(gp).Ptr(ap).Ptr(nrp).Ptr(ofp) })
	} else {
		nbytes := uint64(agg.of.Bytes())
		b.enqueue(func() error { return cudadrv.MemcpyDtoD(ofp, nrp, nbytes) })
	}
	// Sizes, the minimum check, member lists.
	size, err := Alloc[int32](b, agg.count)
	if err != nil {
		return fail(err)
	}
	defer size.Free()
	szp, adp := size.Ptr(), agg.aggd.Ptr()
	mi, mb := int32(agg.count), blocksFor(int64(agg.count))
	b.run("agg_count", blocks, func() { b.args.I32(ni).Ptr(ofp).Ptr(szp).Ptr(adp) })
	lp := left.Ptr()
	b.enqueue(func() error { return cudadrv.MemsetD8(lp, 0, 4) })
	b.run("agg_small", mb, func() { b.args.I32(mi).Ptr(szp).I32(int32(minNodes)).Ptr(lp) })
	small, err := readInt32(left, 0)
	if err != nil {
		return fail(err)
	}
	agg.small = small != 0
	if agg.ptr, agg.members, err = b.pattern(size); err != nil {
		agg.ptr, agg.members = &Buffer[int64]{b: b}, &Buffer[int32]{b: b}
		return fail(err)
	}
	b.enqueue(func() error { return cudadrv.MemsetD8(szp, 0, uint64(4*agg.count)) })
	pp, mp := agg.ptr.Ptr(), agg.members.Ptr()
	b.run("agg_place", blocks, func() { b.args.I32(ni).Ptr(ofp).Ptr(pp).Ptr(szp).Ptr(mp) })
	b.run("sort_segments", mb, func() { b.args.I32(mi).Ptr(pp).Ptr(mp) })
	if err := b.Err(); err != nil {
		return fail(err)
	}
	return agg, nil
}

// Tentative builds the tentative prolongator (n×count blocks of bs×k, one block per
// aggregated node) and the coarse near-null space B_c (count blocks of k×k) from agg
// and the level's near-null space B (n·bs×k, node-blocked row-major: node v's bs×k
// block at v·bs·k), as amg.Tentative does, bit for bit: a thread per aggregate runs
// the same Householder QR in the same order, with the same row weighting where the
// unknowns' scales spread by more than 2^24.
func (b *Backend) Tentative(agg *Aggregates, B *Buffer[float64], bs, k int) (*Matrix, *Buffer[float64], error) {
	n, m := agg.nodes, agg.count
	if B.Len() != n*bs*k {
		panic("cuda: Tentative: near-null space size mismatch")
	}
	if k > tentKMax {
		return nil, nil, fmt.Errorf("cuda: Tentative: %d near-null vectors: at most %d on the device", k, tentKMax)
	}
	P := &Matrix{b: b, blockRows: n, blockCols: m, r: bs, c: k}
	prp, err := b.scanCounts(agg.aggd)
	if err != nil {
		return nil, nil, fmt.Errorf("cuda: Tentative: %w", err)
	}
	P.rowPtr = prp
	nnz := agg.members.Len()
	P.variant = chooseVariant(bs, k, int64(nnz), n)
	P.col = alloc[int32](b, nnz, &err)
	P.val = alloc[float64](b, nnz*bs*k, &err)
	bc := alloc[float64](b, m*k*k, &err)
	scratch := alloc[float64](b, nnz*bs*k+m*k*k, &err)
	defer scratch.Free()
	if err != nil {
		P.Free()
		bc.Free()
		return nil, nil, fmt.Errorf("cuda: Tentative: %w", err)
	}
	ni, mi, bi, ki := int32(n), int32(m), int32(bs), int32(k)
	ofp, pp, cp := agg.of.Ptr(), P.rowPtr.Ptr(), P.col.Ptr()
	b.run("tent_pattern", blocksFor(int64(n)), func() { b.args.I32(ni).Ptr(ofp).Ptr(pp).Ptr(cp) })
	var up cudadrv.DevPtr
	if agg.diagExp != nil && agg.diagExp.Len() > 0 {
		up = agg.diagExp.Ptr()
	}
	ap, mp, Bp, scp, vp, bcp := agg.ptr.Ptr(), agg.members.Ptr(), B.Ptr(), scratch.Ptr(), P.val.Ptr(), bc.Ptr()
	b.run("tent_qr", blocksFor(int64(m)*tentKMax), func() {
		b.args.I32(mi).I32(bi).I32(ki).Ptr(ap).Ptr(mp).Ptr(Bp).Ptr(up).Ptr(pp).Ptr(scp).Ptr(vp).Ptr(bcp)
	})
	if err := b.Err(); err != nil {
		P.Free()
		bc.Free()
		return nil, nil, err
	}
	return P, bc, nil
}

// SmoothPattern returns the pattern of the smoothed prolongator (I − ωD⁻¹A)·P_tent
// for the square-blocked device operator a and the aggregation agg (whose P_tent has
// at most one block per row): row i holds the distinct aggregates of i and of a's
// columns in row i, ascending — amg's smoothing pattern, A·P_tent ∪ P_tent. Its values
// are zero; SmoothProlongator fills them.
func (b *Backend) SmoothPattern(a *Matrix, agg *Aggregates, k int) (*Matrix, error) {
	n := a.blockRows
	if agg.nodes != n {
		panic("cuda: SmoothPattern: aggregation of another level")
	}
	var err error
	scratch := alloc[int32](b, a.col.Len()+n, &err)
	cnt := alloc[int32](b, n, &err)
	defer scratch.Free()
	defer cnt.Free()
	if err != nil {
		return nil, fmt.Errorf("cuda: SmoothPattern: %w", err)
	}
	ni, blocks := int32(n), blocksFor(int64(n))
	rp, cp, ofp, scp, np := a.rowPtr.Ptr(), a.col.Ptr(), agg.of.Ptr(), scratch.Ptr(), cnt.Ptr()
	b.run("smooth_pattern", blocks, func() { b.args.I32(ni).Ptr(rp).Ptr(cp).Ptr(ofp).I32(0).Ptr(scp).Ptr(np).Ptr(0).Ptr(0) })
	yp, ycol, err := b.pattern(cnt)
	if err != nil {
		return nil, fmt.Errorf("cuda: SmoothPattern: %w", err)
	}
	nnz := int64(ycol.Len())
	Y := &Matrix{b: b, blockRows: n, blockCols: agg.count, r: a.r, c: k, rowPtr: yp, col: ycol}
	Y.val = alloc[float64](b, int(nnz)*a.r*k, &err)
	if err != nil {
		Y.Free()
		return nil, fmt.Errorf("cuda: SmoothPattern: %w", err)
	}
	Y.variant = chooseVariant(a.r, k, nnz, n)
	ypp, ycp := yp.Ptr(), Y.col.Ptr()
	b.run("smooth_pattern", blocks, func() { b.args.I32(ni).Ptr(rp).Ptr(cp).Ptr(ofp).I32(1).Ptr(scp).Ptr(np).Ptr(ypp).Ptr(ycp) })
	return Y, b.Err()
}

var _ backend.Coarsener = (*Backend)(nil)

// Coarsen implements backend.Coarsener: Strength, Aggregate, Tentative and (with
// opt.Smooth) SmoothPattern, the prolongator the cycle restricts with given its
// transpose on the device. Only counters cross the bus.
func (b *Backend) Coarsen(a backend.Matrix, B backend.Vector, k int, opt backend.CoarsenOptions) (*backend.Coarsening, error) {
	A := b.mat(a)
	Bv := b.vec(B)
	g, err := b.Strength(A, opt.Threshold)
	if err != nil {
		return nil, err
	}
	defer g.Free()
	agg, err := b.Aggregate(g, opt.Distance2, opt.MinNodes)
	if err != nil {
		return nil, err
	}
	defer agg.Free()
	c := &backend.Coarsening{Aggregates: agg.Count(), Edges: g.Edges(), Rounds: agg.Rounds(), Small: agg.Small()}
	if c.Small || c.Aggregates == 0 {
		return c, nil
	}
	P, bc, err := b.Tentative(agg, Bv.buf, A.r, k)
	if err != nil {
		return nil, err
	}
	c.Ptent, c.Bc = P, &Vector{buf: bc}
	fail := func(err error) (*backend.Coarsening, error) {
		c.Free()
		return nil, err
	}
	if !opt.Smooth {
		if err := b.transposeOnDevice(P); err != nil {
			return fail(err)
		}
		b.RefreshTranspose(P)
		return c, b.Err()
	}
	Y, err := b.SmoothPattern(A, agg, k)
	if err != nil {
		return fail(err)
	}
	c.P = Y
	if err := b.transposeOnDevice(Y); err != nil {
		return fail(err)
	}
	return c, b.Err()
}

var _ backend.StartVectorFiller = (*Backend)(nil)

// FillStartVector implements backend.StartVectorFiller (start_vector in
// kernels/coarsen.cu: krylov's noise, integer hashing and one exact conversion).
func (b *Backend) FillStartVector(v backend.Vector) {
	x := b.vec(v)
	n := int64(x.Len())
	p := x.buf.Ptr()
	b.run("start_vector", blocksFor(n), func() { b.args.I64(n).Ptr(p) })
}
