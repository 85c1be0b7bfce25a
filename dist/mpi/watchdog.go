package mpi

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// watch is the process's watchdog over MPI calls: every call runs on the one MPI
// thread, so one call at most is in progress, and its name and start are all there
// is to watch.
var watch struct {
	mu      sync.Mutex
	limit   time.Duration // 0: off
	expire  func(call string, waited time.Duration)
	call    string    // the call in progress
	since   time.Time // its start; zero when none is in progress
	fired   bool      // expire has run for the call in progress
	running bool      // the watching goroutine has been started
	wake    chan struct{}
}

// SetWatchdog bounds how long one MPI call may block: when a call (MPI_Init_thread,
// a collective, MPI_Waitall, MPI_Finalize, …) has been in progress for longer than
// limit, expire is called, once for that call, on a goroutine of its own, with the
// call's name and how long it has waited. MPI itself never returns from a call whose
// peer is alive but stalled, or from MPI_Init_thread when a rank of the launch never
// initialises MPI (it ran another program, or failed before Init), so without a
// bound such a rank waits forever. expire should end the process (os.Exit): the MPI
// thread is still blocked and no MPI call can be made. A nil expire prints the call
// and the wait on stderr and exits with status 1. A limit of 0 turns the watchdog
// off. It may be set before Init, which it then covers too.
func SetWatchdog(limit time.Duration, expire func(call string, waited time.Duration)) {
	if expire == nil {
		expire = func(call string, waited time.Duration) {
			fmt.Fprintf(os.Stderr, "mpi: %s has blocked for %v: a peer rank died, stalled or never started MPI\n", call, waited.Round(time.Second))
			os.Exit(1)
		}
	}
	watch.mu.Lock()
	defer watch.mu.Unlock()
	watch.limit, watch.expire = limit, expire
	if limit > 0 && !watch.running {
		watch.running = true
		watch.wake = make(chan struct{}, 1)
		go watchLoop()
	}
	if watch.running {
		select {
		case watch.wake <- struct{}{}:
		default:
		}
	}
}

// beginCall and endCall bracket one MPI call on the MPI thread.
func beginCall(name string) {
	watch.mu.Lock()
	watch.call, watch.since, watch.fired = name, time.Now(), false
	watch.mu.Unlock()
}

func endCall() {
	watch.mu.Lock()
	watch.since = time.Time{}
	watch.mu.Unlock()
}

// watchLoop checks the call in progress a few times per limit.
func watchLoop() {
	for {
		watch.mu.Lock()
		limit := watch.limit
		watch.mu.Unlock()
		tick := time.Second
		if limit > 0 {
			tick = min(max(limit/8, 5*time.Millisecond), time.Second)
		}
		select {
		case <-time.After(tick):
		case <-watch.wake:
		}
		watch.mu.Lock()
		var expire func(string, time.Duration)
		var call string
		var waited time.Duration
		if watch.limit > 0 && !watch.since.IsZero() && !watch.fired {
			if waited = time.Since(watch.since); waited > watch.limit {
				watch.fired = true
				expire, call = watch.expire, watch.call
			}
		}
		watch.mu.Unlock()
		if expire != nil {
			expire(call, waited)
		}
	}
}
