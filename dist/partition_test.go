package dist

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/mesh"
)

// meshGraph returns the node graph of a mesh of mesh/testdata (nodes sharing a volume
// element coupled) as a 1×1-block matrix, and its coordinates.
func meshGraph(t *testing.T, name string, rcm bool) (*bsr.Matrix, []float64) {
	t.Helper()
	m, _, err := mesh.ReadFile("../mesh/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if rcm {
		m = m.Renumber(mesh.RCM(m))
	}
	var bi, bj []int32
	for _, s := range m.Volumes {
		k := s.Type.Nodes()
		for e := 0; e < s.Len(); e++ {
			for _, p := range s.Nodes[e*k : (e+1)*k] {
				for _, q := range s.Nodes[e*k : (e+1)*k] {
					bi, bj = append(bi, p), append(bj, q)
				}
			}
		}
	}
	vals := make([]float64, len(bi))
	for i := range vals {
		vals[i] = 1
	}
	a, err := bsr.FromBlockTriplets(m.Nodes(), m.Nodes(), 1, 1, bi, bj, vals)
	if err != nil {
		t.Fatal(err)
	}
	return a, m.Coords
}

// checkPartition checks that p is a partition of n rows over size ranks: Perm a
// permutation with Inv its inverse, the layout even (every part within one row of
// n/size), and the renumbered matrix's rows of part r exactly the input rows the
// partition gave r.
func checkPartition(t *testing.T, p Partition, n, size int) {
	t.Helper()
	if len(p.Perm) != n || len(p.Inv) != n || p.Layout.N() != n || p.Layout.Size() != size {
		t.Fatalf("%s: %d perm, %d inv, layout %d rows over %d ranks; want %d over %d", p.Method, len(p.Perm), len(p.Inv), p.Layout.N(), p.Layout.Size(), n, size)
	}
	seen := make([]bool, n)
	for i, o := range p.Perm {
		if o < 0 || o >= n || seen[o] {
			t.Fatalf("%s: Perm is not a permutation: Perm[%d] = %d", p.Method, i, o)
		}
		seen[o] = true
		if p.Inv[o] != i {
			t.Fatalf("%s: Inv[Perm[%d]] = %d", p.Method, i, p.Inv[o])
		}
	}
	for r := 0; r < size; r++ {
		lo, hi := p.Layout.Range(r)
		if d := (hi - lo) - n/size; d < 0 || d > 1 {
			t.Errorf("%s: part %d has %d rows, want %d or %d", p.Method, r, hi-lo, n/size, n/size+1)
		}
	}
}

// TestPartitionMesh partitions Gmsh test meshes, in the file's order and in RCM
// order, by every method on 2 to 5 parts, and checks the partitions (checkPartition)
// and that every method cuts fewer blocks than the even split of the file's order,
// and RCB fewer than the even split of RCM's order too (whose level sets are already
// slabs, which SFC and the graph's level sets do not always beat).
func TestPartitionMesh(t *testing.T) {
	for _, name := range []string{"cube_tet4.msh", "cube_tet10.msh", "two_tet4.msh", "hex8.msh"} {
		for _, rcm := range []bool{false, true} {
			a, coords := meshGraph(t, name, rcm)
			n := a.BlockRows
			for size := 2; size <= 5; size++ {
				_, even := EvenPartition(n, size).Quality(a)
				for _, method := range []string{PartitionRCB, PartitionSFC, PartitionGraph} {
					var p Partition
					var err error
					if method == PartitionGraph {
						p, err = GraphPartition(a, size)
					} else {
						p, err = CoordPartition(coords, 3, size, method)
					}
					if err != nil {
						t.Fatal(err)
					}
					checkPartition(t, p, n, size)
					parts, cut := p.Quality(a)
					t.Logf("%s rcm=%v %d parts %s: cut %d, even %d; parts %+v", name, rcm, size, method, cut, even, parts)
					if !rcm && cut >= even {
						t.Errorf("%s (file order), %d parts: %s cuts %d blocks, the even split %d", name, size, method, cut, even)
					}
					if rcm && method == PartitionRCB && cut >= even {
						t.Errorf("%s (RCM order), %d parts: %s cuts %d blocks, the even split %d", name, size, method, cut, even)
					}
					again, _ := CoordPartition(coords, 3, size, PartitionRCB)
					if method == PartitionRCB && !slices.Equal(again.Perm, p.Perm) {
						t.Errorf("%s: rcb differs between two calls", name)
					}
				}
			}
		}
	}
}

// TestPartitionSlice checks SliceSym, SliceRows, SliceCols, Permute and Restore
// against the dense products with the permutation matrix on a random matrix.
func TestPartitionSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, R := 13, 2
	var bi, bj []int32
	var vals []float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j || rng.Float64() < 0.3 {
				bi, bj = append(bi, int32(i)), append(bj, int32(j))
				for k := 0; k < R*R; k++ {
					vals = append(vals, rng.NormFloat64())
				}
			}
		}
	}
	a, err := bsr.FromBlockTriplets(n, n, R, R, bi, bj, vals)
	if err != nil {
		t.Fatal(err)
	}
	coords := make([]float64, 2*n)
	for i := range coords {
		coords[i] = rng.Float64()
	}
	p, err := CoordPartition(coords, 2, 3, PartitionSFC)
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, p, n, 3)
	dense := a.ToDense()
	N := n * R
	at := func(m *bsr.Matrix, lo int, i, j int) float64 { return m.ToDense()[(i-lo*R)*m.Cols()+j] }
	for _, rg := range [][2]int{{0, n}, {2, 7}, {5, 5}} {
		lo, hi := rg[0], rg[1]
		sym, rows, cols := p.SliceSym(a, lo, hi), p.SliceRows(a, lo, hi), p.SliceCols(a, lo, hi)
		for _, m := range []*bsr.Matrix{sym, rows, cols} {
			if err := m.Validate(); err != nil {
				t.Fatal(err)
			}
		}
		for i := lo * R; i < hi*R; i++ {
			for j := 0; j < N; j++ {
				pi := p.Perm[i/R]*R + i%R
				pj := p.Perm[j/R]*R + j%R
				if got, want := at(sym, lo, i, j), dense[pi*N+pj]; got != want {
					t.Fatalf("SliceSym [%d,%d) (%d, %d) = %v, want %v", lo, hi, i, j, got, want)
				}
				if got, want := at(rows, lo, i, j), dense[pi*N+j]; got != want {
					t.Fatalf("SliceRows [%d,%d) (%d, %d) = %v, want %v", lo, hi, i, j, got, want)
				}
				if got, want := at(cols, lo, i, j), dense[i*N+pj]; got != want {
					t.Fatalf("SliceCols [%d,%d) (%d, %d) = %v, want %v", lo, hi, i, j, got, want)
				}
			}
		}
	}
	// ReadRows: SliceSym's rows, for the renumbering and for the identity; for the
	// identity a view of a's own storage.
	even := EvenPartition(n, 3)
	for _, q := range []Partition{p, even} {
		for _, rg := range [][2]int{{0, n}, {2, 7}, {5, 5}} {
			got, want := q.ReadRows(a, rg[0], rg[1]), q.SliceSym(a, rg[0], rg[1])
			if !slices.Equal(got.RowPtr, want.RowPtr) || !slices.Equal(got.ColIdx, want.ColIdx) || !slices.Equal(got.Val, want.Val) {
				t.Fatalf("%s: ReadRows [%d,%d) differs from SliceSym's", q.Method, rg[0], rg[1])
			}
		}
	}
	if view := even.ReadRows(a, 2, 7); &view.Val[0] != &a.Val[a.RowPtr[2]*int64(R*R)] {
		t.Errorf("ReadRows of the identity copied the values")
	}
	v := make([]float64, N)
	for i := range v {
		v[i] = float64(i)
	}
	pv := p.Permute(v, R)
	for i := range pv {
		if pv[i] != v[p.Perm[i/R]*R+i%R] {
			t.Fatalf("Permute: %d is %v", i, pv[i])
		}
	}
	if !slices.Equal(p.Restore(pv, R), v) {
		t.Error("Restore(Permute(v)) is not v")
	}
	if _, err := CoordPartition(coords, 2, 3, "metis"); err == nil {
		t.Error("an unknown method was accepted")
	}
	if _, err := CoordPartition(coords[:5], 2, 3, PartitionRCB); err == nil {
		t.Error("5 coordinates of dimension 2 were accepted")
	}
}
