package matio

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// Benchmarks read ~50 MB files generated once per process into a temporary directory:
// a 3D 7-point block stencil with 3×3 blocks and random 17-digit values, which is what
// an elasticity operator looks like to a reader. Run them on one core:
//
//	go test -run=^$ -bench=. -cpu=1 ./matio/

var bench struct {
	once      sync.Once
	dir       string
	mtx, pets string
	err       error
}

// stencil returns the block matrix of a 7-point stencil on an n³ grid of nodes.
func stencil(n, bs int, seed uint64) *bsr.Matrix {
	rng := rand.New(rand.NewPCG(seed, 1))
	nodes := n * n * n
	m := &bsr.Matrix{BlockRows: nodes, BlockCols: nodes, R: bs, C: bs, RowPtr: make([]int64, nodes+1)}
	for z := 0; z < n; z++ {
		for y := 0; y < n; y++ {
			for x := 0; x < n; x++ {
				id := x + n*(y+n*z)
				// Neighbors in increasing index order.
				for _, d := range [][3]int{{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}} {
					xx, yy, zz := x+d[0], y+d[1], z+d[2]
					if xx < 0 || yy < 0 || zz < 0 || xx >= n || yy >= n || zz >= n {
						continue
					}
					m.ColIdx = append(m.ColIdx, int32(xx+n*(yy+n*zz)))
					for range bs * bs {
						m.Val = append(m.Val, rng.NormFloat64())
					}
				}
				m.RowPtr[id+1] = int64(len(m.ColIdx))
			}
		}
	}
	return m
}

func benchFiles(b *testing.B) {
	bench.once.Do(func() {
		bench.dir, bench.err = os.MkdirTemp("", "matio-bench")
		if bench.err != nil {
			return
		}
		bench.mtx = filepath.Join(bench.dir, "a.mtx")
		bench.pets = filepath.Join(bench.dir, "a.petsc")
		// 26³ nodes: 1.07M scalar entries, ~48 MB of text.
		if bench.err = WriteMatrix(bench.mtx, stencil(26, 3, 1)); bench.err != nil {
			return
		}
		// 40³ nodes: 4.0M scalar entries, ~48 MB of binary.
		bench.err = WriteMatrix(bench.pets, stencil(40, 3, 2))
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
	os.Exit(code)
}

func benchRead(b *testing.B, path string, bs int) {
	benchFiles(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadMatrix(path, bs); err != nil {
			b.Fatal(err)
		}
	}
}

func mtxPath(b *testing.B) string   { benchFiles(b); return bench.mtx }
func petscPath(b *testing.B) string { benchFiles(b); return bench.pets }

func BenchmarkReadMatrixMarket(b *testing.B)    { benchRead(b, mtxPath(b), 3) }
func BenchmarkReadMatrixMarketBS1(b *testing.B) { benchRead(b, mtxPath(b), 1) }
func BenchmarkReadPETScMat(b *testing.B)        { benchRead(b, petscPath(b), 3) }
func BenchmarkReadPETScMatBS1(b *testing.B)     { benchRead(b, petscPath(b), 1) }

// benchWrite measures writing the matrix of path back in the same format, to io.Discard.
func benchWrite(b *testing.B, path string, write func(io.Writer, *bsr.Matrix) error) {
	m, err := ReadMatrix(path, 3)
	if err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		if err := write(io.Discard, m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteMatrixMarket(b *testing.B) { benchWrite(b, mtxPath(b), WriteMatrixMarket) }
func BenchmarkWritePETScMat(b *testing.B)     { benchWrite(b, petscPath(b), WritePETScMat) }
