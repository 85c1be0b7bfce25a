package fem

import (
	"fmt"
	"math"
)

// Problem describes an ex56-style elasticity problem on the unit cube. The zero value
// is not usable; start from Ex56 and change fields.
type Problem struct {
	Ne    int     // elements along each side of the cube (≥ 1)
	E     float64 // Young's modulus of the hard material (ex56: 1)
	Nu    float64 // Poisson ratio, in (−1, 0.5) (ex56: 0.25)
	Alpha float64 // modulus factor inside the soft sphere (ex56 default and tests: 1e-3)
}

// Ex56 returns the problem PETSc's ex56 solves with -ne ne and its default -alpha 1e-3:
// E = 1, ν = 0.25, α = 1e-3.
func Ex56(ne int) Problem {
	return Problem{Ne: ne, E: 1, Nu: 0.25, Alpha: 1e-3}
}

// MaxNe is the largest element count per side: (MaxNe+1)³ nodes keep every block
// column index inside int32.
const MaxNe = 1289

// Sphere of soft material: element centres closer than SphereRadius to the centre of
// the cube get modulus E·Alpha.
const SphereRadius = 0.25

// Box is a structured ne×ne×ne mesh of Q1 hexahedra on the unit cube with the material,
// load and boundary condition of a Problem. It is immutable and safe for concurrent
// use. See the package documentation for the numbering.
type Box struct {
	p  Problem
	ne int     // elements per side
	nn int     // nodes per side, ne+1
	h  float64 // mesh size 1/ne

	kref []float64        // unit-E reference element matrix, 24×24 row-major
	kb   [8][8][9]float64 // kref as 3×3 blocks: kb[a][b] couples local nodes a and b
}

// NewBox validates p and returns its mesh, with the reference element matrix computed.
func NewBox(p Problem) (*Box, error) {
	if p.Ne < 1 || p.Ne > MaxNe {
		return nil, fmt.Errorf("fem: %d elements per side outside [1, %d]", p.Ne, MaxNe)
	}
	if !(p.E > 0) || math.IsInf(p.E, 0) {
		return nil, fmt.Errorf("fem: Young's modulus %v is not positive and finite", p.E)
	}
	if !(p.Alpha > 0) || math.IsInf(p.Alpha, 0) {
		return nil, fmt.Errorf("fem: soft-sphere factor %v is not positive and finite", p.Alpha)
	}
	kref, err := ReferenceStiffness(p.Nu)
	if err != nil {
		return nil, err
	}
	b := &Box{p: p, ne: p.Ne, nn: p.Ne + 1, h: 1 / float64(p.Ne), kref: kref}
	for a := 0; a < 8; a++ {
		for c := 0; c < 8; c++ {
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					b.kb[a][c][3*i+j] = kref[(3*a+i)*24+3*c+j]
				}
			}
		}
	}
	return b, nil
}

// Problem returns the problem the box was built for.
func (b *Box) Problem() Problem { return b.p }

// Nodes returns the number of nodes, (ne+1)³.
func (b *Box) Nodes() int { return b.nn * b.nn * b.nn }

// Unknowns returns the number of unknowns, 3·Nodes().
func (b *Box) Unknowns() int { return 3 * b.Nodes() }

// Elements returns the number of elements, ne³.
func (b *Box) Elements() int { return b.ne * b.ne * b.ne }

// Node returns the index of the node at grid position (i, j, k): i + nn·j + nn²·k.
func (b *Box) Node(i, j, k int) int { return i + b.nn*(j+b.nn*k) }

// Element returns the index of the element whose lowest corner is node (i, j, k):
// i + ne·j + ne²·k.
func (b *Box) Element(i, j, k int) int { return i + b.ne*(j+b.ne*k) }

// ElementNodes writes the eight nodes of element e in local order.
func (b *Box) ElementNodes(e int, nodes *[8]int) {
	i, j, k := e%b.ne, (e/b.ne)%b.ne, e/(b.ne*b.ne)
	for a, o := range localNode {
		nodes[a] = b.Node(i+o[0], j+o[1], k+o[2])
	}
}

// Dirichlet reports whether node n lies on the clamped face z = 0.
func (b *Box) Dirichlet(n int) bool { return n < b.nn*b.nn }

// ReferenceStiffness returns a copy of the box's 24×24 element matrix for unit modulus;
// element e contributes modulus[e] times it.
func (b *Box) ReferenceStiffness() []float64 { return append([]float64(nil), b.kref...) }

// Coords returns the node coordinates, Nodes()×3 row-major in matrix node order:
// node i + nn·j + nn²·k sits at (h·i, h·j, h·k) with h = 1/ne. (ex56 itself hands PETSc
// these coordinates in k-fastest order, x and z swapped against its matrix; these are
// the correct ones.)
func (b *Box) Coords() []float64 {
	x := make([]float64, 3*b.Nodes())
	n := 0
	for k := 0; k < b.nn; k++ {
		for j := 0; j < b.nn; j++ {
			for i := 0; i < b.nn; i++ {
				x[3*n] = b.h * float64(i)
				x[3*n+1] = b.h * float64(j)
				x[3*n+2] = b.h * float64(k)
				n++
			}
		}
	}
	return x
}

// soft reports whether element (i, j, k) lies in the soft sphere: the distance of its
// centre from the cube's centre is below SphereRadius. The expression is ex56's, term
// for term, so that elements at the rim fall on the same side; the explicit float64
// conversions forbid fused multiply-adds, which would round differently.
func (b *Box) soft(i, j, k int) bool {
	h := b.h
	dx := h*float64(i) - .5 + h/2
	dy := h*float64(j) - .5 + h/2
	dz := h*float64(k) - .5 + h/2
	r := math.Sqrt(float64(dx*dx) + float64(dy*dy) + float64(dz*dz))
	return r < SphereRadius
}

// ElementModulus returns the Young's modulus of every element (element order as
// Element): E·Alpha inside the soft sphere, E elsewhere.
func (b *Box) ElementModulus() []float64 {
	m := make([]float64, b.Elements())
	b.fillModulus(m)
	return m
}

func (b *Box) fillModulus(m []float64) {
	soft := b.p.E * b.p.Alpha
	e := 0
	for k := 0; k < b.ne; k++ {
		for j := 0; j < b.ne; j++ {
			for i := 0; i < b.ne; i++ {
				if b.soft(i, j, k) {
					m[e] = soft
				} else {
					m[e] = b.p.E
				}
				e++
			}
		}
	}
}

// RHS returns ex56's right-hand side: every element adds (h², 2h², 0) to each of its
// nodes (a nodal load in x + 2y, "not a true uniform load" in ex56's words), and clamped
// nodes get zero. Node order and interleaving are the matrix's.
func (b *Box) RHS() []float64 {
	rhs := make([]float64, b.Unknowns())
	h2 := b.h * b.h
	// Every addend of a component is the same number, so any summation order gives
	// bitwise the values ex56 assembles.
	var nodes [8]int
	for e := 0; e < b.Elements(); e++ {
		b.ElementNodes(e, &nodes)
		for _, n := range nodes {
			if b.Dirichlet(n) {
				continue
			}
			rhs[3*n] += h2
			rhs[3*n+1] += 2 * h2
		}
	}
	return rhs
}
