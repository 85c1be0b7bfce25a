package mesh

import (
	"fmt"

	"github.com/blockamg/blockamg/internal/located"
)

// The finer sentinels. Each wraps ErrMesh, so errors.Is(err, ErrMesh) holds for all of
// them; test for one of these when the kind of problem matters.
var (
	// ErrSyntax: a token or number is not what the format puts there (a bad number, a
	// missing section end, text where a section should start, sections out of order,
	// counts that disagree with their header).
	ErrSyntax = fmt.Errorf("%w: syntax", ErrMesh)
	// ErrTruncated: the input ends inside a section or before $Elements, or a header
	// promises more data than the rest of the input can hold.
	ErrTruncated = fmt.Errorf("%w: truncated", ErrMesh)
	// ErrVersion: the file is not MSH 4.1 (or is binary with another word size or an
	// unreadable byte order).
	ErrVersion = fmt.Errorf("%w: unsupported version", ErrMesh)
	// ErrUnsupported: an element type this package does not read, or more nodes than
	// int32 indices reach.
	ErrUnsupported = fmt.Errorf("%w: unsupported", ErrMesh)
	// ErrDuplicate: a node tag, a volume element tag, an entity or a group name is
	// defined twice.
	ErrDuplicate = fmt.Errorf("%w: duplicate tag", ErrMesh)
	// ErrUndefined: an element names a node tag that $Nodes does not define.
	ErrUndefined = fmt.Errorf("%w: undefined node", ErrMesh)
	// ErrSurface: a surface element has a node that no volume element has.
	ErrSurface = fmt.Errorf("%w: surface off the volume mesh", ErrMesh)
	// ErrEmpty: the file has no volume elements.
	ErrEmpty = fmt.Errorf("%w: no volume elements", ErrMesh)
	// ErrInverted: a volume element has a negative Jacobian at a corner.
	ErrInverted = fmt.Errorf("%w: inverted element", ErrMesh)
	// ErrDegenerate: a volume element is (nearly) flat at a corner.
	ErrDegenerate = fmt.Errorf("%w: degenerate element", ErrMesh)
	// ErrInvalid: a Mesh's slices do not fit together (lengths, node indices, group
	// tags); only a Mesh built or changed by code, not one Read returned, can have this.
	ErrInvalid = fmt.Errorf("%w: inconsistent mesh", ErrMesh)
)

// ParseError is a problem with a file's content, located: its Error is
// "FILE:LINE: message" for an ASCII file and "FILE: byte OFFSET: message" for a
// binary one (where everything after $MeshFormat's file type, the text sections
// included, is located by offset).
type ParseError struct {
	File   string // the name given to Read
	Line   int    // 1-based line; 0 when the location is a byte offset or the whole file
	Offset int64  // byte offset from the start of the input; -1 when not used
	Msg    string // what was expected and what was found
	// Kind is the sentinel (ErrSyntax, ErrTruncated, …) that says what went wrong; nil
	// when reading itself failed (an I/O error in Err), which is not the mesh's fault.
	Kind error
	Err  error // the underlying cause, may be nil
}

// Error returns the located message.
func (e *ParseError) Error() string {
	return located.Message(e.File, e.Line, e.Offset, e.Msg, e.Err)
}

// Unwrap returns Kind and Err, those that are set, so that errors.Is finds both the
// sentinel (and through it ErrMesh) and the cause.
func (e *ParseError) Unwrap() []error {
	var errs []error
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// Warning is something Read accepted and changed or left out that the user may want to
// know: nodes no volume element uses, a volume entity in several physical groups,
// physical groups of points or curves. It is located like a ParseError when one place
// in the file is to blame.
type Warning struct {
	File   string
	Line   int   // 0 when not used
	Offset int64 // -1 when not used
	Msg    string
}

// String returns the warning as "FILE[:LINE | : byte OFFSET]: message".
func (w Warning) String() string {
	e := ParseError{File: w.File, Line: w.Line, Offset: w.Offset, Msg: w.Msg}
	return e.Error()
}
