package mesh

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/blockamg/blockamg/internal/readsize"
)

// ReadFile reads the Gmsh MSH 4.1 file at path; see Read. A file that cannot be
// opened gives os.Open's error (an *fs.PathError).
func ReadFile(path string) (*Mesh, []Warning, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads a mesh in Gmsh's MSH 4.1 format, ASCII or binary, from r. name names the
// input in messages and warnings.
//
// It keeps every volume element (tet4, tet10, hex8), in the physical group of its
// entity (0 when the entity has none; the first when it has several, with a warning),
// and the surface elements (tri3, tri6, quad4) whose entity is in a physical group,
// once per group. Points and lines are skipped; any other element type is an error.
// Nodes that no volume element uses are dropped with a warning; the others keep the
// file's order, NodeTag their tags. See the package documentation for the rest.
//
// An error that the content causes is a *ParseError wrapping ErrMesh and one of the
// finer sentinels (ErrSyntax, ErrTruncated, ErrVersion, ErrUnsupported, ErrDuplicate,
// ErrUndefined, ErrSurface, ErrEmpty); a failed read is a *ParseError wrapping the
// reader's error. On error the mesh is nil.
func Read(r io.Reader, name string) (*Mesh, []Warning, error) {
	size := readsize.Remaining(r)
	p := &parser{
		s:      newScanner(r, bufFor(size)),
		name:   name,
		size:   size,
		names:  map[groupKey]string{},
		warned: map[groupKey]bool{},
	}
	for d := range p.phys {
		p.phys[d] = map[int32][]int32{}
	}
	m, err := p.read()
	if err != nil {
		return nil, nil, err
	}
	return m, p.warns, nil
}

// groupKey names a physical group or an entity: Gmsh numbers both per dimension.
type groupKey struct{ dim, tag int32 }

// parser holds what has been read so far. Node and element references stay indices
// into the file's node order until finish drops the unused nodes.
type parser struct {
	s     *scanner
	name  string
	size  int64 // input size, -1 when unknown
	bin   bool
	order binary.ByteOrder
	warns []Warning

	physNames, entities, partitioned, nodesRead, elemsRead bool
	done                                                   bool // all sections read: finish's errors are not the cut's

	names  map[groupKey]string
	phys   [4]map[int32][]int32 // entity tag → physical tags, by dimension
	part   [4]map[int32][]int32 // the same for partitioned entities, nil without
	warned map[groupKey]bool    // entities already warned about

	coords []float64
	tags   []int64
	nodes  tagIndex

	volTags tagIndex
	vol     [Quad4 + 1]Elements // by Type; only the volume types are used
	surf    [Quad4 + 1]Elements // by Type; only the surface types are used
	surfLoc [Quad4 + 1][]int64  // where each surface element is, for ErrSurface
	scratch []int32
	// elemLine is the line of the last element read in an ASCII file.
	elemLine int
}

// loc is where the last token or byte run began: its line in an ASCII file, its offset
// in a binary one.
func (p *parser) loc() int64 {
	if p.bin {
		return p.s.tokOff
	}
	return int64(p.s.tokLine)
}

// errAt returns a ParseError at l (a loc value). While the sections are read, a
// problem found when the last token ran into the end of the input is put down to the
// cut: a node tag "20" cut to "2" is a duplicate, "0.5" cut to "0." a bad number.
func (p *parser) errAt(l int64, kind error, format string, args ...any) *ParseError {
	e := &ParseError{File: p.name, Offset: -1, Msg: fmt.Sprintf(format, args...), Kind: kind}
	if kind != nil && kind != ErrTruncated && !p.done && p.cut() {
		e.Kind, e.Msg = ErrTruncated, "unexpected end of file: "+e.Msg
	}
	if p.bin {
		e.Offset = l
	} else {
		e.Line = int(l)
	}
	return e
}

// warnAt records a warning at l; l < 0: not located.
func (p *parser) warnAt(l int64, format string, args ...any) {
	w := Warning{File: p.name, Offset: -1, Msg: fmt.Sprintf(format, args...)}
	switch {
	case l < 0:
	case p.bin:
		w.Offset = l
	default:
		w.Line = int(l)
	}
	p.warns = append(p.warns, w)
}

// ended is the error for an input that stopped where what was expected: a read error,
// an overlong token or the end of the file.
func (p *parser) ended(what string, want, got int) error {
	switch {
	case p.s.err != nil:
		e := p.errAt(p.loc(), nil, "read failed, expecting %s", what)
		e.Err = p.s.err
		return e
	case p.s.long:
		return p.errAt(p.loc(), ErrSyntax, "expected %s, found a token longer than %d bytes", what, maxToken)
	case want > 0:
		return p.errAt(p.loc(), ErrTruncated, "unexpected end of file: expected %s (%d bytes), found %d", what, want, got)
	}
	return p.errAt(p.loc(), ErrTruncated, "unexpected end of file: expected %s", what)
}

// quote shows a token in a message, cut short when long.
func quote(b []byte) string {
	if len(b) > 40 {
		return strconv.Quote(string(b[:40])) + "…"
	}
	return strconv.Quote(string(b))
}

// cut reports whether the last token ran into the end of the input: a bad token
// there is a number or name cut short.
func (p *parser) cut() bool { return p.s.eof && p.s.pos == p.s.end && !p.s.long }

// bad is the error for a token that is not what was expected.
func (p *parser) bad(b []byte, format string, args ...any) error {
	return p.errAt(p.loc(), ErrSyntax, "%s, found %s", fmt.Sprintf(format, args...), quote(b))
}

// word reads a text token.
func (p *parser) word(what string) ([]byte, error) {
	b, ok := p.s.token()
	if !ok {
		return nil, p.ended(what, 0, 0)
	}
	return b, nil
}

// rangeText says which integers are expected.
func rangeText(lo, hi int64) string {
	switch {
	case hi == math.MaxInt64:
		return fmt.Sprintf("an integer ≥ %d", lo)
	case hi-lo == 1:
		return fmt.Sprintf("%d or %d", lo, hi)
	}
	return fmt.Sprintf("an integer from %d to %d", lo, hi)
}

// textInt reads a decimal integer in [lo, hi] from a text token.
func (p *parser) textInt(what string, lo, hi int64) (int64, error) {
	if v, ok := p.s.uint(); ok {
		if v < lo || v > hi {
			return 0, p.bad(p.s.buf[p.s.tokOff-p.s.base:p.s.pos], "expected %s (%s)", what, rangeText(lo, hi))
		}
		return v, nil
	}
	b, err := p.word(what)
	if err != nil {
		return 0, err
	}
	v, ok := parseInt(b)
	if !ok || v < lo || v > hi {
		return 0, p.bad(b, "expected %s (%s)", what, rangeText(lo, hi))
	}
	return v, nil
}

// binInt reads a binary integer of width 4 (int) or 8 (size_t) in [lo, hi].
func (p *parser) binInt(what string, width int, lo, hi int64) (int64, error) {
	b, ok := p.s.take(width)
	if !ok {
		return 0, p.ended(what, width, len(b))
	}
	var v int64
	if width == 4 {
		v = int64(int32(p.order.Uint32(b)))
	} else {
		u := p.order.Uint64(b)
		if u > math.MaxInt64 {
			return 0, p.errAt(p.loc(), ErrSyntax, "expected %s (%s), found %d", what, rangeText(lo, hi), u)
		}
		v = int64(u)
	}
	if v < lo || v > hi {
		return 0, p.errAt(p.loc(), ErrSyntax, "expected %s (%s), found %d", what, rangeText(lo, hi), v)
	}
	return v, nil
}

// intT reads what the format calls an int: 4 bytes in a binary file.
func (p *parser) intT(what string, lo, hi int64) (int64, error) {
	if p.bin {
		return p.binInt(what, 4, lo, hi)
	}
	return p.textInt(what, lo, hi)
}

// sizeT reads what the format calls a size_t: 8 bytes in a binary file.
func (p *parser) sizeT(what string, lo, hi int64) (int64, error) {
	if p.bin {
		return p.binInt(what, 8, lo, hi)
	}
	return p.textInt(what, lo, hi)
}

// real reads a finite double.
func (p *parser) real(what string) (float64, error) {
	if p.bin {
		b, ok := p.s.take(8)
		if !ok {
			return 0, p.ended(what, 8, len(b))
		}
		v := math.Float64frombits(p.order.Uint64(b))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, p.errAt(p.loc(), ErrSyntax, "expected %s (a finite number), found %v", what, v)
		}
		return v, nil
	}
	b, err := p.word(what)
	if err != nil {
		return 0, err
	}
	v, ok := parseReal(b)
	if !ok {
		return 0, p.bad(b, "expected %s (a finite decimal number)", what)
	}
	return v, nil
}

// promise refuses a header (at) that claims count items of at least each bytes when the
// rest of the input cannot hold them, before anything is allocated for them. It
// returns how many items to make room for.
func (p *parser) promise(count, each int64, what string, at int64) (int, error) {
	if p.size < 0 {
		return int(min(count, 1<<10)), nil // unknown size: let appends grow
	}
	left := p.size - p.s.off()
	if count > left/each {
		return 0, p.errAt(at, ErrTruncated, "unexpected end of file: %d %s need at least %d bytes, %d are left",
			count, what, min(count, math.MaxInt64/each)*each, left)
	}
	return int(count), nil
}

const (
	maxInt32 = math.MaxInt32
	minInt32 = math.MinInt32
	maxInt64 = math.MaxInt64
)

func (p *parser) read() (*Mesh, error) {
	tok, ok := p.s.token()
	if !ok {
		return nil, p.ended("$MeshFormat", 0, 0)
	}
	switch string(tok) {
	case "$MeshFormat":
	case "$NOD", "$NOE":
		return nil, p.errAt(p.loc(), ErrVersion, "MSH version 1 is not read: only 4.1 is; %s", how41)
	default:
		return nil, p.bad(tok, "expected $MeshFormat")
	}
	if err := p.readMeshFormat(); err != nil {
		return nil, err
	}
	for {
		tok, ok := p.s.token()
		if !ok {
			if p.s.err != nil || p.s.long {
				return nil, p.ended("a section", 0, 0)
			}
			break
		}
		at := p.loc()
		if len(tok) < 2 || tok[0] != '$' {
			return nil, p.bad(tok, "expected a section ($Name)")
		}
		name := string(tok[1:])
		var err error
		switch name {
		case "MeshFormat":
			err = p.errAt(at, ErrSyntax, "a second $MeshFormat section")
		case "PhysicalNames":
			err = p.once(&p.physNames, at, name, p.readPhysicalNames)
		case "Entities":
			if p.elemsRead {
				err = p.errAt(at, ErrSyntax, "$Entities after $Elements: the format puts it before $Nodes")
				break
			}
			err = p.once(&p.entities, at, name, p.readEntities)
		case "PartitionedEntities":
			if p.elemsRead {
				err = p.errAt(at, ErrSyntax, "$PartitionedEntities after $Elements: the format puts it before $Nodes")
				break
			}
			err = p.once(&p.partitioned, at, name, p.readPartitionedEntities)
		case "Nodes":
			err = p.once(&p.nodesRead, at, name, p.readNodes)
		case "Elements":
			if !p.nodesRead {
				err = p.errAt(at, ErrSyntax, "$Elements before $Nodes")
				break
			}
			err = p.once(&p.elemsRead, at, name, p.readElements)
		default:
			if len(name) > 3 && name[:3] == "End" {
				err = p.errAt(at, ErrSyntax, "%s without $%s", quote(tok), name[3:])
				break
			}
			if !p.s.skipTo([]byte("\n$End" + name)) {
				err = p.ended("$End"+name+" (skipping $"+name+")", 0, 0)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return p.finish()
}

// how41 tells how to get a file this package reads.
const how41 = "convert it with gmsh IN.msh -save -format msh41 -o OUT.msh, or mesh with gmsh -3 -format msh41 IN.geo (or Mesh.MshFileVersion = 4.1; in the .geo file)"

// once reads a section that may occur once: its header line, its body and its end.
func (p *parser) once(seen *bool, at int64, name string, body func() error) error {
	if *seen {
		return p.errAt(at, ErrSyntax, "a second $%s section", name)
	}
	*seen = true
	if !p.s.endLine() {
		b, _ := p.s.token()
		return p.errAt(p.loc(), ErrSyntax, "expected the end of the line after $%s, found %s", name, quote(b))
	}
	if err := body(); err != nil {
		return err
	}
	return p.end(name)
}

// end reads a section's closing $EndName.
func (p *parser) end(name string) error {
	want := "$End" + name
	b, err := p.word(want)
	if err != nil {
		return err
	}
	if string(b) != want {
		return p.bad(b, "expected %s", want)
	}
	return nil
}

func (p *parser) readMeshFormat() error {
	v, err := p.word("the MSH version")
	if err != nil {
		return err
	}
	if string(v) != "4.1" {
		if _, ok := parseReal(v); ok {
			return p.errAt(p.loc(), ErrVersion, "MSH version %s is not read: only 4.1 is; %s", v, how41)
		}
		return p.bad(v, "expected the MSH version (4.1)")
	}
	ft, err := p.textInt("the file type", 0, 1)
	if err != nil {
		return err
	}
	p.bin = ft == 1 // from here on, locations are offsets
	ds, err := p.textInt("the data size", 0, maxInt32)
	if err != nil {
		return err
	}
	if ft == 1 {
		if ds != 8 {
			return p.errAt(p.loc(), ErrVersion, "binary MSH with data size %d is not read: only 8 (a 64-bit size_t, what gmsh writes on 64-bit systems)", ds)
		}
		if !p.s.endLine() {
			b, _ := p.s.token()
			return p.errAt(p.loc(), ErrSyntax, "expected the end of the line after the data size, found %s", quote(b))
		}
		b, ok := p.s.take(4)
		if !ok {
			return p.ended("the integer 1 that gives the byte order", 4, len(b))
		}
		switch {
		case binary.LittleEndian.Uint32(b) == 1:
			p.order = binary.LittleEndian
		case binary.BigEndian.Uint32(b) == 1:
			p.order = binary.BigEndian
		default:
			return p.errAt(p.loc(), ErrVersion, "expected the integer 1 that gives the byte order, found bytes % x", b)
		}
	}
	return p.end("MeshFormat")
}

// readPhysicalNames reads the group names; the section is text in binary files too.
func (p *parser) readPhysicalNames() error {
	n, err := p.textInt("the number of physical names", 0, maxInt64)
	if err != nil {
		return err
	}
	var buf []byte
	type namedKey struct {
		dim  int32
		name string
	}
	named := map[namedKey]int32{} // a surface or volume group's tag by its name
	for range n {
		dim, err := p.textInt("a physical group's dimension", 0, 3)
		if err != nil {
			return err
		}
		tag, err := p.textInt("a physical tag", 1, maxInt32)
		if err != nil {
			return err
		}
		at := p.loc()
		var ok bool
		buf, ok = p.s.quoted(buf[:0])
		if !ok {
			if p.s.eof && p.s.pos == p.s.end {
				return p.ended("a quoted group name", 0, 0)
			}
			return p.errAt(p.loc(), ErrSyntax, "expected a group name in double quotes on the line of its tag")
		}
		k := groupKey{int32(dim), int32(tag)}
		if _, dup := p.names[k]; dup {
			return p.errAt(at, ErrDuplicate, "physical group %d of dimension %d named twice", tag, dim)
		}
		// Surface and volume groups are chosen by name (GroupByName), so one name
		// must not stand for two of them.
		if dim >= 2 {
			nk := namedKey{int32(dim), string(buf)}
			if o, dup := named[nk]; dup {
				return p.errAt(at, ErrDuplicate, "group name %q given to physical groups %d and %d of dimension %d: a name must tell its group apart", nk.name, o, tag, dim)
			}
			named[nk] = int32(tag)
		}
		p.names[k] = string(buf)
	}
	return nil
}

// readEntities keeps each entity's physical tags: those of surfaces and volumes for
// their elements, those of points and curves to warn that they are not read.
func (p *parser) readEntities() error {
	return p.entityLists(p.phys, false)
}

// readPartitionedEntities keeps the physical tags of a partitioned mesh's entities,
// which its element blocks refer to instead of the model's.
func (p *parser) readPartitionedEntities() error {
	if _, err := p.sizeT("the number of partitions", 0, maxInt64); err != nil {
		return err
	}
	ng, err := p.sizeT("the number of ghost entities", 0, maxInt64)
	if err != nil {
		return err
	}
	for range ng {
		if _, err := p.intT("a ghost entity tag", minInt32, maxInt32); err != nil {
			return err
		}
		if _, err := p.intT("a partition tag", minInt32, maxInt32); err != nil {
			return err
		}
	}
	for d := range p.part {
		p.part[d] = map[int32][]int32{}
	}
	return p.entityLists(p.part, true)
}

// entityLists reads the four lists of entities of $Entities or $PartitionedEntities
// (whose entities also name a parent and their partitions) into phys.
func (p *parser) entityLists(phys [4]map[int32][]int32, partitioned bool) error {
	var counts [4]int64
	for d, what := range []string{"the number of points", "the number of curves", "the number of surfaces", "the number of volumes"} {
		n, err := p.sizeT(what, 0, maxInt64)
		if err != nil {
			return err
		}
		counts[d] = n
	}
	for d, n := range counts {
		for range n {
			tag, err := p.intT("an entity tag", minInt32, maxInt32)
			if err != nil {
				return err
			}
			at := p.loc()
			parentDim := int64(d)
			if partitioned {
				if parentDim, err = p.intT("a parent entity's dimension", 0, 3); err != nil {
					return err
				}
				if _, err := p.intT("a parent entity's tag", minInt32, maxInt32); err != nil {
					return err
				}
				np, err := p.sizeT("the number of partitions", 0, maxInt64)
				if err != nil {
					return err
				}
				for range np {
					if _, err := p.intT("a partition tag", minInt32, maxInt32); err != nil {
						return err
					}
				}
			}
			box := 6
			if d == 0 {
				box = 3
			}
			for range box {
				if _, err := p.real("an entity's coordinate"); err != nil {
					return err
				}
			}
			np, err := p.sizeT("the number of physical tags", 0, maxInt64)
			if err != nil {
				return err
			}
			tags := []int32{}
			for range np {
				t, err := p.intT("a physical tag", 1, maxInt32)
				if err != nil {
					return err
				}
				tags = append(tags, int32(t))
			}
			if d > 0 {
				nb, err := p.sizeT("the number of bounding entities", 0, maxInt64)
				if err != nil {
					return err
				}
				for range nb {
					if _, err := p.intT("a bounding entity tag", minInt32, maxInt32); err != nil {
						return err
					}
				}
			}
			if _, dup := phys[d][int32(tag)]; dup {
				return p.errAt(at, ErrDuplicate, "entity %d of dimension %d defined twice", tag, d)
			}
			if parentDim != int64(d) {
				// A partition boundary inside a parent of higher dimension carries the
				// parent's groups, which are not groups of this dimension.
				tags = []int32{}
			}
			phys[d][int32(tag)] = tags
		}
	}
	return nil
}

// Smallest sizes of the items of $Nodes and $Elements, in bytes, to refuse headers
// that promise more than the input holds.
const (
	textNode = 8  // "1\n0 0 0\n"
	binNode  = 32 // a size_t tag and three doubles
)

func (p *parser) readNodes() error {
	nb, err := p.sizeT("the number of node blocks", 0, maxInt64)
	if err != nil {
		return err
	}
	nn, err := p.sizeT("the number of nodes", 0, maxInt64)
	if err != nil {
		return err
	}
	at := p.loc()
	lo, err := p.sizeT("the smallest node tag", 0, maxInt64)
	if err != nil {
		return err
	}
	hi, err := p.sizeT("the largest node tag", 0, maxInt64)
	if err != nil {
		return err
	}
	if nn > maxInt32 {
		return p.errAt(at, ErrUnsupported, "%d nodes: at most %d are read (node indices are int32)", nn, maxInt32)
	}
	each := int64(textNode)
	if p.bin {
		each = binNode
	}
	room, err := p.promise(nn, each, "nodes", at)
	if err != nil {
		return err
	}
	p.coords = make([]float64, 0, 3*room)
	p.tags = make([]int64, 0, room)
	p.nodes.init(lo, room)
	for range nb {
		dim, err := p.intT("an entity dimension", 0, 3)
		if err != nil {
			return err
		}
		if _, err := p.intT("an entity tag", minInt32, maxInt32); err != nil {
			return err
		}
		par, err := p.intT("the parametric flag", 0, 1)
		if err != nil {
			return err
		}
		n, err := p.sizeT("the number of nodes in the block", 0, nn-int64(len(p.tags)))
		if err != nil {
			return err
		}
		for range n {
			tag, err := p.sizeT("a node tag", 1, maxInt64)
			if err != nil {
				return err
			}
			// Gmsh sizes its own node table from the header's range.
			if tag < lo || tag > hi {
				return p.errAt(p.loc(), ErrSyntax, "node tag %d outside the range %d … %d the $Nodes header declares", tag, lo, hi)
			}
			if !p.nodes.add(tag, int32(len(p.tags))) {
				return p.errAt(p.loc(), ErrDuplicate, "node tag %d defined twice", tag)
			}
			p.tags = append(p.tags, tag)
		}
		extra := 0
		if par == 1 {
			extra = int(dim)
		}
		if p.bin {
			if err := p.binCoords(n, extra); err != nil {
				return err
			}
			continue
		}
		for range n {
			for range 3 {
				x, err := p.real("a node coordinate")
				if err != nil {
					return err
				}
				p.coords = append(p.coords, x)
			}
			for range extra {
				if _, err := p.real("a parametric coordinate"); err != nil {
					return err
				}
			}
		}
	}
	if int64(len(p.tags)) != nn {
		return p.errAt(at, ErrSyntax, "the $Nodes header declares %d nodes, its %d blocks hold %d", nn, nb, len(p.tags))
	}
	return nil
}

// binCoords reads n nodes' coordinates, 3+extra doubles each, of which it keeps 3.
func (p *parser) binCoords(n int64, extra int) error {
	w := 8 * (3 + extra)
	for range n {
		b, ok := p.s.take(w)
		if !ok {
			return p.ended("a node's coordinates", w, len(b))
		}
		for d := range 3 {
			x := math.Float64frombits(p.order.Uint64(b[8*d:]))
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return p.errAt(p.s.tokOff+8*int64(d), ErrSyntax, "expected a node coordinate (a finite number), found %v", x)
			}
			p.coords = append(p.coords, x)
		}
		for d := 3; d < 3+extra; d++ {
			if x := math.Float64frombits(p.order.Uint64(b[8*d:])); math.IsNaN(x) || math.IsInf(x, 0) {
				return p.errAt(p.s.tokOff+8*int64(d), ErrSyntax, "expected a parametric coordinate (a finite number), found %v", x)
			}
		}
	}
	return nil
}

func (p *parser) readElements() error {
	nb, err := p.sizeT("the number of element blocks", 0, maxInt64)
	if err != nil {
		return err
	}
	ne, err := p.sizeT("the number of elements", 0, maxInt64)
	if err != nil {
		return err
	}
	at := p.loc()
	lo, err := p.sizeT("the smallest element tag", 0, maxInt64)
	if err != nil {
		return err
	}
	if _, err := p.sizeT("the largest element tag", 0, maxInt64); err != nil {
		return err
	}
	each := int64(4) // "1 1\n": a tag and a node
	if p.bin {
		each = 16
	}
	room, err := p.promise(ne, each, "elements", at)
	if err != nil {
		return err
	}
	p.volTags.init(lo, room)
	var total int64
	for range nb {
		edim, err := p.intT("an entity dimension", 0, 3)
		if err != nil {
			return err
		}
		hdr := p.loc()
		etag, err := p.intT("an entity tag", minInt32, maxInt32)
		if err != nil {
			return err
		}
		gt, err := p.intT("an element type", minInt32, maxInt32)
		if err != nil {
			return err
		}
		tat := p.loc()
		n, err := p.sizeT("the number of elements in the block", 0, ne-total)
		if err != nil {
			return err
		}
		info, ok := gmshTypes[int32(gt)]
		switch {
		case !ok:
			return p.errAt(tat, ErrUnsupported, "unknown element type %d — supported: %s", gt, supportedTypes)
		case info.dim != int(edim):
			return p.errAt(tat, ErrSyntax, "element type %d (%s) is of dimension %d, but its block's entity is of dimension %d", gt, info.name, info.dim, edim)
		case info.dim >= 2 && info.t == 0:
			return p.errAt(tat, ErrUnsupported, "unsupported element type %d (%s) — supported: %s", gt, info.name, supportedTypes)
		}
		room, err := p.promise(n, int64(info.nodes+1)*(each/2), info.name+" elements", hdr)
		if err != nil {
			return err
		}
		switch info.dim {
		case 3:
			err = p.volumeBlock(info.t, int32(etag), n, room, hdr)
		case 2:
			err = p.surfaceBlock(info.t, int32(etag), n, hdr)
		default:
			err = p.skipBlock(info, n)
		}
		if err != nil {
			return err
		}
		total += n
	}
	if total != ne {
		return p.errAt(at, ErrSyntax, "the $Elements header declares %d elements, its %d blocks hold %d", ne, nb, total)
	}
	return nil
}

// element reads one element's tag and node tags, the nodes as indices into p.scratch.
func (p *parser) element(t string, nodes int) (tag, at int64, err error) {
	if p.bin {
		return p.binElement(t, nodes)
	}
	tag, err = p.sizeT("an element tag", 1, maxInt64)
	if err != nil {
		return 0, 0, err
	}
	at = p.loc()
	// An element is one line: tokens read across lines would blame a fault on the
	// elements after it.
	line := p.s.tokLine
	if line == p.elemLine {
		return 0, 0, p.errAt(at, ErrSyntax, "more than a tag and %d node tags on a %s element's line", nodes, t)
	}
	p.elemLine = line
	p.scratch = p.scratch[:0]
	for j := range nodes {
		nt, err := p.sizeT("a node tag", 1, maxInt64)
		if err != nil {
			return 0, 0, err
		}
		if p.s.tokLine != line {
			return 0, 0, p.errAt(int64(line), ErrSyntax, "element %d (%s) has %d node tags on its line, want %d", tag, t, j, nodes)
		}
		i, ok := p.nodes.get(nt)
		if !ok {
			return 0, 0, p.errAt(p.loc(), ErrUndefined, "element %d (%s) has node %d, which $Nodes does not define", tag, t, nt)
		}
		p.scratch = append(p.scratch, i)
	}
	return tag, at, nil
}

// binElement is element for binary files: one read for the element's 8·(1+nodes)
// bytes (at most 1008, less than the scanner's buffer), then the decoding.
func (p *parser) binElement(t string, nodes int) (tag, at int64, err error) {
	w := 8 * (1 + nodes)
	b, ok := p.s.take(w)
	if !ok {
		return 0, 0, p.ended(fmt.Sprintf("a %s element (a tag and %d node tags)", t, nodes), w, len(b))
	}
	at = p.s.tokOff
	u := p.order.Uint64(b)
	if u < 1 || u > maxInt64 {
		return 0, 0, p.errAt(at, ErrSyntax, "expected an element tag (%s), found %d", rangeText(1, maxInt64), u)
	}
	tag = int64(u)
	p.scratch = p.scratch[:0]
	for j := 1; j <= nodes; j++ {
		u := p.order.Uint64(b[8*j:])
		if u < 1 || u > maxInt64 {
			return 0, 0, p.errAt(at+8*int64(j), ErrSyntax, "expected a node tag (%s), found %d", rangeText(1, maxInt64), u)
		}
		i, ok := p.nodes.get(int64(u))
		if !ok {
			return 0, 0, p.errAt(at+8*int64(j), ErrUndefined, "element %d (%s) has node %d, which $Nodes does not define", tag, t, u)
		}
		p.scratch = append(p.scratch, i)
	}
	return tag, at, nil
}

func (p *parser) skipBlock(info gmshType, n int64) error {
	for range n {
		if _, _, err := p.element(info.name, info.nodes); err != nil {
			return err
		}
	}
	return nil
}

// volumeBlock reads n volume elements, making room for room of them at once.
func (p *parser) volumeBlock(t Type, entity int32, n int64, room int, hdr int64) error {
	group := p.volumeGroup(entity, hdr)
	e := &p.vol[t]
	e.Type = t
	k := t.Nodes()
	e.Nodes = slices.Grow(e.Nodes, room*k)
	e.Group = slices.Grow(e.Group, room)
	e.Tag = slices.Grow(e.Tag, room)
	name := t.String()
	for range n {
		tag, at, err := p.element(name, k)
		if err != nil {
			return err
		}
		if !p.volTags.add(tag, 0) {
			return p.errAt(at, ErrDuplicate, "volume element tag %d defined twice", tag)
		}
		e.Nodes = append(e.Nodes, p.scratch...)
		e.Group = append(e.Group, group)
		e.Tag = append(e.Tag, tag)
	}
	return nil
}

func (p *parser) surfaceBlock(t Type, entity int32, n int64, hdr int64) error {
	groups := p.surfaceGroups(entity, hdr)
	e := &p.surf[t]
	e.Type = t
	k := t.Nodes()
	name := t.String()
	for range n {
		tag, at, err := p.element(name, k)
		if err != nil {
			return err
		}
		for _, g := range groups {
			e.Nodes = append(e.Nodes, p.scratch...)
			e.Group = append(e.Group, g)
			e.Tag = append(e.Tag, tag)
			p.surfLoc[t] = append(p.surfLoc[t], at)
		}
	}
	return nil
}

// entityPhys returns the physical tags of the entity an element block names: a
// partitioned entity in a partitioned mesh, a model entity otherwise. The string names
// the section that lacks it when !ok.
func (p *parser) entityPhys(dim int, entity int32) ([]int32, bool, string) {
	if p.partitioned {
		phys, ok := p.part[dim][entity]
		return phys, ok, "$PartitionedEntities"
	}
	phys, ok := p.phys[dim][entity]
	return phys, ok, "$Entities"
}

// volumeGroup is the physical group of a volume entity's elements.
func (p *parser) volumeGroup(entity int32, hdr int64) int32 {
	if !p.entities && !p.partitioned {
		return 0
	}
	phys, ok, sec := p.entityPhys(3, entity)
	k := groupKey{3, entity}
	switch {
	case !ok:
		if !p.warned[k] {
			p.warned[k] = true
			p.warnAt(hdr, "volume entity %d is not in %s: its elements are in no physical group", entity, sec)
		}
		return 0
	case len(phys) == 0:
		return 0
	case len(phys) > 1 && !p.warned[k]:
		p.warned[k] = true
		p.warnAt(hdr, "volume entity %d is in %d physical groups %v: its elements go to the first, %d", entity, len(phys), phys, phys[0])
	}
	return phys[0]
}

// surfaceGroups are the physical groups of a surface entity's elements: none drops
// them, several repeat them.
func (p *parser) surfaceGroups(entity int32, hdr int64) []int32 {
	k := groupKey{2, entity}
	if !p.entities && !p.partitioned {
		if !p.warned[k] {
			p.warned[k] = true
			p.warnAt(hdr, "no $Entities section before $Elements: the surface elements of entity %d are in no physical group and are dropped", entity)
		}
		return nil
	}
	phys, ok, sec := p.entityPhys(2, entity)
	if !ok && !p.warned[k] {
		p.warned[k] = true
		p.warnAt(hdr, "surface entity %d is not in %s: its elements are in no physical group and are dropped", entity, sec)
	}
	return phys
}

// finish drops the nodes no volume element uses, checks that the surfaces lie on the
// volume mesh, renumbers, and lists the groups.
func (p *parser) finish() (*Mesh, error) {
	p.done = true
	whole := func(kind error, format string, args ...any) error {
		return &ParseError{File: p.name, Offset: -1, Msg: fmt.Sprintf(format, args...), Kind: kind}
	}
	if !p.elemsRead {
		return nil, whole(ErrTruncated, "unexpected end of file: no $Elements section")
	}
	nv := 0
	for _, t := range volumeTypes {
		nv += p.vol[t].Len()
	}
	if nv == 0 {
		return nil, whole(ErrEmpty, "no volume elements (tet4, tet10 or hex8): is it a 3D mesh (gmsh -3)?")
	}

	// newIdx[i] is file node i's index in the mesh, -1 when no volume uses it.
	newIdx := make([]int32, len(p.tags))
	for _, t := range volumeTypes {
		for _, n := range p.vol[t].Nodes {
			newIdx[n] = 1
		}
	}
	var kept int32
	var unused []int64
	dropped := 0
	for i, u := range newIdx {
		if u == 0 {
			newIdx[i] = -1
			if dropped++; len(unused) < 5 {
				unused = append(unused, p.tags[i])
			}
			continue
		}
		newIdx[i] = kept
		kept++
	}
	if dropped > 0 {
		more := ""
		if dropped > len(unused) {
			more = ", …"
		}
		p.warnAt(-1, "%d nodes that no volume element uses were dropped (tags %s%s)", dropped, joinInts(unused), more)
	}
	for _, t := range surfaceTypes {
		e := &p.surf[t]
		k := t.Nodes()
		for j, n := range e.Nodes {
			if newIdx[n] < 0 {
				return nil, p.errAt(p.surfLoc[t][j/k], ErrSurface, "surface element %d (%v) has node %d, which no volume element has",
					e.Tag[j/k], t, p.tags[n])
			}
		}
	}
	for i, j := range newIdx {
		if j >= 0 { // 3·j in int: an int32 index times 3 overflows int32
			p.tags[j] = p.tags[i]
			copy(p.coords[3*int(j):3*int(j)+3], p.coords[3*i:3*i+3])
		}
	}
	m := &Mesh{Coords: slices.Clip(p.coords[:3*int(kept)]), NodeTag: slices.Clip(p.tags[:kept])}
	for _, t := range volumeTypes {
		if e := p.vol[t]; e.Len() > 0 {
			remap(e.Nodes, newIdx)
			m.Volumes = append(m.Volumes, e)
		}
	}
	for _, t := range surfaceTypes {
		if e := p.surf[t]; e.Len() > 0 {
			remap(e.Nodes, newIdx)
			m.Surfaces = append(m.Surfaces, e)
		}
	}
	m.Groups = p.groups()
	return m, nil
}

var (
	volumeTypes  = []Type{Tet4, Tet10, Hex8}
	surfaceTypes = []Type{Tri3, Tri6, Quad4}
)

func remap(nodes, newIdx []int32) {
	for j, n := range nodes {
		nodes[j] = newIdx[n]
	}
}

func joinInts(v []int64) string {
	var b []byte
	for i, x := range v {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, x, 10)
	}
	return string(b)
}

// groups lists the volume and surface groups: named in $PhysicalNames or given to an
// entity; volumes first, each dimension by tag. Point and curve groups get a warning.
func (p *parser) groups() []Group {
	seen := map[groupKey]bool{}
	var keys []groupKey
	addKey := func(k groupKey) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for k := range p.names {
		addKey(k)
	}
	for d := range p.phys {
		for _, m := range []map[int32][]int32{p.phys[d], p.part[d]} {
			for _, phys := range m {
				for _, t := range phys {
					addKey(groupKey{int32(d), t})
				}
			}
		}
	}
	slices.SortFunc(keys, func(a, b groupKey) int {
		if a.dim != b.dim {
			return int(b.dim - a.dim)
		}
		return int(a.tag) - int(b.tag)
	})
	var gs []Group
	for _, k := range keys {
		if k.dim < 2 {
			kind := "point"
			if k.dim == 1 {
				kind = "curve"
			}
			p.warnAt(-1, "physical group %d %q of dimension %d is not read: it is a %s group (only volume and surface groups are)", k.tag, p.names[k], k.dim, kind)
			continue
		}
		gs = append(gs, Group{Dim: int(k.dim), Tag: k.tag, Name: p.names[k]})
	}
	return gs
}
