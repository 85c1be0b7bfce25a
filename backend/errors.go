package backend

import "errors"

// Errors that backends and the solvers written on them wrap, for errors.Is.
var (
	// ErrFloat32Range: a float32 copy of an operator was asked for and one of its
	// entries exceeds the float32 range.
	ErrFloat32Range = errors.New("backend: value beyond the float32 range")
	// ErrUnsupported: the backend does not offer what an option asks for (the message
	// names the option and the backend).
	ErrUnsupported = errors.New("backend: not supported by this backend")
)
