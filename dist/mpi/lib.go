package mpi

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Thread support levels of MPI_Init_thread (OpenMPI's values).
const (
	threadSingle   = 0
	threadFunneled = 1
)

// inPlace is MPI_IN_PLACE in OpenMPI: the address 1.
const inPlace = uintptr(1)

// lib holds the opened library, its entry points and the addresses of its predefined
// handles. Signatures follow mpi.h with every handle an address (OpenMPI's ABI).
var lib struct {
	once sync.Once
	err  error
	path string

	commWorld, double, int32T, int64T, opSum, opMax, opMin uintptr

	initThread  func(argc, argv unsafe.Pointer, required int32, provided *int32) int32
	initialized func(flag *int32) int32
	finalized   func(flag *int32) int32
	finalize    func() int32
	abort       func(comm uintptr, code int32) int32
	commRank    func(comm uintptr, rank *int32) int32
	commSize    func(comm uintptr, size *int32) int32
	barrier     func(comm uintptr) int32
	allreduce   func(send, recv unsafe.Pointer, count int32, dtype, op, comm uintptr) int32
	allgather   func(send unsafe.Pointer, scount int32, stype uintptr, recv unsafe.Pointer, rcount int32, rtype, comm uintptr) int32
	alltoall    func(send unsafe.Pointer, scount int32, stype uintptr, recv unsafe.Pointer, rcount int32, rtype, comm uintptr) int32
	isend       func(buf unsafe.Pointer, count int32, dtype uintptr, dest, tag int32, comm uintptr, req *uintptr) int32
	irecv       func(buf unsafe.Pointer, count int32, dtype uintptr, src, tag int32, comm uintptr, req *uintptr) int32
	waitall     func(count int32, reqs *uintptr, statuses unsafe.Pointer) int32
	wtime       func() float64
	errorString func(code int32, s *byte, n *int32) int32
	libVersion  func(s *byte, n *int32) int32
}

// candidates lists where Load looks for libmpi, in order. A library named in the
// environment is the only one tried: falling back to another would hide a mistake.
func candidates() []string {
	if p := os.Getenv("BLOCKAMG_LIBMPI"); p != "" {
		return []string{p}
	}
	return append([]string(nil),
		"libmpi.so.40",
		"/usr/lib/x86_64-linux-gnu/libmpi.so.40",
		"/usr/lib/aarch64-linux-gnu/libmpi.so.40",
		"/usr/lib64/openmpi/lib/libmpi.so.40",
		"/usr/local/lib/libmpi.so.40",
	)
}

// Load opens libmpi and binds its entry points and predefined handles, once; later
// calls return the first call's result. It does not initialise MPI. A missing or
// unusable library is an error wrapping ErrNoMPI.
func Load() error {
	lib.once.Do(func() { lib.err = load() })
	return lib.err
}

func load() error {
	var h uintptr
	var tried, reasons []string
	for _, c := range candidates() {
		if strings.Contains(c, "/") {
			if _, err := os.Stat(c); err != nil {
				tried = append(tried, c)
				continue
			}
		}
		var err error
		if h, err = purego.Dlopen(c, purego.RTLD_NOW|purego.RTLD_GLOBAL); err == nil {
			lib.path = c
			break
		}
		tried = append(tried, c)
		if strings.Contains(c, "/") {
			reasons = append(reasons, fmt.Sprintf("%s: %v", c, err))
		}
	}
	if h == 0 {
		why := "tried " + strings.Join(tried, ", ")
		if len(reasons) > 0 {
			why += "; " + strings.Join(reasons, "; ")
		}
		return fmt.Errorf("%w: libmpi.so.40 not found (%s)", ErrNoMPI, why)
	}
	handles := []struct {
		dst   *uintptr
		names []string
	}{
		{&lib.commWorld, []string{"ompi_mpi_comm_world"}},
		{&lib.double, []string{"ompi_mpi_double"}},
		{&lib.int32T, []string{"ompi_mpi_int32_t", "ompi_mpi_int"}},
		{&lib.int64T, []string{"ompi_mpi_int64_t", "ompi_mpi_long_long_int"}},
		{&lib.opSum, []string{"ompi_mpi_op_sum"}},
		{&lib.opMax, []string{"ompi_mpi_op_max"}},
		{&lib.opMin, []string{"ompi_mpi_op_min"}},
	}
	for _, hd := range handles {
		for _, n := range hd.names {
			if a, err := purego.Dlsym(h, n); err == nil && a != 0 {
				*hd.dst = a
				break
			}
		}
		if *hd.dst == 0 {
			return fmt.Errorf("%w: %s lacks %s (not OpenMPI?)", ErrNoMPI, lib.path, hd.names[0])
		}
	}
	funcs := []struct {
		fptr any
		name string
	}{
		{&lib.initThread, "MPI_Init_thread"},
		{&lib.initialized, "MPI_Initialized"},
		{&lib.finalized, "MPI_Finalized"},
		{&lib.finalize, "MPI_Finalize"},
		{&lib.abort, "MPI_Abort"},
		{&lib.commRank, "MPI_Comm_rank"},
		{&lib.commSize, "MPI_Comm_size"},
		{&lib.barrier, "MPI_Barrier"},
		{&lib.allreduce, "MPI_Allreduce"},
		{&lib.allgather, "MPI_Allgather"},
		{&lib.alltoall, "MPI_Alltoall"},
		{&lib.isend, "MPI_Isend"},
		{&lib.irecv, "MPI_Irecv"},
		{&lib.waitall, "MPI_Waitall"},
		{&lib.wtime, "MPI_Wtime"},
		{&lib.errorString, "MPI_Error_string"},
		{&lib.libVersion, "MPI_Get_library_version"},
	}
	for _, f := range funcs {
		a, err := purego.Dlsym(h, f.name)
		if err != nil || a == 0 {
			return fmt.Errorf("%w: %s lacks %s", ErrNoMPI, lib.path, f.name)
		}
		purego.RegisterFunc(f.fptr, a)
	}
	return nil
}

// LibraryPath returns the file or soname Load opened, or "" before a successful Load.
func LibraryPath() string { return lib.path }
