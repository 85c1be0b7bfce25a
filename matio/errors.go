package matio

import (
	"fmt"

	"github.com/blockamg/blockamg/internal/located"
)

// ParseError describes bad input: which file, where in it, and what was expected.
type ParseError struct {
	File   string // file name as given to the reader
	Line   int    // 1-based line of a text file; 0 for binary files or whole-file problems
	Offset int64  // byte offset in a binary file; -1 when it does not apply
	Msg    string // what was wrong and what was expected
	Err    error  // underlying cause (I/O or number syntax), may be nil
}

// Error returns "FILE:LINE: message: cause" (or "FILE: byte N: ..." for binary files).
func (e *ParseError) Error() string {
	return located.Message(e.File, e.Line, e.Offset, e.Msg, e.Err)
}

// Unwrap returns the underlying cause.
func (e *ParseError) Unwrap() error { return e.Err }

func lineErr(file string, line int, err error, format string, args ...any) *ParseError {
	return &ParseError{File: file, Line: line, Offset: -1, Msg: fmt.Sprintf(format, args...), Err: err}
}

func byteErr(file string, off int64, err error, format string, args ...any) *ParseError {
	return &ParseError{File: file, Offset: off, Msg: fmt.Sprintf(format, args...), Err: err}
}

func fileErr(file string, err error, format string, args ...any) *ParseError {
	return &ParseError{File: file, Offset: -1, Msg: fmt.Sprintf(format, args...), Err: err}
}
