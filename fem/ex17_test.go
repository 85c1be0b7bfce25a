package fem_test

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
)

// ex17Ref is where bench/petsc/ex17/run.sh's outputs for three small Gmsh meshes are
// kept (SOL=elas_quad: u = (x², y²−2xy, z²−2yz), μ = λ = 1, u prescribed on the whole
// boundary, the surface group "marker").
const ex17Ref = "../bench/petsc/ex17/ref/"

// ex17Nodes reads ex17's nodal solution: coordinates and u per node.
func ex17Nodes(t *testing.T, path string) (x, u [][3]float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 13 {
			t.Fatalf("%s: %q: want 13 fields", path, line)
		}
		var v [6]float64
		for i := range v {
			if v[i], err = strconv.ParseFloat(fs[4+i], 64); err != nil {
				t.Fatal(err)
			}
		}
		x = append(x, [3]float64{v[0], v[1], v[2]})
		u = append(u, [3]float64{v[3], v[4], v[5]})
	}
	return x, u
}

// TestAgainstPETScEx17 assembles ex17's elas_quad problem on the Gmsh meshes ex17
// solved (P1 on tetrahedra, P2 on straight-sided 10-node tetrahedra, Q1 on
// hexahedra), solves it densely, and compares the displacement at every node ex17
// reports, matched by coordinates: the two assemblers share nothing, and their
// solutions agree to the solvers' tolerance (ex17 used CG to 1e-12).
func TestAgainstPETScEx17(t *testing.T) {
	exact := func(x [3]float64) [3]float64 {
		return [3]float64{x[0] * x[0], x[1]*x[1] - 2*x[0]*x[1], x[2]*x[2] - 2*x[1]*x[2]}
	}
	for _, c := range []struct{ mesh, nodal string }{
		{"cube-h0.25-tet4.msh", "cube-h0.25-tet4-P1-elas_quad-nodal.txt"},
		{"cube-h0.5-tet10lin.msh", "cube-h0.5-tet10lin-P2-elas_quad-nodal.txt"},
		{"hexbox-h0.25-hex8.msh", "hexbox-h0.25-hex8-Q1-elas_quad-nodal.txt"},
	} {
		m, _, err := mesh.ReadFile(ex17Ref + c.mesh)
		if err != nil {
			t.Fatal(err)
		}
		fixed := make([]uint8, m.Nodes())
		if err := fem.FixGroup(m, fixed, "marker", 7); err != nil {
			t.Fatal(err)
		}
		el, err := fem.NewElasticity(m, fem.ElasticityOptions{Fixed: fixed})
		if err != nil {
			t.Fatal(err)
		}
		E, nu, err := el.Materials(fem.Material{E: 2.5, Nu: 0.25}) // μ = λ = 1
		if err != nil {
			t.Fatal(err)
		}
		A := el.NewMatrix()
		if err := el.Numeric(A, E, nu, 1); err != nil {
			t.Fatal(err)
		}
		n := A.Rows()
		b := make([]float64, n)
		loads := fem.Loads{
			Body:       []fem.BodyForce{{Force: fem.Uniform([3]float64{-2, -2, -6})}},
			Prescribed: fem.Prescribe(m, fixed, exact),
		}
		if err := el.RHS(b, A, loads); err != nil {
			t.Fatal(err)
		}
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(n, A.ToDense())) {
			t.Fatalf("%s: not SPD", c.mesh)
		}
		var u mat.VecDense
		if err := ch.SolveVecTo(&u, mat.NewVecDense(n, b)); err != nil {
			t.Fatal(err)
		}
		ours := u.RawVector().Data
		// Nodes by coordinates, rounded to 1e-9 (the meshes' coordinates are exact
		// to far better than that in both codes).
		key := func(x [3]float64) [3]int64 {
			return [3]int64{int64(math.Round(x[0] * 1e9)), int64(math.Round(x[1] * 1e9)), int64(math.Round(x[2] * 1e9))}
		}
		at := map[[3]int64]int{}
		for a := 0; a < m.Nodes(); a++ {
			at[key([3]float64(m.Coords[3*a:3*a+3]))] = a
		}
		xs, us := ex17Nodes(t, ex17Ref+c.nodal)
		if len(xs) != m.Nodes() {
			t.Errorf("%s: ex17 reports %d nodes, the mesh has %d", c.mesh, len(xs), m.Nodes())
		}
		maxDiff, maxU := 0.0, 0.0
		for i, x := range xs {
			a, ok := at[key(x)]
			if !ok {
				t.Fatalf("%s: ex17's node at %v is not a mesh node", c.mesh, x)
			}
			for d := 0; d < 3; d++ {
				maxDiff = max(maxDiff, math.Abs(ours[3*a+d]-us[i][d]))
				maxU = max(maxU, math.Abs(us[i][d]))
			}
		}
		if !(maxDiff <= 1e-9*maxU) {
			t.Errorf("%s: max |u − u_ex17| = %.3g (max |u| %.3g)", c.mesh, maxDiff, maxU)
		}
		t.Logf("%s: %d nodes, max |u − u_ex17| = %.2g of max |u| %.2g", c.mesh, len(xs), maxDiff, maxU)
	}
}
