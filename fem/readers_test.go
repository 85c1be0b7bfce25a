package fem

// Small private readers for the reference files in ../../shared/data, kept in the test
// so that this package's tests depend on no other package's file parsing.

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const sharedData = "../../shared/data"

// dataPath returns the path of a shared reference file, skipping the test when it is
// absent.
func dataPath(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(sharedData, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("reference file %s absent (shared data not mounted)", p)
	}
	return p
}

// csrRef is a scalar matrix read from a reference file.
type csrRef struct {
	rows, cols int
	ptr        []int
	col        []int
	val        []float64
}

// readPETScMat reads a PETSc binary AIJ matrix (big-endian: classid 1211216, M, N, nz,
// row lengths, columns, values).
func readPETScMat(path string) (*csrRef, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var hdr [4]int32
	if err := binary.Read(r, binary.BigEndian, &hdr); err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	if hdr[0] != 1211216 {
		return nil, fmt.Errorf("%s: class id %d, want 1211216 (Mat)", path, hdr[0])
	}
	m := &csrRef{rows: int(hdr[1]), cols: int(hdr[2])}
	lens := make([]int32, m.rows)
	cols := make([]int32, hdr[3])
	m.val = make([]float64, hdr[3])
	for _, x := range []any{lens, cols, m.val} {
		if err := binary.Read(r, binary.BigEndian, x); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	m.ptr = make([]int, m.rows+1)
	for i, l := range lens {
		m.ptr[i+1] = m.ptr[i] + int(l)
	}
	m.col = make([]int, len(cols))
	for i, c := range cols {
		m.col[i] = int(c)
	}
	if m.ptr[m.rows] != len(cols) {
		return nil, fmt.Errorf("%s: row lengths sum to %d, header says %d", path, m.ptr[m.rows], len(cols))
	}
	return m, nil
}

// readPETScVec reads a PETSc binary Vec (classid 1211214, n, values).
func readPETScVec(path string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var hdr [2]int32
	if err := binary.Read(f, binary.BigEndian, &hdr); err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	if hdr[0] != 1211214 {
		return nil, fmt.Errorf("%s: class id %d, want 1211214 (Vec)", path, hdr[0])
	}
	v := make([]float64, hdr[1])
	if err := binary.Read(f, binary.BigEndian, v); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// readMTX reads a Matrix Market file. An array file comes back as a dense row-major
// rows×cols slice (dense != nil); a coordinate file as a CSR matrix (symmetric files
// expanded), duplicates summed.
func readMTX(path string) (dense []float64, rows, cols int, m *csrRef, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 0, nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	head, err := r.ReadString('\n')
	if err != nil {
		return nil, 0, 0, nil, fmt.Errorf("%s: %w", path, err)
	}
	h := strings.Fields(strings.ToLower(head))
	if len(h) != 5 || h[0] != "%%matrixmarket" || h[1] != "matrix" || h[3] != "real" {
		return nil, 0, 0, nil, fmt.Errorf("%s: unsupported header %q", path, head)
	}
	array, symmetric := h[2] == "array", h[4] == "symmetric"
	var nums []float64
	sizeLine := true
	var nnz int
	for {
		line, err := r.ReadString('\n')
		s := strings.TrimSpace(line)
		if s != "" && s[0] != '%' {
			for _, fld := range strings.Fields(s) {
				x, perr := strconv.ParseFloat(fld, 64)
				if perr != nil {
					return nil, 0, 0, nil, fmt.Errorf("%s: %q: %w", path, fld, perr)
				}
				if sizeLine {
					continue
				}
				nums = append(nums, x)
			}
			if sizeLine {
				fs := strings.Fields(s)
				rows, _ = strconv.Atoi(fs[0])
				cols, _ = strconv.Atoi(fs[1])
				if !array {
					nnz, _ = strconv.Atoi(fs[2])
				}
				sizeLine = false
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, 0, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if array {
		if len(nums) != rows*cols {
			return nil, 0, 0, nil, fmt.Errorf("%s: %d values for %d×%d", path, len(nums), rows, cols)
		}
		dense = make([]float64, rows*cols)
		for c := 0; c < cols; c++ { // Matrix Market arrays are column-major
			for i := 0; i < rows; i++ {
				dense[i*cols+c] = nums[c*rows+i]
			}
		}
		return dense, rows, cols, nil, nil
	}
	if len(nums) != 3*nnz {
		return nil, 0, 0, nil, fmt.Errorf("%s: %d numbers for %d entries", path, len(nums), nnz)
	}
	rowsOf := make([]map[int]float64, rows)
	add := func(i, j int, v float64) {
		if rowsOf[i] == nil {
			rowsOf[i] = map[int]float64{}
		}
		rowsOf[i][j] += v
	}
	for e := 0; e < nnz; e++ {
		i, j, v := int(nums[3*e])-1, int(nums[3*e+1])-1, nums[3*e+2]
		add(i, j, v)
		if symmetric && i != j {
			add(j, i, v)
		}
	}
	m = &csrRef{rows: rows, cols: cols, ptr: make([]int, rows+1)}
	for i, row := range rowsOf {
		for j := 0; j < cols; j++ { // small files: a column sweep keeps columns sorted
			if v, ok := row[j]; ok {
				m.col = append(m.col, j)
				m.val = append(m.val, v)
			}
		}
		m.ptr[i+1] = len(m.col)
	}
	return nil, rows, cols, m, nil
}

func frob(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}
