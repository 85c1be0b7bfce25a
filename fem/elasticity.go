package fem

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
	"github.com/blockamg/blockamg/mesh"
)

// ErrMaterial is wrapped by the errors of material data: a Young's modulus that is
// not positive and finite, a Poisson ratio outside (−1, 0.5), per-element arrays of
// the wrong length, a volume group without a material.
var ErrMaterial = errors.New("fem: invalid material")

// ErrLoad is wrapped by the errors of boundary conditions and loads: a group the mesh
// does not have, a fixed-component mask above 7, a non-finite right-hand side.
var ErrLoad = errors.New("fem: invalid load or boundary condition")

// DefaultDetTol is ElasticityOptions.DetTol's default.
const DefaultDetTol = 1e-10

// ElasticityOptions configures NewElasticity.
type ElasticityOptions struct {
	// Fixed is the Dirichlet mask, one byte per node (nil: nothing fixed): bit c
	// fixes displacement component c (1: x, 2: y, 4: z, 7: all). FixGroup builds it
	// from surface groups. Which components are fixed is part of the symbolic phase;
	// their values (Loads.Prescribed) may change at every RHS.
	Fixed []uint8
	// DetTol rejects an element whose Jacobian determinant at one of its stiffness
	// quadrature points is ≤ DetTol·L³, L the diagonal of the box around its nodes
	// (a relative measure, so that the test does not depend on the mesh's units).
	// ≤ 0 means DefaultDetTol.
	DetTol float64
	// Workers bounds the goroutines of NewElasticity, RHS and VonMises (≤ 0:
	// par.Workers()). No result depends on it.
	Workers int
}

// Elasticity is the symbolic phase of isotropic linear elasticity on an unstructured
// mesh: quadrature data per element, the 3×3-block BSR pattern, the node→element
// incidence and the element→slot map, and the Dirichlet bookkeeping. Numeric fills a
// matrix with that pattern for given materials, RHS the right-hand side. See the
// package documentation ("Unstructured assembly") for the phases and the data layout.
//
// An Elasticity keeps the mesh it was built from (not a copy): do not change it.
// Numeric, RHS and VonMises may not run concurrently on one Elasticity (Numeric keeps
// the eliminated couplings that RHS reads).
type Elasticity struct {
	m       *mesh.Mesh
	nodes   int
	sets    []volSet
	workers int

	elemSet []uint8 // set of each element (index into sets)
	qptr    []int64 // len elements+1: first quadrature point of each element
	qdata   []float64

	pattern *bsr.Matrix // the pattern, Val nil

	incPtr   []int64 // len nodes+1
	incElem  []int32
	incLocal []uint8
	slotPtr  []int64 // len incidences+1
	slot     []int32 // relative to the row's RowPtr
	rowWork  []int64 // prefix of each row's work (nodes·points per incidence), for the split

	fixed    []uint8 // nil when nothing is fixed
	diagSlot []int64 // storage index of each node's diagonal block
	elimPtr  []int64 // len nodes+1 into elimSlot (nil when nothing is fixed)
	elimSlot []int64 // blocks (row free somewhere, column fixed somewhere), row-major
	saved    []float64
	last     *bsr.Matrix // the matrix of the latest Numeric, whose couplings saved holds

	elemVec []float64 // RHS's element load vectors, 3 per incidence, allocated on first use
}

// volSet is one of the mesh's volume element sets with what the phases need of its type.
type volSet struct {
	els     *mesh.Elements
	ref     *RefElement
	n, nq   int       // nodes per element, stiffness points
	grad    []float64 // ∂N̂_b/∂ξ_k at stiffness point q: grad[(q·n+b)·3+k]
	first   int       // global index of the set's first element
	nodeOff int64     // Σ nodes of the elements before the set (element-major offsets)
}

// NewElasticity runs the symbolic phase on m's volume elements (the sets of
// m.Volumes in order make the global element numbering: set 0's elements, then set
// 1's, …). A mesh error (a type without a registered element, node indices out of
// range or repeated within an element, an inverted or degenerate element) wraps
// mesh.ErrMesh and names the element's tag; a bad Fixed mask wraps ErrLoad.
func NewElasticity(m *mesh.Mesh, opt ElasticityOptions) (*Elasticity, error) {
	if len(m.Coords)%3 != 0 || len(m.Coords) == 0 {
		return nil, fmt.Errorf("%w: %d coordinates are not a positive multiple of 3", mesh.ErrMesh, len(m.Coords))
	}
	nodes := m.Nodes()
	if nodes > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d nodes exceed the int32 block columns", mesh.ErrMesh, nodes)
	}
	for i, x := range m.Coords {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: node %d: coordinate %d is %v", mesh.ErrMesh, i/3, i%3, x)
		}
	}
	el := &Elasticity{m: m, nodes: nodes, workers: opt.Workers}
	if err := el.setup(opt); err != nil {
		return nil, err
	}
	return el, nil
}

func (el *Elasticity) setup(opt ElasticityOptions) error {
	m := el.m
	total := 0
	var nodeOff int64
	if len(m.Volumes) > math.MaxUint8+1 {
		return fmt.Errorf("%w: %d volume element sets, at most 256", mesh.ErrMesh, len(m.Volumes))
	}
	for i := range m.Volumes {
		s := &m.Volumes[i]
		ref := ReferenceElement(s.Type)
		if ref == nil || s.Type.Dim() != 3 {
			return fmt.Errorf("%w: volume set %d: no volume element of type %v", mesh.ErrMesh, i, s.Type)
		}
		n := s.Type.Nodes()
		if len(s.Nodes) != s.Len()*n || (len(s.Tag) != 0 && len(s.Tag) != s.Len()) {
			return fmt.Errorf("%w: volume set %d (%v): %d node indices, %d tags for %d elements", mesh.ErrMesh, i, s.Type, len(s.Nodes), len(s.Tag), s.Len())
		}
		_, grad := ref.Tabulate(ref.Stiffness)
		el.sets = append(el.sets, volSet{els: s, ref: ref, n: n, nq: ref.Stiffness.Len(), grad: grad, first: total, nodeOff: nodeOff})
		total += s.Len()
		nodeOff += int64(s.Len() * n)
		if total > math.MaxInt32 {
			return fmt.Errorf("%w: more than %d volume elements", mesh.ErrMesh, math.MaxInt32)
		}
	}
	if total == 0 {
		return fmt.Errorf("%w: no volume elements", mesh.ErrMesh)
	}
	el.elemSet = make([]uint8, total)
	el.qptr = make([]int64, total+1)
	for si, s := range el.sets {
		for e := s.first; e < s.first+s.els.Len(); e++ {
			el.elemSet[e] = uint8(si)
			el.qptr[e+1] = el.qptr[e] + int64(s.nq)
		}
	}
	if err := el.checkNodes(); err != nil {
		return err
	}
	tol := opt.DetTol
	if tol <= 0 {
		tol = DefaultDetTol
	}
	if err := el.quadratureData(tol); err != nil {
		return err
	}
	el.incidence()
	el.buildPattern()
	return el.setFixed(opt.Fixed)
}

// elemNodes returns element e's node indices (aliasing the mesh).
func (el *Elasticity) elemNodes(e int) []int32 {
	s := &el.sets[el.elemSet[e]]
	i := e - s.first
	return s.els.Nodes[i*s.n : (i+1)*s.n]
}

// describe names element e for messages: its tag, or its index when the mesh has no tags.
func (el *Elasticity) describe(e int) string {
	s := &el.sets[el.elemSet[e]]
	if i := e - s.first; len(s.els.Tag) > 0 {
		return fmt.Sprintf("element tag %d (%v)", s.els.Tag[i], s.els.Type)
	}
	return fmt.Sprintf("element %d (%v)", e, s.els.Type)
}

// checkNodes checks every element's node indices: in range, none repeated.
func (el *Elasticity) checkNodes() error {
	for e := range el.elemSet {
		nodes := el.elemNodes(e)
		for a, p := range nodes {
			if p < 0 || int(p) >= el.nodes {
				return fmt.Errorf("%w: %s: node index %d outside [0, %d)", mesh.ErrMesh, el.describe(e), p, el.nodes)
			}
			if slices.Contains(nodes[:a], p) {
				return fmt.Errorf("%w: %s: node %d appears twice", mesh.ErrMesh, el.describe(e), p)
			}
		}
	}
	for i := range el.m.Surfaces {
		s := &el.m.Surfaces[i]
		if ReferenceElement(s.Type) == nil || s.Type.Dim() != 2 || len(s.Nodes) != s.Len()*s.Type.Nodes() {
			return fmt.Errorf("%w: surface set %d: type %v with %d node indices for %d faces", mesh.ErrMesh, i, s.Type, len(s.Nodes), s.Len())
		}
		for k, p := range s.Nodes {
			if p < 0 || int(p) >= el.nodes {
				return fmt.Errorf("%w: surface set %d (%v), face %d: node index %d is not a mesh node", mesh.ErrMesh, i, s.Type, k/s.Type.Nodes(), p)
			}
		}
	}
	return nil
}

// qRecord is the number of float64 per quadrature point in qdata: J⁻¹ (9, row-major,
// J⁻¹[k][d] = ∂ξ_k/∂x_d at 3k+d), then w·detJ.
const qRecord = 10

// quadratureData computes J⁻¹ and w·detJ at every stiffness point of every element,
// rejecting the first element (lowest global index) with detJ ≤ tol·L³ somewhere.
func (el *Elasticity) quadratureData(tol float64) error {
	ne := len(el.elemSet)
	el.qdata = make([]float64, el.qptr[ne]*qRecord)
	var mu sync.Mutex
	bad, badErr := ne, error(nil)
	par.For(ne, el.workers, 1024, func(lo, hi int) {
		for e := lo; e < hi; e++ {
			if err := el.elementQuadrature(e, tol); err != nil {
				mu.Lock()
				if e < bad {
					bad, badErr = e, err
				}
				mu.Unlock()
				return
			}
		}
	})
	return badErr
}

func (el *Elasticity) elementQuadrature(e int, tol float64) error {
	s := &el.sets[el.elemSet[e]]
	nodes := el.elemNodes(e)
	x := el.m.Coords
	var lo, hi [3]float64
	for d := 0; d < 3; d++ {
		lo[d], hi[d] = math.Inf(1), math.Inf(-1)
	}
	for _, p := range nodes {
		for d := 0; d < 3; d++ {
			lo[d] = min(lo[d], x[3*p+int32(d)])
			hi[d] = max(hi[d], x[3*p+int32(d)])
		}
	}
	L := math.Hypot(math.Hypot(hi[0]-lo[0], hi[1]-lo[1]), hi[2]-lo[2])
	limit := tol * L * L * L
	for q := 0; q < s.nq; q++ {
		var J [3][3]float64 // J[i][k] = ∂x_i/∂ξ_k
		for b, p := range nodes {
			g := s.grad[(q*s.n+b)*3:]
			for i := 0; i < 3; i++ {
				xi := x[3*int(p)+i]
				for k := 0; k < 3; k++ {
					J[i][k] += xi * g[k]
				}
			}
		}
		inv, det := inverse3(&J)
		if !(det > limit) {
			return fmt.Errorf("%w: %s: Jacobian determinant %.6g at quadrature point %d (≤ %.3g): inverted or degenerate",
				mesh.ErrMesh, el.describe(e), det, q, limit)
		}
		rec := el.qdata[(el.qptr[e]+int64(q))*qRecord:][:qRecord]
		copy(rec[:9], inv[:])
		rec[9] = s.ref.Stiffness.Weights[q] * det
	}
	return nil
}

// inverse3 returns the inverse of J, row-major, and its determinant.
func inverse3(J *[3][3]float64) (inv [9]float64, det float64) {
	c00 := J[1][1]*J[2][2] - J[1][2]*J[2][1]
	c01 := J[1][2]*J[2][0] - J[1][0]*J[2][2]
	c02 := J[1][0]*J[2][1] - J[1][1]*J[2][0]
	det = J[0][0]*c00 + J[0][1]*c01 + J[0][2]*c02
	if det == 0 {
		return inv, 0
	}
	r := 1 / det
	inv[0] = c00 * r
	inv[1] = (J[0][2]*J[2][1] - J[0][1]*J[2][2]) * r
	inv[2] = (J[0][1]*J[1][2] - J[0][2]*J[1][1]) * r
	inv[3] = c01 * r
	inv[4] = (J[0][0]*J[2][2] - J[0][2]*J[2][0]) * r
	inv[5] = (J[0][2]*J[1][0] - J[0][0]*J[1][2]) * r
	inv[6] = c02 * r
	inv[7] = (J[0][1]*J[2][0] - J[0][0]*J[2][1]) * r
	inv[8] = (J[0][0]*J[1][1] - J[0][1]*J[1][0]) * r
	return inv, det
}

// incidence builds the node→(element, local node) lists in ascending element order and
// the per-row work prefix.
func (el *Elasticity) incidence() {
	el.incPtr = make([]int64, el.nodes+1)
	for e := range el.elemSet {
		for _, p := range el.elemNodes(e) {
			el.incPtr[p+1]++
		}
	}
	for a := 0; a < el.nodes; a++ {
		el.incPtr[a+1] += el.incPtr[a]
	}
	inc := el.incPtr[el.nodes]
	el.incElem = make([]int32, inc)
	el.incLocal = make([]uint8, inc)
	next := slices.Clone(el.incPtr[:el.nodes])
	for e := range el.elemSet {
		for la, p := range el.elemNodes(e) {
			k := next[p]
			next[p]++
			el.incElem[k] = int32(e)
			el.incLocal[k] = uint8(la)
		}
	}
	el.slotPtr = make([]int64, inc+1)
	el.rowWork = make([]int64, el.nodes+1)
	for a := 0; a < el.nodes; a++ {
		w := int64(0)
		for k := el.incPtr[a]; k < el.incPtr[a+1]; k++ {
			s := &el.sets[el.elemSet[el.incElem[k]]]
			el.slotPtr[k+1] = el.slotPtr[k] + int64(s.n)
			w += int64(s.n * s.nq)
		}
		el.rowWork[a+1] = el.rowWork[a] + w
	}
}

// buildPattern builds the block pattern (the nodes that share a volume element with
// each node, itself included, sorted) and the element→slot map.
func (el *Elasticity) buildPattern() {
	rowPtr := make([]int64, el.nodes+1)
	// Pass 1: the length of each row (distinct neighbours, by a marker per worker).
	par.For(el.nodes, el.workers, 512, func(lo, hi int) {
		mark := make([]int32, el.nodes)
		for i := range mark {
			mark[i] = -1
		}
		for a := lo; a < hi; a++ {
			cnt := int64(0)
			for k := el.incPtr[a]; k < el.incPtr[a+1]; k++ {
				for _, p := range el.elemNodes(int(el.incElem[k])) {
					if mark[p] != int32(a) {
						mark[p] = int32(a)
						cnt++
					}
				}
			}
			rowPtr[a+1] = cnt
		}
	})
	for a := 0; a < el.nodes; a++ {
		rowPtr[a+1] += rowPtr[a]
	}
	colIdx := make([]int32, rowPtr[el.nodes])
	el.slot = make([]int32, el.slotPtr[len(el.slotPtr)-1])
	el.diagSlot = make([]int64, el.nodes)
	// Pass 2: the sorted columns, then each incidence's slots through the position of
	// every column in the row (pos, per worker).
	par.For(el.nodes, el.workers, 512, func(lo, hi int) {
		pos := make([]int32, el.nodes)
		for i := range pos {
			pos[i] = -1
		}
		for a := lo; a < hi; a++ {
			row := colIdx[rowPtr[a]:rowPtr[a+1]]
			c := 0
			for k := el.incPtr[a]; k < el.incPtr[a+1]; k++ {
				for _, p := range el.elemNodes(int(el.incElem[k])) {
					if pos[p] != -2 {
						pos[p] = -2
						row[c] = p
						c++
					}
				}
			}
			slices.Sort(row)
			for i, p := range row {
				pos[p] = int32(i)
			}
			el.diagSlot[a] = rowPtr[a] + int64(pos[a])
			for k := el.incPtr[a]; k < el.incPtr[a+1]; k++ {
				sl := el.slot[el.slotPtr[k]:el.slotPtr[k+1]]
				for b, p := range el.elemNodes(int(el.incElem[k])) {
					sl[b] = pos[p]
				}
			}
			for _, p := range row {
				pos[p] = -1
			}
		}
	})
	el.pattern = &bsr.Matrix{BlockRows: el.nodes, BlockCols: el.nodes, R: 3, C: 3, RowPtr: rowPtr, ColIdx: colIdx}
}

// setFixed records the Dirichlet mask and the blocks whose couplings the elimination
// removes from free rows: those RHS needs to move prescribed values to the right.
func (el *Elasticity) setFixed(fixed []uint8) error {
	if fixed == nil {
		return nil
	}
	if len(fixed) != el.nodes {
		return fmt.Errorf("%w: Dirichlet mask of %d nodes for a mesh of %d", ErrLoad, len(fixed), el.nodes)
	}
	some := false
	for a, f := range fixed {
		if f > 7 {
			return fmt.Errorf("%w: node %d: fixed-component mask %d above 7", ErrLoad, a, f)
		}
		some = some || f != 0
	}
	if !some {
		return nil
	}
	el.fixed = slices.Clone(fixed)
	el.elimPtr = make([]int64, el.nodes+1)
	rp, ci := el.pattern.RowPtr, el.pattern.ColIdx
	for a := 0; a < el.nodes; a++ {
		if el.fixed[a] != 7 {
			for k := rp[a]; k < rp[a+1]; k++ {
				if el.fixed[ci[k]] != 0 {
					el.elimSlot = append(el.elimSlot, k)
				}
			}
		}
		el.elimPtr[a+1] = int64(len(el.elimSlot))
	}
	el.saved = make([]float64, 9*len(el.elimSlot))
	return nil
}

// Mesh returns the mesh the symbolic phase was built from.
func (el *Elasticity) Mesh() *mesh.Mesh { return el.m }

// Nodes is the number of nodes (block rows).
func (el *Elasticity) Nodes() int { return el.nodes }

// Elements is the number of volume elements.
func (el *Elasticity) Elements() int { return len(el.elemSet) }

// Fixed returns the Dirichlet mask (nil when nothing is fixed), shared: do not change it.
func (el *Elasticity) Fixed() []uint8 { return el.fixed }

// NewMatrix returns a matrix with the assembly's pattern (RowPtr and ColIdx shared,
// read-only) and fresh zero values, for Numeric to fill.
func (el *Elasticity) NewMatrix() *bsr.Matrix {
	A := *el.pattern
	A.Val = make([]float64, el.pattern.NNZBlocks()*9)
	return &A
}

// ElementNodes returns the node indices of global element e (aliasing the mesh).
func (el *Elasticity) ElementNodes(e int) []int32 { return el.elemNodes(e) }

// ElementType returns the type of global element e.
func (el *Elasticity) ElementType(e int) mesh.Type { return el.sets[el.elemSet[e]].els.Type }

// ElementGroup returns the physical group of global element e (0 for none).
func (el *Elasticity) ElementGroup(e int) int32 {
	s := &el.sets[el.elemSet[e]]
	return s.els.Group[e-s.first]
}

// NearNullSpace returns the six rigid-body modes of the mesh's nodes, orthonormalised
// (RigidBodyModes), as the (3·Nodes)×6 row-major array smoothed aggregation takes.
//
// The rows of fixed components are kept, not zeroed: measured with blockamg's
// defaults (CG to 1e-8) on tet4 and tet10 beams clamped at one end, a fully fixed
// node has no couplings left, joins no aggregate and its rows of B are never read
// (the same residual to the bit), and with rollers (one component fixed per node)
// zeroing changed the residual in the third digit and no iteration count (tet4
// 56355 unknowns: 13 both ways, tet10: 28). Keeping them keeps B independent of
// the boundary conditions and orthonormal (TestNearNullSpaceFixedRows).
func (el *Elasticity) NearNullSpace() ([]float64, error) {
	B, _, err := RigidBodyModes(el.m.Coords, 3, true)
	return B, err
}
