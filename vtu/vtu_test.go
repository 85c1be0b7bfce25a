package vtu

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/blockamg/blockamg/mesh"
)

// twoCells is one tet10 and one hex8 on 18 nodes at distinct coordinates.
func twoCells() *mesh.Mesh {
	m := &mesh.Mesh{}
	for i := 0; i < 18; i++ {
		m.Coords = append(m.Coords, float64(i), float64(2*i)+0.5, -float64(i))
	}
	m.Volumes = []mesh.Elements{
		{Type: mesh.Tet10, Nodes: []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, Group: []int32{1}, Tag: []int64{1}},
		{Type: mesh.Hex8, Nodes: []int32{10, 11, 12, 13, 14, 15, 16, 17}, Group: []int32{2}, Tag: []int64{2}},
	}
	return m
}

type dataArray struct {
	Type  string `xml:"type,attr"`
	Name  string `xml:"Name,attr"`
	Comps int    `xml:"NumberOfComponents,attr"`
	Body  string `xml:",chardata"`
}

type file struct {
	Piece struct {
		Points int         `xml:"NumberOfPoints,attr"`
		Cells  int         `xml:"NumberOfCells,attr"`
		PD     []dataArray `xml:"PointData>DataArray"`
		CD     []dataArray `xml:"CellData>DataArray"`
		P      []dataArray `xml:"Points>DataArray"`
		C      []dataArray `xml:"Cells>DataArray"`
	} `xml:"UnstructuredGrid>Piece"`
}

// decode returns an array's payload after checking its byte-count header.
func decode(t *testing.T, a dataArray) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace([]byte(a.Body))))
	if err != nil {
		t.Fatalf("%s: %v", a.Name, err)
	}
	if n := binary.LittleEndian.Uint64(b); n != uint64(len(b)-8) {
		t.Fatalf("%s: header says %d bytes, %d follow", a.Name, n, len(b)-8)
	}
	return b[8:]
}

func floats(b []byte) []float64 {
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v
}

func ints(b []byte) []int64 {
	v := make([]int64, len(b)/8)
	for i := range v {
		v[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v
}

// TestWriteReadsBack parses the file as XML and decodes every array: coordinates,
// fields, connectivity in VTK's node order (tet10's last two edge nodes swapped),
// offsets and cell types are what was written.
func TestWriteReadsBack(t *testing.T) {
	m := twoCells()
	u := make([]float64, 3*18)
	for i := range u {
		u[i] = math.Sin(float64(i))
	}
	var buf bytes.Buffer
	if err := Write(&buf, m, []Field{{"displacement", 3, u}}, []Field{{"von_mises", 1, []float64{1.5, -2}}}); err != nil {
		t.Fatal(err)
	}
	var f file
	if err := xml.Unmarshal(buf.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	p := f.Piece
	if p.Points != 18 || p.Cells != 2 {
		t.Fatalf("%d points, %d cells", p.Points, p.Cells)
	}
	if got := floats(decode(t, p.P[0])); !slices.Equal(got, m.Coords) {
		t.Errorf("points %v", got)
	}
	if got := floats(decode(t, p.PD[0])); p.PD[0].Name != "displacement" || p.PD[0].Comps != 3 || !slices.Equal(got, u) {
		t.Errorf("displacement %s %d %v", p.PD[0].Name, p.PD[0].Comps, got)
	}
	if got := floats(decode(t, p.CD[0])); !slices.Equal(got, []float64{1.5, -2}) {
		t.Errorf("von_mises %v", got)
	}
	want := []int64{0, 1, 2, 3, 4, 5, 6, 7, 9, 8, 10, 11, 12, 13, 14, 15, 16, 17}
	if got := ints(decode(t, p.C[0])); !slices.Equal(got, want) {
		t.Errorf("connectivity %v, want %v", got, want)
	}
	if got := ints(decode(t, p.C[1])); !slices.Equal(got, []int64{10, 18}) {
		t.Errorf("offsets %v", got)
	}
	if got := decode(t, p.C[2]); !bytes.Equal(got, []byte{24, 12}) {
		t.Errorf("types %v", got)
	}
}

// TestWriteRefusesBadFields: lengths that fit neither nodes nor cells, and empty or
// repeated names, are ErrField.
func TestWriteRefusesBadFields(t *testing.T) {
	m := twoCells()
	for _, tc := range []struct {
		name        string
		point, cell []Field
	}{
		{"short point field", []Field{{"u", 3, make([]float64, 3*17)}}, nil},
		{"cell field per node", nil, []Field{{"s", 1, make([]float64, 18)}}},
		{"empty name", []Field{{"", 1, make([]float64, 18)}}, nil},
		{"repeated name", []Field{{"a", 1, make([]float64, 18)}}, []Field{{"a", 1, make([]float64, 2)}}},
		{"no components", []Field{{"z", 0, nil}}, nil},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, m, tc.point, tc.cell); !errors.Is(err, ErrField) {
			t.Errorf("%s: %v, want ErrField", tc.name, err)
		}
	}
}
