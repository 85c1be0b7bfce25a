package matio

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/blockamg/blockamg/bsr"
)

// errNonFinite is returned by writers for a NaN or Inf value: no reader accepts it.
func errNonFinite(i, j int, v float64) error {
	return fmt.Errorf("matio: value %v at (%d, %d) (0-based) is not finite; refusing to write it", v, i, j)
}

// WriteMatrixMarket writes m as a Matrix Market "coordinate real general" file: every
// stored block entry, explicit zeros included, in row order, values with 17 significant
// digits. Reading it back with block size m.R (when m.R == m.C) reproduces m bit for
// bit. A non-finite value is an error.
func WriteMatrixMarket(w io.Writer, m *bsr.Matrix) error {
	r, c := m.R, m.C
	bw := bufio.NewWriterSize(w, writeBuf)
	buf := make([]byte, 0, 128)
	buf = append(buf, "%%MatrixMarket matrix coordinate real general\n"...)
	buf = fmt.Appendf(buf, "%% blockamg BSR: %dx%d blocks of %dx%d, %d stored blocks\n", m.BlockRows, m.BlockCols, r, c, m.NNZBlocks())
	buf = fmt.Appendf(buf, "%d %d %d\n", m.Rows(), m.Cols(), m.NNZBlocks()*int64(r*c))
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	rc := int64(r * c)
	rowTxt := make([]byte, 0, 24)
	for bi := 0; bi < m.BlockRows; bi++ {
		lo, hi := m.RowPtr[bi], m.RowPtr[bi+1]
		for ii := 0; ii < r; ii++ {
			row := bi*r + ii
			// The row number is the same for the whole scalar row: format it once.
			rowTxt = strconv.AppendInt(rowTxt[:0], int64(row+1), 10)
			for k := lo; k < hi; k++ {
				col0 := int(m.ColIdx[k]) * c
				vals := m.Val[k*rc+int64(ii*c):][:c]
				for jj, v := range vals {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						return errNonFinite(row, col0+jj, v)
					}
					buf = append(buf[:0], rowTxt...)
					buf = append(buf, ' ')
					buf = strconv.AppendInt(buf, int64(col0+jj+1), 10)
					buf = append(buf, ' ')
					buf = strconv.AppendFloat(buf, v, 'e', 16, 64)
					buf = append(buf, '\n')
					if _, err := bw.Write(buf); err != nil {
						return err
					}
				}
			}
		}
	}
	return bw.Flush()
}
