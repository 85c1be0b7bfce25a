package fem

import (
	"fmt"
	"math"
	"testing"
)

// TestMatchesPETScEx56 compares the assembled matrix, right-hand side and coordinates
// with what PETSc 3.18's ex56 wrote for -ne 9 and -ne 11 (default -alpha 1e-3).
func TestMatchesPETScEx56(t *testing.T) {
	for _, ne := range []int{9, 11} {
		t.Run(fmt.Sprintf("ne=%d", ne), func(t *testing.T) {
			want, err := readPETScMat(dataPath(t, fmt.Sprintf("petsc_ex56/A_ne%d.petsc", ne)))
			if err != nil {
				t.Fatal(err)
			}
			box, err := NewBox(Ex56(ne))
			if err != nil {
				t.Fatal(err)
			}
			A, err := box.Assemble(2)
			if err != nil {
				t.Fatal(err)
			}
			if err := A.Validate(); err != nil {
				t.Fatal(err)
			}
			got := A.ToCSR()
			if got.Rows != want.rows || got.Cols != want.cols || len(got.Val) != len(want.val) {
				t.Fatalf("got %d×%d with %d entries, PETSc %d×%d with %d", got.Rows, got.Cols, len(got.Val), want.rows, want.cols, len(want.val))
			}
			// Same pattern, explicit zeros included, and values to 1e-12 in Frobenius norm.
			var diff, norm float64
			for i := 0; i < want.rows; i++ {
				if int(got.RowPtr[i+1]) != want.ptr[i+1] {
					t.Fatalf("row %d ends at %d, PETSc at %d", i, got.RowPtr[i+1], want.ptr[i+1])
				}
				for p := want.ptr[i]; p < want.ptr[i+1]; p++ {
					if int(got.ColIdx[p]) != want.col[p] {
						t.Fatalf("row %d entry %d: column %d, PETSc %d", i, p-want.ptr[i], got.ColIdx[p], want.col[p])
					}
					d := got.Val[p] - want.val[p]
					diff += d * d
					norm += want.val[p] * want.val[p]
				}
			}
			if rel := math.Sqrt(diff / norm); rel > 1e-12 {
				t.Errorf("‖A − A_petsc‖_F / ‖A_petsc‖_F = %.3g, want ≤ 1e-12", rel)
			} else {
				t.Logf("‖A − A_petsc‖_F / ‖A_petsc‖_F = %.3g", rel)
			}

			bWant, err := readPETScVec(dataPath(t, fmt.Sprintf("petsc_ex56/b_ne%d.petsc", ne)))
			if err != nil {
				t.Fatal(err)
			}
			b := box.RHS()
			if len(b) != len(bWant) {
				t.Fatalf("rhs length %d, PETSc %d", len(b), len(bWant))
			}
			d := make([]float64, len(b))
			for i := range b {
				d[i] = b[i] - bWant[i]
			}
			if rel := frob(d) / frob(bWant); rel > 1e-12 {
				t.Errorf("‖b − b_petsc‖ / ‖b_petsc‖ = %.3g, want ≤ 1e-12", rel)
			}

			x, rows, cols, _, err := readMTX(dataPath(t, fmt.Sprintf("petsc_ex56/coords_ne%d.mtx", ne)))
			if err != nil {
				t.Fatal(err)
			}
			c := box.Coords()
			if rows != box.Nodes() || cols != 3 || len(c) != len(x) {
				t.Fatalf("coordinates %d×%d in file, %d values generated", rows, cols, len(c))
			}
			for i := range x {
				if math.Abs(c[i]-x[i]) > 1e-15 {
					t.Fatalf("coordinate %d of node %d: %v, file %v", i%3, i/3, c[i], x[i])
				}
			}
		})
	}
}

// TestEx56MtxCopy checks the Matrix Market copy of the ne=9 matrix too (a symmetric
// file written by another route), so that a reader slip cannot hide a wrong matrix.
func TestEx56MtxCopy(t *testing.T) {
	_, _, _, want, err := readMTX(dataPath(t, "petsc_ex56/A_ne9.mtx"))
	if err != nil {
		t.Fatal(err)
	}
	box, err := NewBox(Ex56(9))
	if err != nil {
		t.Fatal(err)
	}
	A, err := box.Assemble(1)
	if err != nil {
		t.Fatal(err)
	}
	var diff, norm float64
	for i := 0; i < want.rows; i++ {
		for p := want.ptr[i]; p < want.ptr[i+1]; p++ {
			j := want.col[p]
			k, ok := A.Find(i/3, j/3)
			if !ok {
				t.Fatalf("entry (%d,%d) of the file is outside the generated pattern", i, j)
			}
			d := A.Block(k)[3*(i%3)+j%3] - want.val[p]
			diff += d * d
			norm += want.val[p] * want.val[p]
		}
	}
	// Entries absent from the file (zeros it left out) must be zero here.
	var extra float64
	for i := 0; i < A.BlockRows; i++ {
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			for e, v := range A.Block(k) {
				r, c := 3*i+e/3, 3*int(A.ColIdx[k])+e%3
				if !has(want, r, c) {
					extra += v * v
				}
			}
		}
	}
	if rel := math.Sqrt((diff + extra) / norm); rel > 1e-12 {
		t.Errorf("relative Frobenius difference from A_ne9.mtx %.3g, want ≤ 1e-12", rel)
	}
}

func has(m *csrRef, i, j int) bool {
	for p := m.ptr[i]; p < m.ptr[i+1]; p++ {
		if m.col[p] == j {
			return true
		}
	}
	return false
}
