package galerkin

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// Variant names an algorithm for the numeric phase of Ac = PᵀAP.
type Variant string

// The variants. All of them produce bitwise identical Ac for any worker count and
// agree bitwise with each other (see the package documentation).
const (
	TwoPass        Variant = "two-pass"        // W = A·P stored, then Ac = Pᵀ·W through an explicit Pᵀ pattern
	FusedRow       Variant = "fused-row"       // one W row at a time, scattered into Ac; rows shared between workers deferred
	FusedRecompute Variant = "fused-recompute" // coarse rows partitioned; W rows at partition borders recomputed
	Inspector      Variant = "inspector"       // precomputed product lists, no column search in the numeric phase
	Auto           Variant = "auto"            // let Choose pick from the traffic model
)

// Variants lists the concrete variants in a fixed order: the one table every name
// check (Valid, options, the CLI's flags) reads.
var Variants = []Variant{TwoPass, FusedRow, FusedRecompute, Inspector}

// Valid reports whether v names a variant of Variants or Auto ("" counts as Auto).
func (v Variant) Valid() bool { return v == Auto || v == "" || slices.Contains(Variants, v) }

// VariantNames returns "auto" and the names of Variants, comma-separated, for messages.
func VariantNames() string {
	names := []string{string(Auto)}
	for _, v := range Variants {
		names = append(names, string(v))
	}
	return strings.Join(names, ", ")
}

// ErrShape is wrapped by errors about operands whose shapes do not fit together.
var ErrShape = errors.New("galerkin: shape mismatch")

// ErrPattern is wrapped by the error Numeric returns when A or P does not have the
// pattern given to Symbolic.
var ErrPattern = errors.New("galerkin: pattern differs from the one given to Symbolic")

// Plan holds the pattern of Ac = PᵀAP and whatever its variant needs to recompute the
// values of Ac for new values of A and P with the same patterns.
type Plan struct {
	// Ac is the coarse operator: BlockRows = BlockCols = P.BlockCols, k×k blocks where
	// k = P.C. Its pattern is fixed at Symbolic; Numeric overwrites Ac.Val.
	Ac *bsr.Matrix

	variant Variant
	n, m    int // fine and coarse block counts
	b, k    int // fine and coarse block sizes

	// The patterns given to Symbolic, kept to check the ones given to Numeric.
	aPtr, pPtr []int64
	aCol, pCol []int32

	w      *pattern // pattern of W = A·P (n×m blocks of b×k)
	pt     *pattern // pattern of Pᵀ (m×n); pt.colIdx holds fine rows
	ptPerm []int64  // Pᵀ entry t is P block ptPerm[t]
	stats  Stats

	wVal []float64 // two-pass and inspector: values of W

	kern       blockKernels
	work       []int64 // prefix sum over fine rows of the multiply-adds each row costs (W row + its Ac scatter)
	coarseWork []int64 // prefix sum over coarse rows of the multiply-adds of the fine rows they need
	acWork     []int64 // two-pass: prefix sum over coarse rows of their Pᵀ·W block products

	extra planExtra // per-variant data, see the variant files

	// The symmetric half (symmetric.go): set by SetSymmetric; mirror[b] is the index
	// of Ac block (J, I) for block b = (I, J), fromP[q] the first block of W row i
	// whose column is at least I for P block q = (i, I).
	sym    bool
	mirror []int64
	fromP  []int32

	// Scratch spaces kept between Numeric calls (getScratch).
	scratchMu   sync.Mutex
	scratchAll  []*scratch
	scratchFree []*scratch
}

// minChunkWork is the least number of multiply-adds a parallel chunk gets, so that
// small products run on one goroutine. Tests lower it to exercise the parallel paths
// (deferred rows, recomputed rows) on small matrices; it never changes results.
var minChunkWork int64 = 1 << 16

// planExtra holds the data of one variant. Worker-count dependent schedules are built
// by the first Numeric call with that worker count and kept (the last maxSchedules
// counts used).
type planExtra struct {
	fused     []*fusedSched
	recompute []*recomputeSched
	insp      *inspectorData
}

// maxSchedules bounds the worker-count dependent schedules a plan keeps.
const maxSchedules = 4

func (e *planExtra) bytes() int64 {
	b := e.insp.bytes()
	for _, s := range e.fused {
		b += s.bytes()
	}
	for _, s := range e.recompute {
		b += s.bytes()
	}
	return b
}

// keep appends s to the list, dropping the oldest beyond maxSchedules.
func keep[T any](list []T, s T) []T {
	list = append(list, s)
	if len(list) > maxSchedules {
		list = list[1:]
	}
	return list
}

// Symbolic checks the shapes of A (n×n blocks of b×b) and P (n×m blocks of b×k),
// computes the pattern of Ac = PᵀAP and prepares the numeric phase of variant v
// (Auto: the one Choose picks for DefaultMachine). Ac's values are left zero.
func Symbolic(A, P *bsr.Matrix, v Variant) (*Plan, error) {
	if err := checkShapes(A, P); err != nil {
		return nil, err
	}
	if err := checkPattern("A", A); err != nil {
		return nil, err
	}
	if err := checkPattern("P", P); err != nil {
		return nil, err
	}
	switch v {
	case TwoPass, FusedRow, FusedRecompute, Inspector, Auto:
	default:
		return nil, fmt.Errorf("galerkin: unknown variant %q", v)
	}
	p := &Plan{
		n: A.BlockRows, m: P.BlockCols, b: A.R, k: P.C,
		aPtr: A.RowPtr, aCol: A.ColIdx, pPtr: P.RowPtr, pCol: P.ColIdx,
	}
	workers := par.Workers()
	p.w = productPattern(p.n, A.RowPtr, A.ColIdx, P.RowPtr, P.ColIdx, p.m, workers)
	p.pt, p.ptPerm = transposePattern(p.n, p.m, P.RowPtr, P.ColIdx)
	ac := productPattern(p.m, p.pt.rowPtr, p.pt.colIdx, p.w.rowPtr, p.w.colIdx, p.m, workers)
	p.Ac = &bsr.Matrix{
		BlockRows: p.m, BlockCols: p.m, R: p.k, C: p.k,
		RowPtr: ac.rowPtr, ColIdx: ac.colIdx,
		Val: make([]float64, ac.nnz()*int64(p.k*p.k)),
	}
	p.stats, p.work, p.coarseWork = analyse(A, P, p.w, p.pt, ac)
	p.kern = kernelsFor(p.b, p.k)
	if v == Auto {
		v = Choose(p.stats, DefaultMachine())
	}
	p.variant = v
	switch v {
	case TwoPass:
		p.wVal = make([]float64, p.w.nnz()*int64(p.b*p.k))
		p.acWork = make([]int64, p.m+1)
		for I := 0; I < p.m; I++ {
			var c int64
			for _, i := range p.pt.colIdx[p.pt.rowPtr[I]:p.pt.rowPtr[I+1]] {
				c += p.w.rowPtr[i+1] - p.w.rowPtr[i]
			}
			p.acWork[I+1] = p.acWork[I] + c
		}
	case FusedRow, FusedRecompute:
		// Worker-count dependent data is built by the first Numeric call.
	case Inspector:
		p.buildInspector(A, P)
	}
	return p, nil
}

// checkPattern validates the structural invariants of m: dimensions, row pointer,
// sorted in-range columns, value count. Values are not checked: Numeric accepts any,
// and a caller who wants to reject non-finite ones calls Validate.
func checkPattern(name string, m *bsr.Matrix) error {
	if m.BlockRows < 0 || m.BlockCols < 0 || m.R < 1 || m.C < 1 {
		return fmt.Errorf("galerkin: %s: %w: dimensions %d×%d blocks of %d×%d", name, bsr.ErrInvalid, m.BlockRows, m.BlockCols, m.R, m.C)
	}
	if len(m.RowPtr) != m.BlockRows+1 || m.RowPtr[0] != 0 {
		return fmt.Errorf("galerkin: %s: %w: row pointer length %d (want %d) or first entry not 0", name, bsr.ErrInvalid, len(m.RowPtr), m.BlockRows+1)
	}
	nnz := m.RowPtr[m.BlockRows]
	if int64(len(m.ColIdx)) != nnz || int64(len(m.Val)) != nnz*int64(m.R*m.C) {
		return fmt.Errorf("galerkin: %s: %w: %d column indices and %d values for %d blocks of %d×%d", name, bsr.ErrInvalid, len(m.ColIdx), len(m.Val), nnz, m.R, m.C)
	}
	for i := 0; i < m.BlockRows; i++ {
		lo, hi := m.RowPtr[i], m.RowPtr[i+1]
		if hi < lo || hi > nnz {
			return fmt.Errorf("galerkin: %s: %w: block row %d: row pointer decreases or passes the end", name, bsr.ErrInvalid, i)
		}
		prev := int32(-1)
		for q := lo; q < hi; q++ {
			c := m.ColIdx[q]
			if c <= prev || int(c) >= m.BlockCols {
				return fmt.Errorf("galerkin: %s: %w: block row %d: column %d unsorted or out of range [0,%d)", name, bsr.ErrInvalid, i, c, m.BlockCols)
			}
			prev = c
		}
	}
	return nil
}

// Variant returns the variant the plan runs (never Auto).
func (p *Plan) Variant() Variant { return p.variant }

// Stats returns the pattern statistics computed at Symbolic.
func (p *Plan) Stats() Stats { return p.stats }

// PlanBytes returns the memory the plan holds beyond Ac: patterns, stored
// intermediate values, index lists and the scratch spaces Numeric keeps.
func (p *Plan) PlanBytes() int64 {
	b := p.w.bytes() + p.pt.bytes() + int64(len(p.ptPerm))*8 + int64(len(p.wVal))*8
	b += int64(len(p.work)+len(p.coarseWork)+len(p.acWork)) * 8
	return b + p.extra.bytes() + p.scratchBytes()
}

// Numeric recomputes p.Ac.Val from the values of A and P, which must have the patterns
// given to Symbolic. workers <= 0 means GOMAXPROCS. The result is bitwise identical
// for any worker count.
func (p *Plan) Numeric(A, P *bsr.Matrix, workers int) error {
	if err := p.checkSame(A, P); err != nil {
		return err
	}
	if workers <= 0 {
		workers = par.Workers()
	}
	switch p.variant {
	case TwoPass:
		p.numericTwoPass(A, P, workers)
	case FusedRow:
		p.numericFusedRow(A, P, workers)
	case FusedRecompute:
		p.numericRecompute(A, P, workers)
	case Inspector:
		p.numericInspector(A, P, workers)
	default:
		panic("galerkin: plan has no variant")
	}
	p.mirrorLower(workers)
	return nil
}

// checkSame verifies that A and P have the patterns given to Symbolic. When the
// caller passes the same index arrays (the usual re-setup) this is a pointer compare;
// otherwise the patterns are compared entry by entry.
func (p *Plan) checkSame(A, P *bsr.Matrix) error {
	if A == nil || P == nil {
		return fmt.Errorf("%w: nil operand", ErrPattern)
	}
	if A.BlockRows != p.n || A.BlockCols != p.n || A.R != p.b || A.C != p.b ||
		P.BlockRows != p.n || P.BlockCols != p.m || P.R != p.b || P.C != p.k {
		return fmt.Errorf("%w: dimensions or block shapes changed", ErrPattern)
	}
	if !sameIndex(A.RowPtr, A.ColIdx, p.aPtr, p.aCol) {
		return fmt.Errorf("%w: A", ErrPattern)
	}
	if !sameIndex(P.RowPtr, P.ColIdx, p.pPtr, p.pCol) {
		return fmt.Errorf("%w: P", ErrPattern)
	}
	if int64(len(A.Val)) != p.aPtr[p.n]*int64(p.b*p.b) {
		return fmt.Errorf("%w: A has %d values, want %d", ErrPattern, len(A.Val), p.aPtr[p.n]*int64(p.b*p.b))
	}
	if int64(len(P.Val)) != p.pPtr[p.n]*int64(p.b*p.k) {
		return fmt.Errorf("%w: P has %d values, want %d", ErrPattern, len(P.Val), p.pPtr[p.n]*int64(p.b*p.k))
	}
	return nil
}

func sameIndex(ptr []int64, col []int32, ptr0 []int64, col0 []int32) bool {
	if len(ptr) != len(ptr0) || len(col) != len(col0) {
		return false
	}
	if len(ptr) > 0 && &ptr[0] == &ptr0[0] && (len(col) == 0 || &col[0] == &col0[0]) {
		return true
	}
	for i, v := range ptr {
		if ptr0[i] != v {
			return false
		}
	}
	for i, v := range col {
		if col0[i] != v {
			return false
		}
	}
	return true
}

// checkShapes reports whether A (n×n blocks of b×b) and P (n×m blocks of b×k) fit.
func checkShapes(A, P *bsr.Matrix) error {
	if A == nil || P == nil {
		return fmt.Errorf("%w: nil operand", ErrShape)
	}
	if A.R != A.C {
		return fmt.Errorf("%w: A has %d×%d blocks, want square blocks", ErrShape, A.R, A.C)
	}
	if A.BlockRows != A.BlockCols {
		return fmt.Errorf("%w: A is %d×%d blocks, want square", ErrShape, A.BlockRows, A.BlockCols)
	}
	if P.R != A.R {
		return fmt.Errorf("%w: P blocks have %d rows, A blocks %d", ErrShape, P.R, A.R)
	}
	if A.BlockCols != P.BlockRows {
		return fmt.Errorf("%w: A has %d block columns, P %d block rows", ErrShape, A.BlockCols, P.BlockRows)
	}
	return nil
}
