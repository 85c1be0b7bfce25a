package fem_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
)

// testRule is the dense reference's own quadrature, chosen apart from the package's:
// on tetrahedra the ten-point rule with weights −1/120 at the vertices and 1/30 at the
// edge midpoints (exact for degree 2, enough for straight tet4 and tet10 stiffness),
// on hexahedra 2×2×2 Gauss points (the package's full integration, which is not exact
// on a distorted hex, so the reference must use the same points). Load rules: a
// 4×4×4 conical product on tetrahedra (degree 5) and 3×3×3 Gauss on hexahedra.
func testRule(typ mesh.Type, load bool) (pts [][3]float64, w []float64) {
	gl := func(n int) ([]float64, []float64) {
		switch n {
		case 2:
			return []float64{-1 / math.Sqrt(3), 1 / math.Sqrt(3)}, []float64{1, 1}
		case 3:
			return []float64{-math.Sqrt(0.6), 0, math.Sqrt(0.6)}, []float64{5.0 / 9, 8.0 / 9, 5.0 / 9}
		case 4:
			a, b := math.Sqrt(3.0/7-2.0/7*math.Sqrt(1.2)), math.Sqrt(3.0/7+2.0/7*math.Sqrt(1.2))
			wa, wb := (18+math.Sqrt(30))/36, (18-math.Sqrt(30))/36
			return []float64{-b, -a, a, b}, []float64{wb, wa, wa, wb}
		}
		panic("n")
	}
	if typ == mesh.Hex8 {
		n := 2
		if load {
			n = 3
		}
		x, wx := gl(n)
		for _, a := range x {
			for j, b := range x {
				for k, c := range x {
					pts = append(pts, [3]float64{a, b, c})
					w = append(w, wx[j]*wx[k])
				}
			}
		}
		// Weights in the loops' order: wx of the first coordinate too.
		for i := range w {
			w[i] *= wx[i/(len(x)*len(x))]
		}
		return pts, w
	}
	if load {
		x, wx := gl(4)
		for i, a := range x {
			for j, b := range x {
				for k, c := range x {
					u, v, s := (1+a)/2, (1+b)/2, (1+c)/2
					pts = append(pts, [3]float64{u, (1 - u) * v, (1 - u) * (1 - v) * s})
					w = append(w, wx[i]*wx[j]*wx[k]/8*(1-u)*(1-u)*(1-v))
				}
			}
		}
		return pts, w
	}
	v := [][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for _, p := range v {
		pts = append(pts, p)
		w = append(w, -1.0/120)
	}
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			var p [3]float64
			for d := range p {
				p[d] = (v[i][d] + v[j][d]) / 2
			}
			pts = append(pts, p)
			w = append(w, 1.0/30)
		}
	}
	return pts, w
}

// physicalGrads maps the reference gradients at xi of element nodes (coordinates X)
// to physical ones through gonum's inverse of the Jacobian, and returns detJ.
func physicalGrads(ref *fem.RefElement, X [][3]float64, xi [3]float64) (N []float64, G [][3]float64, x [3]float64, det float64) {
	n := len(X)
	N = make([]float64, n)
	dN := make([][3]float64, n)
	ref.Shape(xi, N, dN)
	J := mat.NewDense(3, 3, nil)
	for a := 0; a < n; a++ {
		for i := 0; i < 3; i++ {
			x[i] += N[a] * X[a][i]
			for k := 0; k < 3; k++ {
				J.Set(i, k, J.At(i, k)+X[a][i]*dN[a][k])
			}
		}
	}
	det = mat.Det(J)
	var Ji mat.Dense
	if err := Ji.Inverse(J); err != nil {
		panic(err)
	}
	G = make([][3]float64, n)
	for a := 0; a < n; a++ {
		for d := 0; d < 3; d++ {
			for k := 0; k < 3; k++ {
				G[a][d] += dN[a][k] * Ji.At(k, d)
			}
		}
	}
	return N, G, x, det
}

// denseAssembly is the textbook reference: every element matrix BᵀDB (Voigt strains
// xx, yy, zz, yz, zx, xy with engineering shears, the full 6×6 isotropic D) and load
// vector ∫ N f, scattered element by element into a dense K (3n×3n) and F.
func denseAssembly(m *mesh.Mesh, E, nu []float64, f fem.VectorField) (K, F []float64) {
	nn := 3 * m.Nodes()
	K = make([]float64, nn*nn)
	F = make([]float64, nn)
	e := 0
	for _, s := range m.Volumes {
		ref := fem.ReferenceElement(s.Type)
		n := s.Type.Nodes()
		for i := 0; i < s.Len(); i, e = i+1, e+1 {
			nodes := s.Nodes[i*n : (i+1)*n]
			X := make([][3]float64, n)
			for a, p := range nodes {
				X[a] = [3]float64(m.Coords[3*p : 3*p+3])
			}
			mu := E[e] / (2 * (1 + nu[e]))
			lam := E[e] * nu[e] / ((1 + nu[e]) * (1 - 2*nu[e]))
			D := mat.NewDense(6, 6, nil)
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					D.Set(r, c, lam)
				}
				D.Set(r, r, lam+2*mu)
				D.Set(3+r, 3+r, mu)
			}
			Ke := mat.NewDense(3*n, 3*n, nil)
			pts, w := testRule(s.Type, false)
			for q, xi := range pts {
				_, G, _, det := physicalGrads(ref, X, xi)
				B := mat.NewDense(6, 3*n, nil)
				for a := 0; a < n; a++ {
					gx, gy, gz := G[a][0], G[a][1], G[a][2]
					B.Set(0, 3*a, gx)
					B.Set(1, 3*a+1, gy)
					B.Set(2, 3*a+2, gz)
					B.Set(3, 3*a+1, gz)
					B.Set(3, 3*a+2, gy)
					B.Set(4, 3*a, gz)
					B.Set(4, 3*a+2, gx)
					B.Set(5, 3*a, gy)
					B.Set(5, 3*a+1, gx)
				}
				var DB, BDB mat.Dense
				DB.Mul(D, B)
				BDB.Mul(B.T(), &DB)
				BDB.Scale(w[q]*det, &BDB)
				Ke.Add(Ke, &BDB)
			}
			for a, p := range nodes {
				for b, r := range nodes {
					for i := 0; i < 3; i++ {
						for j := 0; j < 3; j++ {
							K[(3*int(p)+i)*nn+3*int(r)+j] += Ke.At(3*a+i, 3*b+j)
						}
					}
				}
			}
			if f == nil {
				continue
			}
			pts, w = testRule(s.Type, true)
			for q, xi := range pts {
				N, _, x, det := physicalGrads(ref, X, xi)
				fx := f(x)
				for a, p := range nodes {
					for c := 0; c < 3; c++ {
						F[3*int(p)+c] += w[q] * det * N[a] * fx[c]
					}
				}
			}
		}
	}
	return K, F
}

// eliminateDense applies the symmetric elimination to dense K and F: for fixed dof
// i, F_free −= K_free,i·g_i, then row and column i are zeroed except K_ii, and F_i =
// K_ii·g_i.
func eliminateDense(K, F []float64, fixed []uint8, g []float64) {
	nn := len(F)
	isFixed := func(i int) bool { return fixed[i/3]>>(i%3)&1 != 0 }
	for i := 0; i < nn; i++ {
		if isFixed(i) {
			continue
		}
		for j := 0; j < nn; j++ {
			if isFixed(j) {
				F[i] -= K[i*nn+j] * g[j]
			}
		}
	}
	for i := 0; i < nn; i++ {
		if !isFixed(i) {
			continue
		}
		F[i] = K[i*nn+i] * g[i]
		for j := 0; j < nn; j++ {
			if j != i {
				K[i*nn+j], K[j*nn+i] = 0, 0
			}
		}
	}
}

func maxAbs(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s = max(s, math.Abs(x))
	}
	return s
}

// linearForce is a body force linear in x: what the package's and the reference's
// load rules both integrate exactly.
func linearForce(x [3]float64) [3]float64 {
	return [3]float64{1 + 0.5*x[0] - x[2], -2 + x[1] + 0.25*x[0], 0.5 + 2*x[2] - x[1]}
}

func smoothField(x [3]float64) [3]float64 {
	return [3]float64{math.Sin(x[0] + 2*x[1]), math.Cos(x[2] - x[0]), x[0] * x[1] * x[2]}
}

// mixedMask fixes side xmin in all components, ymin in y only and zmax in x and z:
// nodes with partial masks, and nodes on edges with masks combined.
func mixedMask(t testing.TB, m *mesh.Mesh) []uint8 {
	fixed := make([]uint8, m.Nodes())
	for _, c := range []struct {
		side  string
		comps uint8
	}{{"xmin", 7}, {"ymin", 2}, {"zmax", 5}} {
		if err := fem.FixGroup(m, fixed, c.side, c.comps); err != nil {
			t.Fatal(err)
		}
	}
	return fixed
}

// TestAssemblyMatchesDense compares Numeric and RHS with the dense element-by-element
// reference on small distorted meshes of each volume type, with two materials, a
// linear body force and a mixed Dirichlet mask with prescribed values.
func TestAssemblyMatchesDense(t *testing.T) {
	for _, c := range []struct {
		name string
		m    *mesh.Mesh
	}{
		{"tet4", boxMesh(t, mesh.Tet4, 3, 2, 2, 0.25, 7)},
		{"tet10", boxMesh(t, mesh.Tet10, 2, 2, 1, 0.25, 7)},
		{"hex8", boxMesh(t, mesh.Hex8, 3, 3, 2, 0.25, 7)},
		{"tet10+hex8", mixedMesh(t)},
	} {
		m := c.m
		fixed := mixedMask(t, m)
		g := fem.Prescribe(m, fixed, smoothField)
		for _, withBC := range []bool{false, true} {
			opt := fem.ElasticityOptions{Workers: 2}
			if withBC {
				opt.Fixed = fixed
			}
			el := mustElasticity(t, m, opt)
			E, nu := materials(t, el)
			A := el.NewMatrix()
			if err := el.Numeric(A, E, nu, 2); err != nil {
				t.Fatal(err)
			}
			if err := A.Validate(); err != nil {
				t.Fatal(err)
			}
			b := make([]float64, A.Rows())
			if err := el.RHS(b, A, fem.Loads{Body: []fem.BodyForce{{Force: linearForce}}, Prescribed: g}); err != nil {
				t.Fatal(err)
			}
			K, F := denseAssembly(m, E, nu, linearForce)
			if withBC {
				eliminateDense(K, F, fixed, g)
			}
			got := A.ToDense()
			scale := maxAbs(K)
			for i := range K {
				if d := math.Abs(got[i] - K[i]); d > 1e-13*scale {
					nn := len(F)
					t.Fatalf("%v (Dirichlet %v): entry (%d,%d) = %.17g, dense %.17g", c.name, withBC, i/nn, i%nn, got[i], K[i])
				}
			}
			fs := maxAbs(F)
			for i := range F {
				if d := math.Abs(b[i] - F[i]); d > 1e-13*fs {
					t.Fatalf("%v (Dirichlet %v): b[%d] = %.17g, dense %.17g", c.name, withBC, i, b[i], F[i])
				}
			}
			// Every pattern block couples nodes of one element: the pattern is the
			// dense matrix's, explicit zeros aside.
			if !withBC {
				checkPatternIsAdjacency(t, m, A)
				continue
			}
			// Clamped on a side: the eliminated matrix is SPD (gonum's Cholesky).
			var ch mat.Cholesky
			if !ch.Factorize(mat.NewSymDense(len(F), got)) {
				t.Errorf("%v: eliminated matrix not positive definite", c.name)
			}
		}
	}
}

// checkPatternIsAdjacency checks that A stores exactly the blocks of node pairs that
// share a volume element.
func checkPatternIsAdjacency(t *testing.T, m *mesh.Mesh, A *bsr.Matrix) {
	t.Helper()
	share := map[[2]int32]bool{}
	for _, s := range m.Volumes {
		n := s.Type.Nodes()
		for e := 0; e < s.Len(); e++ {
			for _, p := range s.Nodes[e*n : (e+1)*n] {
				for _, q := range s.Nodes[e*n : (e+1)*n] {
					share[[2]int32{p, q}] = true
				}
			}
		}
	}
	if int(A.NNZBlocks()) != len(share) {
		t.Fatalf("%d blocks stored, %d node pairs share an element", A.NNZBlocks(), len(share))
	}
	for pq := range share {
		if _, ok := A.Find(int(pq[0]), int(pq[1])); !ok {
			t.Fatalf("block (%d,%d) missing", pq[0], pq[1])
		}
	}
}

// TestInvertedElement swaps two nodes of one tetrahedron and of one hexahedron: the
// error names the element's tag and type and wraps mesh.ErrMesh.
func TestInvertedElement(t *testing.T) {
	for _, typ := range []mesh.Type{mesh.Tet4, mesh.Tet10, mesh.Hex8} {
		m := boxMesh(t, typ, 2, 2, 2, 0.1, 3)
		s := &m.Volumes[0]
		n := typ.Nodes()
		bad := 5
		nodes := s.Nodes[bad*n : (bad+1)*n]
		nodes[1], nodes[2] = nodes[2], nodes[1]
		if typ == mesh.Tet10 { // keep the edge nodes on their edges: 0-1 ↔ 0-2, 1-3 ↔ 2-3
			nodes[4], nodes[6] = nodes[6], nodes[4]
			nodes[8], nodes[9] = nodes[9], nodes[8]
		}
		if typ == mesh.Hex8 { // mirror the hex: swap its two faces ζ = ±1
			copy(nodes, append(append([]int32(nil), nodes[4:]...), nodes[:4]...))
		}
		_, err := fem.NewElasticity(m, fem.ElasticityOptions{})
		if err == nil {
			t.Fatalf("%v: inverted element accepted", typ)
		}
		if !errors.Is(err, mesh.ErrMesh) {
			t.Errorf("%v: %v does not wrap mesh.ErrMesh", typ, err)
		}
		for _, want := range []string{"tag 105", typ.String(), "determinant -"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%v: error %q does not say %q", typ, err, want)
			}
		}
		// A flat element: all nodes of element 5 moved onto one plane.
		m = boxMesh(t, typ, 2, 2, 2, 0, 3)
		s = &m.Volumes[0]
		for _, p := range s.Nodes[bad*n : (bad+1)*n] {
			m.Coords[3*p+2] = 0.5
		}
		if _, err := fem.NewElasticity(m, fem.ElasticityOptions{}); !errors.Is(err, mesh.ErrMesh) || !strings.Contains(err.Error(), "tag 1") {
			t.Errorf("%v: flattened elements: %v", typ, err)
		}
	}
}
