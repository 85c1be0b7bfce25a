package matio

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/readsize"
)

// Matrix Market symmetry kinds.
const (
	symGeneral = iota
	symSymmetric
	symSkew
)

// mmHeader is what the banner and the size line of a Matrix Market file say.
type mmHeader struct {
	coordinate bool // "coordinate"; false for "array"
	field      string
	symmetry   int
	rows, cols int64
	nnz        int64 // declared entries (coordinate); rows*cols for array
	sizeLine   int   // line number of the size line, for messages
}

// readMMHeader reads the banner, the comments and the size line.
func readMMHeader(lr *lineReader) (*mmHeader, error) {
	name := lr.file
	line, err := lr.next()
	if err == io.EOF {
		return nil, lineErr(name, 1, nil, "empty file, expected a %q banner", "%%MatrixMarket")
	}
	if err != nil {
		return nil, err
	}
	f := fields(line, nil)
	if len(f) == 0 || !bytes.EqualFold(f[0], []byte("%%MatrixMarket")) {
		return nil, lineErr(name, 1, nil, "expected a %q banner, got %q", "%%MatrixMarket", clip(line))
	}
	if len(f) != 5 {
		return nil, lineErr(name, 1, nil, "banner has %d words, expected 5: %%%%MatrixMarket matrix FORMAT FIELD SYMMETRY", len(f))
	}
	h := &mmHeader{}
	if !bytes.EqualFold(f[1], []byte("matrix")) {
		return nil, lineErr(name, 1, nil, "object %q not supported, expected \"matrix\"", f[1])
	}
	switch string(bytes.ToLower(f[2])) {
	case "coordinate":
		h.coordinate = true
	case "array":
	default:
		return nil, lineErr(name, 1, nil, "format %q not supported, expected \"coordinate\" or \"array\"", f[2])
	}
	h.field = string(bytes.ToLower(f[3]))
	switch h.field {
	case "real", "double", "integer":
	case "pattern":
		if !h.coordinate {
			return nil, lineErr(name, 1, nil, "field \"pattern\" is only valid with \"coordinate\"")
		}
	default:
		return nil, lineErr(name, 1, nil, "field %q not supported, expected \"real\", \"integer\" or \"pattern\"", f[3])
	}
	switch string(bytes.ToLower(f[4])) {
	case "general":
		h.symmetry = symGeneral
	case "symmetric":
		h.symmetry = symSymmetric
	case "skew-symmetric":
		h.symmetry = symSkew
	default:
		return nil, lineErr(name, 1, nil, "symmetry %q not supported, expected \"general\", \"symmetric\" or \"skew-symmetric\"", f[4])
	}
	symName := string(f[4])
	if h.field == "pattern" && h.symmetry == symSkew {
		return nil, lineErr(name, 1, nil, "field \"pattern\" with symmetry %q: a pattern cannot be skew-symmetric", symName)
	}
	if !h.coordinate && h.symmetry != symGeneral {
		return nil, lineErr(name, 1, nil, "array format with symmetry %q not supported, expected \"general\"", symName)
	}

	// Comments and blank lines, then the size line.
	for {
		line, err = lr.next()
		if err == io.EOF {
			return nil, lineErr(name, lr.line+1, nil, "unexpected end of file, expected the size line")
		}
		if err != nil {
			return nil, err
		}
		if len(line) > 0 && line[0] == '%' || blank(line) {
			continue
		}
		break
	}
	h.sizeLine = lr.line
	f = fields(line, f[:0])
	want := 2
	what := "ROWS COLS"
	if h.coordinate {
		want, what = 3, "ROWS COLS ENTRIES"
	}
	if len(f) != want {
		return nil, lineErr(name, lr.line, nil, "size line has %d numbers, expected %d (%s)", len(f), want, what)
	}
	var v [3]int64
	for k := range f {
		n, st := parseUint(f[k])
		switch st {
		case numSyntax:
			return nil, lineErr(name, lr.line, nil, "size line: %q is not a non-negative integer in decimal digits (expected %s)", clip(f[k]), what)
		case numRange:
			return nil, lineErr(name, lr.line, nil, "size line: %q is too large (expected %s, each at most %d)", clip(f[k]), what, int64(maxUint))
		}
		v[k] = n
	}
	h.rows, h.cols = v[0], v[1]
	// Column indices are int32 and so are scalar rows of the triplets.
	if h.rows > math.MaxInt32 || h.cols > math.MaxInt32 {
		return nil, lineErr(name, lr.line, nil, "dimensions %d×%d exceed the supported maximum %d", h.rows, h.cols, math.MaxInt32)
	}
	if h.coordinate {
		h.nnz = v[2]
	} else {
		h.nnz = h.rows * h.cols
	}
	if h.symmetry != symGeneral && h.rows != h.cols {
		return nil, lineErr(name, lr.line, nil, "%s matrix must be square, size line says %d×%d", symName, h.rows, h.cols)
	}
	return h, nil
}

// clip shortens b for an error message.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// triplets are the entries of a coordinate file in file order (0-based), with what is
// needed to name the line of any entry afterwards.
type triplets struct {
	i, j  []int32
	v     []float64
	first int        // line of entry 0
	jumps []lineJump // places where entries stop being on consecutive lines
}

// lineJump says that entry ord is on line.
type lineJump struct {
	ord  int64
	line int
}

// lineOf returns the line of entry k.
func (t *triplets) lineOf(k int64) int {
	n := sort.Search(len(t.jumps), func(x int) bool { return t.jumps[x].ord > k })
	if n == 0 {
		return t.first + int(k)
	}
	j := t.jumps[n-1]
	return j.line + int(k-j.ord)
}

// maxEmptyDim bounds dimensions that the entries do not account for: a matrix may have
// empty rows, but a header that declares 10⁹ rows for a handful of entries would make
// the reader allocate gigabytes of row pointers. Dimensions up to this or up to
// emptyRatio times the entry count are accepted.
const (
	maxEmptyDim = 1 << 20
	emptyRatio  = 8
)

// sparseDimsMsg explains why rows×cols is refused for nnz entries, or returns "". The
// rows are only bounded when checkRows is set (a PETSc Mat pays for its rows with a
// length word each, so only its columns need the bound); the message quotes both
// dimensions as the file gives them.
func sparseDimsMsg(rows, cols, nnz int64, checkRows bool) string {
	lim := max(int64(maxEmptyDim), emptyRatio*nnz)
	if checkRows && rows > lim || cols > lim {
		return fmt.Sprintf("dimensions %d×%d for only %d entries: more than %d empty rows or columns per entry is not supported",
			rows, cols, nnz, emptyRatio)
	}
	return ""
}

// ReadMatrixMarket reads a Matrix Market coordinate matrix (real, integer or pattern;
// general, symmetric or skew-symmetric) and groups it into blockSize×blockSize blocks
// (0 means 1). name is used in error messages. Partly filled blocks are completed with
// explicit zeros; duplicate entries are an error.
func ReadMatrixMarket(r io.Reader, name string, blockSize int) (*bsr.Matrix, error) {
	return readMatrixMarket(r, name, blockSize, readsize.Remaining(r))
}

func readMatrixMarket(r io.Reader, name string, blockSize int, size int64) (*bsr.Matrix, error) {
	lr := newLineReader(r, name, size)
	h, err := readMMHeader(lr)
	if err != nil {
		return nil, err
	}
	if !h.coordinate {
		return nil, lineErr(name, 1, nil, "array (dense) format where a sparse coordinate matrix was expected")
	}
	bs, err := checkBlockSize(name, h.sizeLine, blockSize, h.rows, h.cols)
	if err != nil {
		return nil, err
	}
	if size >= 0 {
		size -= lr.bytes
	}
	if msg := sparseDimsMsg(h.rows, h.cols, h.nnz, true); msg != "" {
		return nil, lineErr(name, h.sizeLine, nil, "%s", msg)
	}
	t, err := readCoordinate(lr, h, size)
	if err != nil {
		return nil, err
	}
	a, err := t.toCSR(name, int(h.rows), int(h.cols), h.symmetry)
	if err != nil {
		return nil, err
	}
	return blockCSR(name, a, bs)
}

// checkBlockSize resolves 0 to 1 and checks that bs divides both dimensions.
func checkBlockSize(name string, line int, bs int, rows, cols int64) (int, error) {
	if bs == 0 {
		bs = 1
	}
	if bs < 0 {
		return 0, fileErr(name, nil, "block size %d: must be positive", bs)
	}
	if rows%int64(bs) != 0 || cols%int64(bs) != 0 {
		// line is 0 for binary files, where the dimensions sit in the header.
		return 0, lineErr(name, line, nil, "block size %d does not divide the dimensions %d×%d", bs, rows, cols)
	}
	return bs, nil
}

// readCoordinate reads the entries after the size line. size is how many bytes are
// left in the input, or -1 when unknown.
func readCoordinate(lr *lineReader, h *mmHeader, size int64) (*triplets, error) {
	name := lr.file
	pattern := h.field == "pattern"
	integer := h.field == "integer"
	nf := 3
	minBytes := int64(5) // "1 1 1": the shortest real entry without a newline
	if pattern {
		nf, minBytes = 2, 3
	}
	// Never preallocate from the header alone: a 100-byte file may claim 2³¹ entries.
	// When the input size is known it bounds the entry count; otherwise grow as read.
	capHint := min(h.nnz, 1<<16)
	if size >= 0 {
		capHint = min(h.nnz, size/minBytes+1)
	}
	t := &triplets{
		i: make([]int32, 0, capHint),
		j: make([]int32, 0, capHint),
		v: make([]float64, 0, capHint),
	}
	var f [][]byte
	var k int64
	last := 0 // line of the previous entry
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(line) == 0 || line[0] == '%' || blank(line) {
			continue
		}
		if k == h.nnz {
			return nil, lineErr(name, lr.line, nil, "entry beyond the %d declared on line %d", h.nnz, h.sizeLine)
		}
		if k == 0 {
			t.first = lr.line
		} else if lr.line != last+1 {
			t.jumps = append(t.jumps, lineJump{k, lr.line})
		}
		last = lr.line
		f = fields(line, f[:0])
		if len(f) != nf {
			return nil, lineErr(name, lr.line, nil, "entry has %d fields, expected %d (%s)", len(f), nf, map[bool]string{true: "ROW COL", false: "ROW COL VALUE"}[pattern])
		}
		i, err := parseIndex(name, lr.line, f[0], "row", h.rows)
		if err != nil {
			return nil, err
		}
		j, err := parseIndex(name, lr.line, f[1], "column", h.cols)
		if err != nil {
			return nil, err
		}
		if h.symmetry == symSkew && i == j {
			return nil, lineErr(name, lr.line, nil, "diagonal entry (%d, %d) in a skew-symmetric matrix, whose diagonal must be implicit zero", i, j)
		}
		v := 1.0
		if !pattern {
			var msg string
			if v, msg = parseValue(f[2], integer); msg != "" {
				return nil, lineErr(name, lr.line, nil, "entry (%d, %d): %s", i, j, msg)
			}
		}
		if lr.unterminated {
			return nil, lineErr(name, lr.line, nil, "last entry has no terminating newline: the file looks truncated")
		}
		t.i = append(t.i, int32(i-1))
		t.j = append(t.j, int32(j-1))
		t.v = append(t.v, v)
		k++
	}
	if k != h.nnz {
		return nil, lineErr(name, lr.line+1, nil, "unexpected end of file after %d of the %d entries declared on line %d", k, h.nnz, h.sizeLine)
	}
	return t, nil
}

// parseIndex parses a 1-based row or column index (what) that must lie in [1, n].
func parseIndex(name string, line int, tok []byte, what string, n int64) (int64, error) {
	i, st := parseUint(tok)
	if st == numSyntax {
		return 0, lineErr(name, line, nil, "%s index %q is not a decimal integer (digits 0-9 only), expected an integer in [1, %d]", what, clip(tok), n)
	}
	if st == numRange || i < 1 || i > n {
		return 0, lineErr(name, line, nil, "%s index %q out of range, expected an integer in [1, %d]", what, clip(tok), n)
	}
	return i, nil
}

// toCSR sorts the triplets into a scalar CSR matrix, mirroring symmetric and
// skew-symmetric entries. Two entries for the same position are an error that names
// both lines.
func (t *triplets) toCSR(name string, rows, cols, symmetry int) (*bsr.CSR, error) {
	mirror := symmetry != symGeneral
	sign := 1.0
	if symmetry == symSkew {
		sign = -1
	}
	rowPtr := make([]int64, rows+1)
	for k, i := range t.i {
		rowPtr[i+1]++
		if mirror && t.j[k] != i {
			rowPtr[t.j[k]+1]++
		}
	}
	for r := 0; r < rows; r++ {
		rowPtr[r+1] += rowPtr[r]
	}
	nnz := rowPtr[rows]
	a := &bsr.CSR{Rows: rows, Cols: cols, RowPtr: rowPtr, ColIdx: make([]int32, nnz), Val: make([]float64, nnz)}
	next := make([]int64, rows)
	copy(next, rowPtr[:rows])
	for k, i := range t.i {
		j, v := t.j[k], t.v[k]
		p := next[i]
		a.ColIdx[p], a.Val[p] = j, v
		next[i]++
		if mirror && j != i {
			p = next[j]
			a.ColIdx[p], a.Val[p] = i, sign*v
			next[j]++
		}
	}
	next = nil
	for r := 0; r < rows; r++ {
		lo, hi := rowPtr[r], rowPtr[r+1]
		if c, dup := sortRow(a.ColIdx[lo:hi], a.Val[lo:hi]); dup {
			return nil, t.duplicate(name, int32(r), c, mirror)
		}
	}
	return a, nil
}

// duplicate builds the error for two entries at (r, c), finding their lines by a scan
// of the triplets (only on this error path).
func (t *triplets) duplicate(name string, r, c int32, mirror bool) error {
	var hits []int64
	for k := range t.i {
		i, j := t.i[k], t.j[k]
		if i == r && j == c || mirror && i == c && j == r {
			hits = append(hits, int64(k))
			if len(hits) == 2 {
				break
			}
		}
	}
	if len(hits) < 2 { // cannot happen: sortRow saw two entries there
		return fileErr(name, nil, "duplicate entry (%d, %d)", r+1, c+1)
	}
	what := ""
	if mirror {
		what = " (a symmetric file gives each off-diagonal pair once)"
	}
	return lineErr(name, t.lineOf(hits[1]), nil, "duplicate entry (%d, %d): position already given on line %d%s",
		t.i[hits[1]]+1, t.j[hits[1]]+1, t.lineOf(hits[0]), what)
}

// sortRow sorts one row's columns, carrying the values, and reports the first column
// that occurs twice. Rows from files are nearly always sorted already, so it checks
// first.
func sortRow(col []int32, val []float64) (int32, bool) {
	sorted := true
	for k := 1; k < len(col); k++ {
		if col[k] <= col[k-1] {
			sorted = false
			break
		}
	}
	if sorted {
		return 0, false
	}
	if len(col) <= 32 {
		for k := 1; k < len(col); k++ {
			c, v := col[k], val[k]
			m := k
			for m > 0 && col[m-1] > c {
				col[m], val[m] = col[m-1], val[m-1]
				m--
			}
			col[m], val[m] = c, v
		}
	} else {
		sortPairs(col, val)
	}
	for k := 1; k < len(col); k++ {
		if col[k] == col[k-1] {
			return col[k], true
		}
	}
	return 0, false
}
