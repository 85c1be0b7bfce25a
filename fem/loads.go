package fem

import (
	"fmt"
	"math"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
	"github.com/blockamg/blockamg/mesh"
)

// VectorField is a vector function of position: a body force per unit volume, a
// traction per unit area, a prescribed displacement. RHS calls it from several
// goroutines at once, so it must be safe for concurrent use.
type VectorField func(x [3]float64) [3]float64

// Uniform returns the field that is v everywhere.
func Uniform(v [3]float64) VectorField { return func([3]float64) [3]float64 { return v } }

// BodyForce is a force per unit volume acting on a volume group.
type BodyForce struct {
	Group string      // the volume group's name, or its tag in decimal; "" for every volume element
	Force VectorField // force per unit volume at a point
}

// Traction is a force per unit area acting on the faces of a surface group.
type Traction struct {
	Group string      // the surface group's name, or its tag in decimal
	Force VectorField // force per unit area at a point of a face
}

// Loads is what RHS turns into a right-hand side.
type Loads struct {
	// Body forces: each adds ∫ N_a f dV over its group's elements. Several may act on
	// one element; they are summed in this order at each quadrature point.
	Body []BodyForce
	// Tractions: each adds ∫ N_a t dS over its group's faces (Tri3, Tri6, Quad4).
	Traction []Traction
	// Prescribed holds the values of the fixed components, 3 per node (the entries
	// of free components are ignored); nil means zero.
	Prescribed []float64
}

// FixGroup sets the bits comps (1: x, 2: y, 4: z) in fixed, one mask per node, for
// every node of the faces of surface group group (a name or a decimal tag). A group
// the mesh does not have (or ""), or comps above 7, is an error wrapping ErrLoad; a
// face node outside the mesh one wrapping mesh.ErrMesh.
func FixGroup(m *mesh.Mesh, fixed []uint8, group string, comps uint8) error {
	if len(fixed) != m.Nodes() {
		panic(fmt.Sprintf("fem: FixGroup: mask of %d nodes for a mesh of %d", len(fixed), m.Nodes()))
	}
	if comps > 7 {
		return fmt.Errorf("%w: component mask %d above 7", ErrLoad, comps)
	}
	g, ok := m.GroupByName(2, group)
	if !ok || group == "" {
		return fmt.Errorf("%w: no surface group %q", ErrLoad, group)
	}
	for i := range m.Surfaces {
		s := &m.Surfaces[i]
		n := s.Type.Nodes()
		for f, tag := range s.Group {
			if tag != g.Tag {
				continue
			}
			for _, p := range s.Nodes[f*n : (f+1)*n] {
				if p < 0 || int(p) >= len(fixed) {
					return fmt.Errorf("%w: surface group %q: node index %d is not a mesh node", mesh.ErrMesh, group, p)
				}
				fixed[p] |= comps
			}
		}
	}
	return nil
}

// Prescribe returns the prescribed values Loads.Prescribed takes: g at each node's
// coordinates in the components fixed marks, zero elsewhere.
func Prescribe(m *mesh.Mesh, fixed []uint8, g VectorField) []float64 {
	if len(fixed) != m.Nodes() {
		panic(fmt.Sprintf("fem: Prescribe: mask of %d nodes for a mesh of %d", len(fixed), m.Nodes()))
	}
	v := make([]float64, 3*len(fixed))
	for p, f := range fixed {
		if f == 0 {
			continue
		}
		u := g([3]float64(m.Coords[3*p : 3*p+3]))
		for c := 0; c < 3; c++ {
			if f>>c&1 != 0 {
				v[3*p+c] = u[c]
			}
		}
	}
	return v
}

// groupTag resolves a load's group; all is true for a body force's "" (every element).
func groupTag(m *mesh.Mesh, dim int, name string) (tag int32, all bool, err error) {
	if name == "" && dim == 3 {
		return 0, true, nil
	}
	if name == "" {
		return 0, false, fmt.Errorf("%w: a traction without a surface group", ErrLoad)
	}
	g, ok := m.GroupByName(dim, name)
	if !ok {
		kind := "surface"
		if dim == 3 {
			kind = "volume"
		}
		return 0, false, fmt.Errorf("%w: no %s group %q", ErrLoad, kind, name)
	}
	return g.Tag, false, nil
}

// RHS writes into b (3 per node) the right-hand side of loads for the matrix A of the
// latest Numeric: body forces, tractions, then the elimination's part. For a free
// component of node a, b −= Σ A_(a,i),(c,j)·g_(c,j) over the fixed components (c, j)
// coupled to it, with the couplings as assembled before the elimination (Numeric
// keeps them); a fixed component gets A's diagonal entry times its prescribed value,
// so that the solution takes that value. A may be nil when nothing is fixed or no
// value is prescribed (Loads.Prescribed nil: every fixed component is zero, and its
// entry of b is zero) — as for a matrix assembled on a device.
//
// b does not depend on the worker count: element load vectors are computed in
// parallel, then each node sums its elements' in ascending element order; faces add
// theirs in mesh order; the elimination runs by rows. A group the mesh does not have,
// or a non-finite result, is an error wrapping ErrLoad.
func (el *Elasticity) RHS(b []float64, A *bsr.Matrix, loads Loads) error {
	if len(b) != 3*el.nodes {
		panic(fmt.Sprintf("fem: RHS: len(b) = %d, want %d", len(b), 3*el.nodes))
	}
	g := loads.Prescribed
	if g != nil && len(g) != 3*el.nodes {
		panic(fmt.Sprintf("fem: RHS: %d prescribed values, want %d", len(g), 3*el.nodes))
	}
	if el.fixed != nil && g != nil && (A == nil || A != el.last) {
		panic("fem: RHS: A is not the matrix of the latest Numeric")
	}
	body := make([]bodyLoad, len(loads.Body))
	for i, f := range loads.Body {
		tag, all, err := groupTag(el.m, 3, f.Group)
		if err != nil {
			return err
		}
		body[i] = bodyLoad{tag, all, f.Force}
	}
	trac := make([]int32, len(loads.Traction))
	for i, t := range loads.Traction {
		tag, _, err := groupTag(el.m, 2, t.Group)
		if err != nil {
			return err
		}
		trac[i] = tag
	}
	clear(b)
	if len(body) > 0 {
		el.bodyLoads(b, body)
	}
	if len(trac) > 0 {
		el.tractions(b, trac, loads.Traction)
	}
	if el.fixed != nil {
		par.For(el.nodes, el.workers, 1024, func(lo, hi int) { el.dirichletRows(lo, hi, b, A, g) })
	}
	for i, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: right-hand side entry %d (node %d, component %d) is %v", ErrLoad, i, i/3, i%3, v)
		}
	}
	return nil
}

type bodyLoad struct {
	tag   int32
	all   bool
	force VectorField
}

// bodyLoads adds ∫ N_a f dV: element vectors in parallel into elemVec (element-major,
// 3 per element node), then a gather by nodes in ascending element order.
func (el *Elasticity) bodyLoads(b []float64, body []bodyLoad) {
	if el.elemVec == nil {
		el.elemVec = make([]float64, 3*el.incPtr[el.nodes])
	}
	ne := len(el.elemSet)
	par.For(ne, el.workers, 256, func(lo, hi int) {
		tabs := make([]loadTable, len(el.sets))
		for i := range el.sets {
			tabs[i] = newLoadTable(el.sets[i].ref)
		}
		for e := lo; e < hi; e++ {
			si := el.elemSet[e]
			s := &el.sets[si]
			off := s.nodeOff + int64((e-s.first)*s.n)
			el.elementLoad(e, &tabs[si], body, el.elemVec[3*off:3*(off+int64(s.n))])
		}
	})
	par.For(el.nodes, el.workers, 1024, func(lo, hi int) {
		for a := lo; a < hi; a++ {
			var f [3]float64
			for k := el.incPtr[a]; k < el.incPtr[a+1]; k++ {
				e := int(el.incElem[k])
				s := &el.sets[el.elemSet[e]]
				o := 3 * (s.nodeOff + int64((e-s.first)*s.n) + int64(el.incLocal[k]))
				f[0] += el.elemVec[o]
				f[1] += el.elemVec[o+1]
				f[2] += el.elemVec[o+2]
			}
			b[3*a], b[3*a+1], b[3*a+2] = f[0], f[1], f[2]
		}
	})
}

// loadTable is a reference element's shape functions and gradients at its load points.
type loadTable struct {
	ref   *RefElement
	n     int
	w     []float64
	N, dN []float64
}

func newLoadTable(ref *RefElement) loadTable {
	N, dN := ref.Tabulate(ref.Load)
	return loadTable{ref: ref, n: ref.Type.Nodes(), w: ref.Load.Weights, N: N, dN: dN}
}

// elementLoad writes element e's load vector (3 per node) into out.
func (el *Elasticity) elementLoad(e int, t *loadTable, body []bodyLoad, out []float64) {
	clear(out)
	grp := el.ElementGroup(e)
	acts := false
	for _, f := range body {
		acts = acts || f.all || f.tag == grp
	}
	if !acts {
		return
	}
	nodes := el.elemNodes(e)
	X := el.m.Coords
	for q, w := range t.w {
		var J [3][3]float64
		var x [3]float64
		for a, p := range nodes {
			na := t.N[q*t.n+a]
			dn := t.dN[(q*t.n+a)*3:]
			for i := 0; i < 3; i++ {
				xi := X[3*int(p)+i]
				x[i] += na * xi
				for k := 0; k < 3; k++ {
					J[i][k] += xi * dn[k]
				}
			}
		}
		_, det := inverse3(&J)
		var f [3]float64
		for _, bl := range body {
			if bl.all || bl.tag == grp {
				v := bl.force(x)
				f[0], f[1], f[2] = f[0]+v[0], f[1]+v[1], f[2]+v[2]
			}
		}
		wd := w * det
		for a := range nodes {
			c := wd * t.N[q*t.n+a]
			out[3*a] += c * f[0]
			out[3*a+1] += c * f[1]
			out[3*a+2] += c * f[2]
		}
	}
}

// tractions adds ∫ N_a t dS over the faces of each traction's group, face by face in
// mesh order (serially: the faces are few, and the order is then the mesh's).
func (el *Elasticity) tractions(b []float64, tags []int32, tr []Traction) {
	X := el.m.Coords
	var fe [maxNodes][3]float64
	for i := range el.m.Surfaces {
		s := &el.m.Surfaces[i]
		t := newLoadTable(ReferenceElement(s.Type))
		for face, grp := range s.Group {
			acts := false
			for _, tag := range tags {
				acts = acts || tag == grp
			}
			if !acts {
				continue
			}
			nodes := s.Nodes[face*t.n : (face+1)*t.n]
			fe = [maxNodes][3]float64{}
			for q, w := range t.w {
				var x, t1, t2 [3]float64
				for a, p := range nodes {
					na, dn := t.N[q*t.n+a], t.dN[(q*t.n+a)*3:]
					for d := 0; d < 3; d++ {
						xd := X[3*int(p)+d]
						x[d] += na * xd
						t1[d] += dn[0] * xd
						t2[d] += dn[1] * xd
					}
				}
				dS := math.Hypot(math.Hypot(t1[1]*t2[2]-t1[2]*t2[1], t1[2]*t2[0]-t1[0]*t2[2]), t1[0]*t2[1]-t1[1]*t2[0])
				var f [3]float64
				for k, tag := range tags {
					if tag == grp {
						v := tr[k].Force(x)
						f[0], f[1], f[2] = f[0]+v[0], f[1]+v[1], f[2]+v[2]
					}
				}
				wd := w * dS
				for a := range nodes {
					c := wd * t.N[q*t.n+a]
					for d := 0; d < 3; d++ {
						fe[a][d] += c * f[d]
					}
				}
			}
			for a, p := range nodes {
				for d := 0; d < 3; d++ {
					b[3*int(p)+d] += fe[a][d]
				}
			}
		}
	}
}

// dirichletRows applies the elimination to b's rows [lo, hi): free components lose
// the saved couplings times the prescribed values, in the order of the saved blocks
// (by column) and, inside a block, of the fixed columns; fixed components become
// diagonal × prescribed value.
func (el *Elasticity) dirichletRows(lo, hi int, b []float64, A *bsr.Matrix, g []float64) {
	ci := el.pattern.ColIdx
	for a := lo; a < hi; a++ {
		ma := el.fixed[a]
		if g != nil {
			for s := el.elimPtr[a]; s < el.elimPtr[a+1]; s++ {
				c := int(ci[el.elimSlot[s]])
				mc := el.fixed[c]
				blk := el.saved[9*s : 9*s+9]
				for i := 0; i < 3; i++ {
					if ma>>i&1 != 0 {
						continue
					}
					for j := 0; j < 3; j++ {
						if mc>>j&1 != 0 {
							b[3*a+i] -= float64(blk[3*i+j] * g[3*c+j])
						}
					}
				}
			}
		}
		if ma == 0 {
			continue
		}
		for i := 0; i < 3; i++ {
			if ma>>i&1 != 0 {
				v := 0.0
				if g != nil {
					v = A.Val[el.diagSlot[a]*9+int64(4*i)] * g[3*a+i]
				}
				b[3*a+i] = v
			}
		}
	}
}
