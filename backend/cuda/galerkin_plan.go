package cuda

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/cudadrv"
)

// ErrGalerkinSchedule is wrapped when a pattern does not fit the packed schedules
// (a row of A, Pᵀ or W with more than 65536 blocks).
var ErrGalerkinSchedule = errors.New("cuda: pattern too large for the packed Galerkin schedule")

// galerkinShapes are the shapes (R, C) with specialised kernels; others run the
// generic kernels (R, C ≤ 6).
var galerkinShapes = map[[2]int]string{{3, 6}: "3x6", {6, 6}: "6x6"}

// galerkinMax mirrors GAL_MAX in kernels/galerkin.cu.
const galerkinMax = 6

// bufID names one schedule buffer of a plan: the int32 ones first, then the int64
// ones, in the order the symbolic phase uploads them. hostSchedule.list32 and list64
// say which host list each holds; the variants' reads say who reads it.
type bufID int

const (
	bufWRow   bufID = iota // fine row of each W block
	bufWCol                // W's block columns
	bufAcRow               // coarse row of each Ac block
	bufAcCol               // Ac's block columns
	bufPTRow               // fine row of each Pᵀ entry
	bufWList               // packed (A, P) offsets per W product
	bufAcList              // packed (Pᵀ entry, W offset) per Ac product
	bufWAbs                // (A block, P block) per W product
	bufAcAbs               // (P block, W block) per Ac product
	bufWWin                // smem-rows: W's windows, (row, first slot) pairs
	bufAcWin               // smem-rows: Ac's windows
	bufTRow                // smem-tiles: each tile's first fine row
	bufTRun                // smem-tiles: each tile's first run
	bufTRuns               // smem-tiles: (first P block, count) runs
	bufTList               // smem-tiles: tile-local (A, P) per W product
	bufPW                  // tc-pairs: each pair entry's two W blocks
	bufPList               // tc-pairs: (A, A, P) per merged product
	bufAcSel               // symmetric half: (Ac block, mirror) pairs
	bufAcAbsU              // symmetric half: (P block, W slot) per upper product
	bufWSel                // symmetric half: the W blocks it reads, by slot
	bufWSlot               // symmetric half: each W block's slot
	bufWRp                 // W's row pointers (the first int64 buffer)
	bufWPtr                // each W block's first product
	bufAcRp                // Ac's row pointers
	bufAcPtr               // each Ac block's first product
	bufPTRp                // Pᵀ's row pointers
	bufPTIdx               // P block of each Pᵀ entry
	bufWSw0                // tc-rows: each fine row's first slot word
	bufWSlw                // tc-rows: W's slot words
	bufASw0                // tc-rows: each coarse row's first slot word
	bufASlw                // tc-rows: Ac's slot words
	bufPWPtr               // tc-pairs: each pair entry's first product
	bufAcPtrU              // symmetric half: each upper block's first product
	numBufs
)

// firstBuf64 is the first int64 buffer.
const firstBuf64 = bufWRp

// bufSet is a set of schedule buffers.
type bufSet uint64

func bufs(ids ...bufID) bufSet {
	var s bufSet
	for _, id := range ids {
		s |= 1 << id
	}
	return s
}

func (s bufSet) has(id bufID) bool { return s&(1<<id) != 0 }

// GalerkinPlan holds the symbolic phase of Ac = PᵀAP on the device: Ac's pattern and
// the schedule buffers of the variants it was made for, uploaded once by
// GalerkinSymbolic; Numeric then recomputes Ac's values on the device from device A
// and P with the patterns given to GalerkinSymbolic, with no host copies.
type GalerkinPlan struct {
	b     *Backend
	Stats GalerkinStats
	// Ac is the coarse operator's pattern on the host (Val nil): RowPtr and ColIdx as
	// on the device.
	Ac *bsr.Matrix
	// Generic forces the generic kernels even where a specialised shape exists.
	Generic bool
	// kernels are the variants the plan was made for (GalerkinSymbolicFor) that the
	// pattern offers; NumericStage dispatches to them.
	kernels map[GalerkinVariant]galerkinKernel
	// sched32, sched64: the schedule buffers those variants read, by bufID (nil where
	// none does); shared among them, owned by the plan.
	sched32     [firstBuf64]*Buffer[int32]
	sched64     [numBufs - firstBuf64]*Buffer[int64]
	wval, acval *Buffer[float64]
	freed       bool
	// Symmetric: the plan was made with Options.Symmetric, so the Pᵀ·W stage of
	// tc-block, smem-tiles and tc-pairs computes the blocks of Ac on and above the
	// diagonal and mirrors them (galerkin_sym.go).
	Symmetric bool
}

// GalerkinSymbolic checks the shapes of A (n×n blocks of R×R) and P (n×m blocks of
// R×C, R, C ≤ 6), computes on the host the patterns of W = A·P and Ac = PᵀAP and the
// product schedules of every variant, and uploads them (counted under the current
// phase). Ac's values on the device are left zero. A plan for one variant holds far
// less device memory: see GalerkinSymbolicFor.
func (b *Backend) GalerkinSymbolic(A, P *bsr.Matrix) (*GalerkinPlan, error) {
	return b.GalerkinSymbolicFor(A, P, nil)
}

// GalerkinSymbolicFor is GalerkinSymbolic uploading only the schedules of the
// variants choose returns for the product's statistics (every variant when choose is
// nil); the plan offers (Available) only those. The schedules of all variants
// together are several times W's size (5.9 GB on the ex56 ne = 100 fine level, where
// smem-tiles alone needs 1.3 GB), so a recurring solve prepares just the variant it
// runs. An error from choose is returned as is.
func (b *Backend) GalerkinSymbolicFor(A, P *bsr.Matrix, choose func(GalerkinStats) ([]GalerkinVariant, error)) (*GalerkinPlan, error) {
	sym := b.opt.Symmetric
	s, mir, st, err := symbolicHost(A, P, sym)
	if err != nil {
		return nil, err
	}
	m := P.BlockCols
	pl := &GalerkinPlan{b: b, Ac: &bsr.Matrix{BlockRows: m, BlockCols: m, R: P.C, C: P.C, RowPtr: s.acrp, ColIdx: s.accol}, Stats: st,
		Symmetric: sym}
	vs := GalerkinVariants
	if choose != nil {
		if vs, err = choose(st); err != nil {
			return nil, err
		}
	}
	pl.kernels = map[GalerkinVariant]galerkinKernel{}
	var need bufSet
	for _, v := range vs {
		e := galerkinEntryOf(v)
		if e == nil {
			return nil, fmt.Errorf("cuda: Galerkin: unknown variant %q", v)
		}
		if st.offers(v) {
			pl.kernels[v] = e.kernel
			need |= e.kernel.reads(sym)
		}
	}
	s.fill(A, P, need, st, mir)
	if err := pl.upload(s, need); err != nil {
		pl.Free()
		return nil, err
	}
	return pl, nil
}

func upload[T Elem](b *Backend, dst **Buffer[T], src []T) error {
	u, err := Alloc[T](b, len(src))
	if err != nil {
		return err
	}
	*dst = u
	return u.Upload(src)
}

// asInt32 views packed uint32 lists as the int32 the device buffers hold (the same
// bits, no copy: a copy of the W list alone is 0.5 GB at ne = 100).
func asInt32(u []uint32) []int32 {
	if len(u) == 0 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(u))), len(u))
}

// upload copies the schedule buffers in need, in bufID order, and allocates W's and
// Ac's values.
func (pl *GalerkinPlan) upload(s *hostSchedule, need bufSet) error {
	b := pl.b
	for id := range firstBuf64 {
		if need.has(id) {
			if err := upload(b, &pl.sched32[id], s.list32(id)); err != nil {
				return err
			}
		}
	}
	for id := firstBuf64; id < numBufs; id++ {
		if need.has(id) {
			if err := upload(b, &pl.sched64[id-firstBuf64], s.list64(id)); err != nil {
				return err
			}
		}
	}
	var err error
	st := pl.Stats
	if pl.wval, err = Alloc[float64](b, int(st.NnzW)*st.R*st.C); err != nil {
		return err
	}
	if pl.acval, err = Alloc[float64](b, int(st.NnzAc)*st.C*st.C); err != nil {
		return err
	}
	return nil
}

// ptr returns the device address of schedule buffer id; a variant asking for one it
// does not read (its reads) is a programming error.
func (pl *GalerkinPlan) ptr(id bufID) cudadrv.DevPtr {
	if id < firstBuf64 {
		if u := pl.sched32[id]; u != nil {
			return u.Ptr()
		}
	} else if u := pl.sched64[id-firstBuf64]; u != nil {
		return u.Ptr()
	}
	panic(fmt.Sprintf("cuda: Galerkin plan: schedule buffer %d not uploaded (missing from a variant's reads)", id))
}

// Free releases the plan's device memory.
func (pl *GalerkinPlan) Free() {
	if pl.freed {
		return
	}
	pl.freed = true
	for _, u := range pl.sched64 {
		if u != nil {
			u.Free()
		}
	}
	for _, u := range pl.sched32 {
		if u != nil {
			u.Free()
		}
	}
	for _, u := range []*Buffer[float64]{pl.wval, pl.acval} {
		if u != nil {
			u.Free()
		}
	}
}

// Bytes returns the device memory the plan holds: schedules, W's and Ac's values.
func (pl *GalerkinPlan) Bytes() int64 {
	t := int64(0)
	for _, u := range pl.sched32 {
		if u != nil {
			t += u.Bytes()
		}
	}
	for _, u := range pl.sched64 {
		if u != nil {
			t += u.Bytes()
		}
	}
	return t + pl.wval.Bytes() + pl.acval.Bytes()
}

// tag returns the kernel-name suffix for the plan's shape.
func (pl *GalerkinPlan) tag() string {
	if t, ok := galerkinShapes[[2]int{pl.Stats.R, pl.Stats.C}]; ok && !pl.Generic {
		return t
	}
	return "generic"
}

func (pl *GalerkinPlan) check(A, P *Matrix) {
	st := pl.Stats
	if pl.freed {
		panic("cuda: Galerkin plan used after Free")
	}
	ar, ac, arr, acc := A.Dims()
	pr, pc, prr, pcc := P.Dims()
	if ar != st.N || ac != st.N || arr != st.R || acc != st.R || pr != st.N || pc != st.M || prr != st.R || pcc != st.C ||
		A.col.Len() != int(st.NnzA) || P.col.Len() != int(st.NnzP) {
		panic("cuda: Galerkin: A or P does not have the shape or block count given to GalerkinSymbolic")
	}
}

// Stage selects part of a numeric product, for timing.
type Stage int

const (
	StageAll Stage = iota // the whole product
	StageAP               // W = A·P only (variants that store W)
	StagePW               // Ac = Pᵀ·W only, from the W of an earlier run
)

// Numeric queues the numeric phase of variant v: Ac's values on the device (see
// AcValues) from the values of the device matrices A and P, which must have the
// patterns given to GalerkinSymbolic (only their block counts are checked). Nothing
// crosses the bus. Errors of the device work are sticky and reported by Err.
func (pl *GalerkinPlan) Numeric(v GalerkinVariant, A, P *Matrix) error {
	return pl.NumericStage(v, StageAll, A, P)
}

// Available reports whether the plan offers variant v: its schedules were prepared
// (GalerkinSymbolicFor) and the pattern allows it (the tc-rows and smem-rows variants
// need rows of at most 256 blocks in W and Ac, smem-tiles fine rows whose P rows fit
// its tile buffer). Unavailable says why not.
func (pl *GalerkinPlan) Available(v GalerkinVariant) bool {
	return pl.kernels[v] != nil && pl.Stats.offers(v)
}

// Unavailable says why the plan does not offer variant v ("" when it does).
func (pl *GalerkinPlan) Unavailable(v GalerkinVariant) string {
	e := galerkinEntryOf(v)
	switch {
	case pl.Available(v):
		return ""
	case e == nil:
		return "unknown variant"
	case pl.Stats.offers(v):
		return "not prepared: the plan was made for other variants (GalerkinSymbolicFor)"
	case e.whyNot == nil:
		return "not offered"
	}
	return e.whyNot(pl.Stats)
}

// NumericStage is Numeric restricted to one stage (StageAP, StagePW: every variant
// but fused-recompute, which has no stages).
func (pl *GalerkinPlan) NumericStage(v GalerkinVariant, stage Stage, A, P *Matrix) error {
	pl.check(A, P)
	if e := galerkinEntryOf(v); e != nil && e.fused && stage != StageAll {
		return fmt.Errorf("cuda: Galerkin %s has no separate stages", v)
	}
	if !pl.Available(v) {
		return fmt.Errorf("cuda: Galerkin %s: not offered for this pattern (%s)", v, pl.Unavailable(v))
	}
	st := pl.Stats
	r := &galerkinRun{pl: pl, b: pl.b, st: st, doAP: stage != StagePW, doPW: stage != StageAP,
		rr: int32(st.R), cc: int32(st.C), tag: pl.tag(),
		arp: A.rowPtr.Ptr(), acol: A.col.Ptr(), aval: A.val.Ptr(),
		prp: P.rowPtr.Ptr(), pcol: P.col.Ptr(), pval: P.val.Ptr(),
		wval: pl.wval.Ptr(), acval: pl.acval.Ptr(),
		nW: st.NnzW, nAc: st.NnzAc, nAcVal: int64(pl.acval.Len())}
	pl.kernels[v].launch(r)
	return nil
}

// PoisonAc fills Ac's device values with NaN, so that a kernel that misses an entry
// shows.
func (pl *GalerkinPlan) PoisonAc() error {
	nan := make([]float64, pl.acval.Len())
	for i := range nan {
		nan[i] = math.NaN()
	}
	return pl.acval.Upload(nan)
}

// AcValues returns the device buffer of Ac's values (row-major C×C blocks in the
// order of Ac's pattern).
func (pl *GalerkinPlan) AcValues() *Buffer[float64] { return pl.acval }

// DownloadAc waits for queued work and returns Ac with its values copied from the
// device (counted under the current phase).
func (pl *GalerkinPlan) DownloadAc() (*bsr.Matrix, error) {
	m := *pl.Ac
	m.Val = make([]float64, pl.acval.Len())
	if err := pl.b.Err(); err != nil {
		return nil, err
	}
	if err := pl.acval.Download(m.Val); err != nil {
		return nil, err
	}
	return &m, nil
}

// checkGalerkin returns an error unless A and P are valid operands of the device
// Galerkin product: A square with square blocks, P with A's block rows and block
// height, blocks no larger than galerkinMax.
func checkGalerkin(A, P *bsr.Matrix) error {
	if err := A.Validate(); err != nil {
		return err
	}
	if err := P.Validate(); err != nil {
		return err
	}
	if A.BlockRows != A.BlockCols || A.R != A.C || P.BlockRows != A.BlockRows || P.R != A.R {
		return fmt.Errorf("cuda: Galerkin: A is %d×%d blocks of %d×%d, P %d×%d of %d×%d: want A square with square blocks and P.R = A.R",
			A.BlockRows, A.BlockCols, A.R, A.C, P.BlockRows, P.BlockCols, P.R, P.C)
	}
	if P.R > galerkinMax || P.C > galerkinMax {
		return fmt.Errorf("cuda: Galerkin: blocks %d×%d larger than %d×%d", P.R, P.C, galerkinMax, galerkinMax)
	}
	return nil
}

// GalerkinStatsOf returns the pattern statistics of Ac = PᵀAP that the device
// traffic model takes (PredictGalerkin), computed on the host from the symbolic phase
// alone: the model can be evaluated without a device.
func GalerkinStatsOf(A, P *bsr.Matrix) (GalerkinStats, error) {
	_, _, st, err := symbolicHost(A, P, false)
	return st, err
}

// GalerkinStatsSymmetric is GalerkinStatsOf for a plan made with Options.Symmetric:
// the model then prices the symmetric half of tc-block's, smem-tiles' and tc-pairs'
// Pᵀ·W. A must pass bsr's CheckSymmetric.
func GalerkinStatsSymmetric(A, P *bsr.Matrix) (GalerkinStats, error) {
	_, _, st, err := symbolicHost(A, P, true)
	return st, err
}

// symbolicHost is the host part of every symbolic entry (GalerkinSymbolicFor and the
// two statistics functions): the operand checks, and with sym A's symmetry; the
// schedules; with sym Ac's mirrors (acMirrors); the statistics.
func symbolicHost(A, P *bsr.Matrix, sym bool) (*hostSchedule, []int64, GalerkinStats, error) {
	if err := checkGalerkin(A, P); err != nil {
		return nil, nil, GalerkinStats{}, err
	}
	if sym {
		if err := A.CheckSymmetric(); err != nil {
			return nil, nil, GalerkinStats{}, fmt.Errorf("cuda: Galerkin, symmetric plan (Options.Symmetric): A is %w", err)
		}
	}
	s, err := galerkinSchedule(A, P)
	if err != nil {
		return nil, nil, GalerkinStats{}, err
	}
	var mir []int64
	if sym {
		if mir, err = s.acMirrors(); err != nil {
			return nil, nil, GalerkinStats{}, err
		}
	}
	st, err := s.stats(A, P, sym)
	return s, mir, st, err
}
