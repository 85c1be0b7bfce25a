package amg

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/matio"
)

// dataDir is /work/shared/data as seen from this package directory.
const dataDir = "../../shared/data"

// dataCase is a system from outside the project with PETSc 3.18.5's GAMG iteration
// count (CG, rtol 1e-8 on the unpreconditioned residual, threshold 0, one smoothing
// step, Chebyshev degree 2, the orthonormalised modes; /work/shared/data/README.md).
type dataCase struct {
	dir, matrix string
	bs          int
	modes       string // dense near-null space file, or "coords:<file>" for rigid-body modes
	rhs         string // "" means ones
	petsc       int
}

var dataCases = []dataCase{
	{"hypre_elast2d", "A.mtx", 2, "rbm3.mtx", "", 32},
	{"hypre_beam_tet_459", "A.mtx", 3, "B6.mtx", "b.mtx", 31},
	{"hypre_beam_hex_459", "A.mtx", 3, "B6.mtx", "b.mtx", 28},
	{"pyamg_bar", "A.mtx", 3, "B.mtx", "", 28},
	{"petsc_ex56", "A_ne9.petsc", 3, "coords:coords_ne9.mtx", "b_ne9.petsc", 16},
	{"petsc_ex56", "A_ne11.petsc", 3, "coords:coords_ne11.mtx", "b_ne11.petsc", 17},
}

func TestDataIterations(t *testing.T) {
	for _, dc := range dataCases {
		t.Run(dc.dir+"/"+dc.matrix, func(t *testing.T) {
			dir := filepath.Join(dataDir, dc.dir)
			if _, err := os.Stat(filepath.Join(dir, dc.matrix)); err != nil {
				t.Skipf("shared data absent: %v", err)
			}
			A, err := matio.ReadMatrix(filepath.Join(dir, dc.matrix), dc.bs)
			if err != nil {
				t.Fatal(err)
			}
			ns := &NullSpace{Rows: A.Rows()}
			if name, ok := cutPrefix(dc.modes, "coords:"); ok {
				c, err := matio.ReadDense(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				ns.Data, _, err = fem.RigidBodyModes(c.Data, c.Cols, true)
				if err != nil {
					t.Fatal(err)
				}
				ns.Cols = 3 * (c.Cols - 1)
			} else {
				d, err := matio.ReadDense(filepath.Join(dir, dc.modes))
				if err != nil {
					t.Fatal(err)
				}
				ns.Cols, ns.Data = d.Cols, d.Data
			}
			b := make([]float64, A.Rows())
			if dc.rhs == "" {
				for i := range b {
					b[i] = 1
				}
			} else {
				d, err := matio.ReadDense(filepath.Join(dir, dc.rhs))
				if err != nil {
					t.Fatal(err)
				}
				b = d.Data
			}
			for _, f32 := range []bool{false, true} {
				opt := DefaultOptions()
				opt.SmootherFloat32 = f32
				h, err := Setup(A, ns, opt)
				if err != nil {
					t.Fatal(err)
				}
				res, _ := solveCG(t, h, b)
				t.Logf("n %d, %d modes, float32 cycle %v: %d levels, operator complexity %.3f, %d iterations (PETSc GAMG %d)",
					A.Rows(), ns.Cols, f32, len(h.Levels), h.OperatorComplexity(), res.Iterations, dc.petsc)
				if res.Iterations > dc.petsc {
					t.Errorf("float32 cycle %v: %d iterations, PETSc GAMG needs %d", f32, res.Iterations, dc.petsc)
				}
			}
		})
	}
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}
