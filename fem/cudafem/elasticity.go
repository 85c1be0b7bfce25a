package cudafem

import (
	"fmt"
	"slices"

	"github.com/blockamg/blockamg/backend/cuda"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/internal/cudadrv"
	"github.com/blockamg/blockamg/internal/par"
)

// elaKinds is ELA_KINDS of kernels/elasticity.cu: the element kinds (volume sets) of
// one mesh the kernel takes; elaPairElems bounds the elements whose contributions
// elas_pairs packs into an int32 (element·256 + local nodes): larger meshes of mixed
// shapes are elas_numeric's.
const (
	elaKinds     = 8
	elaPairElems = 1 << 23
)

// The assembly kernels (kernels/elasticity.cu); an Elasticity holds one's data.
const (
	kernelStaged  = "elas_staged"       // one element shape: staged records, upper blocks
	kernelPairs   = "elas_pairs"        // inverse slot map, one-point elements
	kernelRounds  = "elas_pairs_rounds" // inverse slot map, several points an element
	kernelNumeric = "elas_numeric"      // incidences and slots, any mesh
)

// Test hooks: forceKernel, when set, is the kernel NewElasticity prepares;
// stagedShared, when not 0, is the shared memory (bytes) of one of elas_staged's
// thread blocks (at most the device's) in place of stagedBudget's; stagedRounds,
// when 0 or 1, overrides elas_staged's choice of rounds (taken when an element has
// several quadrature points).
var (
	forceKernel  string
	stagedShared = 0
	stagedRounds = -1
)

// kernelStagedTet4 is elas_staged compiled for one-point four-node elements (P1
// tetrahedra) summed without rounds: 64 registers without spills, four thread blocks
// a multiprocessor.
const kernelStagedTet4 = "elas_staged_tet4"

// stagedEntry is the elas_staged instantiation for elements of the given nodes and
// points, summed in rounds or not.
func stagedEntry(nodes, points int, rounds bool) string {
	if nodes == 4 && points == 1 && !rounds {
		return kernelStagedTet4
	}
	return kernelStaged
}

// stagedBudget is the shared memory (bytes) the groups of elas_staged's
// instantiation entry are cut for. With rounds 62 KiB: three thread blocks (62.5
// KiB each with the write order) then fit the 196 KiB carveout, which leaves 60 KiB
// of L1, and a tet10 group still holds two vertices' elements. Without rounds 52
// KiB: a group of one-point elements is bounded by its threads (a block each)
// before its records (a tet4 box's groups are the same at 52 and 62 KiB), and three
// 53 KiB thread blocks fit the 164 KiB carveout, which leaves 92 KiB of L1 for the
// staged records' loads (tet4 2–3% faster than at 62 KiB). elas_staged_tet4's four
// thread blocks take 47 KiB: four 48.5 KiB blocks still fit the 196 KiB carveout
// (60 KiB of L1); at 48 KiB they need the 228 KiB one, and tet4 is 6% slower.
func stagedBudget(entry string, rounds bool) int {
	switch {
	case stagedShared > 0:
		return stagedShared
	case rounds:
		return 62 << 10
	case entry == kernelStagedTet4:
		return 47 << 10
	}
	return 52 << 10
}

// stagedGroupBudget is the doubles of a group's records and contributions for
// instantiation entry: stagedBudget's, at most perBlock bytes, less a round's element
// blocks with rounds.
func stagedGroupBudget(entry string, rounds bool, perBlock int) int {
	budget := min(stagedBudget(entry, rounds), perBlock) / 8
	if rounds {
		budget -= 9 * stagedThreads
	}
	return budget
}

// Elasticity runs the numeric phase of fem.Elasticity — isotropic elasticity on an
// unstructured mesh — on the GPU: it writes the values of a device BSR matrix from
// per-element Young's moduli and Poisson ratios, so that a step with new materials
// moves two float64 per element across the bus, not the matrix
// (kernels/elasticity.cu: the CPU's sums in the CPU's order, each operation rounded
// on its own; on a mesh of one element shape a thread block per group of blocks on or
// above the diagonal, which stages its elements' data in shared memory and writes each
// block and its transpose, else a thread per stored block).
//
// It holds the symbolic phase's arrays its kernel reads on the device (from
// fem.ElasticityLayout: the quadrature records, the inverse element→slot map or the
// incidences and slots, the elimination's lists); the pattern itself is the matrix's.
// The values are bitwise those of fem.Elasticity.Numeric, fixed degrees of freedom
// eliminated the same way.
type Elasticity struct {
	b               *cuda.Backend
	el              *fem.Elasticity
	nodes, elements int
	nnzb            int64
	// kernel is the assembly kernel (kernelStaged, …), the one whose data is below.
	kernel          string
	qptr            *cuda.Buffer[int64]
	elemKind, kinds *cuda.Buffer[int32]
	grad, qdata     *cuda.Buffer[float64]
	// pairPtr and pairs are the inverse slot map (elas_pairs, elas_pairs_rounds);
	// incPtr, inc, slotPtr and slot elas_numeric's incidences and slots.
	pairPtr, incPtr, slotPtr *cuda.Buffer[int64]
	pairs, inc, slot         *cuda.Buffer[int32]
	// uniformQ is the quadrature points of every element when all have as many (else 0).
	uniformQ int32
	// work and mirror are elas_staged's blocks on and above the diagonal, in stored
	// order, and each one's transpose (itself on the diagonal).
	work, mirror *cuda.Buffer[int64]
	// shapeNodes and shapeQ are every element's nodes and points (elas_staged).
	shapeNodes, shapeQ int32
	// gw, ge, elems, lptr and lpairs are elas_staged's groups (stagedMap), and
	// stagedBytes the shared memory a thread block of it takes.
	gw, ge, lptr *cuda.Buffer[int64]
	elems, lpair *cuda.Buffer[int32]
	// slots is stagedMap's slots (with rounds), four bytes to an int32; wperm
	// writeOrder's, two to an int32.
	slots, wperm *cuda.Buffer[int32]
	groups       int
	stagedBytes  uint32
	// slice is a thread block's shared memory (doubles); rounds is 1 when the sums
	// go in rounds (kernels/elasticity.cu).
	slice, rounds int32
	// entry is the kernel launched: kernel itself, or elas_staged's instantiation
	// for the mesh's shape (stagedEntry).
	entry    string
	fixed    *cuda.Buffer[int32] // nil when nothing is fixed
	elimPtr  *cuda.Buffer[int64]
	elimSlot *cuda.Buffer[int64]
	saved    *cuda.Buffer[float64]
	e, nu    *cuda.Buffer[float64] // NumericHost's materials
	mu, rho  *cuda.Buffer[float64] // μ and λ/μ per element (elas_pairs, …, elas_numeric)
	flag     *cuda.Flag
	// owned is every buffer above, for Bytes and Free.
	owned []interface {
		Bytes() int64
		Free()
	}
	freed bool
}

// hold records u among the buffers Bytes counts and Free frees, and returns it.
func hold[T cuda.Elem](d *Elasticity, u *cuda.Buffer[T]) *cuda.Buffer[T] {
	if u != nil {
		d.owned = append(d.owned, u)
	}
	return u
}

// uploadOr uploads v as a held buffer unless *err is set, recording its own failure
// there, so that a sequence of uploads checks once at its end.
func uploadOr[T cuda.Elem](d *Elasticity, v []T, err *error) *cuda.Buffer[T] {
	if *err != nil {
		return nil
	}
	u, e := upload(d.b, v)
	if e != nil {
		*err = e
		return nil
	}
	return hold(d, u)
}

// NewElasticity uploads el's symbolic phase to b's device and makes the matrix it
// fills there (el's pattern, values zero; the caller owns it and frees it). Nothing
// matrix-sized is uploaded but the pattern, and no values are ever on the host.
func NewElasticity(b *cuda.Backend, el *fem.Elasticity) (*Elasticity, *cuda.Matrix, error) {
	l := el.Layout()
	if len(l.Kinds) > elaKinds {
		return nil, nil, fmt.Errorf("cuda: elasticity: %d element kinds, at most %d on the device", len(l.Kinds), elaKinds)
	}
	if l.Elements >= 1<<27 || int64(l.Nodes) >= 1<<31 {
		return nil, nil, fmt.Errorf("cuda: elasticity: %d elements and %d nodes: at most 2²⁷ and 2³¹ on the device", l.Elements, l.Nodes)
	}
	d := &Elasticity{b: b, el: el, nodes: l.Nodes, elements: l.Elements, nnzb: l.RowPtr[l.Nodes]}
	err := d.prepare(l)
	// The pattern is the matrix's, not the assembly's: uploaded apart.
	var rp *cuda.Buffer[int64]
	var col *cuda.Buffer[int32]
	if err == nil {
		if rp, err = upload(b, l.RowPtr); err == nil {
			if col, err = upload(b, l.ColIdx); err != nil {
				rp.Free()
			}
		}
	}
	for _, name := range []string{d.entry, "elas_lame", "elas_check"} {
		if err == nil {
			err = b.LookupKernel(name)
		}
	}
	if err != nil {
		if rp != nil && col != nil {
			rp.Free()
			col.Free()
		}
		d.Free()
		return nil, nil, fmt.Errorf("cuda: elasticity: %w", err)
	}
	A, err := b.NewMatrixOn(l.Nodes, l.Nodes, 3, 3, rp, col)
	if err != nil {
		d.Free()
		return nil, nil, fmt.Errorf("cuda: elasticity: %w", err)
	}
	return d, A, nil
}

// stage cuts elas_staged's groups for el's layout, when its elements are all of one
// shape (one), and sets the kernel's shared memory and rounds; without rounds each
// group's blocks are listed in its threads' order (sortBlocks).
func (d *Elasticity) stage(l fem.ElasticityLayout, one bool) (sm stagedMap, err error) {
	if !one {
		return sm, fmt.Errorf("%s takes meshes of one element shape", kernelStaged)
	}
	for _, K := range l.Kinds {
		if !slices.Equal(K.Grad, l.Kinds[0].Grad) {
			return sm, fmt.Errorf("%s takes one shape's reference gradients, the volume sets differ", kernelStaged)
		}
	}
	K := l.Kinds[0]
	rec := stagedStride(K.Nodes) * K.Points // doubles an element
	rounds := K.Points > 1
	if stagedRounds >= 0 {
		rounds = stagedRounds == 1
	}
	d.entry = stagedEntry(K.Nodes, K.Points, rounds)
	budget := stagedGroupBudget(d.entry, rounds, d.b.Info().SharedPerBlock)
	if sm, err = stagedGroups(l, rec, budget, stagedThreads, rounds); err != nil {
		return sm, err
	}
	// A group's sums go in rounds (their slots in the groups' order) or a thread a
	// block (its blocks in its threads' order).
	if rounds {
		sm.roundOrder()
	} else {
		sm.sortBlocks()
	}
	// The shared memory holds the records, the contributions and a round's blocks,
	// then the blocks, their transposes and their positions.
	need := sm.maxSlice
	if rounds {
		need += 9 * stagedThreads
		d.rounds = 1
	}
	d.slice = int32(max(need, 20*stagedThreads))
	// Past the slice, the write order's words.
	d.stagedBytes = uint32(8 * (int(d.slice) + stagedThreads/4 + 1))
	return sm, nil
}

// prepare chooses the kernel (forceKernel, when set) and uploads its data.
func (d *Elasticity) prepare(l fem.ElasticityLayout) error {
	// Every element of one shape: the same nodes and points in every volume set (a
	// mesh built in code may hold several sets of one type; Gmsh's reader makes one
	// per type).
	one := true
	for _, K := range l.Kinds {
		one = one && K.Nodes == l.Kinds[0].Nodes && K.Points == l.Kinds[0].Points
	}
	several := false // points an element
	for _, K := range l.Kinds {
		several = several || K.Points > 1
	}
	kernel := forceKernel
	var sm stagedMap
	if kernel == "" && one || kernel == kernelStaged {
		var err error
		if sm, err = d.stage(l, one); err == nil {
			kernel = kernelStaged
		} else if kernel != "" {
			return err
		}
		// Otherwise (too many elements around one node to stage them): the inverse
		// slot map.
	}
	if kernel == "" {
		kernel = kernelNumeric
		if l.Elements < elaPairElems {
			kernel = kernelPairs
			if several {
				kernel = kernelRounds
			}
		}
	}
	if kernel != kernelNumeric && l.Elements >= elaPairElems && kernel != kernelStaged {
		return fmt.Errorf("%s takes fewer than %d elements, not %d", kernel, elaPairElems, l.Elements)
	}
	d.kernel = kernel
	if kernel != kernelStaged {
		d.entry = kernel // (stage chose elas_staged's)
	}
	var err error
	var grad []float64
	if kernel == kernelStaged {
		// One shape: its reference gradients serve every element.
		grad = l.Kinds[0].Grad
	} else {
		// Each element's kind, and every kind's nodes, points and gradients.
		kind := make([]int32, len(l.ElemKind))
		for e, K := range l.ElemKind {
			kind[e] = int32(K)
		}
		var kinds []int32
		for _, K := range l.Kinds {
			kinds = append(kinds, int32(K.Nodes), int32(K.Points), int32(len(grad)))
			grad = append(grad, K.Grad...)
		}
		d.elemKind, d.kinds = uploadOr(d, kind, &err), uploadOr(d, kinds, &err)
	}
	d.grad, d.qdata = uploadOr(d, grad, &err), uploadOr(d, l.QData, &err)
	d.shapeNodes, d.shapeQ = int32(l.Kinds[0].Nodes), int32(l.Kinds[0].Points)
	if len(l.Kinds) == 1 {
		d.uniformQ = int32(l.Kinds[0].Points)
	}
	switch kernel {
	case kernelStaged:
		d.work, d.mirror = uploadOr(d, sm.work, &err), uploadOr(d, sm.mirror, &err)
		d.gw, d.ge, d.lptr = uploadOr(d, sm.gw, &err), uploadOr(d, sm.ge, &err), uploadOr(d, sm.lptr, &err)
		d.elems, d.lpair = uploadOr(d, sm.elems, &err), uploadOr(d, sm.lpairs, &err)
		if sm.slots != nil {
			d.slots = uploadOr(d, packBytes(sm.slots), &err)
		}
		d.wperm = uploadOr(d, packShorts(sm.writeOrder()), &err)
		d.groups = len(sm.gw) - 1
	case kernelPairs, kernelRounds:
		ptr, pairs := inverseSlots(l)
		d.pairPtr, d.pairs = uploadOr(d, ptr, &err), uploadOr(d, pairs, &err)
		d.qptr = uploadOr(d, l.QPtr, &err)
	case kernelNumeric:
		d.qptr = uploadOr(d, l.QPtr, &err)
		d.incPtr, d.inc = uploadOr(d, l.IncPtr, &err), uploadOr(d, incidences(l), &err)
		d.slotPtr, d.slot = uploadOr(d, l.SlotPtr, &err), uploadOr(d, l.Slot, &err)
	default:
		return fmt.Errorf("no assembly kernel %q", kernel)
	}
	if l.Fixed != nil {
		fx := make([]int32, len(l.Fixed))
		for a, m := range l.Fixed {
			fx[a] = int32(m)
		}
		d.fixed, d.elimPtr, d.elimSlot = uploadOr(d, fx, &err), uploadOr(d, l.ElimPtr, &err), uploadOr(d, l.ElimSlot, &err)
		if err == nil {
			var saved *cuda.Buffer[float64]
			saved, err = cuda.Alloc[float64](d.b, 9*len(l.ElimSlot))
			d.saved = hold(d, saved)
		}
	}
	return err
}

// stagedStride is ela_staged_stride of kernels/elasticity.cu: the doubles of one
// staged point of an element with n nodes (ρ and n scaled gradients, odd).
func stagedStride(n int) int { return (1 + 3*n) | 1 }

// packBytes packs b four bytes to an int32, little-endian (the device's order), so
// that a kernel reads it as bytes.
func packBytes(b []uint8) []int32 {
	p := make([]int32, (len(b)+3)/4)
	for i, v := range b {
		p[i/4] |= int32(uint32(v) << (8 * (i % 4)))
	}
	return p
}

// packShorts packs two uint16 to an int32, the first in the low half, padded with
// zero.
func packShorts(h []uint16) []int32 {
	p := make([]int32, (len(h)+1)/2)
	for i, v := range h {
		p[i/2] |= int32(uint32(v) << (16 * (i % 2)))
	}
	return p
}

// incidences returns the layout's incidences as the kernels take them: element·16 +
// the node's local index, one int32 each.
func incidences(l fem.ElasticityLayout) []int32 {
	inc := make([]int32, len(l.IncElem))
	for k, e := range l.IncElem {
		inc[k] = e<<4 | int32(l.IncLocal[k])
	}
	return inc
}

// inverseSlots inverts the layout's element→slot map: for each stored block t, the
// contributions pairs[ptr[t] … ptr[t+1]) in ascending element order, each
// element·256 + la·16 + b (the row's node la and the column's node b in the element).
// Rows are independent, so they are split across workers.
func inverseSlots(l fem.ElasticityLayout) (ptr []int64, pairs []int32) {
	nnzb := l.RowPtr[l.Nodes]
	ptr = make([]int64, nnzb+1)
	par.For(l.Nodes, 0, 1024, func(lo, hi int) {
		for a := lo; a < hi; a++ {
			base := l.RowPtr[a] + 1
			for k := l.IncPtr[a]; k < l.IncPtr[a+1]; k++ {
				for u := l.SlotPtr[k]; u < l.SlotPtr[k+1]; u++ {
					ptr[base+int64(l.Slot[u])]++
				}
			}
		}
	})
	for t := int64(0); t < nnzb; t++ {
		ptr[t+1] += ptr[t]
	}
	pairs = make([]int32, ptr[nnzb])
	par.For(l.Nodes, 0, 1024, func(lo, hi int) {
		next := make([]int64, 0, 256)
		for a := lo; a < hi; a++ {
			base, end := l.RowPtr[a], l.RowPtr[a+1]
			next = append(next[:0], ptr[base:end]...)
			for k := l.IncPtr[a]; k < l.IncPtr[a+1]; k++ {
				e, la := l.IncElem[k], int32(l.IncLocal[k])
				for u := l.SlotPtr[k]; u < l.SlotPtr[k+1]; u++ {
					s := l.Slot[u]
					pairs[next[s]] = e<<8 | la<<4 | int32(u-l.SlotPtr[k])
					next[s]++
				}
			}
		}
	})
	return ptr, pairs
}

// transpose returns the stored block (c, a) of block t = (a, c) of row a (t itself
// on the diagonal). An element couples its nodes both ways, so the pattern is
// structurally symmetric and every transpose exists; the rows' columns are ascending
// (fem's pattern), so it is found by bisection.
func transpose(l fem.ElasticityLayout, a int, t int64) int64 {
	c := int(l.ColIdx[t])
	k, ok := slices.BinarySearch(l.ColIdx[l.RowPtr[c]:l.RowPtr[c+1]], int32(a))
	if !ok {
		panic(fmt.Sprintf("cudafem: block (%d, %d) has no transpose: the pattern is not symmetric", a, c))
	}
	return l.RowPtr[c] + int64(k)
}

func (d *Elasticity) live() {
	if d.freed {
		panic("cuda: elasticity used after Free")
	}
}

// checkSizes reports whether A has the assembly's dimensions and block count.
func (d *Elasticity) checkSizes(A *cuda.Matrix) error {
	d.b.CheckMatrix(A)
	br, bc, r, c := A.Dims()
	if br != d.nodes || bc != d.nodes || r != 3 || c != 3 || int64(A.ColIdx().Len()) != d.nnzb {
		return fmt.Errorf("cuda: elasticity: device matrix of %d×%d blocks of %d×%d with %d blocks; the assembly's has %d×%d blocks of 3×3 with %d",
			br, bc, r, c, A.ColIdx().Len(), d.nodes, d.nodes, d.nnzb)
	}
	return nil
}

// Numeric queues the writing of A's values from per-element materials already on the
// device (fem's element order; not checked: see fem.Elasticity.CheckMaterial). A must
// be the matrix NewElasticity made; its sizes are checked here.
func (d *Elasticity) Numeric(A *cuda.Matrix, E, nu *cuda.Buffer[float64]) error {
	d.live()
	if err := d.checkSizes(A); err != nil {
		return err
	}
	if E.Len() != d.elements || nu.Len() != d.elements || E.Backend() != d.b || nu.Backend() != d.b {
		return fmt.Errorf("cuda: elasticity: materials of %d and %d elements (or of another backend) for %d", E.Len(), nu.Len(), d.elements)
	}
	if err := d.scratch(); err != nil {
		return err
	}
	if err := d.b.Failed(); err != nil {
		return err
	}
	d.numeric(A, E, nu, 0)
	return nil
}

// scratch allocates the materials' and Lamé parameters' buffers and the flag on
// first use.
func (d *Elasticity) scratch() error {
	if d.flag != nil { // the last of them
		return nil
	}
	var err error
	bufs := []**cuda.Buffer[float64]{&d.e, &d.nu}
	if d.kernel != kernelStaged {
		bufs = append(bufs, &d.mu, &d.rho)
	}
	for _, p := range bufs {
		if err == nil {
			var u *cuda.Buffer[float64]
			u, err = cuda.Alloc[float64](d.b, d.elements)
			*p = hold(d, u)
		}
	}
	if err == nil {
		d.flag, err = cuda.NewFlag(d.b, int32(d.elements))
	}
	if err != nil {
		return fmt.Errorf("cuda: elasticity: %w", err)
	}
	return nil
}

// NumericHost uploads the per-element materials E and nu (fem.Elasticity.Numeric's
// arguments) and writes A's values from them on the device. Bad materials are
// fem.Elasticity.CheckMaterial's error, and A is then left unchanged: the lengths are
// checked here, the values on the device, by a kernel that runs before the assembly
// and stops it (one 4-byte flag comes back per call). NumericHost waits for the
// assembly to finish. A must be the matrix NewElasticity made (its pattern).
func (d *Elasticity) NumericHost(A *cuda.Matrix, E, nu []float64) error {
	d.live()
	if len(E) != d.elements || len(nu) != d.elements {
		return d.el.CheckMaterial(E, nu)
	}
	if err := d.checkSizes(A); err != nil {
		return err
	}
	b := d.b
	if err := d.scratch(); err != nil {
		return err
	}
	if err := d.e.Upload(E); err != nil {
		return fmt.Errorf("cuda: elasticity: uploading the moduli: %w", err)
	}
	if err := d.nu.Upload(nu); err != nil {
		return fmt.Errorf("cuda: elasticity: uploading the Poisson ratios: %w", err)
	}
	if err := b.Failed(); err != nil {
		return err
	}
	n, ep, np, fp := int32(d.elements), d.e.Ptr(), d.nu.Ptr(), d.flag.Ptr()
	b.Launch("elas_check", cuda.StridedBlocks(int64(n)), func(a *cudadrv.Args) { a.I32(n).Ptr(ep).Ptr(np).Ptr(fp) })
	d.numeric(A, d.e, d.nu, fp)
	e, bad, err := d.flag.Read()
	if err != nil {
		return fmt.Errorf("cuda: elasticity: %w", err)
	}
	if !bad {
		return nil
	}
	if err := d.el.CheckMaterial(E, nu); err != nil {
		return err
	}
	return fmt.Errorf("cuda: elasticity: element %d: material (%v, %v) rejected on the device", e, E[e], nu[e])
}

// numeric queues the assembly (and μ, λ/μ per element, for the kernels that read
// them), guarded by the flag at bad when it is not 0.
func (d *Elasticity) numeric(A *cuda.Matrix, E, nu *cuda.Buffer[float64], bad cudadrv.DevPtr) {
	b := d.b
	n := int32(d.elements)
	ep, np := E.Ptr(), nu.Ptr()
	var fx, ep2, es, sv cudadrv.DevPtr
	if d.fixed != nil {
		fx, ep2, es, sv = d.fixed.Ptr(), d.elimPtr.Ptr(), d.elimSlot.Ptr(), d.saved.Ptr()
	}
	nnzb, nodes := d.nnzb, int32(d.nodes)
	rp, cp, vp := A.RowPtr().Ptr(), A.ColIdx().Ptr(), A.Values().Ptr()
	gr, qd := d.grad.Ptr(), d.qdata.Ptr()
	nn, nq := d.shapeNodes, d.shapeQ
	if d.kernel == kernelStaged {
		// The materials are read where the records are staged.
		gw, ge, el, wp, mp, lp, lpr := d.gw.Ptr(), d.ge.Ptr(), d.elems.Ptr(), d.work.Ptr(), d.mirror.Ptr(), d.lptr.Ptr(), d.lpair.Ptr()
		var ls cudadrv.DevPtr
		if d.slots != nil {
			ls = d.slots.Ptr()
		}
		wo := d.wperm.Ptr()
		slice, rounds := d.slice, d.rounds
		b.LaunchShared(d.entry, uint32(d.groups), d.stagedBytes, func(a *cudadrv.Args) {
			a.I32(nn).I32(nq).I32(slice).I32(rounds).Ptr(gr).Ptr(qd).Ptr(ep).Ptr(np).Ptr(gw).Ptr(ge).Ptr(el).Ptr(wp).Ptr(mp).
				Ptr(lp).Ptr(lpr).Ptr(ls).Ptr(wo).I32(nodes).Ptr(rp).Ptr(cp).Ptr(fx).Ptr(ep2).Ptr(es).Ptr(sv).Ptr(bad).I32(n).Ptr(vp)
		})
		return
	}
	ek, ks := d.elemKind.Ptr(), d.kinds.Ptr()
	mp, lp := d.mu.Ptr(), d.rho.Ptr()
	b.Launch("elas_lame", cuda.StridedBlocks(int64(n)), func(a *cudadrv.Args) { a.I32(n).Ptr(ep).Ptr(np).Ptr(mp).Ptr(lp) })
	qp := d.qptr.Ptr()
	if d.kernel != kernelNumeric {
		pp, pr, uq := d.pairPtr.Ptr(), d.pairs.Ptr(), d.uniformQ
		b.Launch(d.entry, cuda.BlocksFor(nnzb), func(a *cudadrv.Args) {
			a.I64(nnzb).I32(nodes).Ptr(rp).Ptr(cp).Ptr(pp).Ptr(pr).Ptr(ek).Ptr(ks).Ptr(gr).I32(uq).Ptr(qp).Ptr(qd).
				Ptr(mp).Ptr(lp).Ptr(fx).Ptr(ep2).Ptr(es).Ptr(sv).Ptr(bad).I32(n).Ptr(vp)
		})
		return
	}
	ip, ic, spp, slp := d.incPtr.Ptr(), d.inc.Ptr(), d.slotPtr.Ptr(), d.slot.Ptr()
	b.Launch(kernelNumeric, cuda.BlocksFor(nnzb), func(a *cudadrv.Args) {
		a.I64(nnzb).I32(nodes).Ptr(rp).Ptr(cp).Ptr(ip).Ptr(ic).Ptr(ek).Ptr(ks).Ptr(gr).Ptr(qp).Ptr(qd).Ptr(spp).Ptr(slp).
			Ptr(mp).Ptr(lp).Ptr(fx).Ptr(ep2).Ptr(es).Ptr(sv).Ptr(bad).I32(n).Ptr(vp)
	})
}

// DataBytes returns the element data one NumericHost reads besides the materials:
// the quadrature records in their compact form (J⁻¹ and w·detJ a point) and the map
// from them to the blocks that its kernel walks (elas_staged's groups, lists, local
// pairs and write order; the inverse slot map; or the incidences and slots), each
// counted once.
// ValueBytes is the matrix values it writes and the materials it reads. Their sum
// over the copy bandwidth is the assembly's floor.
func (d *Elasticity) DataBytes() int64 {
	n := d.qdata.Bytes()
	switch d.kernel {
	case kernelStaged:
		for _, u := range []interface{ Bytes() int64 }{d.work, d.mirror, d.wperm, d.lptr, d.lpair, d.elems, d.gw, d.ge} {
			n += u.Bytes()
		}
		if d.slots != nil {
			n += d.slots.Bytes()
		}
		return n
	case kernelNumeric:
		return n + d.inc.Bytes() + d.slot.Bytes() + d.slotPtr.Bytes() + d.incPtr.Bytes()
	}
	return n + d.pairs.Bytes() + d.pairPtr.Bytes()
}

// ValueBytes: see DataBytes.
func (d *Elasticity) ValueBytes() int64 { return 9*8*d.nnzb + 16*int64(d.elements) }

// Bytes returns the device memory the assembly holds (the matrix excluded).
func (d *Elasticity) Bytes() int64 {
	var n int64
	for _, u := range d.owned {
		n += u.Bytes()
	}
	return n
}

// Free releases the device memory; freeing twice is a no-op.
func (d *Elasticity) Free() {
	if d.freed {
		return
	}
	d.freed = true
	for _, u := range d.owned {
		u.Free()
	}
	d.flag.Free()
}
