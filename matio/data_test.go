package matio

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// dataDir holds the project's external test matrices (see its README.md).
const dataDir = "../../shared/data"

func needData(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(dataDir); err != nil {
		t.Skip("shared test data not present at " + dataDir)
	}
}

// sparseBlockSize is the node block size of the sparse matrices in the shared data.
var sparseBlockSize = map[string]int{
	"hypre_beam_hex_459/A.mtx": 3,
	"hypre_beam_tet_459/A.mtx": 3,
	"hypre_elast2d/A.mtx":      2,
	"pyamg_bar/A.mtx":          3,
	"petsc_ex56/A_ne9.mtx":     3,
	"petsc_ex56/A_ne9.petsc":   3,
	"petsc_ex56/A_ne11.petsc":  3,
}

// naiveMM is a reference Matrix Market parser written for clarity, not speed: it
// returns the header words, the dimensions and, for coordinate files, the entries
// (mirrored for symmetric files) keyed by position; for arrays, the column-major values.
func naiveMM(t *testing.T, path string) (hdr []string, rows, cols int, entries map[[2]int]float64, array []float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	sc.Scan()
	hdr = strings.Fields(strings.ToLower(sc.Text()))
	sized := false
	entries = map[[2]int]float64{}
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "%") || strings.TrimSpace(line) == "" {
			continue
		}
		w := strings.Fields(line)
		if !sized {
			rows, _ = strconv.Atoi(w[0])
			cols, _ = strconv.Atoi(w[1])
			sized = true
			continue
		}
		if hdr[2] == "array" {
			v, err := strconv.ParseFloat(w[0], 64)
			if err != nil {
				t.Fatal(err)
			}
			array = append(array, v)
			continue
		}
		i, _ := strconv.Atoi(w[0])
		j, _ := strconv.Atoi(w[1])
		v, err := strconv.ParseFloat(w[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		entries[[2]int{i - 1, j - 1}] = v
		if hdr[4] == "symmetric" {
			entries[[2]int{j - 1, i - 1}] = v
		}
	}
	return hdr, rows, cols, entries, array
}

// checkAgainst checks that m holds exactly the entries (bitwise) and zeros elsewhere.
func checkAgainst(t *testing.T, name string, m *bsr.Matrix, entries map[[2]int]float64) {
	t.Helper()
	seen := 0
	for bi := 0; bi < m.BlockRows; bi++ {
		for k := m.RowPtr[bi]; k < m.RowPtr[bi+1]; k++ {
			blk := m.Block(k)
			for ii := 0; ii < m.R; ii++ {
				for jj := 0; jj < m.C; jj++ {
					pos := [2]int{bi*m.R + ii, int(m.ColIdx[k])*m.C + jj}
					v := blk[ii*m.C+jj]
					want, ok := entries[pos]
					if ok {
						seen++
					}
					if math.Float64bits(v) != math.Float64bits(want) {
						t.Fatalf("%s: entry (%d, %d) = %v, file says %v (present %v)", name, pos[0]+1, pos[1]+1, v, want, ok)
					}
				}
			}
		}
	}
	if seen != len(entries) {
		t.Errorf("%s: %d of the file's %d entries are stored", name, seen, len(entries))
	}
}

func TestSharedDataMatrices(t *testing.T) {
	needData(t)
	for rel, bs := range sparseBlockSize {
		path := filepath.Join(dataDir, rel)
		m, err := ReadMatrix(path, bs)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		if err := m.Validate(); err != nil {
			t.Errorf("%s: %v", rel, err)
		}
		if m.R != bs || m.C != bs {
			t.Errorf("%s: %d×%d blocks, want %d×%d", rel, m.R, m.C, bs, bs)
		}
		if strings.HasSuffix(rel, ".mtx") {
			_, rows, cols, entries, _ := naiveMM(t, path)
			if m.Rows() != rows || m.Cols() != cols {
				t.Errorf("%s: %d×%d, file says %d×%d", rel, m.Rows(), m.Cols(), rows, cols)
			}
			checkAgainst(t, rel, m, entries)
		}
		if got := roundTripMM(t, m); !identical(got, m) {
			t.Errorf("%s: Matrix Market round trip is not bit-exact", rel)
		}
		if got := roundTripPETSc(t, m); !identical(got, m) {
			t.Errorf("%s: PETSc round trip is not bit-exact", rel)
		}
		// Through files too, where PETSc carries the block size in .info.
		dir := t.TempDir()
		for _, out := range []string{"m.mtx", "m.petsc"} {
			p := filepath.Join(dir, out)
			if err := WriteMatrix(p, m); err != nil {
				t.Fatal(err)
			}
			rbs := 0
			if out == "m.mtx" {
				rbs = bs
			}
			if got, err := ReadMatrix(p, rbs); err != nil || !identical(got, m) {
				t.Errorf("%s → %s: not bit-exact (%v)", rel, out, err)
			}
		}
	}
}

// TestSharedPETScEqualsMTX: PETSc's binary dump and the Matrix Market file of ex56 are
// the same matrix, bit for bit, pattern included.
func TestSharedPETScEqualsMTX(t *testing.T) {
	needData(t)
	a, err := ReadMatrix(filepath.Join(dataDir, "petsc_ex56/A_ne9.petsc"), 3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadMatrix(filepath.Join(dataDir, "petsc_ex56/A_ne9.mtx"), 3)
	if err != nil {
		t.Fatal(err)
	}
	if a.Rows() != 3000 || a.NNZBlocks()*9 != 197568 {
		t.Errorf("A_ne9.petsc: %d rows, %d scalar entries; README says 3000 and 197,568", a.Rows(), a.NNZBlocks()*9)
	}
	if !identical(a, b) {
		t.Error("A_ne9.petsc and A_ne9.mtx differ")
	}
	c, err := ReadMatrix(filepath.Join(dataDir, "petsc_ex56/A_ne11.petsc"), 3)
	if err != nil {
		t.Fatal(err)
	}
	if c.Rows() != 5184 || c.NNZBlocks()*9 != 353736 {
		t.Errorf("A_ne11.petsc: %d rows, %d scalar entries; README says 5184 and 353,736", c.Rows(), c.NNZBlocks()*9)
	}
	v1, err := ReadDense(filepath.Join(dataDir, "petsc_ex56/b_ne9.petsc"))
	if err != nil {
		t.Fatal(err)
	}
	v2, err := ReadDense(filepath.Join(dataDir, "petsc_ex56/b_ne9.mtx"))
	if err != nil {
		t.Fatal(err)
	}
	if v1.Rows != 3000 || v1.Cols != 1 || v2.Rows != 3000 || v2.Cols != 1 || !sameBits(v1.Data, v2.Data) {
		t.Errorf("b_ne9.petsc (%d×%d) and b_ne9.mtx (%d×%d) differ", v1.Rows, v1.Cols, v2.Rows, v2.Cols)
	}
	if v, err := ReadDense(filepath.Join(dataDir, "petsc_ex56/b_ne11.petsc")); err != nil || v.Rows != 5184 {
		t.Errorf("b_ne11.petsc: %v", err)
	}
}

// TestSharedDataDense reads every other .mtx of the shared data as a dense array and
// checks it against the reference parser and a bit-exact round trip.
func TestSharedDataDense(t *testing.T) {
	needData(t)
	files, err := filepath.Glob(filepath.Join(dataDir, "*", "*.mtx"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no .mtx files under %s (%v)", dataDir, err)
	}
	nDense := 0
	for _, path := range files {
		rel, _ := filepath.Rel(dataDir, path)
		hdr, rows, cols, _, array := naiveMM(t, path)
		if hdr[2] == "coordinate" {
			if _, ok := sparseBlockSize[filepath.ToSlash(rel)]; !ok {
				t.Errorf("%s: sparse file not covered by TestSharedDataMatrices", rel)
			}
			continue
		}
		nDense++
		d, err := ReadDense(path)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		if d.Rows != rows || d.Cols != cols {
			t.Errorf("%s: %d×%d, file says %d×%d", rel, d.Rows, d.Cols, rows, cols)
			continue
		}
		for j := 0; j < cols; j++ {
			for i := 0; i < rows; i++ {
				if math.Float64bits(d.Data[i*cols+j]) != math.Float64bits(array[j*rows+i]) {
					t.Fatalf("%s: (%d, %d) = %v, file says %v", rel, i+1, j+1, d.Data[i*cols+j], array[j*rows+i])
				}
			}
		}
		var buf bytes.Buffer
		if err := WriteDense(&buf, d); err != nil {
			t.Fatal(err)
		}
		got, err := ReadDenseFrom(&buf, rel)
		if err != nil || got.Rows != d.Rows || got.Cols != d.Cols || !sameBits(got.Data, d.Data) {
			t.Errorf("%s: dense round trip not bit-exact (%v)", rel, err)
		}
	}
	if nDense < 15 {
		t.Errorf("only %d dense files found", nDense)
	}
}
