package matio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/readsize"
)

// PETSc binary class ids (petscsys.h: MAT_FILE_CLASSID, VEC_FILE_CLASSID). Files are
// big-endian with 32-bit PetscInt; 64-bit-index PETSc builds write a different header
// that these readers reject by its class id.
const (
	petscMatClassID = 1211216
	petscVecClassID = 1211214
)

// binReader reads big-endian arrays in chunks and keeps the byte offset for messages.
type binReader struct {
	r    io.Reader
	name string
	off  int64
	buf  []byte
}

// newBinReader reads from r, whose size is size bytes or -1.
func newBinReader(r io.Reader, name string, size int64) *binReader {
	br := bufio.NewReaderSize(r, bufFor(size))
	// As large as the bufio.Reader, so that it hands reads straight through instead of
	// copying them.
	return &binReader{r: br, name: name, buf: make([]byte, br.Size())}
}

// full fills p or explains where the data ran out and what was being read.
func (b *binReader) full(p []byte, what func() string) error {
	n, err := io.ReadFull(b.r, p)
	b.off += int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return byteErr(b.name, b.off, io.ErrUnexpectedEOF, "file truncated inside %s", what())
		}
		return byteErr(b.name, b.off, err, "read failed inside %s", what())
	}
	return nil
}

// readWords reads n big-endian words of width bytes each, decoding every chunk with
// decode (a whole chunk per call, so the per-word loop stays inside decode). With
// prealloc the destination is allocated at once (the caller checked that the input
// holds them); otherwise it grows chunk by chunk so that a lying header cannot make it
// allocate more than the input delivers.
func readWords[T int32 | float64](b *binReader, n int64, width int, prealloc bool, what func() string, decode func(out []T, p []byte)) ([]T, error) {
	var dst []T
	if prealloc {
		dst = make([]T, 0, n)
	}
	for rem := n; rem > 0; {
		m := min(rem, int64(len(b.buf)/width))
		p := b.buf[:int64(width)*m]
		if err := b.full(p, what); err != nil {
			return nil, err
		}
		old := len(dst)
		dst = slices.Grow(dst, int(m))[:old+int(m)]
		decode(dst[old:], p)
		rem -= m
	}
	return dst, nil
}

// int32s reads n big-endian int32 values (see readWords).
func (b *binReader) int32s(n int64, prealloc bool, what func() string) ([]int32, error) {
	return readWords(b, n, 4, prealloc, what, func(out []int32, p []byte) {
		for k := range out {
			out[k] = int32(binary.BigEndian.Uint32(p[4*k:]))
		}
	})
}

// float64s reads n big-endian float64 values (see readWords).
func (b *binReader) float64s(n int64, prealloc bool, what func() string) ([]float64, error) {
	return readWords(b, n, 8, prealloc, what, func(out []float64, p []byte) {
		for k := range out {
			out[k] = math.Float64frombits(binary.BigEndian.Uint64(p[8*k:]))
		}
	})
}

// header reads n int32 header words.
func (b *binReader) header(n int, what string) ([]int32, error) {
	return b.int32s(int64(n), true, func() string { return what })
}

func classMismatch(name string, got int32, want int32) error {
	kind := map[int32]string{petscMatClassID: "a PETSc Mat", petscVecClassID: "a PETSc Vec"}
	msg := "class id %d, expected %d (%s)"
	if k, ok := kind[got]; ok {
		return byteErr(name, 0, nil, msg+": this file holds %s", got, want, kind[want], k)
	}
	return byteErr(name, 0, nil, msg+": not a PETSc binary file of that kind", got, want, kind[want])
}

// ReadPETScMat reads a PETSc binary Mat (AIJ layout: header, row lengths, column indices,
// values) and groups it into blockSize×blockSize blocks (0 means 1; use ReadMatrix to
// take the block size from the FILE.info companion). name is used in error messages.
// Partly filled blocks are completed with explicit zeros. Data after the Mat (PETSc files
// may hold several objects) is not read.
func ReadPETScMat(r io.Reader, name string, blockSize int) (*bsr.Matrix, error) {
	return readPETScMat(r, name, blockSize, readsize.Remaining(r))
}

func readPETScMat(r io.Reader, name string, blockSize int, size int64) (*bsr.Matrix, error) {
	b := newBinReader(r, name, size)
	h, err := b.header(4, "the Mat header (class id, rows, columns, nonzeros)")
	if err != nil {
		return nil, err
	}
	if h[0] != petscMatClassID {
		return nil, classMismatch(name, h[0], petscMatClassID)
	}
	rows, cols, nz := int64(h[1]), int64(h[2]), int64(h[3])
	if rows < 0 || cols < 0 {
		off := int64(4) // the first negative one: rows at byte 4, columns at byte 8
		if rows >= 0 {
			off = 8
		}
		return nil, byteErr(name, off, nil, "negative dimensions %d×%d in the header", rows, cols)
	}
	if nz == -1 {
		return nil, byteErr(name, 12, nil, "dense PETSc Mat format (nonzeros = -1) not supported, expected an AIJ Mat")
	}
	if nz < 0 {
		return nil, byteErr(name, 12, nil, "negative nonzero count %d in the header", nz)
	}
	need := 16 + 4*rows + 12*nz
	if size >= 0 && size < need {
		return nil, byteErr(name, 0, io.ErrUnexpectedEOF, "file truncated: the header declares %d×%d with %d nonzeros, which needs %d bytes, but the file has %d",
			rows, cols, nz, need, size)
	}
	known := size >= 0
	if msg := sparseDimsMsg(rows, cols, nz, false); msg != "" {
		return nil, byteErr(name, 8, nil, "%s", msg)
	}
	bs, err := checkBlockSize(name, 0, blockSize, rows, cols)
	if err != nil {
		return nil, err
	}

	lenOff := b.off
	lens, err := b.int32s(rows, known, func() string { return "the row lengths" })
	if err != nil {
		return nil, err
	}
	a := &bsr.CSR{Rows: int(rows), Cols: int(cols), RowPtr: make([]int64, rows+1)}
	for i, n := range lens {
		if n < 0 || int64(n) > cols {
			return nil, byteErr(name, lenOff+4*int64(i), nil, "row %d has length %d, expected 0…%d", i, n, cols)
		}
		a.RowPtr[i+1] = a.RowPtr[i] + int64(n)
	}
	lens = nil
	if a.RowPtr[rows] != nz {
		return nil, byteErr(name, lenOff, nil, "row lengths sum to %d, but the header (byte 12) declares %d nonzeros", a.RowPtr[rows], nz)
	}

	colOff := b.off
	a.ColIdx, err = b.int32s(nz, known, func() string { return "the column indices" })
	if err != nil {
		return nil, err
	}
	valOff := b.off
	a.Val, err = b.float64s(nz, known, func() string { return "the values" })
	if err != nil {
		return nil, err
	}
	for k, v := range a.Val {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, byteErr(name, valOff+8*int64(k), nil, "value %v is not finite", v)
		}
	}
	for i := 0; i < int(rows); i++ {
		lo, hi := a.RowPtr[i], a.RowPtr[i+1]
		for k := lo; k < hi; k++ {
			if c := a.ColIdx[k]; c < 0 || int64(c) >= cols {
				return nil, byteErr(name, colOff+4*k, nil, "row %d: column index %d out of range, expected 0…%d", i, c, cols-1)
			}
		}
		// PETSc writes sorted rows; sort anyway, but two entries in one place are an error.
		if c, dup := sortRow(a.ColIdx[lo:hi], a.Val[lo:hi]); dup {
			return nil, byteErr(name, colOff+4*lo, nil, "row %d: column %d given twice (this row's column indices start here)", i, c)
		}
	}
	return blockCSR(name, a, bs)
}

// WritePETScMat writes m as a PETSc binary AIJ Mat (big-endian, 32-bit indices): every
// stored block entry, explicit zeros included. It does not write the .info companion;
// WriteMatrix does. A matrix with more than 2³¹-1 scalar entries or a non-finite value
// is an error.
func WritePETScMat(w io.Writer, m *bsr.Matrix) error {
	r, c := m.R, m.C
	rc := int64(r * c)
	nz := m.NNZBlocks() * rc
	if nz > math.MaxInt32 || m.Rows() > math.MaxInt32 || m.Cols() > math.MaxInt32 {
		return errors.New("matio: matrix too large for the 32-bit PETSc binary format")
	}
	// Values go last in the file: check them all before writing anything.
	for k, v := range m.Val {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("matio: stored value %d (%v) is not finite; refusing to write it", k, v)
		}
	}
	bw := bufio.NewWriterSize(w, writeBuf)
	var word [8]byte
	put32 := func(x int32) {
		binary.BigEndian.PutUint32(word[:4], uint32(x))
		bw.Write(word[:4]) // errors are sticky in bufio.Writer and surface at Flush
	}
	put32(petscMatClassID)
	put32(int32(m.Rows()))
	put32(int32(m.Cols()))
	put32(int32(nz))
	for i := 0; i < m.BlockRows; i++ {
		n := int32((m.RowPtr[i+1] - m.RowPtr[i]) * int64(c))
		for ii := 0; ii < r; ii++ {
			put32(n)
		}
	}
	for i := 0; i < m.BlockRows; i++ {
		lo, hi := m.RowPtr[i], m.RowPtr[i+1]
		for ii := 0; ii < r; ii++ {
			for k := lo; k < hi; k++ {
				col0 := m.ColIdx[k] * int32(c)
				for jj := 0; jj < c; jj++ {
					put32(col0 + int32(jj))
				}
			}
		}
	}
	for i := 0; i < m.BlockRows; i++ {
		lo, hi := m.RowPtr[i], m.RowPtr[i+1]
		for ii := 0; ii < r; ii++ {
			for k := lo; k < hi; k++ {
				for _, v := range m.Val[k*rc+int64(ii*c):][:c] {
					binary.BigEndian.PutUint64(word[:], math.Float64bits(v))
					bw.Write(word[:])
				}
			}
		}
	}
	return bw.Flush()
}

// ReadPETScVec reads a PETSc binary Vec. name is used in error messages.
func ReadPETScVec(r io.Reader, name string) ([]float64, error) {
	return readPETScVec(r, name, readsize.Remaining(r))
}

func readPETScVec(r io.Reader, name string, size int64) ([]float64, error) {
	b := newBinReader(r, name, size)
	h, err := b.header(2, "the Vec header (class id, length)")
	if err != nil {
		return nil, err
	}
	if h[0] != petscVecClassID {
		return nil, classMismatch(name, h[0], petscVecClassID)
	}
	n := int64(h[1])
	if n < 0 {
		return nil, byteErr(name, 4, nil, "negative Vec length %d", n)
	}
	if need := 8 + 8*n; size >= 0 && size < need {
		return nil, byteErr(name, 0, io.ErrUnexpectedEOF, "file truncated: the header declares %d values, which need %d bytes, but the file has %d", n, need, size)
	}
	valOff := b.off
	v, err := b.float64s(n, size >= 0, func() string { return "the Vec values" })
	if err != nil {
		return nil, err
	}
	for k, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, byteErr(name, valOff+8*int64(k), nil, "value %v is not finite", x)
		}
	}
	return v, nil
}

// WritePETScVec writes v as a PETSc binary Vec. A non-finite value is an error.
func WritePETScVec(w io.Writer, v []float64) error {
	if len(v) > math.MaxInt32 {
		return errors.New("matio: vector too long for the 32-bit PETSc binary format")
	}
	bw := bufio.NewWriterSize(w, writeBuf)
	var word [8]byte
	binary.BigEndian.PutUint32(word[:4], petscVecClassID)
	binary.BigEndian.PutUint32(word[4:], uint32(len(v)))
	bw.Write(word[:])
	for k, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return errNonFinite(k, 0, x)
		}
		binary.BigEndian.PutUint64(word[:], math.Float64bits(x))
		bw.Write(word[:])
	}
	return bw.Flush()
}
