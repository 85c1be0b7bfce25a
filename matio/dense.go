package matio

import (
	"bufio"
	"io"
	"math"
	"strconv"
)

// Dense is a dense matrix stored row-major: entry (i, j) is Data[i*Cols+j]. Vectors are
// n×1 and multivectors (near-null spaces, coordinates) n×k.
type Dense struct {
	Rows, Cols int       // dimensions
	Data       []float64 // len Rows*Cols, row-major
}

// readArray reads the values of a Matrix Market array file after its size line and
// returns them row-major. size is how many bytes are left, or -1 when unknown.
func readArray(lr *lineReader, h *mmHeader, size int64) (*Dense, error) {
	name := lr.file
	n := h.rows * h.cols // both < 2³¹, so this fits in int64
	if n > math.MaxInt/8 {
		return nil, lineErr(name, h.sizeLine, nil, "array %d×%d is too large", h.rows, h.cols)
	}
	// Preallocate no more than the input can hold (a value takes at least "0\n").
	capHint := min(n, 1<<16)
	if size >= 0 {
		capHint = min(n, size/2+1)
	}
	integer := h.field == "integer"
	col := make([]float64, 0, capHint) // column-major, as in the file
	var f [][]byte
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
		k := int64(len(col))
		if k == n {
			return nil, lineErr(name, lr.line, nil, "value beyond the %d×%d declared on line %d", h.rows, h.cols, h.sizeLine)
		}
		f = fields(line, f[:0])
		if len(f) != 1 {
			return nil, lineErr(name, lr.line, nil, "%d fields, expected one value per line (array format)", len(f))
		}
		v, msg := parseValue(f[0], integer)
		if msg != "" {
			return nil, lineErr(name, lr.line, nil, "value (%d, %d): %s", k%h.rows+1, k/h.rows+1, msg)
		}
		if lr.unterminated {
			return nil, lineErr(name, lr.line, nil, "last value has no terminating newline: the file looks truncated")
		}
		col = append(col, v)
	}
	if int64(len(col)) != n {
		return nil, lineErr(name, lr.line+1, nil, "unexpected end of file after %d of the %d×%d = %d values declared on line %d",
			len(col), h.rows, h.cols, n, h.sizeLine)
	}
	d := &Dense{Rows: int(h.rows), Cols: int(h.cols), Data: make([]float64, n)}
	if n == 0 {
		// 0×2³¹ holds nothing: do not loop over the empty columns.
		return d, nil
	}
	for j := 0; j < d.Cols; j++ {
		for i := 0; i < d.Rows; i++ {
			d.Data[i*d.Cols+j] = col[j*d.Rows+i]
		}
	}
	return d, nil
}

// WriteDense writes d as a Matrix Market "array real general" file (column-major, as the
// format requires) with 17 significant digits, so that reading it back is bit-exact.
// A non-finite value is an error.
func WriteDense(w io.Writer, d *Dense) error {
	if d.Rows < 0 || d.Cols < 0 || len(d.Data) != d.Rows*d.Cols {
		panic("matio: Dense data length does not match its dimensions")
	}
	bw := bufio.NewWriterSize(w, writeBuf)
	buf := make([]byte, 0, 64)
	buf = append(buf, "%%MatrixMarket matrix array real general\n"...)
	buf = strconv.AppendInt(buf, int64(d.Rows), 10)
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, int64(d.Cols), 10)
	buf = append(buf, '\n')
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	for j := 0; j < d.Cols && d.Rows > 0; j++ {
		for i := 0; i < d.Rows; i++ {
			v := d.Data[i*d.Cols+j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return errNonFinite(i, j, v)
			}
			buf = strconv.AppendFloat(buf[:0], v, 'e', 16, 64)
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
