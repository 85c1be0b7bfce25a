package fem

import "github.com/blockamg/blockamg/mesh"

// ElasticityLayout is what another implementation of Elasticity.Numeric (a device
// kernel) needs to compute bitwise the same matrix: flat arrays, shared with the
// Elasticity (read-only). The package documentation ("Unstructured assembly") gives
// the order of operations; Numeric is the reference implementation.
type ElasticityLayout struct {
	Nodes    int // block rows and columns
	Elements int // volume elements, numbered across the mesh's volume sets in order

	// RowPtr and ColIdx are the BSR pattern (3×3 blocks, sorted columns, every diagonal block).
	RowPtr []int64
	ColIdx []int32

	// Kinds holds per volume set its element type and reference gradients; element
	// e belongs to Kinds[ElemKind[e]].
	Kinds    []ElementKind
	ElemKind []uint8

	// Element e's quadrature points are QPtr[e] … QPtr[e+1]−1 (in its kind's point
	// order); point p's record is QData[10p : 10p+10]: J⁻¹ row-major (J⁻¹[k][d] =
	// ∂ξ_k/∂x_d at 3k+d), then w·detJ.
	QPtr  []int64
	QData []float64

	// Node a's incidences are k = IncPtr[a] … IncPtr[a+1]−1, in ascending element
	// order: element IncElem[k], in which a is local node IncLocal[k].
	IncPtr   []int64
	IncElem  []int32
	IncLocal []uint8

	// Incidence k's slots Slot[SlotPtr[k] + b], b < its element's node count, are
	// the positions, relative to RowPtr[a], of the blocks coupling a to the
	// element's local node b: block storage index RowPtr[a] + Slot[…] (int64), values
	// from 9 times that.
	SlotPtr []int64
	Slot    []int32

	// Fixed is the Dirichlet mask per node (nil when nothing is fixed). DiagSlot[a]
	// is the storage index of block (a, a). ElimPtr[a] … ElimPtr[a+1]−1 index
	// ElimSlot, the storage indices of block row a's blocks whose couplings the
	// elimination removes from free rows (a has a free component, the column a
	// fixed one); Numeric copies them, as assembled, before it zeroes entries.
	Fixed    []uint8
	DiagSlot []int64
	ElimPtr  []int64
	ElimSlot []int64
}

// ElementKind is one volume set's element type with its reference gradients at the
// stiffness quadrature points: Grad[(q·Nodes + b)·3 + k] = ∂N̂_b/∂ξ_k at point q.
type ElementKind struct {
	Type   mesh.Type
	Nodes  int       // nodes per element, Type.Nodes()
	Points int       // stiffness quadrature points per element
	Grad   []float64 // Points×Nodes×3 reference gradients
}

// Layout returns the arrays of the symbolic phase (shared, read-only).
func (el *Elasticity) Layout() ElasticityLayout {
	kinds := make([]ElementKind, len(el.sets))
	for i, s := range el.sets {
		kinds[i] = ElementKind{Type: s.els.Type, Nodes: s.n, Points: s.nq, Grad: s.grad}
	}
	return ElasticityLayout{
		Nodes: el.nodes, Elements: len(el.elemSet),
		RowPtr: el.pattern.RowPtr, ColIdx: el.pattern.ColIdx,
		Kinds: kinds, ElemKind: el.elemSet,
		QPtr: el.qptr, QData: el.qdata,
		IncPtr: el.incPtr, IncElem: el.incElem, IncLocal: el.incLocal,
		SlotPtr: el.slotPtr, Slot: el.slot,
		Fixed: el.fixed, DiagSlot: el.diagSlot, ElimPtr: el.elimPtr, ElimSlot: el.elimSlot,
	}
}
