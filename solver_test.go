package blockamg_test

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/blockamg/blockamg"
	"github.com/blockamg/blockamg/fem"
)

func ex56(t *testing.T, ne int) (*blockamg.Solver, []float64, func() []float64) {
	t.Helper()
	A, b, B, err := fem.Ex56System(ne, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := blockamg.NewSolver(A, &blockamg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, blockamg.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, b, func() []float64 { return append([]float64(nil), A.Val...) }
}

// TestSolveResidual checks a solve against its own definition: ‖b − A·x‖ ≤ 1e-8·‖b‖,
// computed here with a plain loop over the matrix's arrays.
func TestSolveResidual(t *testing.T) {
	s, b, _ := ex56(t, 6)
	x := make([]float64, len(b))
	res, err := s.Solve(b, x)
	if err != nil {
		t.Fatal(err)
	}
	A := s.Hierarchy().Levels[0].A
	r := append([]float64(nil), b...)
	bs := A.R
	for i := 0; i < A.BlockRows; i++ {
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			j := int(A.ColIdx[k])
			for p := 0; p < bs; p++ {
				for q := 0; q < bs; q++ {
					r[i*bs+p] -= A.Val[k*int64(bs*bs)+int64(p*bs+q)] * x[j*bs+q]
				}
			}
		}
	}
	nr, nb := 0.0, 0.0
	for i := range r {
		nr += r[i] * r[i]
		nb += b[i] * b[i]
	}
	if rel := math.Sqrt(nr / nb); !(rel <= 1e-8) {
		t.Errorf("relative residual %.3e after %d iterations, want ≤ 1e-8", rel, res.Iterations)
	}
}

// TestUpdateErrors: a pattern error leaves the solver working; invalid values written
// in place leave it refusing to solve with ErrBroken (not a panic) until an Update
// with good values succeeds.
func TestUpdateErrors(t *testing.T) {
	s, b, vals := ex56(t, 4)
	x := make([]float64, len(b))
	good := vals()
	A := s.Hierarchy().Levels[0].A
	other, _, _, _ := fem.Ex56System(3, 0)
	if err := s.Update(other); !errors.Is(err, blockamg.ErrPattern) {
		t.Fatalf("update with another pattern: %v, want ErrPattern", err)
	}
	if _, err := s.Solve(b, x); err != nil {
		t.Fatalf("solve after a pattern error: %v", err)
	}
	A.Val[0] = math.NaN()
	if err := s.Update(A); !errors.Is(err, blockamg.ErrInput) {
		t.Fatalf("update with NaN in place: %v, want ErrInput", err)
	}
	if _, err := s.Solve(b, x); !errors.Is(err, blockamg.ErrBroken) {
		t.Fatalf("solve after a failed update: %v, want ErrBroken", err)
	}
	copy(A.Val, good)
	if err := s.Update(A); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Solve(b, x); err != nil {
		t.Fatalf("solve after a good update: %v", err)
	}
}

func TestOptionErrors(t *testing.T) {
	A, _, B, err := fem.Ex56System(3, 0)
	if err != nil {
		t.Fatal(err)
	}
	ns := &blockamg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}
	for name, f := range map[string]func(*blockamg.Options){
		"backend":  func(o *blockamg.Options) { o.Backend = "tpu" },
		"smoother": func(o *blockamg.Options) { o.AMG.Smoother = "gauss-seidel" },
		"rtol":     func(o *blockamg.Options) { o.Solve.RelTol = -1 },
	} {
		opt := blockamg.DefaultOptions()
		f(&opt)
		if _, err := blockamg.NewSolver(A, ns, opt); !errors.Is(err, blockamg.ErrOptions) {
			t.Errorf("%s: %v, want ErrOptions", name, err)
		}
	}
	opt := blockamg.DefaultOptions()
	opt.Solve.MaxIter = 1
	s, err := blockamg.NewSolver(A, ns, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := make([]float64, A.Rows())
	for i := range b {
		b[i] = 1
	}
	if _, err := s.Solve(b, make([]float64, len(b))); !errors.Is(err, blockamg.ErrNotConverged) {
		t.Errorf("MaxIter 1: %v, want ErrNotConverged", err)
	}
}

// TestJacobiSmoother: the second registered smoother gives a working preconditioner.
func TestJacobiSmoother(t *testing.T) {
	A, b, B, err := fem.Ex56System(6, 0)
	if err != nil {
		t.Fatal(err)
	}
	opt := blockamg.DefaultOptions()
	opt.AMG.Smoother = "jacobi"
	s, err := blockamg.NewSolver(A, &blockamg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Solve(b, make([]float64, len(b)))
	if err != nil || res.Iterations > 40 {
		t.Errorf("jacobi smoother: %d iterations, %v", res.Iterations, err)
	}
}

// TestGPUBackend runs the CUDA backend where there is one; elsewhere NewSolver must
// say why with ErrNoDriver or ErrNoDevice.
func TestGPUBackend(t *testing.T) {
	A, b, B, err := fem.Ex56System(6, 0)
	if err != nil {
		t.Fatal(err)
	}
	opt := blockamg.DefaultOptions()
	opt.Backend = blockamg.CUDA
	s, err := blockamg.NewSolver(A, &blockamg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, opt)
	if errors.Is(err, blockamg.ErrNoDriver) || errors.Is(err, blockamg.ErrNoDevice) {
		t.Skip("no GPU: " + err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, _ := ex56Solve(t, A.Rows(), b)
	x := make([]float64, len(b))
	res, err := s.Solve(b, x)
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations != c.Iterations {
		t.Errorf("GPU %d iterations, CPU %d", res.Iterations, c.Iterations)
	}
}

func ex56Solve(t *testing.T, n int, b []float64) (blockamg.Result, []float64) {
	s, _, _ := ex56(t, 6)
	x := make([]float64, n)
	res, err := s.Solve(b, x)
	if err != nil {
		t.Fatal(err)
	}
	return res, x
}

// TestReadmeExample compiles the README's library example (its first Go block) as a
// program in this module.
func TestReadmeExample(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a program")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go toolchain on this machine to compile the README example")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no ```go block")
	}
	dir, err := os.MkdirTemp(".", "readme-example-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "vet", "./"+filepath.Base(dir))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("README example does not compile:\n%s", out)
	}
}

// TestUpdateWithAnotherMatrix: Update with a different matrix object on the same
// pattern solves that matrix, bit for bit as a solver set up on it from the start.
func TestUpdateWithAnotherMatrix(t *testing.T) {
	s, b, _ := ex56(t, 4)
	B := s.Hierarchy().Levels[0].A.Clone()
	B.Scale(3)
	if err := s.Update(B); err != nil {
		t.Fatal(err)
	}
	x := make([]float64, len(b))
	if _, err := s.Solve(b, x); err != nil {
		t.Fatal(err)
	}
	_, _, modes, _ := fem.Ex56System(4, 0)
	fresh, err := blockamg.NewSolver(B.Clone(), &blockamg.NullSpace{Rows: B.Rows(), Cols: 6, Data: modes}, blockamg.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	y := make([]float64, len(b))
	if _, err := fresh.Solve(b, y); err != nil {
		t.Fatal(err)
	}
	for i := range x {
		if x[i] != y[i] {
			t.Fatalf("x[%d] = %v after Update, %v from a fresh set-up", i, x[i], y[i])
		}
	}
}
