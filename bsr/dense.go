package bsr

// ToDense returns m as a dense row-major Rows()×Cols() array. It is meant for tests and
// debugging on small matrices: the result has Rows()*Cols() entries whatever the
// sparsity.
func (m *Matrix) ToDense() []float64 {
	rows, cols := m.Rows(), m.Cols()
	r, c := m.R, m.C
	d := make([]float64, rows*cols)
	for i := 0; i < m.BlockRows; i++ {
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			b := m.Block(k)
			j := int(m.ColIdx[k]) * c
			for ii := 0; ii < r; ii++ {
				copy(d[(i*r+ii)*cols+j:][:c], b[ii*c:(ii+1)*c])
			}
		}
	}
	return d
}
