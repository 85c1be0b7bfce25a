// Package vtu writes unstructured meshes and the fields on them as VTK XML
// unstructured-grid files (.vtu), which ParaView and VisIt open.
//
// The arrays are written inline in VTK's "binary" encoding: base64 of a UInt64 byte
// count followed by the little-endian values, so a file is about 1.4 times its raw
// data (ASCII would be three times) and needs no appended section.
package vtu

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/blockamg/blockamg/mesh"
)

// ErrField is wrapped by the error of a field whose length fits neither the nodes
// nor the cells, or whose name is empty or repeated.
var ErrField = errors.New("vtu: bad field")

// Field is one array of values: Components values per node (point data) or per
// volume element (cell data, in the order of Mesh.Volumes and of each Elements).
type Field struct {
	Name       string
	Components int // 1 for a scalar, 3 for a vector
	Values     []float64
}

// vtkType maps an element type onto its VTK cell type and node order: VTK's
// quadratic tetrahedron lists edge (1,3) before (2,3), Gmsh the reverse.
var vtkType = map[mesh.Type]struct {
	code  uint8
	order []int
}{
	mesh.Tet4:  {10, []int{0, 1, 2, 3}},
	mesh.Tet10: {24, []int{0, 1, 2, 3, 4, 5, 6, 7, 9, 8}},
	mesh.Hex8:  {12, []int{0, 1, 2, 3, 4, 5, 6, 7}},
}

// Write writes m's volume elements with the point fields (per node) and cell fields
// (per volume element) to w. Nodes keep the mesh's order, and cells the order of
// m.Volumes; surface elements are not written.
func Write(w io.Writer, m *mesh.Mesh, point, cell []Field) error {
	nodes := m.Nodes()
	cells := 0
	conn := 0
	for _, v := range m.Volumes {
		if _, ok := vtkType[v.Type]; !ok {
			return fmt.Errorf("vtu: %w: element type %v has no VTK cell here", ErrField, v.Type)
		}
		cells += v.Len()
		conn += v.Len() * v.Type.Nodes()
	}
	seen := map[string]bool{}
	for _, set := range []struct {
		f    []Field
		n    int
		what string
	}{{point, nodes, "nodes"}, {cell, cells, "cells"}} {
		for _, f := range set.f {
			switch {
			case f.Name == "" || seen[f.Name]:
				return fmt.Errorf("vtu: %w: field name %q empty or repeated", ErrField, f.Name)
			case f.Components < 1 || len(f.Values) != f.Components*set.n:
				return fmt.Errorf("vtu: %w: field %q has %d values, want %d components × %d %s", ErrField, f.Name, len(f.Values), f.Components, set.n, set.what)
			}
			seen[f.Name] = true
		}
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n<UnstructuredGrid>\n<Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n", nodes, cells)
	bw.WriteString("<PointData>\n")
	for _, f := range point {
		writeFloats(bw, f.Name, f.Components, f.Values)
	}
	bw.WriteString("</PointData>\n<CellData>\n")
	for _, f := range cell {
		writeFloats(bw, f.Name, f.Components, f.Values)
	}
	bw.WriteString("</CellData>\n<Points>\n")
	writeFloats(bw, "Points", 3, m.Coords)
	bw.WriteString("</Points>\n<Cells>\n")
	c := make([]int64, 0, conn)
	off := make([]int64, 0, cells)
	types := make([]uint8, 0, cells)
	for _, v := range m.Volumes {
		t := vtkType[v.Type]
		k := v.Type.Nodes()
		for e := 0; e < v.Len(); e++ {
			for _, l := range t.order {
				c = append(c, int64(v.Nodes[e*k+l]))
			}
			off = append(off, int64(len(c)))
			types = append(types, t.code)
		}
	}
	writeArray(bw, "connectivity", "Int64", 1, len(c), func(b []byte) {
		for i, x := range c {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
		}
	}, 8)
	writeArray(bw, "offsets", "Int64", 1, len(off), func(b []byte) {
		for i, x := range off {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
		}
	}, 8)
	writeArray(bw, "types", "UInt8", 1, len(types), func(b []byte) { copy(b, types) }, 1)
	bw.WriteString("</Cells>\n</Piece>\n</UnstructuredGrid>\n</VTKFile>\n")
	return bw.Flush()
}

// WriteFile is Write to a new file at path.
func WriteFile(path string, m *mesh.Mesh, point, cell []Field) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, m, point, cell); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

func writeFloats(w *bufio.Writer, name string, comps int, v []float64) {
	writeArray(w, name, "Float64", comps, len(v), func(b []byte) {
		for i, x := range v {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
	}, 8)
}

// writeArray writes one DataArray of n values of size bytes each, filled by fill,
// as base64 of the UInt64 byte count followed by the data.
func writeArray(w *bufio.Writer, name, typ string, comps, n int, fill func([]byte), size int) {
	fmt.Fprintf(w, "<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"binary\">\n", typ, name, comps)
	b := make([]byte, 8+n*size)
	binary.LittleEndian.PutUint64(b, uint64(n*size))
	fill(b[8:])
	enc := base64.NewEncoder(base64.StdEncoding, w)
	enc.Write(b)
	enc.Close()
	w.WriteString("\n</DataArray>\n")
}
