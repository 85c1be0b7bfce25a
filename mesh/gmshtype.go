package mesh

import (
	"fmt"
	"strings"
)

// gmshType describes one of Gmsh's element types: enough to read past it (its node
// count), to tell skipped kinds (points, lines) from refused ones, and to name it.
type gmshType struct {
	name  string
	dim   int
	nodes int
	t     Type // 0 when this package does not read the type
}

// gmshTypes lists the element types of the MSH format by number (Gmsh manual, "MSH file
// format"; the numbers are Gmsh's, not this package's Type values). A number missing
// here is refused as unknown: its node count, needed to read past it, is not known.
var gmshTypes = map[int32]gmshType{
	1:  {"2-node line", 1, 2, 0},
	2:  {"3-node triangle", 2, 3, Tri3},
	3:  {"4-node quadrangle", 2, 4, Quad4},
	4:  {"4-node tetrahedron", 3, 4, Tet4},
	5:  {"8-node hexahedron", 3, 8, Hex8},
	6:  {"6-node prism", 3, 6, 0},
	7:  {"5-node pyramid", 3, 5, 0},
	8:  {"3-node line", 1, 3, 0},
	9:  {"6-node triangle", 2, 6, Tri6},
	10: {"9-node quadrangle", 2, 9, 0},
	11: {"10-node tetrahedron", 3, 10, Tet10},
	12: {"27-node hexahedron", 3, 27, 0},
	13: {"18-node prism", 3, 18, 0},
	14: {"14-node pyramid", 3, 14, 0},
	15: {"1-node point", 0, 1, 0},
	16: {"8-node quadrangle", 2, 8, 0},
	17: {"20-node hexahedron", 3, 20, 0},
	18: {"15-node prism", 3, 15, 0},
	19: {"13-node pyramid", 3, 13, 0},
	20: {"9-node triangle", 2, 9, 0},
	21: {"10-node triangle", 2, 10, 0},
	22: {"12-node triangle", 2, 12, 0},
	23: {"15-node triangle", 2, 15, 0},
	24: {"15-node incomplete triangle", 2, 15, 0},
	25: {"21-node triangle", 2, 21, 0},
	26: {"4-node line", 1, 4, 0},
	27: {"5-node line", 1, 5, 0},
	28: {"6-node line", 1, 6, 0},
	29: {"20-node tetrahedron", 3, 20, 0},
	30: {"35-node tetrahedron", 3, 35, 0},
	31: {"56-node tetrahedron", 3, 56, 0},
	92: {"64-node hexahedron", 3, 64, 0},
	93: {"125-node hexahedron", 3, 125, 0},
}

// gmshNumber is the Gmsh type number of each Type, for messages.
var gmshNumber = map[Type]int32{Tet4: 4, Tet10: 11, Hex8: 5, Tri3: 2, Tri6: 9, Quad4: 3}

// supportedTypes lists what the reader takes, for the message that refuses the rest.
var supportedTypes = func() string {
	var parts []string
	for _, t := range []Type{Tet4, Tet10, Hex8, Tri3, Tri6, Quad4} {
		parts = append(parts, fmt.Sprintf("%d (%s)", gmshNumber[t], t.String()))
	}
	return strings.Join(parts, ", ") + "; points and lines are skipped"
}()
