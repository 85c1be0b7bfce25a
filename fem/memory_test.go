package fem

import (
	"errors"
	"testing"
)

// TestMatrixBytes checks the closed form against the assembled matrix.
func TestMatrixBytes(t *testing.T) {
	for ne := 1; ne <= 5; ne++ {
		b := mustBox(t, Ex56(ne))
		a := mustSymbolic(t, b, 1)
		if got, want := b.MatrixBytes(), a.Matrix.Bytes(); got != want {
			t.Errorf("ne=%d: MatrixBytes %d, assembled matrix %d", ne, got, want)
		}
	}
}

// TestSymbolicTooLarge checks that a mesh whose matrix exceeds the machine's memory is
// refused with an error before anything is allocated (at MaxNe the matrix takes 4.4 TB;
// allocating it would end the test binary with a fatal out-of-memory).
func TestSymbolicTooLarge(t *testing.T) {
	b := mustBox(t, Ex56(MaxNe))
	have := memoryLimit()
	if have == 0 {
		t.Skip("memory size unknown on this system: nothing is checked")
	}
	if b.MatrixBytes() <= have {
		t.Skipf("this machine has %d bytes, enough for ne = %d", have, MaxNe)
	}
	if _, err := b.Symbolic(1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ne = %d: Symbolic returned %v, want ErrTooLarge", MaxNe, err)
	}
	if _, err := b.Assemble(1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ne = %d: Assemble returned %v, want ErrTooLarge", MaxNe, err)
	}
}
