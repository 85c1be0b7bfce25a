package dist

import (
	"math"

	"github.com/blockamg/blockamg/dist/mpi"
)

// Dot returns xᵀy over a distributed vector pair, x and y being this rank's parts,
// on every rank. Each rank adds its part in index order; the partial sums are gathered
// (one collective) and added in rank order on every rank, so every rank gets the same
// bits and a rerun with the same layout gets them again, independently of the
// reduction algorithm MPI picks.
func Dot(comm *mpi.Comm, x, y []float64) (float64, error) {
	if len(x) != len(y) {
		panic("dist: Dot: length mismatch")
	}
	s := 0.0
	for i, v := range x {
		s += v * y[i]
	}
	parts := make([]float64, comm.Size())
	if err := comm.AllgatherFloat64([]float64{s}, parts); err != nil {
		return 0, err
	}
	t := 0.0
	for _, p := range parts {
		t += p
	}
	return t, nil
}

// Norm returns the 2-norm of a distributed vector, as Dot does.
func Norm(comm *mpi.Comm, x []float64) (float64, error) {
	d, err := Dot(comm, x, x)
	return math.Sqrt(d), err
}
