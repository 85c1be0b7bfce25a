package cudafem

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
)

// elaBox returns the unit cube cut into ne³ hexahedra (typ Hex8), or each hexahedron
// into six tetrahedra (Tet4; Tet10 with a node at each edge's midpoint), interior
// nodes moved by up to a fifth of a cell in a fixed pattern; elements alternate
// between two volume groups.
func elaBox(ne int, typ mesh.Type) *mesh.Mesh {
	nn := ne + 1
	h := 1 / float64(ne)
	m := &mesh.Mesh{Groups: []mesh.Group{{Dim: 3, Tag: 1, Name: "a"}, {Dim: 3, Tag: 2, Name: "b"}}}
	seed := uint64(7)
	for k := 0; k < nn; k++ {
		for j := 0; j < nn; j++ {
			for i := 0; i < nn; i++ {
				x := [3]float64{float64(i) * h, float64(j) * h, float64(k) * h}
				if i > 0 && i < ne && j > 0 && j < ne && k > 0 && k < ne {
					for d := range x {
						x[d] += 0.2 * h * splitmix(&seed)
					}
				}
				m.Coords = append(m.Coords, x[:]...)
			}
		}
	}
	id := func(i, j, k int) int32 { return int32(i + nn*(j+nn*k)) }
	mid := map[[2]int32]int32{}
	edge := func(a, b int32) int32 {
		if a > b {
			a, b = b, a
		}
		if n, ok := mid[[2]int32{a, b}]; ok {
			return n
		}
		n := int32(len(m.Coords) / 3)
		for d := 0; d < 3; d++ {
			m.Coords = append(m.Coords, 0.5*(m.Coords[3*a+int32(d)]+m.Coords[3*b+int32(d)]))
		}
		mid[[2]int32{a, b}] = n
		return n
	}
	el := mesh.Elements{Type: typ}
	for k := 0; k < ne; k++ {
		for j := 0; j < ne; j++ {
			for i := 0; i < ne; i++ {
				c := [8]int32{id(i, j, k), id(i+1, j, k), id(i+1, j+1, k), id(i, j+1, k),
					id(i, j, k+1), id(i+1, j, k+1), id(i+1, j+1, k+1), id(i, j+1, k+1)}
				if typ == mesh.Hex8 {
					el.Nodes = append(el.Nodes, c[:]...)
					el.Group = append(el.Group, int32(1+len(el.Group)%2))
					el.Tag = append(el.Tag, int64(len(el.Tag)+1))
					continue
				}
				for _, t := range [6][4]int{{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6}, {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}} {
					v := [4]int32{c[t[0]], c[t[1]], c[t[2]], c[t[3]]}
					// Positive orientation: swap two corners when the volume is negative.
					if tetVolume(m.Coords, v) < 0 {
						v[1], v[2] = v[2], v[1]
					}
					el.Nodes = append(el.Nodes, v[:]...)
					if typ == mesh.Tet10 {
						// Gmsh's edge order: 01 12 20 30 32 31.
						el.Nodes = append(el.Nodes, edge(v[0], v[1]), edge(v[1], v[2]), edge(v[2], v[0]),
							edge(v[3], v[0]), edge(v[3], v[2]), edge(v[3], v[1]))
					}
					el.Group = append(el.Group, int32(1+len(el.Group)%2))
					el.Tag = append(el.Tag, int64(len(el.Tag)+1))
				}
			}
		}
	}
	m.Volumes = []mesh.Elements{el}
	m.NodeTag = make([]int64, len(m.Coords)/3)
	for i := range m.NodeTag {
		m.NodeTag[i] = int64(i + 1)
	}
	return m
}

// elaFree is fem.NewElasticity on elaBox(ne, typ), nothing fixed.
func elaFree(t *testing.T, ne int, typ mesh.Type) *fem.Elasticity {
	t.Helper()
	el, err := fem.NewElasticity(elaBox(ne, typ), fem.ElasticityOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return el
}

func tetVolume(x []float64, v [4]int32) float64 {
	var e [3][3]float64
	for r := 0; r < 3; r++ {
		for d := 0; d < 3; d++ {
			e[r][d] = x[3*v[r+1]+int32(d)] - x[3*v[0]+int32(d)]
		}
	}
	return e[0][0]*(e[1][1]*e[2][2]-e[1][2]*e[2][1]) - e[0][1]*(e[1][0]*e[2][2]-e[1][2]*e[2][0]) + e[0][2]*(e[1][0]*e[2][1]-e[1][1]*e[2][0])
}

// TestElasticityGPUMatchesCPU: the device assembly of tet4, tet10 and hex8 meshes,
// with and without fixed degrees of freedom (all components on x = 0, y alone on
// z = 0), gives bitwise fem.Elasticity.Numeric's values for per-element materials,
// writes every value (NaN poison), the same on a second run; bad materials are
// errors that leave the values as they were.
func TestElasticityGPUMatchesCPU(t *testing.T) {
	be := device(t)
	for _, typ := range []mesh.Type{mesh.Tet4, mesh.Tet10, mesh.Hex8} {
		for _, fix := range []bool{false, true} {
			m := elaBox(3, typ)
			var opt fem.ElasticityOptions
			if fix {
				opt.Fixed = make([]uint8, m.Nodes())
				for a := range opt.Fixed {
					if m.Coords[3*a] == 0 {
						opt.Fixed[a] = 7
					} else if m.Coords[3*a+2] == 0 {
						opt.Fixed[a] = 2
					}
				}
			}
			el, err := fem.NewElasticity(m, opt)
			if err != nil {
				t.Fatal(err)
			}
			E, nu := make([]float64, el.Elements()), make([]float64, el.Elements())
			seed := uint64(typ)
			for e := range E {
				E[e] = math.Pow(10, 2*splitmix(&seed))
				nu[e] = 0.2 + 0.25*splitmix(&seed)
			}
			ref := el.NewMatrix()
			if err := el.Numeric(ref, E, nu, 0); err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("%v, fixed %v", typ, fix)
			// Every kernel writes A's values: the default (elas_staged: one element
			// shape) twice, then with rounds taken or not against the default, then
			// cut for the least shared memory that holds the largest block's
			// elements (many small groups) both ways, then each of the others,
			// prepared by forcing it.
			d, A, err := NewElasticity(be, el)
			if err != nil {
				t.Fatal(err)
			}
			if d.kernel != kernelStaged || d.pairs != nil || d.slot != nil || d.mu != nil || (d.rounds == 1) != (typ != mesh.Tet4) {
				t.Fatalf("%s: one element shape, kernel %s, rounds %d (or the other kernels' data)", what, d.kernel, d.rounds)
			}
			want := kernelStaged
			if typ == mesh.Tet4 {
				want = kernelStagedTet4
			}
			if d.entry != want {
				t.Fatalf("%s: elas_staged instantiation %s, want %s", what, d.entry, want)
			}
			defShared := stagedShared
			for run, k := range []string{kernelStaged, kernelStaged, kernelStaged, kernelStaged, kernelStaged, kernelPairs, kernelRounds, kernelNumeric} {
				dr, Ar := d, A
				if run > 0 {
					forceKernel = k
					switch run {
					case 2:
						stagedRounds = 1 - int(d.rounds)
					case 3, 4:
						stagedShared, stagedRounds = stagedLeast(el, run == 4), run-3
					}
					dr, Ar, err = NewElasticity(be, el)
					forceKernel, stagedShared, stagedRounds = "", defShared, -1
					if err != nil {
						t.Fatalf("%s: %s: %v", what, k, err)
					}
					if dr.kernel != k {
						t.Fatalf("%s: forced %s, prepared %s", what, k, dr.kernel)
					}
				}
				asmPoison(t, Ar)
				if err := dr.NumericHost(Ar, E, nu); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				asmSameBits(t, fmt.Sprintf("%s, run %d (%s %s, %d groups, rounds %d)", what, run+1, k, dr.entry, dr.groups, dr.rounds), ref.RowPtr, asmDownload(t, Ar.Values()), ref.Val)
				if dr != d {
					Ar.Free()
					dr.Free()
				}
			}
			bad := append([]float64(nil), nu...)
			bad[len(bad)/2] = 0.5
			if err := d.NumericHost(A, E, bad); err == nil {
				t.Errorf("%s: ν = 0.5 accepted", what)
			}
			asmSameBits(t, what+", after a rejected material", ref.RowPtr, asmDownload(t, A.Values()), ref.Val)
			if err := be.Err(); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d nodes, %d blocks bitwise equal; device data %d bytes", what, el.Nodes(), ref.NNZBlocks(), d.Bytes())
			A.Free()
			d.Free()
		}
	}
}

// stagedLeast is the least shared memory (bytes) elas_staged's groups can be cut for
// on el: the records and contributions of its largest block, and with rounds a
// round's element blocks.
func stagedLeast(el *fem.Elasticity, rounds bool) int {
	l := el.Layout()
	ptr, _ := inverseSlots(l)
	most := int64(0)
	for t := range len(ptr) - 1 {
		most = max(most, ptr[t+1]-ptr[t])
	}
	K := l.Kinds[0]
	n := stagedSlice(int(most), stagedStride(K.Nodes)*K.Points, int(most), rounds)
	if rounds {
		n += 9 * stagedThreads
	}
	return 8 * n
}

// TestElasticityGPUPerf reports the device assembly of a tet4 mesh of ne³·6 elements
// and a tet10 mesh of (ne/2)³·6 (-cuda.perf-ne ne; 100 gives about 3.1M unknowns
// each; nodes in reverse Cuthill–McKee order, as blockamg solve --mesh takes them)
// against its bandwidth floor: the element data its kernel reads (DataBytes)
// and the values written, over the copy bandwidth measured in the same run; also
// against the floor of the whole inverse slot map, and of the quadrature records
// alone (no map at all). Every kernel is timed, elas_staged for several shared
// memory sizes, each first checked bitwise against the CPU's values.
// BLOCKAMG_ELAS_MESH=tet4 or tet10 times that mesh alone (a profiler's run).
func TestElasticityGPUPerf(t *testing.T) {
	ne := perfNE(t, "unstructured device assembly bandwidth report")
	be := device(t)
	const reps = 20
	bw, err := be.CopyBandwidth(1<<30, reps)
	if err != nil {
		t.Fatal(err)
	}
	copyGBs := max(bw.MemcpyGBs, bw.KernelGBs)
	floorMs := func(bytes int64) float64 { return float64(bytes) / (copyGBs * 1e6) }
	defShared := stagedShared
	for _, tc := range []struct {
		typ mesh.Type
		ne  int
	}{{mesh.Tet4, ne}, {mesh.Tet10, ne / 2}} {
		if only := os.Getenv("BLOCKAMG_ELAS_MESH"); only != "" && only != tc.typ.String() {
			continue
		}
		m := elaBox(tc.ne, tc.typ)
		// The nodes in the order blockamg solve --mesh assembles them (reverse
		// Cuthill–McKee; BLOCKAMG_ELAS_ORDER=file keeps the generator's: a tet10
		// box's vertices, then its edges' nodes).
		if os.Getenv("BLOCKAMG_ELAS_ORDER") != "file" {
			m = m.Renumber(mesh.RCM(m))
		}
		el, err := fem.NewElasticity(m, fem.ElasticityOptions{})
		if err != nil {
			t.Fatal(err)
		}
		E, nu := make([]float64, el.Elements()), make([]float64, el.Elements())
		for e := range E {
			E[e], nu[e] = 1+float64(e%5), 0.3
		}
		ref := el.NewMatrix()
		if err := el.Numeric(ref, E, nu, 0); err != nil {
			t.Fatal(err)
		}
		l := el.Layout()
		qdata := 8 * int64(len(l.QData))
		pairMap := 4*l.SlotPtr[len(l.SlotPtr)-1] + 8*(l.RowPtr[l.Nodes]+1)
		dE, dnu := asmUpload(t, be, E), asmUpload(t, be, nu)
		type variant struct {
			kernel         string
			shared, rounds int
		}
		vs := []variant{{kernelStaged, 0, -1}, {kernelStaged, 62 << 10, -1}, {kernelStaged, 0, 0}, {kernelStaged, 0, 1},
			{kernelStaged, 48 << 10, -1}, {kernelStaged, 72 << 10, -1}, {kernelPairs, 0, -1}, {kernelRounds, 0, -1}}
		// BLOCKAMG_ELAS_VARIANTS=kernel[:KiB:rounds],… times those alone (rounds
		// -1: elas_staged's choice).
		if env := os.Getenv("BLOCKAMG_ELAS_VARIANTS"); env != "" {
			vs = nil
			for _, f := range strings.Split(env, ",") {
				p := strings.Split(f, ":")
				v := variant{kernel: p[0], rounds: -1}
				if len(p) == 3 {
					kib, err1 := strconv.Atoi(p[1])
					r, err2 := strconv.Atoi(p[2])
					if err1 != nil || err2 != nil {
						t.Fatalf("BLOCKAMG_ELAS_VARIANTS: %q: want kernel[:KiB:rounds]", f)
					}
					v.shared, v.rounds = kib<<10, r
				}
				vs = append(vs, v)
			}
		}
		for _, v := range vs {
			forceKernel, stagedShared, stagedRounds = v.kernel, v.shared, v.rounds
			d, A, err := NewElasticity(be, el)
			forceKernel, stagedShared, stagedRounds = "", defShared, -1
			if err != nil {
				t.Logf("%v: %s (%d KiB): %v", tc.typ, v.kernel, v.shared>>10, err)
				continue
			}
			chosen := v.kernel == kernelStaged && v.shared == 0 && v.rounds == -1 // elas_staged's own choices
			if v.kernel == kernelStaged && v.shared == 0 {
				v.shared = stagedBudget(d.entry, d.rounds == 1)
			}
			if err := d.NumericHost(A, E, nu); err != nil {
				t.Fatal(err)
			}
			asmSameBits(t, fmt.Sprintf("%v %s", tc.typ, v.kernel), ref.RowPtr, asmDownload(t, A.Values()), ref.Val)
			ms := medianMs(t, be, 2, reps, func() error { return d.Numeric(A, dE, dnu) })
			own := d.DataBytes() + d.ValueBytes()
			t.Logf("%v (%d elements, %d unknowns, %d blocks): %s (cut for %d KiB, rounds %d: %d groups, %d KiB a thread block): %.3f ms median of %d; "+
				"its data %.3f GB + values and materials %.3f GB at %.0f GB/s copy: floor %.3f ms, %.2f× it; "+
				"%.2f× the floor of the whole inverse slot map (%.3f ms), %.2f× that of the records alone (%.3f ms); device data %.2f GB",
				tc.typ, el.Elements(), 3*el.Nodes(), A.ColIdx().Len(), d.entry, v.shared>>10, d.rounds, d.groups, d.stagedBytes>>10, ms, reps,
				float64(d.DataBytes())/1e9, float64(d.ValueBytes())/1e9, copyGBs, floorMs(own), ms/floorMs(own),
				ms/floorMs(qdata+pairMap+d.ValueBytes()), floorMs(qdata+pairMap+d.ValueBytes()),
				ms/floorMs(qdata+d.ValueBytes()), floorMs(qdata+d.ValueBytes()), float64(d.Bytes())/1e9)
			if chosen {
				hostMs := medianMs(t, be, 1, 5, func() error { return d.NumericHost(A, E, nu) })
				t.Logf("%v: with the materials' upload (NumericHost) %.3f ms", tc.typ, hostMs)
			}
			A.Free()
			d.Free()
		}
		dE.Free()
		dnu.Free()
	}
}

// TestInverseSlots: every block's contributions name an element that holds the row's
// node as la and the column's as b, in ascending element order, and together they
// are the layout's incidence pairs, each once.
func TestInverseSlots(t *testing.T) {
	for _, typ := range []mesh.Type{mesh.Tet4, mesh.Tet10, mesh.Hex8} {
		el := elaFree(t, 2, typ)
		l := el.Layout()
		ptr, pairs := inverseSlots(l)
		if int64(len(pairs)) != l.SlotPtr[len(l.SlotPtr)-1] {
			t.Fatalf("%v: %d pairs, the layout has %d", typ, len(pairs), l.SlotPtr[len(l.SlotPtr)-1])
		}
		for a := 0; a < l.Nodes; a++ {
			for blk := l.RowPtr[a]; blk < l.RowPtr[a+1]; blk++ {
				c := l.ColIdx[blk]
				last := int32(-1)
				for _, d := range pairs[ptr[blk]:ptr[blk+1]] {
					e, la, b := d>>8, (d>>4)&15, d&15
					nodes := el.ElementNodes(int(e))
					if nodes[la] != int32(a) || nodes[b] != c || e <= last {
						t.Fatalf("%v: block (%d, %d): contribution element %d (la %d, b %d, nodes %v) after %d", typ, a, c, e, la, b, nodes, last)
					}
					last = e
				}
			}
		}
	}
}

// upperBlocks returns every stored block on or above the diagonal, in stored order.
func upperBlocks(l fem.ElasticityLayout) []int64 {
	var work []int64
	for a := 0; a < l.Nodes; a++ {
		for blk := l.RowPtr[a]; blk < l.RowPtr[a+1]; blk++ {
			if int(l.ColIdx[blk]) >= a {
				work = append(work, blk)
			}
		}
	}
	return work
}

// TestTransposes: each upper block's transpose is the stored block of the same
// column and row, itself on the diagonal.
func TestTransposes(t *testing.T) {
	for _, typ := range []mesh.Type{mesh.Tet4, mesh.Tet10, mesh.Hex8} {
		el := elaFree(t, 3, typ)
		l := el.Layout()
		row := make([]int, l.RowPtr[l.Nodes])
		for a := 0; a < l.Nodes; a++ {
			for blk := l.RowPtr[a]; blk < l.RowPtr[a+1]; blk++ {
				row[blk] = a
			}
		}
		for _, blk := range upperBlocks(l) {
			a, c := row[blk], int(l.ColIdx[blk])
			mb := transpose(l, a, blk)
			if row[mb] != c || int(l.ColIdx[mb]) != a || (a == c) != (mb == blk) {
				t.Fatalf("%v: block %d = (%d, %d), transpose %d = (%d, %d)", typ, blk, a, c, mb, row[mb], l.ColIdx[mb])
			}
		}
	}
}
