package mesh

import (
	"bytes"
	"flag"
	"fmt"
	"testing"
)

var benchGrid = flag.Int("mesh.grid", 40, "nodes per side of the benchmarks' grid (144: about 3M nodes)")

// BenchmarkRead reads a tet4 grid of benchGrid³ nodes (six tets per cell) from memory,
// ASCII and binary.
func BenchmarkRead(b *testing.B) {
	for _, bin := range []bool{false, true} {
		var buf bytes.Buffer
		if err := writeGrid(&buf, *benchGrid, true, bin, 1); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run(fmt.Sprintf("binary=%v", bin), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, _, err := Read(bytes.NewReader(data), "grid"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
