package mesh

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// naiveMesh is an ASCII MSH 4.1 file as a deliberately simple, line-by-line reading of
// it sees it: a reference written from the format description that shares no code with
// the reader, and relies on gmsh's layout (one node tag, one coordinate triple and one
// element per line).
type naiveMesh struct {
	numNodes, numElements int // the $Nodes and $Elements headers
	nodes                 map[int64][3]float64
	elems                 []naiveElem
	phys                  map[[2]int][]int // entity (dim, tag) → physical tags
	names                 map[[2]int]string
}

type naiveElem struct {
	dim, entity, gtype int
	tag                int64
	nodes              []int64
}

func naiveRead(t *testing.T, path string) *naiveMesh {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	nm := &naiveMesh{nodes: map[int64][3]float64{}, phys: map[[2]int][]int{}, names: map[[2]int]string{}}
	ints := func(s string) []int64 {
		var v []int64
		for _, f := range strings.Fields(s) {
			x, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				t.Fatalf("%s: %q: %v", path, s, err)
			}
			v = append(v, x)
		}
		return v
	}
	for i := 0; i < len(lines); i++ {
		switch lines[i] {
		case "$PhysicalNames":
			n := int(ints(lines[i+1])[0])
			for k := range n {
				f := strings.SplitN(lines[i+2+k], " ", 3)
				d, _ := strconv.Atoi(f[0])
				tag, _ := strconv.Atoi(f[1])
				nm.names[[2]int{d, tag}] = strings.Trim(f[2], `"`)
			}
		case "$Entities":
			counts := ints(lines[i+1])
			j := i + 2
			for d := range 4 {
				for range counts[d] {
					f := strings.Fields(lines[j])
					j++
					tag, _ := strconv.Atoi(f[0])
					at := 4
					if d > 0 {
						at = 7
					}
					np, _ := strconv.Atoi(f[at])
					var ph []int
					for k := range np {
						p, _ := strconv.Atoi(f[at+1+k])
						ph = append(ph, p)
					}
					nm.phys[[2]int{d, tag}] = ph
				}
			}
		case "$Nodes":
			h := ints(lines[i+1])
			nm.numNodes = int(h[1])
			j := i + 2
			for range h[0] {
				b := ints(lines[j])
				n := int(b[3])
				for k := range n {
					tag := ints(lines[j+1+k])[0]
					f := strings.Fields(lines[j+1+n+k])
					var x [3]float64
					for d := range 3 {
						x[d], _ = strconv.ParseFloat(f[d], 64)
					}
					nm.nodes[tag] = x
				}
				j += 1 + 2*n
			}
		case "$Elements":
			h := ints(lines[i+1])
			nm.numElements = int(h[1])
			j := i + 2
			for range h[0] {
				b := ints(lines[j])
				for k := range int(b[3]) {
					v := ints(lines[j+1+k])
					nm.elems = append(nm.elems, naiveElem{dim: int(b[0]), entity: int(b[1]), gtype: int(b[2]), tag: v[0], nodes: v[1:]})
				}
				j += 1 + int(b[3])
			}
		}
	}
	return nm
}

// writeGrid writes an n×n×n-node structured grid of the unit cube in MSH 4.1: hex8
// elements, or six tet4 per cell; binary files little-endian, as gmsh writes them on
// the usual machines (writeGridOrder: in a given byte order). Node tags are 1 + stride·i (stride 1: contiguous),
// so that sparse numberings can be read at any size; nodes are written in blocks of at
// most 1000 and in reverse order, so the file order differs from the grid order.
func writeGrid(w io.Writer, n int, tets, bin bool, stride int64) error {
	return writeGridOrder(w, n, tets, bin, stride, binary.LittleEndian)
}

func writeGridOrder(w io.Writer, n int, tets, bin bool, stride int64, le binary.AppendByteOrder) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf []byte
	sizeT := func(v int64) {
		if bin {
			buf = le.AppendUint64(buf, uint64(v))
		} else {
			buf = strconv.AppendInt(buf, v, 10)
			buf = append(buf, ' ')
		}
	}
	intT := func(v int32) {
		if bin {
			buf = le.AppendUint32(buf, uint32(v))
		} else {
			buf = strconv.AppendInt(buf, int64(v), 10)
			buf = append(buf, ' ')
		}
	}
	real := func(v float64) {
		if bin {
			buf = le.AppendUint64(buf, math.Float64bits(v))
		} else {
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
			buf = append(buf, ' ')
		}
	}
	eol := func() {
		if !bin {
			buf[len(buf)-1] = '\n'
		}
		bw.Write(buf)
		buf = buf[:0]
	}
	sizes := func(vs ...int64) {
		for _, v := range vs {
			sizeT(v)
		}
	}
	text := func(s string) { bw.WriteString(s) }
	ft := 0
	if bin {
		ft = 1
	}
	text(fmt.Sprintf("$MeshFormat\n4.1 %d 8\n", ft))
	if bin {
		buf = le.AppendUint32(buf, 1)
		bw.Write(buf)
		buf = buf[:0]
		text("\n")
	}
	text("$EndMeshFormat\n$PhysicalNames\n1\n3 1 \"grid\"\n$EndPhysicalNames\n$Entities\n")
	sizes(0, 0, 0, 1)
	eol()
	intT(1)
	for _, v := range []float64{0, 0, 0, 1, 1, 1} {
		real(v)
	}
	sizeT(1)
	intT(1)
	sizeT(0)
	eol()
	if bin {
		text("\n")
	}
	text("$EndEntities\n$Nodes\n")
	nn := int64(n) * int64(n) * int64(n)
	tag := func(i int64) int64 { return 1 + stride*i }
	const block = 1000
	nb := (nn + block - 1) / block
	sizes(nb, nn, tag(0), tag(nn-1))
	eol()
	h := 1 / float64(n-1)
	for hi := nn; hi > 0; hi -= block {
		lo := max(hi-block, 0)
		intT(3)
		intT(1)
		intT(0)
		sizeT(hi - lo)
		eol()
		for i := hi - 1; i >= lo; i-- {
			sizeT(tag(i))
			eol()
		}
		for i := hi - 1; i >= lo; i-- {
			real(float64(i%int64(n)) * h)
			real(float64(i/int64(n)%int64(n)) * h)
			real(float64(i/int64(n)/int64(n)) * h)
			eol()
		}
	}
	if bin {
		text("\n")
	}
	text("$EndNodes\n$Elements\n")
	c := int64(n - 1)
	cells := c * c * c
	per, gt := int64(1), int32(5)
	if tets {
		per, gt = 6, 4
	}
	sizes(1, cells*per, 1, cells*per)
	eol()
	intT(3)
	intT(1)
	intT(gt)
	sizeT(cells * per)
	eol()
	id := func(x, y, z int64) int64 { return tag(x + int64(n)*(y+int64(n)*z)) }
	// Six tets around the cell diagonal 0–6, each positively oriented.
	split := [6][4]int{{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6}, {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}}
	e := int64(1)
	for z := range c {
		for y := range c {
			for x := range c {
				v := [8]int64{id(x, y, z), id(x+1, y, z), id(x+1, y+1, z), id(x, y+1, z),
					id(x, y, z+1), id(x+1, y, z+1), id(x+1, y+1, z+1), id(x, y+1, z+1)}
				if !tets {
					sizeT(e)
					for _, t := range v {
						sizeT(t)
					}
					eol()
					e++
					continue
				}
				for _, s := range split {
					sizeT(e)
					for _, k := range s {
						sizeT(v[k])
					}
					eol()
					e++
				}
			}
		}
	}
	if bin {
		text("\n")
	}
	text("$EndElements\n")
	return bw.Flush()
}
