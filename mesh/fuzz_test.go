package mesh

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// hideLen hides a reader's size, so that Read takes its unknown-size path.
type hideLen struct{ r io.Reader }

func (h hideLen) Read(b []byte) (int, error) { return h.r.Read(b) }

// maxSeed bounds the seed files. The fuzzer minimizes every input that finds new
// coverage, at a cost quadratic in its size: on a mutated gmsh mesh of a few KB that
// takes the whole of a one-minute run. So the seeds are the small hand-written files
// and small generated grids (ASCII and binary, with $PhysicalNames and $Entities),
// which between them hold every section and value kind of the gmsh files.
const maxSeed = 2 << 10

// FuzzRead: no input makes Read panic; a failure is a *ParseError with a cause; a mesh
// it returns is consistent (Check's structural part passes, Check and Summary run),
// and reading without knowing the input's size gives the same result.
func FuzzRead(f *testing.F) {
	for _, pat := range []string{"testdata/*.msh", "testdata/bad/*.msh"} {
		files, err := filepath.Glob(pat)
		if err != nil {
			f.Fatal(err)
		}
		for _, name := range files {
			data, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			if len(data) <= maxSeed {
				f.Add(data)
			}
		}
	}
	for _, tets := range []bool{false, true} {
		for _, bin := range []bool{false, true} {
			var b bytes.Buffer
			if err := writeGrid(&b, 2, tets, bin, 3); err != nil {
				f.Fatal(err)
			}
			f.Add(b.Bytes())
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, err := Read(bytes.NewReader(data), "fuzz.msh")
		m2, _, err2 := Read(hideLen{bytes.NewReader(data)}, "fuzz.msh")
		if (err == nil) != (err2 == nil) {
			t.Fatalf("size known: %v; size unknown: %v", err, err2)
		}
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Kind == nil && pe.Err == nil {
				t.Fatalf("error %v (%T) is not a *ParseError with a cause", err, err)
			}
			if !errors.Is(err, ErrMesh) {
				t.Fatalf("error %v does not wrap ErrMesh", err)
			}
			if m != nil {
				t.Fatal("a mesh with an error")
			}
			return
		}
		if err := m.validate(); err != nil {
			t.Fatalf("accepted an inconsistent mesh: %v", err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatal("the meshes read with and without the size differ")
		}
		if err := m.Check(); err != nil && !errors.Is(err, ErrInverted) && !errors.Is(err, ErrDegenerate) {
			t.Fatalf("Check: %v", err)
		}
		if err := m.Summary().Write(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}
