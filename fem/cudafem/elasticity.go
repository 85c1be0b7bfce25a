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
// elas_pairs packs into an int32 (element·256 + local nodes): larger meshes are
// elas_numeric's.
const (
	elaKinds     = 8
	elaPairElems = 1 << 23
)

// pairElems is the element count from which the assembly is elas_numeric's
// (elaPairElems; a variable so that the tests run that kernel on small meshes).
var pairElems = elaPairElems

// Elasticity runs the numeric phase of fem.Elasticity — isotropic elasticity on an
// unstructured mesh — on the GPU: it writes the values of a device BSR matrix from
// per-element Young's moduli and Poisson ratios, so that a step with new materials
// moves two float64 per element across the bus, not the matrix
// (kernels/elasticity.cu: the CPU's sums in the CPU's order, each operation rounded
// on its own; on a mesh of one element shape a thread per block on or above the
// diagonal, which writes the block and its transpose, else a thread per stored
// block).
//
// It holds the symbolic phase's arrays on the device (fem.ElasticityLayout: the
// quadrature records, the node→element incidence and the element→slot map, the
// elimination's lists); the pattern itself is the matrix's. The values are bitwise
// those of fem.Elasticity.Numeric, fixed degrees of freedom eliminated the same way.
type Elasticity struct {
	b               *cuda.Backend
	el              *fem.Elasticity
	nodes, elements int
	nnzb            int64
	qptr            *cuda.Buffer[int64]
	elemKind, kinds *cuda.Buffer[int32]
	grad, qdata     *cuda.Buffer[float64]
	// pairPtr and pairs are elas_pairs' inverse slot map; incPtr, inc, slotPtr and
	// slot elas_numeric's incidences and slots, for meshes too large for the pairs'
	// packing. Only one of the two maps is on the device.
	pairPtr, incPtr, slotPtr *cuda.Buffer[int64]
	pairs, inc, slot         *cuda.Buffer[int32]
	// uniformQ is the quadrature points of every element when all have as many (else 0).
	uniformQ int32
	// pairsKernel is the inverse slot map's kernel: elas_upper, a thread per block
	// on or above the diagonal from the packed records, where every element is of
	// one shape; else elas_pairs, a thread per stored block, where every element
	// block is one quadrature point (a contribution is mostly its loads), or
	// elas_pairs_rounds, which spreads a thread block's contributions evenly over
	// its threads (kernels/elasticity.cu).
	pairsKernel string
	// work and mirror are elas_upper's blocks: the stored blocks on and above the
	// diagonal, in stored order, and each one's transpose (itself on the diagonal);
	// uploaded with pack.
	work, mirror *cuda.Buffer[int64]
	// pack holds elas_upper's packed records (kernels/elasticity.cu: per element and
	// point the gradients and the material coefficients), made once when every
	// element is of one shape and the pairs map is used; nil otherwise.
	pack *cuda.Buffer[float64]
	// packNodes and packQ are every element's nodes and points, when pack is not nil.
	packNodes, packQ int32
	fixed            *cuda.Buffer[int32] // nil when nothing is fixed
	elimPtr          *cuda.Buffer[int64]
	elimSlot         *cuda.Buffer[int64]
	saved            *cuda.Buffer[float64]
	e, nu            *cuda.Buffer[float64] // NumericHost's materials
	mu, lam          *cuda.Buffer[float64] // the Lamé parameters
	flag             *cuda.Flag
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
	var err error
	kind := make([]int32, len(l.ElemKind))
	for e, K := range l.ElemKind {
		kind[e] = int32(K)
	}
	var kinds []int32
	var grad []float64
	for _, K := range l.Kinds {
		kinds = append(kinds, int32(K.Nodes), int32(K.Points), int32(len(grad)))
		grad = append(grad, K.Grad...)
	}
	d.qptr = uploadOr(d, l.QPtr, &err)
	d.elemKind, d.kinds = uploadOr(d, kind, &err), uploadOr(d, kinds, &err)
	d.grad, d.qdata = uploadOr(d, grad, &err), uploadOr(d, l.QData, &err)
	if l.Elements < pairElems {
		// The packed records need every element of one shape: the same nodes and
		// points in every volume set (a mesh built in code may hold several sets of
		// one type; Gmsh's reader makes one per type).
		one := true
		for _, K := range l.Kinds {
			one = one && K.Nodes == l.Kinds[0].Nodes && K.Points == l.Kinds[0].Points
		}
		ptr, pairs := inverseSlots(l)
		d.pairPtr, d.pairs = uploadOr(d, ptr, &err), uploadOr(d, pairs, &err)
		d.pairsKernel = "elas_pairs"
		for _, K := range l.Kinds {
			if K.Points > 1 {
				d.pairsKernel = "elas_pairs_rounds"
			}
		}
		if len(l.Kinds) == 1 {
			d.uniformQ = int32(l.Kinds[0].Points)
		}
		if one {
			K := l.Kinds[0]
			d.packQ = int32(K.Points)
			if err == nil {
				var u *cuda.Buffer[float64]
				u, err = cuda.Alloc[float64](b, int(packStride(K.Nodes))*K.Points*l.Elements)
				d.pack, d.packNodes = hold(d, u), int32(K.Nodes)
			}
			work, mirror := upperWork(l)
			d.work, d.mirror = uploadOr(d, work, &err), uploadOr(d, mirror, &err)
			d.pairsKernel = "elas_upper"
		}
	} else {
		d.incPtr, d.inc = uploadOr(d, l.IncPtr, &err), uploadOr(d, incidences(l), &err)
		d.slotPtr, d.slot = uploadOr(d, l.SlotPtr, &err), uploadOr(d, l.Slot, &err)
	}
	if l.Fixed != nil {
		fx := make([]int32, len(l.Fixed))
		for a, m := range l.Fixed {
			fx[a] = int32(m)
		}
		d.fixed, d.elimPtr, d.elimSlot = uploadOr(d, fx, &err), uploadOr(d, l.ElimPtr, &err), uploadOr(d, l.ElimSlot, &err)
		if err == nil {
			var saved *cuda.Buffer[float64]
			saved, err = cuda.Alloc[float64](b, 9*len(l.ElimSlot))
			d.saved = hold(d, saved)
		}
	}
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
	for _, name := range []string{"elas_numeric", "elas_pairs", "elas_pairs_rounds", "elas_lame", "elas_check", "elas_pack", "elas_lame_pack", "elas_upper"} {
		if err == nil {
			err = b.LookupKernel(name)
		}
	}
	if err == nil && d.pack != nil {
		n, nn, nq := int32(l.Elements), d.packNodes, d.packQ
		ek, ks, gp, qp, pp := d.elemKind.Ptr(), d.kinds.Ptr(), d.grad.Ptr(), d.qdata.Ptr(), d.pack.Ptr()
		b.Launch("elas_pack", cuda.StridedBlocks(int64(l.Elements)*int64(nq)), func(a *cudadrv.Args) {
			a.I32(n).I32(nn).I32(nq).Ptr(ek).Ptr(ks).Ptr(gp).Ptr(qp).Ptr(pp)
		})
		err = b.Failed()
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

// packStride is ela_stride of kernels/elasticity.cu: the doubles of one packed
// record of an element with n nodes (cm, cl, w·detJ and n gradients, each group
// padded to four doubles so that the kernel's 16-byte loads are aligned).
func packStride(n int) int64 { return 4 + 4*int64(n) }

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

// upperWork returns elas_upper's blocks: every stored block t = (a, c) with c ≥ a, in
// stored order, and mirror, the stored block (c, a) of each (t itself on the
// diagonal). An element couples its nodes both ways, so the pattern is structurally
// symmetric and every mirror exists; the rows' columns are ascending (fem's pattern),
// so it is found by bisection.
func upperWork(l fem.ElasticityLayout) (work, mirror []int64) {
	for a := 0; a < l.Nodes; a++ {
		for t := l.RowPtr[a]; t < l.RowPtr[a+1]; t++ {
			c := int(l.ColIdx[t])
			if c < a {
				continue
			}
			cols := l.ColIdx[l.RowPtr[c]:l.RowPtr[c+1]]
			k, ok := slices.BinarySearch(cols, int32(a))
			if !ok {
				panic(fmt.Sprintf("cudafem: block (%d, %d) has no transpose: the pattern is not symmetric", a, c))
			}
			work = append(work, t)
			mirror = append(mirror, l.RowPtr[c]+int64(k))
		}
	}
	return work, mirror
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
	for _, p := range []**cuda.Buffer[float64]{&d.e, &d.nu, &d.mu, &d.lam} {
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

// numeric queues the Lamé parameters and the assembly, guarded by the flag at bad
// when it is not 0.
func (d *Elasticity) numeric(A *cuda.Matrix, E, nu *cuda.Buffer[float64], bad cudadrv.DevPtr) {
	b := d.b
	n := int32(d.elements)
	ep, np, mp, lp := E.Ptr(), nu.Ptr(), d.mu.Ptr(), d.lam.Ptr()
	// elas_upper takes the material coefficients in its packed records, the other
	// kernels the Lamé parameters.
	upper := d.pairsKernel == "elas_upper"
	var pk cudadrv.DevPtr
	if upper {
		pk = d.pack.Ptr()
		nn, nq := d.packNodes, d.packQ
		b.Launch("elas_lame_pack", cuda.StridedBlocks(int64(n)), func(a *cudadrv.Args) { a.I32(n).I32(nn).I32(nq).Ptr(ep).Ptr(np).Ptr(pk) })
	} else {
		b.Launch("elas_lame", cuda.StridedBlocks(int64(n)), func(a *cudadrv.Args) { a.I32(n).Ptr(ep).Ptr(np).Ptr(mp).Ptr(lp) })
	}
	var fx, ep2, es, sv cudadrv.DevPtr
	if d.fixed != nil {
		fx, ep2, es, sv = d.fixed.Ptr(), d.elimPtr.Ptr(), d.elimSlot.Ptr(), d.saved.Ptr()
	}
	nnzb, nodes := d.nnzb, int32(d.nodes)
	rp, cp, vp := A.RowPtr().Ptr(), A.ColIdx().Ptr(), A.Values().Ptr()
	ek, ks, gr, qp, qd := d.elemKind.Ptr(), d.kinds.Ptr(), d.grad.Ptr(), d.qptr.Ptr(), d.qdata.Ptr()
	if upper {
		nw, pp, pr, wp, mp2, nn, nq := int64(d.work.Len()), d.pairPtr.Ptr(), d.pairs.Ptr(), d.work.Ptr(), d.mirror.Ptr(), d.packNodes, d.packQ
		b.Launch(d.pairsKernel, cuda.BlocksFor(nw), func(a *cudadrv.Args) {
			a.I64(nw).I32(nodes).Ptr(rp).Ptr(cp).Ptr(wp).Ptr(mp2).Ptr(pp).Ptr(pr).I32(nn).I32(nq).Ptr(pk).
				Ptr(fx).Ptr(ep2).Ptr(es).Ptr(sv).Ptr(bad).I32(n).Ptr(vp)
		})
		return
	}
	if d.pairs != nil {
		pp, pr, uq := d.pairPtr.Ptr(), d.pairs.Ptr(), d.uniformQ
		b.Launch(d.pairsKernel, cuda.BlocksFor(nnzb), func(a *cudadrv.Args) {
			a.I64(nnzb).I32(nodes).Ptr(rp).Ptr(cp).Ptr(pp).Ptr(pr).Ptr(ek).Ptr(ks).Ptr(gr).I32(uq).Ptr(qp).Ptr(qd).
				Ptr(mp).Ptr(lp).Ptr(fx).Ptr(ep2).Ptr(es).Ptr(sv).Ptr(bad).I32(n).Ptr(vp)
		})
		return
	}
	// Only this kernel's assembly holds the incidences and slots.
	ip, ic, spp, slp := d.incPtr.Ptr(), d.inc.Ptr(), d.slotPtr.Ptr(), d.slot.Ptr()
	b.Launch("elas_numeric", cuda.BlocksFor(nnzb), func(a *cudadrv.Args) {
		a.I64(nnzb).I32(nodes).Ptr(rp).Ptr(cp).Ptr(ip).Ptr(ic).Ptr(ek).Ptr(ks).Ptr(gr).Ptr(qp).Ptr(qd).Ptr(spp).Ptr(slp).
			Ptr(mp).Ptr(lp).Ptr(fx).Ptr(ep2).Ptr(es).Ptr(sv).Ptr(bad).I32(n).Ptr(vp)
	})
}

// DataBytes returns the bytes one NumericHost must read at least besides the
// materials: the quadrature records, the incidences and the slots (the symbolic
// arrays a block's thread walks; elas_upper reads its packed records instead, which
// are larger, so the floor is the compact form's); ValueBytes the matrix values it writes and the
// materials it reads. Their sum over the copy bandwidth is the assembly's floor.
func (d *Elasticity) DataBytes() int64 {
	if d.pairs != nil {
		return d.qdata.Bytes() + d.pairs.Bytes() + d.pairPtr.Bytes()
	}
	return d.qdata.Bytes() + d.inc.Bytes() + d.slot.Bytes() + d.slotPtr.Bytes() + d.incPtr.Bytes()
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
