package backendcycle

import (
	"errors"
	"math"
	"testing"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cpu"
	"github.com/blockamg/blockamg/backend/cuda"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/internal/cudadrv"
	"github.com/blockamg/blockamg/krylov"
)

// ex56 builds the ex56 problem and its SA hierarchy with the options of the PETSc
// comparison (issue 4).
func ex56(t *testing.T, ne int) (*amg.Hierarchy, []float64) {
	t.Helper()
	A, rhs, B, err := fem.Ex56System(ne, 0)
	if err != nil {
		t.Fatal(err)
	}
	opt := amg.DefaultOptions()
	opt.Threshold = -0.01
	opt.CoarseEqLimit = 200
	opt.ChebyshevEstEig = [4]float64{0, 0.2, 0, 1.05}
	h, err := amg.Setup(A, &amg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, opt)
	if err != nil {
		t.Fatal(err)
	}
	return h, rhs
}

// backends returns the backends to test: the CPU always, the GPU where a driver is.
func backends(t *testing.T) map[string]backend.Backend {
	bes := map[string]backend.Backend{"cpu": cpu.New(0)}
	g, err := cuda.New(cuda.Options{})
	switch {
	case err == nil:
		bes["cuda"] = g
	case errors.Is(err, cudadrv.ErrNoDriver) || errors.Is(err, cudadrv.ErrNoDevice):
		t.Log("cuda backend skipped: " + err.Error())
	default:
		t.Fatalf("cuda backend: %v", err)
	}
	return bes
}

func relDiff(a, b []float64) float64 {
	var d, n float64
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
		n += b[i] * b[i]
	}
	return math.Sqrt(d / n)
}

func TestCycleMatchesHierarchy(t *testing.T) {
	h, rhs := ex56(t, 8)
	want := make([]float64, len(rhs))
	h.Apply(rhs, want)
	for name, be := range backends(t) {
		c, err := Upload(be, h)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r, _ := be.NewVector(len(rhs))
		z, _ := be.NewVector(len(rhs))
		be.Upload(r, rhs)
		got := make([]float64, len(rhs))
		for i := range got {
			got[i] = math.NaN()
		}
		c.Apply(r, z)
		be.Download(got, z)
		if d := relDiff(got, want); !(d < 1e-12) {
			t.Errorf("%s: V-cycle differs from amg.Hierarchy.Apply by %.2e (want < 1e-12)", name, d)
		}
		// Repeated application is bitwise identical.
		again := make([]float64, len(rhs))
		c.Apply(r, z)
		be.Download(again, z)
		for i := range got {
			if got[i] != again[i] {
				t.Fatalf("%s: second V-cycle differs at %d", name, i)
			}
		}
		r.Free()
		z.Free()
		c.Free()
		if err := be.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

func TestPCGMatchesCPU(t *testing.T) {
	h, rhs := ex56(t, 10)
	opt := krylov.DefaultOptions()
	xcpu := make([]float64, len(rhs))
	want, err := krylov.CG(h.Operator(), h, rhs, xcpu, opt)
	if err != nil {
		t.Fatal(err)
	}
	for name, be := range backends(t) {
		c, err := Upload(be, h)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := be.NewVector(len(rhs))
		x, _ := be.NewVector(len(rhs))
		be.Upload(b, rhs)
		be.SetPhase("solve")
		before := be.Counters().Phase("solve")
		got, err := backend.PCG(be, c.Operator(), c, b, x, opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		traffic := be.Counters().Phase("solve")
		xs := make([]float64, len(rhs))
		be.Download(xs, x)
		if got.Iterations != want.Iterations {
			t.Errorf("%s: %d iterations, CPU CG %d", name, got.Iterations, want.Iterations)
		}
		if d := relDiff(xs, xcpu); !(d < 1e-8) {
			t.Errorf("%s: solution differs from the CPU one by %.2e (want < 1e-8)", name, d)
		}
		// Traffic during the solve: per iteration a few scalars and the coarsest vectors.
		coarse := int64(h.Levels[len(h.Levels)-1].A.Rows())
		limit := int64(got.Iterations+2) * (2*coarse*8 + 64)
		if moved := traffic.H2DBytes + traffic.D2HBytes - before.H2DBytes - before.D2HBytes; moved > limit {
			t.Errorf("%s: solve moved %d bytes host↔device, want ≤ %d (scalars and the coarsest vectors only)", name, moved, limit)
		}
		b.Free()
		x.Free()
		c.Free()
	}
}

func TestPCGNotConverged(t *testing.T) {
	h, rhs := ex56(t, 6)
	be := cpu.New(1)
	c, err := Upload(be, h)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free()
	b, _ := be.NewVector(len(rhs))
	x, _ := be.NewVector(len(rhs))
	be.Upload(b, rhs)
	opt := krylov.DefaultOptions()
	opt.MaxIter = 2
	_, err = backend.PCG(be, c.Operator(), c, b, x, opt)
	var nc *krylov.NotConvergedError
	if !errors.As(err, &nc) || nc.Iterations != 2 {
		t.Fatalf("PCG with MaxIter 2: error %v, want *krylov.NotConvergedError after 2 iterations", err)
	}
}
