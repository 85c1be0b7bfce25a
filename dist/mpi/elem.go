package mpi

import "unsafe"

// Elem is an element type the point-to-point and collective calls carry.
type Elem interface {
	float64 | int32 | int64
}

// dtype returns the MPI datatype handle and element size of T.
func dtype[T Elem]() (uintptr, int64) {
	var z T
	switch any(z).(type) {
	case float64:
		return lib.double, 8
	case int32:
		return lib.int32T, 4
	default:
		return lib.int64T, int64(unsafe.Sizeof(z))
	}
}
