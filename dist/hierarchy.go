package dist

import (
	"fmt"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/amg/cycle"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/dist/mpi"
)

// Level is one grid of a distributed hierarchy: this rank's rows of the level's
// operator, prolongator and restriction, and the smoother's data for its rows.
type Level struct {
	A *Matrix // the operator, rows and columns on the level's layout
	// P is the prolongator: rows on this level's layout, columns on the next coarser
	// level's. PT is its transpose, the restriction, stored as its own matrix (rows on
	// the coarser layout) so that restricting is one MulVec with its own halo rather
	// than a transposed product whose partial sums would have to travel back to their
	// owners. Both are nil on the coarsest level.
	P, PT *Matrix
	// Dinv holds the inverses of A's diagonal blocks of this rank's rows (nil on the
	// coarsest level): the serial hierarchy's own, so the smoother is the same bits.
	Dinv []float64
	// ChebMin and ChebMax are the smoother's Chebyshev interval on λ(D⁻¹A), the serial
	// hierarchy's.
	ChebMin, ChebMax float64

	b, x, r, d, t []float64 // right-hand side, iterate, residual, step, scratch

	plan *levelPlan // Setup's plans of the level's products (nil from NewHierarchy)
}

// Hierarchy is a smoothed-aggregation hierarchy distributed by rows, level by level,
// and its V-cycle: the same Chebyshev smoother, degree and order of operations as
// amg/cycle's, so that on one rank it gives the serial cycle's result up to
// round-off. It is a Preconditioner for CG. It is not safe for concurrent use, and
// every rank of its communicator must apply it together.
type Hierarchy struct {
	Comm   *mpi.Comm
	Levels []*Level
	Degree int // Chebyshev steps before and after the coarse correction (amg.Options.SmootherIts)

	coarse *amg.CoarseFactor // the whole coarsest operator's factor, on every rank
	cLay   Layout            // the coarsest level's layout
	cBlock int               // scalars per coarsest block
	cPad   int               // scalars every rank contributes to the coarse gather
	cOwner int               // the one rank owning the coarsest level's rows, or -1
	send   []float64         // this rank's coarse right-hand side, padded to cPad
	recv   []float64         // every rank's, cPad apiece
	cb, cx []float64         // the whole coarse right-hand side and solution
	err    error             // the first error of Apply (Err)
	// part renumbers the fine level of a hierarchy sliced from a serial one
	// (NewPartitionedHierarchy), nil for the serial numbering.
	part *Partition

	// Setup's options and coarsest gather, kept for Update (nil from NewHierarchy).
	opt    *amg.Options
	gather *matrixGather
}

// NewHierarchy distributes h, a hierarchy that every rank of comm holds whole, by
// slicing each level's operator and prolongator (and the prolongator's transpose)
// into this rank's rows. layouts[l] is level l's layout of block rows; levels past
// the end of layouts are split evenly (EvenLayout), so passing only the fine layout is
// the common call. Every rank must call it together, with the same h and layouts.
//
// This is the interim set-up: every rank runs amg.Setup on the same global matrix and
// the result is scattered by slicing, which costs every rank the whole serial set-up
// and memory. It stands until a per-rank set-up (aggregation within each rank, PᵀAP
// with gathered remote rows) builds the same levels from each rank's own rows.
//
// The coarsest level is solved redundantly: every rank holds the factor of the whole
// coarsest operator (h's), gathers the coarse right-hand side from all ranks with one
// Allgather and solves it itself. Its size is bounded by CoarseEqLimit, so the gather
// is small, and no broadcast has to follow as it would after a solve on one rank.
//
// Smoothers other than Chebyshev and SmootherFloat32 are refused with an error wrapping
// amg.ErrOptions; a hierarchy whose last Update failed with one wrapping amg.ErrBroken;
// layouts that do not match the levels with one wrapping ErrLayout.
func NewHierarchy(comm *mpi.Comm, h *amg.Hierarchy, layouts ...Layout) (*Hierarchy, error) {
	return newHierarchy(comm, h, nil, layouts)
}

// NewPartitionedHierarchy is NewHierarchy with the fine level renumbered by part (a
// partition of h's fine block rows over comm's ranks) and distributed by part.Layout:
// the fine operator is Π·A·Πᵀ, the fine rows of P and the columns of the restriction
// are renumbered, and so are the block-diagonal inverses, so the cycle is h's on the
// renumbered fine level and its vectors are in part's numbering (part.Permute,
// part.Restore). layouts are the coarse levels' (levels 1, 2, …), split evenly past
// their end. Refresh renumbers the new values the same way.
func NewPartitionedHierarchy(comm *mpi.Comm, h *amg.Hierarchy, part Partition, layouts ...Layout) (*Hierarchy, error) {
	if len(h.Levels) == 0 {
		return nil, fmt.Errorf("%w: a hierarchy without levels", ErrLayout)
	}
	if len(part.Perm) != h.Levels[0].A.BlockRows {
		return nil, fmt.Errorf("%w: a partition of %d rows for a fine level of %d", ErrLayout, len(part.Perm), h.Levels[0].A.BlockRows)
	}
	return newHierarchy(comm, h, &part, append([]Layout{part.Layout}, layouts...))
}

func newHierarchy(comm *mpi.Comm, h *amg.Hierarchy, part *Partition, layouts []Layout) (*Hierarchy, error) {
	opt := h.Opt
	if name := opt.Smoother; name != "" && name != cycle.DefaultSmoother {
		return nil, fmt.Errorf("dist: %w: smoother %q: the distributed cycle runs %q only", amg.ErrOptions, name, cycle.DefaultSmoother)
	}
	if opt.SmootherFloat32 {
		return nil, fmt.Errorf("dist: %w: SmootherFloat32: the distributed cycle smooths in float64 only", amg.ErrOptions)
	}
	if h.Broken() {
		return nil, fmt.Errorf("dist: %w: the hierarchy's last Update failed", amg.ErrBroken)
	}
	nl := len(h.Levels)
	if len(layouts) > nl {
		return nil, fmt.Errorf("%w: %d layouts for %d levels", ErrLayout, len(layouts), nl)
	}
	lays := make([]Layout, nl)
	for l, L := range h.Levels {
		if l < len(layouts) {
			lays[l] = layouts[l]
		} else {
			lays[l] = EvenLayout(L.A.BlockRows, comm.Size())
		}
		if lays[l].Size() != comm.Size() || lays[l].N() != L.A.BlockRows {
			return nil, fmt.Errorf("%w: level %d has %d block rows, its layout %d over %d ranks (world %d)",
				ErrLayout, l, L.A.BlockRows, lays[l].N(), lays[l].Size(), comm.Size())
		}
	}
	me := comm.Rank()
	d := &Hierarchy{Comm: comm, Degree: opt.SmootherIts, coarse: h.Coarse(), part: part}
	for l, L := range h.Levels {
		lo, hi := lays[l].Range(me)
		lv := &Level{}
		var err error
		if lv.A, err = NewMatrix(comm, lays[l], d.sliceA(l, L.A, lo, hi)); err != nil {
			return nil, fmt.Errorf("dist: level %d operator: %w", l, err)
		}
		n := lv.A.LocalLen()
		lv.b, lv.x, lv.r, lv.d, lv.t = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		d.Levels = append(d.Levels, lv)
		if l == nl-1 {
			break
		}
		if lv.P, err = NewRectMatrix(comm, lays[l], lays[l+1], d.sliceP(l, L.P, lo, hi)); err != nil {
			return nil, fmt.Errorf("dist: level %d prolongator: %w", l, err)
		}
		clo, chi := lays[l+1].Range(me)
		if lv.PT, err = NewRectMatrix(comm, lays[l+1], lays[l], d.slicePT(l, L.P.Transpose(), clo, chi)); err != nil {
			return nil, fmt.Errorf("dist: level %d restriction: %w", l, err)
		}
		bs := L.A.R * L.A.R
		if len(L.Dinv) != L.A.BlockRows*bs {
			return nil, fmt.Errorf("dist: %w: level %d has %d block-diagonal inverse values for %d blocks", amg.ErrInput, l, len(L.Dinv), L.A.BlockRows)
		}
		lv.Dinv = d.sliceDinv(l, L.Dinv, bs, lo, hi)
		if !(L.ChebMax > L.ChebMin && L.ChebMin > 0) {
			return nil, fmt.Errorf("dist: %w: level %d smoother interval [%g, %g] is not a positive interval", amg.ErrInput, l, L.ChebMin, L.ChebMax)
		}
		lv.ChebMin, lv.ChebMax = L.ChebMin, L.ChebMax
	}
	last := h.Levels[nl-1].A
	d.coarseGather(lays[nl-1], last.R)
	if d.coarse.Size() != last.Rows() {
		return nil, fmt.Errorf("dist: %w: the coarse factor has %d unknowns, the coarsest level %d", amg.ErrInput, d.coarse.Size(), last.Rows())
	}
	return d, nil
}

// sliceA is block rows [lo, hi) of level l's operator a, renumbered by d.part on
// the fine level.
func (d *Hierarchy) sliceA(l int, a *bsr.Matrix, lo, hi int) *bsr.Matrix {
	if l == 0 && d.part != nil {
		return d.part.SliceSym(a, lo, hi)
	}
	return Slice(a, lo, hi)
}

// sliceP is block rows [lo, hi) of level l's prolongator p, its fine rows renumbered.
func (d *Hierarchy) sliceP(l int, p *bsr.Matrix, lo, hi int) *bsr.Matrix {
	if l == 0 && d.part != nil {
		return d.part.SliceRows(p, lo, hi)
	}
	return Slice(p, lo, hi)
}

// slicePT is block rows [lo, hi) of level l's restriction pt, its fine columns
// renumbered.
func (d *Hierarchy) slicePT(l int, pt *bsr.Matrix, lo, hi int) *bsr.Matrix {
	if l == 0 && d.part != nil {
		return d.part.SliceCols(pt, lo, hi)
	}
	return Slice(pt, lo, hi)
}

// sliceDinv is the block-diagonal inverses (bs values each) of level l's block rows
// [lo, hi), renumbered on the fine level.
func (d *Hierarchy) sliceDinv(l int, dinv []float64, bs, lo, hi int) []float64 {
	if l == 0 && d.part != nil {
		out := make([]float64, 0, (hi-lo)*bs)
		for i := lo; i < hi; i++ {
			o := d.part.Perm[i]
			out = append(out, dinv[o*bs:(o+1)*bs]...)
		}
		return out
	}
	return dinv[lo*bs : hi*bs]
}

// coarseGather sets up the redundant coarse solve's gather for a coarsest level of
// layout lay and blocks of block scalars.
func (d *Hierarchy) coarseGather(lay Layout, block int) {
	d.cLay, d.cBlock = lay, block
	rows, owners := 0, 0
	d.cOwner = -1
	for r := 0; r < lay.Size(); r++ {
		lo, hi := lay.Range(r)
		rows = max(rows, hi-lo)
		if hi > lo {
			owners++
			d.cOwner = r
		}
	}
	if owners != 1 {
		d.cOwner = -1
	}
	// MPI_Allgather takes one count for all ranks: each contributes the largest
	// share, padded, and the padding is dropped on unpacking.
	d.cPad = rows * block
	d.send, d.recv = make([]float64, d.cPad), make([]float64, d.cPad*lay.Size())
	d.cb, d.cx = make([]float64, lay.N()*block), make([]float64, lay.N()*block)
}

// Len returns the length of this rank's part of the fine-level vectors.
func (d *Hierarchy) Len() int { return d.Levels[0].A.LocalLen() }

// Operator returns the fine level's distributed operator, CG's matrix.
func (d *Hierarchy) Operator() *Matrix { return d.Levels[0].A }

// Apply runs one V-cycle from a zero initial guess, z ≈ A⁻¹·r, on this rank's parts.
// r is not modified. An error of the communication is kept (Err) and makes this and
// every later Apply set z to zero; CG checks Err after each Apply.
func (d *Hierarchy) Apply(r, z []float64) {
	if len(r) != d.Len() || len(z) != d.Len() {
		panic("dist: Hierarchy.Apply: vector length is not Len")
	}
	if d.err == nil {
		d.err = d.VCycle(r, z)
	}
	if d.err != nil {
		clear(z)
	}
}

// Err returns the first error an Apply met, or nil.
func (d *Hierarchy) Err() error { return d.err }

// VCycle is Apply returning the error of the communication.
func (d *Hierarchy) VCycle(r, z []float64) error {
	if len(r) != d.Len() || len(z) != d.Len() {
		panic("dist: Hierarchy.VCycle: vector length is not Len")
	}
	return d.cycle(0, r, z)
}

// cycle is the serial cycle's recursion: pre-smoothing from zero, residual,
// restriction, coarse correction, prolongation, post-smoothing.
func (d *Hierarchy) cycle(l int, b, x []float64) error {
	L := d.Levels[l]
	if l == len(d.Levels)-1 {
		return d.coarseSolve(b, x)
	}
	cheb := newCheb(L.ChebMin, L.ChebMax)
	// Pre-smoothing from x = 0: d = D⁻¹b/θ, x = d, then Degree−1 steps.
	blockDiag(L.A.Local.R, L.Dinv, b, L.d)
	for i := range L.d {
		L.d[i] *= cheb.first
		x[i] = L.d[i]
	}
	if err := d.steps(L, cheb, b, x); err != nil {
		return err
	}
	// r = b − A·x, restricted: C.b = Pᵀ·r.
	if err := L.A.MulVec(x, L.t); err != nil {
		return err
	}
	for i := range L.r {
		L.r[i] = b[i] - L.t[i]
	}
	C := d.Levels[l+1]
	if err := L.PT.MulVec(L.r, C.b); err != nil {
		return err
	}
	if err := d.cycle(l+1, C.b, C.x); err != nil {
		return err
	}
	if err := L.P.MulVec(C.x, L.t); err != nil {
		return err
	}
	for i := range x {
		x[i] += L.t[i]
	}
	// Post-smoothing from the corrected iterate: a first step with c1 = 0, then
	// Degree−1 steps of a fresh recurrence.
	if err := d.step(L, b, x, 0, cheb.first); err != nil {
		return err
	}
	return d.steps(L, cheb, b, x)
}

// cheb is a level's Chebyshev recurrence on [min, max] (amg/cycle/chebyshev.go).
type cheb struct {
	theta, delta, first float64
}

func newCheb(lo, hi float64) cheb {
	theta, delta := (hi+lo)/2, (hi-lo)/2
	return cheb{theta: theta, delta: delta, first: 1 / theta}
}

// steps runs steps 1 … Degree−1 of the recurrence from ρ₀ = 1/σ.
func (d *Hierarchy) steps(L *Level, c cheb, b, x []float64) error {
	sigma := c.theta / c.delta
	rho := 1 / sigma
	for k := 1; k < d.Degree; k++ {
		rhoNew := 1 / (2*sigma - rho)
		c1, c2 := rhoNew*rho, 2*rhoNew/c.delta
		rho = rhoNew
		if err := d.step(L, b, x, c1, c2); err != nil {
			return err
		}
	}
	return nil
}

// step computes d = c1·d + c2·D⁻¹(b − A·x) and x += d.
func (d *Hierarchy) step(L *Level, b, x []float64, c1, c2 float64) error {
	if err := L.A.MulVec(x, L.t); err != nil {
		return err
	}
	for i := range L.r {
		L.r[i] = b[i] - L.t[i]
	}
	blockDiag(L.A.Local.R, L.Dinv, L.r, L.t)
	for i := range L.d {
		L.d[i] = c2*L.t[i] + c1*L.d[i]
		x[i] += L.d[i]
	}
	return nil
}

// blockDiag sets z = D⁻¹r with the n×n blocks of dinv.
func blockDiag(n int, dinv, r, z []float64) {
	clear(z)
	for i := 0; i < len(r)/n; i++ {
		bsr.GemvAcc(n, n, dinv[i*n*n:(i+1)*n*n], r[i*n:(i+1)*n], z[i*n:(i+1)*n])
	}
}

// coarseSolve gathers the coarsest right-hand side on every rank, solves it with the
// whole factor, and keeps this rank's rows of the solution. Every rank solves the
// same system with the same bits, so the parts agree.
func (d *Hierarchy) coarseSolve(b, x []float64) error {
	if len(d.cb) == 0 {
		return nil
	}
	if d.cOwner >= 0 {
		// The coarsest level lives on one rank (Gather): it solves alone, the others
		// hold no row of it and wait for nothing.
		if d.cOwner == d.Comm.Rank() {
			copy(d.cb, b)
			d.coarse.Solve(d.cb, d.cx)
			copy(x, d.cx)
		}
		return nil
	}
	clear(d.send)
	copy(d.send, b)
	if err := d.Comm.AllgatherFloat64(d.send, d.recv); err != nil {
		return err
	}
	for r := 0; r < d.Comm.Size(); r++ {
		lo, hi := d.cLay.Range(r)
		copy(d.cb[lo*d.cBlock:hi*d.cBlock], d.recv[r*d.cPad:r*d.cPad+(hi-lo)*d.cBlock])
	}
	d.coarse.Solve(d.cb, d.cx)
	lo, hi := d.cLay.Range(d.Comm.Rank())
	copy(x, d.cx[lo*d.cBlock:hi*d.cBlock])
	return nil
}

// CycleTraffic returns what one V-cycle does on this rank, from the plans: the halo
// messages and bytes of every product (2·Degree with A, one with Pᵀ and one with P per
// level above the coarsest) and the coarse gather. Time is zero. The mpi counters of a
// phase that runs only V-cycles show these counts times the cycles.
func (d *Hierarchy) CycleTraffic() mpi.Traffic {
	var t mpi.Traffic
	for _, lt := range d.LevelTraffic() {
		t = t.Add(lt)
	}
	return t
}

// LevelTraffic is CycleTraffic level by level: level l's entry holds its operator's
// products, and the restriction onto level l+1 and the prolongation from it; the
// coarsest's the coarse gather.
func (d *Hierarchy) LevelTraffic() []mpi.Traffic {
	out := make([]mpi.Traffic, len(d.Levels))
	add := func(t *mpi.Traffic, m *Matrix, k int64) {
		h := m.Halo
		t.Sends += k * int64(len(h.Send))
		t.Recvs += k * int64(len(h.Recv))
		t.BytesSent += k * h.SendBytes()
		t.BytesRecv += k * h.RecvBytes()
	}
	for l, L := range d.Levels[:len(d.Levels)-1] {
		add(&out[l], L.A, int64(2*d.Degree))
		add(&out[l], L.PT, 1)
		add(&out[l], L.P, 1)
	}
	if len(d.cb) > 0 && d.cOwner < 0 {
		t := &out[len(out)-1]
		t.Collectives++
		t.CollectiveBytes += int64(d.cPad) * 8
	}
	return out
}
