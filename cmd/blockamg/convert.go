package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/blockamg/blockamg/matio"
)

func init() {
	register("convert", "convert a matrix or vector between Matrix Market (.mtx) and PETSc binary", runConvert)
}

func runConvert(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("convert", "IN OUT [--block-size N]   (format of OUT by extension: .mtx = Matrix Market, else PETSc binary)", stderr)
	bs := fs.Int("block-size", 0, "block size to read IN with; PETSc output records it in OUT.info (0: IN's .info, else 1)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fs.Usage()
		return fmt.Errorf("expected IN and OUT, got %d arguments", len(pos))
	}
	if *bs < 0 {
		return fmt.Errorf("--block-size %d: must be positive (or 0 for the file's own)", *bs)
	}
	in, out := pos[0], pos[1]
	if same, err := convertSameFile(in, out); err != nil {
		return err
	} else if same {
		return fmt.Errorf("IN and OUT are the same file %s", in)
	}
	toMM := strings.EqualFold(filepath.Ext(out), ".mtx")
	format := "PETSc binary"
	if toMM {
		format = "Matrix Market"
	}

	m, err := matio.ReadMatrix(in, *bs)
	if err == nil {
		if err := matio.WriteMatrix(out, m); err != nil {
			return err
		}
		extra := ""
		if !toMM && m.R == m.C && m.R > 1 {
			extra = fmt.Sprintf(" + %s.info", out)
		}
		fmt.Fprintf(stdout, "wrote %s (%s%s): %d × %d, %d blocks of %d×%d\n",
			out, format, extra, m.Rows(), m.Cols(), m.NNZBlocks(), m.R, m.C)
		return nil
	}
	// A dense file (Matrix Market array, PETSc Vec) converts as a dense file; anything
	// else reports the sparse reader's error.
	var pe *matio.ParseError
	if !errors.As(err, &pe) {
		return err
	}
	d, derr := matio.ReadDense(in)
	if derr != nil {
		return err
	}
	switch {
	case toMM:
		err = convertWriteDense(out, d)
	case d.Cols == 1:
		err = matio.WriteVector(out, d.Data)
	default:
		return fmt.Errorf("%s is a dense %d×%d array; a PETSc Vec holds one column (write .mtx instead)", in, d.Rows, d.Cols)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%s): dense %d × %d\n", out, format, d.Rows, d.Cols)
	return nil
}

// convertSameFile reports whether in and out name the same existing file, which
// writing would destroy before it is read.
func convertSameFile(in, out string) (bool, error) {
	si, err := os.Stat(in)
	if err != nil {
		return false, err
	}
	so, err := os.Stat(out)
	if err != nil {
		return false, nil // OUT does not exist yet
	}
	return os.SameFile(si, so), nil
}

// convertWriteDense writes d as a Matrix Market array file.
func convertWriteDense(path string, d *matio.Dense) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := matio.WriteDense(f, d); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
