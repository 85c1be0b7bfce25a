package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/matio"
)

func init() {
	register("info", "summarize a matrix file: dimensions, blocks, nonzeros, symmetry, diagonal, memory", runInfo)
}

// infoSummary is what info reports. Fields that do not apply (symmetry and diagonal of
// a rectangular matrix) are nil, and null in JSON.
type infoSummary struct {
	File      string `json:"file"`
	Format    string `json:"format"`
	Rows      int    `json:"rows"`
	Cols      int    `json:"cols"`
	BlockR    int    `json:"block_r"`
	BlockC    int    `json:"block_c"`
	BlockRows int    `json:"block_rows"`
	BlockCols int    `json:"block_cols"`
	NNZBlocks int64  `json:"nnz_blocks"`
	// NNZScalar counts stored scalar entries (NNZBlocks·R·C, explicit zeros included);
	// Nonzeros counts the entries whose value is not zero.
	NNZScalar int64 `json:"nnz_scalar"`
	Nonzeros  int64 `json:"nonzeros"`
	// MaxBlocksPerRow is the longest block row.
	MaxBlocksPerRow int64 `json:"max_blocks_per_row"`
	// Asymmetry is max|A−Aᵀ| / max|A| over all entries.
	Asymmetry *float64 `json:"asymmetry"`
	DiagMin   *float64 `json:"diag_min"`
	DiagMax   *float64 `json:"diag_max"`
	// BytesBSR is the memory of the block form (int64 row pointers, int32 block
	// columns, float64 values); BytesCSR that of the scalar CSR form of the same stored
	// entries (int64 row pointers, int32 columns, float64 values).
	BytesBSR int64 `json:"bytes_bsr"`
	BytesCSR int64 `json:"bytes_csr"`
	// Dense files (Matrix Market arrays, PETSc Vecs) only fill Rows and Cols.
	Dense bool `json:"dense"`
}

func runInfo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("info", "FILE [--block-size N] [--json]", stderr)
	bs := fs.Int("block-size", 0, "group the scalar matrix into N×N blocks (0: the PETSc .info file's, else 1)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of text")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("expected one FILE, got %d arguments", len(pos))
	}
	if *bs < 0 {
		return fmt.Errorf("--block-size %d: must be positive (or 0 for the file's own)", *bs)
	}
	s, err := summarizeFile(pos[0], *bs)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	printInfo(stdout, s)
	return nil
}

// infoFormat names the format from the first bytes of path, as the readers decide it.
func infoFormat(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	var b [4]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		return "unknown"
	}
	if strings.EqualFold(string(b[:]), "%%Ma") {
		return "Matrix Market"
	}
	return "PETSc binary"
}

// summarizeFile reads path as a sparse matrix, or as a dense array or vector when it
// is one, and summarizes it.
func summarizeFile(path string, bs int) (*infoSummary, error) {
	m, err := matio.ReadMatrix(path, bs)
	if err != nil {
		// Dense files are refused by the sparse reader; describe them instead, but keep
		// the sparse reader's error for anything that is not a readable dense file.
		var pe *matio.ParseError
		if errors.As(err, &pe) {
			if d, derr := matio.ReadDense(path); derr == nil {
				return &infoSummary{File: path, Format: infoFormat(path), Rows: d.Rows, Cols: d.Cols, Dense: true}, nil
			}
		}
		return nil, err
	}
	s := summarize(m)
	s.File, s.Format = path, infoFormat(path)
	return s, nil
}

// summarize computes everything but the file name and format.
func summarize(m *bsr.Matrix) *infoSummary {
	s := &infoSummary{
		Rows: m.Rows(), Cols: m.Cols(), BlockR: m.R, BlockC: m.C,
		BlockRows: m.BlockRows, BlockCols: m.BlockCols,
		NNZBlocks: m.NNZBlocks(), NNZScalar: m.NNZBlocks() * int64(m.R*m.C),
		BytesBSR: m.Bytes(),
	}
	s.BytesCSR = int64(s.Rows+1)*8 + s.NNZScalar*(4+8)
	for _, v := range m.Val {
		if v != 0 {
			s.Nonzeros++
		}
	}
	for i := 0; i < m.BlockRows; i++ {
		s.MaxBlocksPerRow = max(s.MaxBlocksPerRow, m.RowPtr[i+1]-m.RowPtr[i])
	}
	if s.Rows != s.Cols {
		return s
	}
	a := m.ToCSR()
	asym := infoAsymmetry(a, infoTranspose(a))
	s.Asymmetry = &asym
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := 0; i < a.Rows; i++ {
		d := 0.0 // an unstored diagonal entry is zero
		for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
			if int(a.ColIdx[k]) == i {
				d = a.Val[k]
				break
			}
		}
		lo, hi = min(lo, d), max(hi, d)
	}
	if a.Rows > 0 {
		s.DiagMin, s.DiagMax = &lo, &hi
	}
	return s
}

// infoTranspose returns Aᵀ with sorted rows: a counting sort by column, which visits
// rows in order and so leaves each transposed row sorted.
func infoTranspose(a *bsr.CSR) *bsr.CSR {
	t := &bsr.CSR{Rows: a.Cols, Cols: a.Rows, RowPtr: make([]int64, a.Cols+1)}
	nnz := a.RowPtr[a.Rows]
	t.ColIdx = make([]int32, nnz)
	t.Val = make([]float64, nnz)
	for _, c := range a.ColIdx[:nnz] {
		t.RowPtr[c+1]++
	}
	for j := 0; j < a.Cols; j++ {
		t.RowPtr[j+1] += t.RowPtr[j]
	}
	next := append([]int64(nil), t.RowPtr[:a.Cols]...)
	for i := 0; i < a.Rows; i++ {
		for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
			c := a.ColIdx[k]
			t.ColIdx[next[c]], t.Val[next[c]] = int32(i), a.Val[k]
			next[c]++
		}
	}
	return t
}

// infoAsymmetry returns max|A−B| / max|A| for two matrices of the same shape with
// sorted rows, treating unstored entries as zero (0 for the zero matrix).
func infoAsymmetry(a, b *bsr.CSR) float64 {
	var diff, scale float64
	for i := 0; i < a.Rows; i++ {
		p, pe := a.RowPtr[i], a.RowPtr[i+1]
		q, qe := b.RowPtr[i], b.RowPtr[i+1]
		for p < pe || q < qe {
			var x, y float64
			switch {
			case q == qe || p < pe && a.ColIdx[p] < b.ColIdx[q]:
				x = a.Val[p]
				p++
			case p == pe || b.ColIdx[q] < a.ColIdx[p]:
				y = b.Val[q]
				q++
			default:
				x, y = a.Val[p], b.Val[q]
				p++
				q++
			}
			diff = max(diff, math.Abs(x-y))
			scale = max(scale, math.Abs(x))
		}
	}
	if scale == 0 {
		return 0
	}
	return diff / scale
}

func printInfo(w io.Writer, s *infoSummary) {
	fmt.Fprintf(w, "file              %s (%s)\n", s.File, s.Format)
	if s.Dense {
		fmt.Fprintf(w, "dense             %d × %d\n", s.Rows, s.Cols)
		return
	}
	fmt.Fprintf(w, "size              %d × %d scalar = %d × %d blocks of %d×%d\n", s.Rows, s.Cols, s.BlockRows, s.BlockCols, s.BlockR, s.BlockC)
	perRow := 0.0
	if s.BlockRows > 0 {
		perRow = float64(s.NNZBlocks) / float64(s.BlockRows)
	}
	fmt.Fprintf(w, "stored blocks     %d (%.2f per block row, at most %d)\n", s.NNZBlocks, perRow, s.MaxBlocksPerRow)
	fmt.Fprintf(w, "scalar entries    %d stored, %d nonzero\n", s.NNZScalar, s.Nonzeros)
	if s.Asymmetry != nil {
		verdict := "not symmetric"
		switch {
		case *s.Asymmetry == 0:
			verdict = "symmetric"
		case *s.Asymmetry < 1e-12:
			verdict = "symmetric to rounding"
		}
		fmt.Fprintf(w, "symmetry          max|A-Aᵀ|/max|A| = %.3g (%s)\n", *s.Asymmetry, verdict)
	}
	if s.DiagMin != nil {
		fmt.Fprintf(w, "diagonal          min %.6g, max %.6g\n", *s.DiagMin, *s.DiagMax)
	}
	fmt.Fprintf(w, "memory            BSR %s, scalar CSR %s (BSR is %.2f× CSR)\n",
		infoBytes(s.BytesBSR), infoBytes(s.BytesCSR), float64(s.BytesBSR)/float64(max(s.BytesCSR, 1)))
}

// infoBytes formats a byte count with a binary unit.
func infoBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
