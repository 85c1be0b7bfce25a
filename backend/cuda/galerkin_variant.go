package cuda

import "github.com/blockamg/blockamg/internal/cudadrv"

// GalerkinVariant names a device algorithm for the numeric phase of Ac = PᵀAP.
type GalerkinVariant string

// The device variants (kernels/galerkin.cu), each in a file of its own
// (galerkin_<variant>.go: its schedule, its launches, its model) and a row of
// galerkinTable. Each output block is summed by one thread (one warp for the
// tensor-core variants) in an order fixed by the host schedule, so every variant but
// GalerkinTwoPassND gives bitwise identical Ac from run to run.
const (
	// GalerkinTwoPassND is the classical two-pass product, the portable team-kernel
	// baseline: W = A·P on W's precomputed pattern (each W block searches P's rows
	// for its column), then Ac += Pᵀ·W with a binary search for the Ac column and
	// atomicAdd. NONDETERMINISTIC: the atomics' order varies from run to run, so Ac
	// differs in the last bits between runs.
	GalerkinTwoPassND GalerkinVariant = "twopass-atomic-nd"
	// GalerkinInspector is the inspector–executor, schedule-reordered product: the
	// host sorts, once, every W block's (A block, P block) products and every Ac
	// block's (P block, W block) products; the executor streams them with no search
	// and no atomics, W stored between its two passes. Its lists hold global block
	// indices (8 bytes a product), so each product's operands are one load away from
	// the list, and one thread owns one output block.
	GalerkinInspector GalerkinVariant = "inspector"
	// GalerkinInspectorBlock is GalerkinInspector on the packed lists (4 bytes a
	// product: offsets within the rows, so a chain of three dependent loads per
	// product), one thread per output block.
	GalerkinInspectorBlock GalerkinVariant = "inspector-block"
	// GalerkinInspectorRows is GalerkinInspectorBlock with one thread per output
	// block row (R threads per W block, C per Ac block), which share the block's
	// operand loads and write it contiguously.
	GalerkinInspectorRows GalerkinVariant = "inspector-rows"
	// GalerkinFused is fused-recompute: one pass over Ac blocks (a coarse row's blocks
	// on consecutive threads), each W block recomputed from its products where it is
	// needed, W never stored.
	GalerkinFused GalerkinVariant = "fused-recompute"
	// GalerkinTCBlock is GalerkinInspector with the block products on the FP64 tensor
	// cores (mma.m8n8k4): one warp per output block, so each product's operands are
	// one load instruction each, spread over the lanes, instead of R·R + R·C serial
	// loads of one thread.
	GalerkinTCBlock GalerkinVariant = "tc-block"
	// GalerkinTCRows16 is the register-tiled, search-free tensor-core product: one
	// warp per fine row of W = A·P and per coarse row of Ac = Pᵀ·W, 16 output blocks
	// of the row held in registers (longer rows in windows of 16, re-walking the row),
	// the operands streamed in storage order (A's row and the P rows it meets; Pᵀ's
	// row and the W rows it meets), the output position of each product precomputed
	// by the host as a byte (no product list, no search). Offered when no W or Ac row
	// has more than 256 blocks (Available).
	GalerkinTCRows16 GalerkinVariant = "tc-rows16"
	// GalerkinTCRows32 is GalerkinTCRows16 with 32 output blocks in registers: fewer
	// windows, fewer resident warps.
	GalerkinTCRows32 GalerkinVariant = "tc-rows32"
	// GalerkinSmemRows is the shared-memory-tiled product with a sorted, search-free
	// schedule: one warp per window of an output row (32 blocks of 3×6, 16 of 6×6:
	// 4.5 KiB of shared memory a warp), the window's blocks accumulated in shared
	// memory on the CUDA cores, the operands streamed in storage order as in
	// tc-rows, each product's output position read from the same slot bytes, the
	// lanes of a step spread over the (P block, column) pairs of one P row (one W
	// row for Pᵀ·W). Offered where tc-rows is (Available).
	GalerkinSmemRows GalerkinVariant = "smem-rows"
	// GalerkinSmemTiles computes W = A·P by tiles of consecutive fine rows, a thread
	// block per tile: the union of the P rows the tile's rows meet is copied once into
	// shared memory (coalesced), then one thread per row of each W block sums its
	// products on the CUDA cores in registers, reading the P blocks from shared memory
	// at precomputed tile-local positions (search-free). Ac = Pᵀ·W as in tc-block.
	// Offered when every fine row's P union fits the tile buffer (Available).
	GalerkinSmemTiles GalerkinVariant = "smem-tiles"
	// GalerkinTCPairs is tc-block with fine rows paired in W = A·P: one warp computes a
	// pair entry, the W blocks (2q, J) and (2q+1, J), with one mma.m8n8k4 per product
	// of their merged list, the two rows' A blocks stacked in its left operand (see
	// galerkin_pairs.go); the W blocks are bitwise tc-block's. Ac = Pᵀ·W as in
	// tc-block. Offered for A blocks of at most 4×4.
	GalerkinTCPairs GalerkinVariant = "tc-pairs"
)

// galerkinKernel is one device variant of the numeric phase. The plan's symbolic
// phase builds on the host and uploads exactly the schedule buffers that the
// prepared variants read (a buffer several variants read is uploaded once and shared,
// so the plan, not the variant, owns and frees the device memory); the numeric phase
// dispatches to launch; the traffic model to predict.
type galerkinKernel interface {
	// reads names the schedule buffers the variant's kernels read; sym: the plan
	// computes the symmetric half of Ac (Options.Symmetric).
	reads(sym bool) bufSet
	// launch queues the variant's kernels for r.stage (StageAP, StagePW, or both).
	launch(r *galerkinRun)
	// predict is the traffic model's estimate for one stage (see PredictGalerkin).
	predict(s GalerkinStats, mc GalerkinMachine, stage Stage) GalerkinPrediction
}

// galerkinEntry is one row of galerkinTable.
type galerkinEntry struct {
	name   GalerkinVariant
	kernel galerkinKernel
	// atomics: the variant sums with atomics, so its bits vary from run to run
	// (never picked by ChooseGalerkin, refused by Options.Galerkin).
	atomics bool
	// fused: one kernel, no separate A·P and Pᵀ·W stages (NumericStage).
	fused bool
	// offered, when not nil, is the rule saying whether a pattern with these
	// statistics allows the variant (Available, ChooseGalerkin), and whyNot why not;
	// nil: every pattern the plan accepts.
	offered func(GalerkinStats) bool
	whyNot  func(GalerkinStats) string
}

// galerkinTable lists the device variants in their fixed order (GalerkinVariants:
// reports, the tuner and ChooseGalerkin's ties follow it). It is the one place a new
// variant is registered; the CLI's name checks and the tests read it through
// GalerkinVariants.
var galerkinTable = []galerkinEntry{
	{name: GalerkinTwoPassND, kernel: twoPass{}, atomics: true},
	{name: GalerkinInspector, kernel: inspector{}},
	{name: GalerkinInspectorBlock, kernel: inspectorListed{rows: false}},
	{name: GalerkinInspectorRows, kernel: inspectorListed{rows: true}},
	{name: GalerkinFused, kernel: fusedRecompute{}, fused: true},
	{name: GalerkinTCBlock, kernel: tcBlock{}},
	{name: GalerkinTCRows16, kernel: tcRows{window: 16}, offered: rowSlotsOffered, whyNot: rowSlotsWhyNot},
	{name: GalerkinTCRows32, kernel: tcRows{window: 32}, offered: rowSlotsOffered, whyNot: rowSlotsWhyNot},
	{name: GalerkinSmemRows, kernel: smemRows{}, offered: rowSlotsOffered, whyNot: rowSlotsWhyNot},
	{name: GalerkinSmemTiles, kernel: smemTiles{}, offered: tilesOffered, whyNot: tilesWhyNot},
	{name: GalerkinTCPairs, kernel: tcPairs{}, offered: pairsOfferedFor, whyNot: pairsWhyNot},
}

// GalerkinVariants lists the device variants in a fixed order (galerkinTable's).
var GalerkinVariants = galerkinNames()

func galerkinNames() []GalerkinVariant {
	vs := make([]GalerkinVariant, len(galerkinTable))
	for i, e := range galerkinTable {
		vs[i] = e.name
	}
	return vs
}

// galerkinEntryOf returns v's row of galerkinTable, nil for an unknown name.
func galerkinEntryOf(v GalerkinVariant) *galerkinEntry {
	for i := range galerkinTable {
		if galerkinTable[i].name == v {
			return &galerkinTable[i]
		}
	}
	return nil
}

// Deterministic reports whether the variant gives the same bits on every run (every
// variant but the atomics baseline; an unknown name is not the baseline).
func (v GalerkinVariant) Deterministic() bool {
	e := galerkinEntryOf(v)
	return e == nil || !e.atomics
}

// offers reports whether a pattern with these statistics allows variant v: the one
// rule behind Available and ChooseGalerkin.
func (s GalerkinStats) offers(v GalerkinVariant) bool {
	e := galerkinEntryOf(v)
	return e != nil && (e.offered == nil || e.offered(s))
}

// galerkinRun is one numeric call's operands, handed to a variant's launch: the
// plan, the stages asked, the shape and the device operands every variant reads.
type galerkinRun struct {
	pl              *GalerkinPlan
	b               *Backend
	st              GalerkinStats
	doAP, doPW      bool   // the stages asked
	rr, cc          int32  // R (A's blocks are R×R, P's R×C) and C
	tag             string // kernel-name suffix for the shape (GalerkinPlan.tag)
	arp, acol, aval cudadrv.DevPtr
	prp, pcol, pval cudadrv.DevPtr
	wval, acval     cudadrv.DevPtr
	nW, nAc         int64 // W's and Ac's blocks
	nAcVal          int64 // Ac's values
}

// ptr returns the device address of a schedule buffer the variant reads.
func (r *galerkinRun) ptr(id bufID) cudadrv.DevPtr { return r.pl.ptr(id) }
