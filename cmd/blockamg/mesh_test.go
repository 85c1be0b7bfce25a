package main

import (
	"encoding/json"
	"math"

	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/matio"
	"github.com/blockamg/blockamg/mesh"
)

// meshData is mesh's test meshes: from the package folder (go test), or from the
// repository root (a test binary run there, as on the GPU machine).
var meshData = func() string {
	for _, d := range []string{"../../mesh/testdata/", "mesh/testdata/"} {
		if _, err := os.Stat(d + "two_tet4.msh"); err == nil {
			return d
		}
	}
	return "../../mesh/testdata/"
}()

// TestSolveMesh solves each test mesh clamped on "fixed" and pulled on "load"
// (file order, so the unknowns are the file's), and checks the solution against a
// dense Cholesky solve of the same system assembled here by fem directly; the VTU
// and PNG files are written.
func TestSolveMesh(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"cube_tet4", "cube_tet10", "hex8", "two_tet4.bin"} {
		path := meshData + name + ".msh"
		sol, vtuPath, pngPath := filepath.Join(dir, name+".mtx"), filepath.Join(dir, name+".vtu"), filepath.Join(dir, name+".png")
		code, out, stderr := runTimed(t, time.Minute, "solve", "-q", "--json", "--mesh", path, "--fix", "fixed", "--traction", "load:0,0.5,-1",
			"--material", "0.7,0.3", "--order", "file", "--rtol", "1e-12", "--solution", sol, "--vtu", vtuPath, "--png", pngPath)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		var rep solveReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		d, err := matio.ReadDense(sol)
		if err != nil {
			t.Fatal(err)
		}
		// The reference: fem's assembly of the same mesh, solved densely.
		m, _, err := mesh.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fixed := make([]uint8, m.Nodes())
		if err := fem.FixGroup(m, fixed, "fixed", 7); err != nil {
			t.Fatal(err)
		}
		el, err := fem.NewElasticity(m, fem.ElasticityOptions{Fixed: fixed})
		if err != nil {
			t.Fatal(err)
		}
		E, nu, err := el.Materials(fem.Material{E: 0.7, Nu: 0.3})
		if err != nil {
			t.Fatal(err)
		}
		A := el.NewMatrix()
		if err := el.Numeric(A, E, nu, 1); err != nil {
			t.Fatal(err)
		}
		n := A.Rows()
		b := make([]float64, n)
		if err := el.RHS(b, A, fem.Loads{Traction: []fem.Traction{{Group: "load", Force: fem.Uniform([3]float64{0, 0.5, -1})}}}); err != nil {
			t.Fatal(err)
		}
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(n, A.ToDense())) {
			t.Fatalf("%s: the assembled matrix is not SPD", name)
		}
		var x mat.VecDense
		if err := ch.SolveVecTo(&x, mat.NewVecDense(n, b)); err != nil {
			t.Fatal(err)
		}
		if got := relDiff(d.Data, x.RawVector().Data); !(got < 1e-9) || rep.Unknowns != n {
			t.Errorf("%s: %d unknowns (want %d), solution off the dense solve's by %.3g", name, rep.Unknowns, n, got)
		}
		t.Logf("%s: %d unknowns, %d iterations, solution within %.2g of the dense solve", name, n, rep.Iterations, relDiff(d.Data, x.RawVector().Data))
		isPNG(t, pngPath)
		v, err := os.ReadFile(vtuPath)
		if err != nil || !strings.HasPrefix(string(v), "<?xml") || !strings.Contains(string(v), `Name="von_mises"`) || !strings.Contains(string(v), `Name="node_tag"`) {
			t.Errorf("%s: VTU file: %v, %.60q", name, err, v)
		}
	}
}

// TestSolveMeshSteps: new materials each step (the first volume group's modulus
// changes), on the host, with RCM order; the solutions change and converge.
func TestSolveMeshSteps(t *testing.T) {
	code, out, stderr := runTimed(t, time.Minute, "solve", "-q", "--json", "--mesh", meshData+"two_tet4.msh", "--fix", "fixed",
		"--traction", "load:0,0,-1", "--material", "steel:200,0.3", "--material", "rubber:1,0.45", "--steps", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep solveReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Steps) != 2 || rep.Steps[1].Iterations == 0 || !(float64(rep.Steps[1].RelativeResidual) <= 1e-8) {
		t.Errorf("steps %+v", rep.Steps)
	}
}

// TestSolveMeshSolutionOrder: --solution writes the mesh file's node order whatever
// order the nodes are solved in, so the reverse Cuthill–McKee solve's file matches
// the file-order solve's node by node (to the solver's tolerance).
func TestSolveMeshSolutionOrder(t *testing.T) {
	dir := t.TempDir()
	path := meshData + "cube_tet4.msh"
	var x [2][]float64
	for i, order := range []string{"file", "rcm"} {
		sol := filepath.Join(dir, order+".mtx")
		code, _, stderr := runTimed(t, time.Minute, "solve", "-q", "--mesh", path, "--fix", "fixed", "--traction", "load:0,0.5,-1",
			"--order", order, "--rtol", "1e-12", "--solution", sol)
		if code != 0 {
			t.Fatalf("--order %s: exit %d: %s", order, code, stderr)
		}
		d, err := matio.ReadDense(sol)
		if err != nil {
			t.Fatal(err)
		}
		x[i] = d.Data
	}
	if len(x[0]) != len(x[1]) {
		t.Fatalf("%d and %d entries", len(x[0]), len(x[1]))
	}
	var diff, norm float64
	for i := range x[0] {
		diff = max(diff, math.Abs(x[0][i]-x[1][i]))
		norm = max(norm, math.Abs(x[0][i]))
	}
	if !(diff <= 1e-9*norm) || norm == 0 {
		t.Errorf("file order against rcm's written in file order: max difference %.3g of max |x| %.3g", diff, norm)
	}
}

// TestSolveMeshNearlyIncompressible: ν a hair below ½ (λ/μ = 5·10⁸) is warned
// about and set up — the coarse levels, the symmetric products of a symmetric fine
// operator, are not refused for their diagonal blocks' rounding — and then CG, not
// the set-up, is what fails.
func TestSolveMeshNearlyIncompressible(t *testing.T) {
	code, _, stderr := runTimed(t, time.Minute, "solve", "--mesh", meshData+"two_tet4.msh", "--fix", "fixed", "--traction", "load:0,0,-1",
		"--material", "steel:1,0.499999999", "--maxit", "5")
	if code != 2 || !strings.Contains(stderr, "nearly incompressible") || !strings.Contains(stderr, "did not converge in 5 iterations") {
		t.Errorf("exit %d, %q; want exit 2, the warning and CG's failure", code, stderr)
	}
}

// TestSolveMeshErrors: each bad flag or file is exit 2 with a message that says what
// and where.
func TestSolveMeshErrors(t *testing.T) {
	m := meshData + "two_tet4.msh"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--mesh", m, "--traction", "load:0,0,1"}, "needs at least one --fix"},
		{[]string{"--mesh", m, "--fix", "nope", "--traction", "load:0,0,1"}, `"fixed", "load"`},
		{[]string{"--mesh", m, "--fix", "fixed:xw", "--traction", "load:0,0,1"}, "want some of the letters x, y, z"},
		{[]string{"--mesh", m, "--fix", "steel", "--traction", "load:0,0,1"}, `"steel" is a volume group; clamps go on surface groups`},
		{[]string{"--mesh", m, "--fix", "fixed:xx", "--traction", "load:0,0,1"}, "each once"},
		{[]string{"--mesh", m, "--fix", "fixed:", "--traction", "load:0,0,1"}, "no components after the colon"},
		{[]string{"--mesh", m, "--fix", "fixed", "--traction", "load:0,0,1", "--material", ":2,0.3"}, "no group before the colon"},
		{[]string{"--mesh", m, "--fix", "fixed", "--traction", "load:0,0,1", "--material", "2,0.3", "--material", "1,0.2"}, "a second default material"},
		{[]string{"--mesh", m, "--fix", "fixed", "--traction", "load:0,0,1", "--material", "steel:1e400,0.3"}, `"steel:1e400,0.3": "1e400" is out of the range`},
		{[]string{"--mesh", m, "--fix", "fixed", "--traction", "load:nan,0,1"}, `--traction "load:nan,0,1": "nan" is not finite`},
		{[]string{"--mesh", m, "--fix", "fixed", "--traction", "load:0,0,1", "--vtu", "/nonexistent-folder/x.vtu"}, "--vtu /nonexistent-folder/x.vtu: folder /nonexistent-folder does not exist"},
		{[]string{"--mesh", m, "--fix", "fixed", "--traction", "load:0,1"}, "want 3 numbers"},
		{[]string{"--mesh", m, "--fix", "fixed", "--traction", "load:0,0,1", "--material", "steel:-1,0.3"}, `--material "steel:-1,0.3": fem: invalid material: Young's modulus -1 is not positive and finite`},
		{[]string{"--mesh", m, "--fix", "fixed", "--traction", "load:0,0,1", "--material", "1,0.5"}, `--material "1,0.5": fem: invalid material: Poisson ratio 0.5 outside (−1, 0.5)`},
		{[]string{"--mesh", m, "--fix", "fixed", "--traction", "lid:0,0,1"}, `--traction "lid:0,0,1": no surface group "lid" (the mesh's surface groups: "fixed", "load")`},
		{[]string{"--mesh", m, "--fix", "fixed", "--traction", "steel:0,0,1"}, `--traction "steel:0,0,1": "steel" is a volume group; tractions act on surface groups`},
		{[]string{"--mesh", m, "--fix", "fixed", "--traction", "load:0,0,1", "--material", "wood:1,0.3"}, `"rubber", "steel"`},
		{[]string{"--mesh", m, "--fix", "fixed"}, "right-hand side is zero: give a load"},
		{[]string{"--mesh", m, "--fix", "load", "--traction", "load:0,0,1"}, "act only on clamped components"},
		{[]string{"--mesh", m, "--fix", "fixed:x", "--traction", "load:0,0,1"}, "the clamps leave 3 of the 6 rigid-body motions free"},
		{[]string{"--mesh", m, "--ne", "5", "--fix", "fixed"}, "exclude each other"},
		{[]string{"--vtu", "x.vtu"}, "--vtu needs --mesh"},
		{[]string{"--mesh", meshData + "bad/dup_node.msh", "--fix", "fixed"}, "dup_node.msh:10: node tag 3 defined twice"},
		{[]string{"--mesh", meshData + "bad/prism.msh", "--fix", "fixed"}, "unsupported element type 6"},
	} {
		code, _, stderr := runTimed(t, time.Minute, append([]string{"solve", "-q"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("solve %v: exit %d, %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestMeshCommand: the summary of the two-volume mesh counts what the file holds
// (142 nodes, 368 tets, 52 boundary triangles in two groups of 26), and a bad file is
// exit 2 with its location.
func TestMeshCommand(t *testing.T) {
	code, out, stderr := runTimed(t, time.Minute, "mesh", "--json", meshData+"two_tet4.msh")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep meshReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	s := rep.Summary
	if s.Nodes != 142 || len(s.Elements) != 2 || s.Elements[0].Count != 368 || s.Elements[1].Count != 52 || len(s.Groups) != 4 {
		t.Errorf("summary %+v", s)
	}
	if code, _, stderr := runTimed(t, time.Minute, "mesh", meshData+"bad/truncated.msh"); code != 2 || !strings.Contains(stderr, "truncated.msh:20") {
		t.Errorf("truncated mesh: exit %d, %q", code, stderr)
	}
}

// TestSolveGPUMesh: on a GPU (skipped without one) a mesh is assembled on the device
// (assembled_on_device), set up there and solved in the CPU's iterations, first and
// after steps of new materials, to the CPU's solution within 1e-9.
func TestSolveGPUMesh(t *testing.T) {
	needGPU(t)
	dir := t.TempDir()
	args := []string{"--mesh", meshData + "two_tet4.msh", "--fix", "fixed", "--traction", "load:0,0,-1",
		"--material", "steel:200,0.3", "--material", "rubber:1,0.45", "--steps", "2", "--threads", "1"}
	cpuSol, gpuSol := filepath.Join(dir, "cpu.mtx"), filepath.Join(dir, "gpu.mtx")
	c := runSolveJSON(t, append(args, "-q", "--solution", cpuSol)...)
	g := runSolveJSON(t, append(args, "-q", "--gpu", "--solution", gpuSol)...)
	if !g.AssembledOnDevice || g.DeviceSetup == nil {
		t.Fatalf("--gpu --mesh: assembled_on_device %v, device set-up %v", g.AssembledOnDevice, g.DeviceSetup != nil)
	}
	if g.Iterations != c.Iterations || len(g.Steps) != 2 || g.Steps[1].Iterations != c.Steps[1].Iterations {
		t.Errorf("GPU %d iterations (steps %+v), CPU %d (%+v)", g.Iterations, g.Steps, c.Iterations, c.Steps)
	}
	xc, err := matio.ReadDense(cpuSol)
	if err != nil {
		t.Fatal(err)
	}
	xg, err := matio.ReadDense(gpuSol)
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(xg.Data, xc.Data); !(d < 1e-9) {
		t.Errorf("GPU solution off the CPU's by %.3g", d)
	}
}

// TestGenMesh: gen --mesh writes the system solve --mesh solves: solving the files
// gives solve --mesh's iterations and solution.
func TestGenMesh(t *testing.T) {
	dir := t.TempDir()
	m := meshData + "two_tet4.msh"
	A, b, x, sol1, sol2 := filepath.Join(dir, "A.petsc"), filepath.Join(dir, "b.petsc"), filepath.Join(dir, "x.mtx"), filepath.Join(dir, "s1.mtx"), filepath.Join(dir, "s2.mtx")
	flags := []string{"--mesh", m, "--fix", "fixed", "--traction", "load:0,0,-1", "--material", "steel:200,0.3", "--material", "rubber:1,0.45"}
	if code, _, stderr := runTimed(t, time.Minute, append([]string{"gen", "-q", "-o", A, "--rhs", b, "--coords", x}, flags...)...); code != 0 {
		t.Fatalf("gen --mesh: exit %d: %s", code, stderr)
	}
	r1 := runSolveJSON(t, append(flags, "-q", "--solution", sol1)...)
	r2 := runSolveJSON(t, "-q", "--matrix", A, "--rhs", b, "--coords", x, "--solution", sol2)
	s1, err := matio.ReadDense(sol1)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := matio.ReadDense(sol2)
	if err != nil {
		t.Fatal(err)
	}
	// gen's files are in the solved (reverse Cuthill–McKee) node order, solve
	// --mesh's --solution in the file's: mapped by the same permutation here.
	mm, _, err := mesh.ReadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	x2 := make([]float64, len(s2.Data))
	for i, p := range mesh.RCM(mm) {
		copy(x2[3*p:3*p+3], s2.Data[3*i:3*i+3])
	}
	if r1.Iterations != r2.Iterations || relDiff(s1.Data, x2) > 1e-12 {
		t.Errorf("solve --mesh %d iterations, solve of gen's files %d; solutions differ by %.3g", r1.Iterations, r2.Iterations, relDiff(s1.Data, x2))
	}
	if code, _, stderr := runTimed(t, time.Minute, append([]string{"gen", "-o", A, "--png", "x.png"}, flags...)...); code != 2 || !strings.Contains(stderr, "not defined: -png") {
		t.Errorf("gen --png: exit %d, %q", code, stderr)
	}
}
