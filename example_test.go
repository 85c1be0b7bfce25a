package blockamg_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/blockamg/blockamg"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/matio"
)

// writeEx56Files writes a small elasticity problem as a user's files would hold it: the
// matrix (Matrix Market), the node coordinates and the right-hand side.
func writeEx56Files(dir string) {
	A, b, _, err := fem.Ex56System(6, 1)
	if err != nil {
		log.Fatal(err)
	}
	box, _ := fem.NewBox(fem.Ex56(6))
	coords := box.Coords()
	write := func(name string, f func(*os.File) error) {
		out, err := os.Create(filepath.Join(dir, name))
		if err == nil {
			err = f(out)
		}
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			log.Fatal(err)
		}
	}
	write("A.mtx", func(f *os.File) error { return matio.WriteMatrixMarket(f, A) })
	write("coords.mtx", func(f *os.File) error {
		return matio.WriteDense(f, &matio.Dense{Rows: len(coords) / 3, Cols: 3, Data: coords})
	})
	write("b.mtx", func(f *os.File) error { return matio.WriteDense(f, &matio.Dense{Rows: len(b), Cols: 1, Data: b}) })
}

// A Matrix Market matrix with 3×3 blocks and its node coordinates: the rigid-body
// modes from the coordinates are the near-null space.
func Example() {
	dir, _ := os.MkdirTemp("", "blockamg-example")
	defer os.RemoveAll(dir)
	writeEx56Files(dir)

	A, err := matio.ReadMatrix(filepath.Join(dir, "A.mtx"), 3) // 3 unknowns per node
	if err != nil {
		log.Fatal(err)
	}
	xyz, err := matio.ReadDense(filepath.Join(dir, "coords.mtx"))
	if err != nil {
		log.Fatal(err)
	}
	rhs, err := matio.ReadDense(filepath.Join(dir, "b.mtx"))
	if err != nil {
		log.Fatal(err)
	}
	modes, err := blockamg.RigidBodyModes(xyz.Data, 3)
	if err != nil {
		log.Fatal(err)
	}
	s, err := blockamg.NewSolver(A, modes, blockamg.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	x := make([]float64, A.Rows())
	res, err := s.Solve(rhs.Data, x)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d unknowns, %d near-null vectors: converged in %d iterations\n", A.Rows(), modes.Cols, res.Iterations)
	// Output: 1029 unknowns, 6 near-null vectors: converged in 10 iterations
}

// The recurring step of a Newton or time loop: new values on the same pattern, Update
// (every pattern and plan kept), solve.
func ExampleSolver_Update() {
	box, err := fem.NewBox(fem.Ex56(8))
	if err != nil {
		log.Fatal(err)
	}
	asm, err := box.Symbolic(0) // the element→block map, once
	if err != nil {
		log.Fatal(err)
	}
	A := asm.Matrix
	if err := asm.Numeric(A, nil, 0); err != nil {
		log.Fatal(err)
	}
	modes, _ := blockamg.RigidBodyModes(box.Coords(), 3)
	s, err := blockamg.NewSolver(A, modes, blockamg.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	b, x := box.RHS(), make([]float64, A.Rows())
	for step := 0; step < 3; step++ {
		if step > 0 {
			// A stiffer soft inclusion each step: new element moduli, same pattern.
			mod := box.ElementModulus()
			for e := range mod {
				if mod[e] != box.Problem().E {
					mod[e] *= float64(1 + step)
				}
			}
			if err := asm.Numeric(A, mod, 0); err != nil {
				log.Fatal(err)
			}
			if err := s.Update(A); err != nil {
				log.Fatal(err)
			}
		}
		res, err := s.Solve(b, x)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("step %d: %d iterations\n", step, res.Iterations)
	}
	// Output:
	// step 0: 11 iterations
	// step 1: 11 iterations
	// step 2: 11 iterations
}

// The built-in ex56 problem (PETSc's snes ex56: a unit cube with a soft sphere),
// assembled in BSR with its rigid-body modes.
func ExampleNewSolver_ex56() {
	A, b, B, err := fem.Ex56System(10, 0)
	if err != nil {
		log.Fatal(err)
	}
	opt := blockamg.DefaultOptions()
	opt.AMG.Threshold = -0.01
	s, err := blockamg.NewSolver(A, &blockamg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, opt)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	x := make([]float64, A.Rows())
	res, err := s.Solve(b, x)
	if err != nil {
		log.Fatal(err)
	}
	h := s.Hierarchy()
	fmt.Printf("%d levels, operator complexity %.2f, %d iterations\n", len(h.Levels), h.OperatorComplexity(), res.Iterations)
	// Output: 3 levels, operator complexity 1.14, 10 iterations
}

// The same solve on an NVIDIA GPU: the set-up (patterns and values), each Update, the
// V-cycle and CG run on the device, and only the coarsest operator comes to the host.
// Without a GPU, NewSolver returns an error wrapping ErrNoDriver or ErrNoDevice.
func ExampleNewSolver_gpu() {
	A, b, B, err := fem.Ex56System(10, 0)
	if err != nil {
		log.Fatal(err)
	}
	opt := blockamg.DefaultOptions()
	opt.Backend = blockamg.CUDA
	s, err := blockamg.NewSolver(A, &blockamg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, opt)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	x := make([]float64, A.Rows())
	res, err := s.Solve(b, x)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Iterations, "iterations on the GPU")
}

// A scalar problem (the 2D Poisson equation on a 40 × 40 grid, 1×1 blocks): its
// near-null space is the constant, one mode per unknown of a node, which is also what
// NewSolver takes when given none.
func ExampleConstantModes() {
	const m = 40
	n := m * m
	A := &bsr.Matrix{BlockRows: n, BlockCols: n, R: 1, C: 1, RowPtr: make([]int64, 1, n+1)}
	for i := range m {
		for j := range m {
			for _, c := range [][3]int{{i - 1, j, -1}, {i, j - 1, -1}, {i, j, 4}, {i, j + 1, -1}, {i + 1, j, -1}} {
				if c[0] >= 0 && c[0] < m && c[1] >= 0 && c[1] < m {
					A.ColIdx = append(A.ColIdx, int32(c[0]*m+c[1]))
					A.Val = append(A.Val, float64(c[2]))
				}
			}
			A.RowPtr = append(A.RowPtr, int64(len(A.ColIdx)))
		}
	}
	rhs := make([]float64, n)
	for i := range rhs {
		rhs[i] = 1
	}
	for _, ns := range []*blockamg.NullSpace{blockamg.ConstantModes(n, 1), nil} {
		s, err := blockamg.NewSolver(A, ns, blockamg.DefaultOptions())
		if err != nil {
			log.Fatal(err)
		}
		x := make([]float64, n)
		res, err := s.Solve(rhs, x)
		s.Close()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("near-null space given: %v, %d iterations, relative residual below 1e-8: %v\n", ns != nil, res.Iterations, res.Residual <= 1e-8*res.InitialResidual)
	}
	// Output:
	// near-null space given: true, 10 iterations, relative residual below 1e-8: true
	// near-null space given: false, 10 iterations, relative residual below 1e-8: true
}
