// Package mpi binds the few MPI calls blockamg's distributed engine needs, from
// OpenMPI's libmpi.so.40 opened at run time with purego, so a binary built with
// CGO_ENABLED=0 runs with and without MPI installed.
//
// # Loading
//
// Load tries the file named by BLOCKAMG_LIBMPI alone when it is set; otherwise, in
// order, libmpi.so.40 through the loader's search path and the usual Debian, Fedora
// and /usr/local locations. The
// library is opened with RTLD_GLOBAL because OpenMPI opens its own components later and
// they resolve libmpi's symbols by name. OpenMPI's handles (MPI_COMM_WORLD, MPI_DOUBLE,
// MPI_SUM, …) are the addresses of global objects such as ompi_mpi_comm_world, so they
// are resolved as data symbols. Without the library the error wraps ErrNoMPI with one
// line saying what was tried; a library that is not OpenMPI (it lacks those objects)
// is ErrNoMPI as well, since MPICH's handles are integers and its ABI differs.
//
// # Threads
//
// Init asks for MPI_THREAD_FUNNELED: only the thread that initialised MPI may call it.
// Every call therefore runs on one goroutine locked to its OS thread, started by Init,
// which receives closures over a channel; the exported functions may be called from
// any goroutine, one at a time or concurrently (the worker serialises them).
//
// # World
//
// Started by mpiexec, the world is every rank of the launch. A process started
// without mpiexec is an MPI singleton: a world of size 1 whose rank is 0, in which
// every collective is a copy and no point-to-point message can be sent. That is MPI's
// own behaviour, kept here so that a program runs unchanged on one process.
//
// # Errors
//
// OpenMPI's default error handler on the world is MPI_ERRORS_ARE_FATAL: a failing
// call (a truncated message, a dead peer) aborts every rank with OpenMPI's message,
// which is what a distributed run wants instead of one rank waiting for a peer
// forever. The return codes are still checked and turned into an *Error wrapping
// ErrMPI, for a handler that returns.
//
// What MPI does not end is a wait on a peer that is alive but never answers: a rank
// stalled outside MPI, or in MPI_Init_thread a rank of the launch that never
// initialises MPI (it exited first, or runs another program), for which OpenMPI waits
// forever. SetWatchdog bounds every call for that: past its limit it calls the
// caller's function (which ends the process; mpiexec then ends the other ranks).
// Every call is made on the MPI thread through one helper that records its name and
// start, so the watchdog covers MPI_Init_thread, the collectives, MPI_Waitall and
// MPI_Finalize alike.
//
// # Counters
//
// Every call is counted under the phase named by SetPhase: bytes and messages posted
// by point-to-point calls, collectives and their payload bytes, and the wall time the
// caller spent inside MPI (posting, waiting, reducing). They are this rank's own;
// a report over ranks reduces them with the collectives here.
package mpi
