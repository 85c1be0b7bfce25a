package main

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/matio"
)

func init() {
	register("diff", "relative Frobenius-norm difference of two matrices (e.g. ours against PETSc's)", runDiff)
}

func runDiff(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("diff", "A B [--block-size N] [--rtol T]", stderr)
	bs := fs.Int("block-size", 0, "block size for both files (0: from FILE.info for PETSc, else 1)")
	rtol := fs.Float64("rtol", 1e-12, "exit 2 when ‖A−B‖_F / max(‖A‖_F, ‖B‖_F) exceeds this")
	vector := fs.Bool("vector", false, "compare two vectors or dense arrays (Matrix Market array or PETSc Vec)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if !(*rtol >= 0) {
		return fmt.Errorf("--rtol %g: want a non-negative number", *rtol)
	}
	if len(pos) != 2 {
		fs.Usage()
		return errors.New("want two matrix files")
	}
	if *vector {
		return diffDense(pos[0], pos[1], *rtol, stdout)
	}
	a, err := matio.ReadMatrix(pos[0], *bs)
	if err != nil {
		return err
	}
	b, err := matio.ReadMatrix(pos[1], *bs)
	if err != nil {
		return err
	}
	if a.Rows() != b.Rows() || a.Cols() != b.Cols() {
		return fmt.Errorf("%s is %d×%d, %s is %d×%d", pos[0], a.Rows(), a.Cols(), pos[1], b.Rows(), b.Cols())
	}
	if a.R != b.R || a.C != b.C {
		// Compare as scalars: the block shape is a storage choice.
		if a, err = bsr.FromCSR(a.ToCSR(), 1, 1); err != nil {
			return err
		}
		if b, err = bsr.FromCSR(b.ToCSR(), 1, 1); err != nil {
			return err
		}
	}
	d, err := sparseSub(a, b)
	if err != nil {
		return err
	}
	rel := d.FrobeniusNorm() / math.Max(math.Max(a.FrobeniusNorm(), b.FrobeniusNorm()), math.SmallestNonzeroFloat64)
	fmt.Fprintf(stdout, "‖A−B‖_F / max(‖A‖_F, ‖B‖_F) = %.3e\n", rel)
	if !(rel <= *rtol) {
		return fmt.Errorf("matrices differ: relative difference %.3e > --rtol %.1e", rel, *rtol)
	}
	return nil
}

// sparseSub returns a − b for matrices of one block shape whose patterns may differ.
func sparseSub(a, b *bsr.Matrix) (*bsr.Matrix, error) {
	bsz := a.R * a.C
	n := a.NNZBlocks() + b.NNZBlocks()
	bi := make([]int32, 0, n)
	bj := make([]int32, 0, n)
	vals := make([]float64, 0, n*int64(bsz))
	for _, s := range []struct {
		m    *bsr.Matrix
		sign float64
	}{{a, 1}, {b, -1}} {
		for i := 0; i < s.m.BlockRows; i++ {
			for k := s.m.RowPtr[i]; k < s.m.RowPtr[i+1]; k++ {
				bi = append(bi, int32(i))
				bj = append(bj, s.m.ColIdx[k])
				for _, v := range s.m.Block(k) {
					vals = append(vals, s.sign*v)
				}
			}
		}
	}
	return bsr.FromBlockTriplets(a.BlockRows, a.BlockCols, a.R, a.C, bi, bj, vals)
}

// diffDense compares two dense arrays in the 2-norm of their difference.
func diffDense(pa, pb string, rtol float64, stdout io.Writer) error {
	a, err := matio.ReadDense(pa)
	if err != nil {
		return err
	}
	b, err := matio.ReadDense(pb)
	if err != nil {
		return err
	}
	if a.Rows != b.Rows || a.Cols != b.Cols {
		return fmt.Errorf("%s is %d×%d, %s is %d×%d", pa, a.Rows, a.Cols, pb, b.Rows, b.Cols)
	}
	var d, na, nb float64
	for i := range a.Data {
		d += (a.Data[i] - b.Data[i]) * (a.Data[i] - b.Data[i])
		na += a.Data[i] * a.Data[i]
		nb += b.Data[i] * b.Data[i]
	}
	rel := math.Sqrt(d) / math.Max(math.Sqrt(math.Max(na, nb)), math.SmallestNonzeroFloat64)
	fmt.Fprintf(stdout, "‖a−b‖₂ / max(‖a‖₂, ‖b‖₂) = %.3e\n", rel)
	if !(rel <= rtol) {
		return fmt.Errorf("arrays differ: relative difference %.3e > --rtol %.1e", rel, rtol)
	}
	return nil
}
