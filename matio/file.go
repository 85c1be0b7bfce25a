package matio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/readsize"
)

// kind is what the first bytes of a file say it is.
type kind int

const (
	kindUnknown kind = iota
	kindMatrixMarket
	kindPETScMat
	kindPETScVec
)

// sniff looks at the first four bytes without consuming them.
func sniff(br *bufio.Reader) kind {
	p, _ := br.Peek(4)
	if len(p) < 4 {
		return kindUnknown
	}
	if bytes.EqualFold(p, []byte("%%Ma")) {
		return kindMatrixMarket
	}
	switch binary.BigEndian.Uint32(p) {
	case petscMatClassID:
		return kindPETScMat
	case petscVecClassID:
		return kindPETScVec
	}
	return kindUnknown
}

// unknownFormat explains why the first bytes of name are neither format: a read error,
// an empty file, a comment line where the Matrix Market banner should be, or anything
// else; expected names what the caller can read (e.g. "a PETSc Mat class id").
func unknownFormat(br *bufio.Reader, name, expected string) error {
	p, err := br.Peek(4)
	switch {
	case err != nil && !errors.Is(err, io.EOF):
		return fileErr(name, err, "read failed")
	case len(p) == 0:
		return fileErr(name, nil, "empty file, expected a Matrix Market banner or %s", expected)
	case p[0] == '%':
		return lineErr(name, 1, nil, "first line is not the Matrix Market banner (\"%%%%MatrixMarket matrix ...\")")
	}
	return byteErr(name, 0, nil, "neither a Matrix Market banner nor %s in the first 4 bytes", expected)
}

// isMatrixMarket reports whether path names a Matrix Market file by its extension.
func isMatrixMarket(path string) bool {
	return strings.EqualFold(filepath.Ext(path), ".mtx")
}

// openSized opens path for buffered reading and returns its size.
func openSized(path string) (*os.File, *bufio.Reader, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, 0, err
	}
	size := int64(-1)
	if st, err := f.Stat(); err == nil {
		if st.IsDir() {
			f.Close()
			return nil, nil, 0, fileErr(path, nil, "is a directory, expected a file")
		}
		if st.Mode().IsRegular() {
			size = st.Size()
		}
	}
	return f, bufio.NewReaderSize(f, bufFor(size)), size, nil
}

// ReadMatrix reads a sparse matrix from a Matrix Market or PETSc binary file, told apart
// by the first four bytes ("%%MatrixMarket" banner or the PETSc Mat class id), and groups
// it into blockSize×blockSize blocks. blockSize 0 means: for PETSc files the
// -matload_block_size of the FILE.info companion when there is one, otherwise 1.
func ReadMatrix(path string, blockSize int) (*bsr.Matrix, error) {
	f, br, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	switch sniff(br) {
	case kindMatrixMarket:
		return readMatrixMarket(br, path, blockSize, size)
	case kindPETScMat:
		if blockSize == 0 {
			bs, _, err := ReadInfo(path + ".info")
			if err != nil {
				return nil, err
			}
			blockSize = bs
		}
		return readPETScMat(br, path, blockSize, size)
	case kindPETScVec:
		return nil, byteErr(path, 0, nil, "this is a PETSc Vec, expected a Mat (read it as a vector)")
	}
	return nil, unknownFormat(br, path, fmt.Sprintf("a PETSc Mat class id (%d)", petscMatClassID))
}

// ReadDense reads a dense matrix or vector: a Matrix Market array file (any shape) or a
// PETSc binary Vec (as n×1).
func ReadDense(path string) (*Dense, error) {
	f, br, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readDense(br, path, size)
}

// ReadDenseFrom is ReadDense for a reader; name is used in error messages.
func ReadDenseFrom(r io.Reader, name string) (*Dense, error) {
	size := readsize.Remaining(r)
	return readDense(bufio.NewReaderSize(r, bufFor(size)), name, size)
}

func readDense(br *bufio.Reader, name string, size int64) (*Dense, error) {
	switch sniff(br) {
	case kindMatrixMarket:
		lr := newLineReader(br, name, size)
		h, err := readMMHeader(lr)
		if err != nil {
			return nil, err
		}
		if h.coordinate {
			return nil, lineErr(name, 1, nil, "coordinate (sparse) format where a dense array was expected")
		}
		if size >= 0 {
			size -= lr.bytes
		}
		return readArray(lr, h, size)
	case kindPETScVec:
		v, err := readPETScVec(br, name, size)
		if err != nil {
			return nil, err
		}
		return &Dense{Rows: len(v), Cols: 1, Data: v}, nil
	case kindPETScMat:
		return nil, byteErr(name, 0, nil, "this is a PETSc Mat, expected a Vec or a Matrix Market array")
	}
	return nil, unknownFormat(br, name, fmt.Sprintf("a PETSc Vec class id (%d)", petscVecClassID))
}

// ReadInfo reads the -matload_block_size option of a PETSc .info file (any prefix, as
// in -prefix_matload_block_size). It returns 1, false, nil when the file does not exist
// or does not set the option; other lines are ignored, as PETSc does.
func ReadInfo(path string) (blockSize int, found bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 1, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	blockSize = 1
	for n, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasSuffix(f[0], "matload_block_size") || !strings.HasPrefix(f[0], "-") {
			continue
		}
		if len(f) != 2 {
			return 0, false, lineErr(path, n+1, nil, "expected \"%s N\"", f[0])
		}
		// Decimal only, as PETSc parses it (strtol, base 10): no "0x3" or "3_0".
		bs, err := strconv.Atoi(f[1])
		if !isDecimalInt([]byte(f[1])) || bs < 1 || err == nil && bs > math.MaxInt32 {
			return 0, false, lineErr(path, n+1, nil, "block size %q: expected a positive integer in decimal digits (at most %d)", f[1], math.MaxInt32)
		}
		if err != nil {
			return 0, false, lineErr(path, n+1, nil, "block size %q: out of range, expected a positive integer in decimal digits (at most %d)", f[1], math.MaxInt32)
		}
		blockSize, found = bs, true
	}
	return blockSize, found, nil
}

// WriteMatrix writes m to path, as Matrix Market for a .mtx extension and as a PETSc
// binary Mat otherwise. For PETSc it also writes path.info with -matload_block_size when
// the blocks are square and larger than 1×1, and removes a stale path.info otherwise, so
// that ReadMatrix(path, 0) comes back with the block size that was written.
func WriteMatrix(path string, m *bsr.Matrix) error {
	if isMatrixMarket(path) {
		return writeFile(path, func(w io.Writer) error { return WriteMatrixMarket(w, m) })
	}
	if err := writeFile(path, func(w io.Writer) error { return WritePETScMat(w, m) }); err != nil {
		return err
	}
	info := path + ".info"
	if m.R == m.C && m.R > 1 {
		return os.WriteFile(info, fmt.Appendf(nil, "-matload_block_size %d\n", m.R), 0o644)
	}
	if err := os.Remove(info); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// WriteVector writes v to path, as a Matrix Market n×1 array for a .mtx extension and
// as a PETSc binary Vec otherwise.
func WriteVector(path string, v []float64) error {
	if isMatrixMarket(path) {
		return writeFile(path, func(w io.Writer) error { return WriteDense(w, &Dense{Rows: len(v), Cols: 1, Data: v}) })
	}
	return writeFile(path, func(w io.Writer) error { return WritePETScVec(w, v) })
}

// writeFile creates path, lets write fill it and reports the first error, close included.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
