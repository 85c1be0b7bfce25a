package mpi

import (
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// Comm is the world communicator of an initialised MPI, with the thread every MPI
// call runs on and this rank's traffic counters.
type Comm struct {
	handle uintptr
	rank   int
	size   int

	work chan func()
	done bool // set on the MPI thread by Finalize; read there only

	mu       sync.Mutex
	phase    string
	counters map[string]*Traffic
	order    []string // phases in order of first use
}

var world struct {
	once sync.Once
	comm *Comm
	err  error
}

// Init loads libmpi, initialises MPI with MPI_THREAD_FUNNELED on a goroutine locked
// to its OS thread, and returns the world. Later calls return the same world (or the
// same error). A process not started by mpiexec gets a world of size 1.
func Init() (*Comm, error) {
	world.once.Do(func() { world.comm, world.err = initWorld() })
	return world.comm, world.err
}

func initWorld() (*Comm, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	c := &Comm{handle: lib.commWorld, work: make(chan func()), counters: map[string]*Traffic{}}
	ready := make(chan error)
	go c.thread(ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return c, nil
}

// thread owns MPI: it initialises it on its locked OS thread and then runs closures.
// It never unlocks, so the thread ends with the process.
func (c *Comm) thread(ready chan<- error) {
	runtime.LockOSThread()
	var flag int32
	if rc := lib.initialized(&flag); rc != 0 || flag != 0 {
		ready <- fmt.Errorf("%w: MPI already initialised in this process outside this package", ErrMPI)
		return
	}
	var provided int32
	beginCall("MPI_Init_thread")
	rc := lib.initThread(nil, nil, threadFunneled, &provided)
	endCall()
	if err := check("MPI_Init_thread", rc); err != nil {
		ready <- err
		return
	}
	// A library without thread support answers SINGLE, which is enough: only this
	// thread ever calls MPI.
	_ = provided
	var r, s int32
	if err := check("MPI_Comm_rank", lib.commRank(c.handle, &r)); err != nil {
		ready <- err
		return
	}
	if err := check("MPI_Comm_size", lib.commSize(c.handle, &s)); err != nil {
		ready <- err
		return
	}
	c.rank, c.size = int(r), int(s)
	ready <- nil
	for f := range c.work {
		f()
	}
}

// do runs f, the MPI call named call, on the MPI thread under the watchdog
// (SetWatchdog) and returns its error; calls after Finalize return an error wrapping
// ErrFinalized without running f.
func (c *Comm) do(call string, f func() error) error {
	errc := make(chan error, 1)
	c.work <- func() {
		if c.done {
			errc <- fmt.Errorf("%w: %s after MPI_Finalize", ErrFinalized, call)
			return
		}
		beginCall(call)
		defer endCall()
		errc <- f()
	}
	return <-errc
}

// timed is do with the wall time counted as communication under the current phase.
func (c *Comm) timed(call string, f func() error) error {
	t0 := time.Now()
	err := c.do(call, f)
	c.count(func(t *Traffic) { t.Time += time.Since(t0) })
	return err
}

// Rank returns this process's rank in the world, 0 ≤ Rank < Size.
func (c *Comm) Rank() int { return c.rank }

// Size returns the number of ranks in the world.
func (c *Comm) Size() int { return c.size }

// Barrier blocks until every rank has entered it.
func (c *Comm) Barrier() error {
	c.count(func(t *Traffic) { t.Collectives++ })
	return c.timed("MPI_Barrier", func() error { return check("MPI_Barrier", lib.barrier(c.handle)) })
}

// Abort ends every rank of the world with the exit code code, as MPI_Abort does. It
// does not return when MPI honours it.
func (c *Comm) Abort(code int) {
	_ = c.do("MPI_Abort", func() error { return check("MPI_Abort", lib.abort(c.handle, int32(code))) })
}

// Finalize ends MPI on this rank. Every later call on c returns an error wrapping
// ErrFinalized, and MPI cannot be initialised again in this process.
func (c *Comm) Finalize() error {
	return c.do("MPI_Finalize", func() error {
		c.done = true
		return check("MPI_Finalize", lib.finalize())
	})
}

// Wtime returns MPI_Wtime: seconds since an arbitrary time in the past, on this rank's
// clock.
func (c *Comm) Wtime() float64 {
	var t float64
	_ = c.do("MPI_Wtime", func() error { t = lib.wtime(); return nil })
	return t
}

// LibraryVersion returns MPI_Get_library_version's text (OpenMPI's version line),
// which a launch check compares across ranks.
func (c *Comm) LibraryVersion() string {
	var s string
	_ = c.do("MPI_Get_library_version", func() error {
		buf := make([]byte, 256) // MPI_MAX_LIBRARY_VERSION_STRING in OpenMPI
		var n int32
		if lib.libVersion(&buf[0], &n) == 0 && n > 0 && int(n) <= len(buf) {
			s = string(buf[:n])
			for len(s) > 0 && (s[len(s)-1] == 0 || s[len(s)-1] == '\n') {
				s = s[:len(s)-1]
			}
		}
		return nil
	})
	return s
}

// ptr returns the address of the first element of buf, or nil for an empty slice.
func ptr[T any](buf []T) unsafe.Pointer {
	if len(buf) == 0 {
		return nil
	}
	return unsafe.Pointer(&buf[0])
}
