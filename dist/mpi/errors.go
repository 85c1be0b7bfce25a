package mpi

import (
	"errors"
	"fmt"
)

// ErrNoMPI is wrapped by the error Load and Init return when no usable OpenMPI
// library can be opened.
var ErrNoMPI = errors.New("no MPI library")

// ErrMPI is wrapped by every *Error: an MPI call that returned a failure code.
var ErrMPI = errors.New("MPI call failed")

// ErrFinalized is wrapped by the error of a call made after Finalize, or of Init
// after Finalize (MPI cannot be initialised twice in a process).
var ErrFinalized = errors.New("MPI finalized")

// Error is a failed MPI call.
type Error struct {
	Call string // the C function, e.g. "MPI_Waitall"
	Code int32  // its return code
	Text string // MPI_Error_string's text for the code, when available
}

// Error names the MPI call, its error code and MPI's text for it.
func (e *Error) Error() string {
	if e.Text != "" {
		return fmt.Sprintf("%s: %s (%d)", e.Call, e.Text, e.Code)
	}
	return fmt.Sprintf("%s: error %d", e.Call, e.Code)
}

// Unwrap makes every *Error match ErrMPI.
func (e *Error) Unwrap() error { return ErrMPI }

// check turns an MPI return code into nil or an *Error naming call. It runs on the
// MPI thread, where MPI_Error_string may be called.
func check(call string, rc int32) error {
	if rc == 0 {
		return nil
	}
	e := &Error{Call: call, Code: rc}
	if lib.errorString != nil {
		buf := make([]byte, 256) // MPI_MAX_ERROR_STRING in OpenMPI
		var n int32
		if lib.errorString(rc, &buf[0], &n) == 0 && n > 0 && int(n) <= len(buf) {
			e.Text = string(buf[:n])
		}
	}
	return e
}
