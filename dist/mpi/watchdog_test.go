package mpi_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/blockamg/blockamg/dist/internal/mpitest"
	"github.com/blockamg/blockamg/dist/mpi"
)

// watchdogLimit is the watchdog's bound in the launches below: long enough for a
// loaded two-core machine to start both ranks, short enough for a test.
const watchdogLimit = 3 * time.Second

// watchdogExit is the exit status the ranks' expire gives, to tell it from others.
const watchdogExit = 7

// TestWatchdog launches two ranks of which rank 1 misbehaves and checks that the
// launch ends, through rank 0's watchdog, well within the launch timeout, with rank
// 0 naming the call it was blocked in:
//   - stall: rank 1 stays alive but never joins rank 0's barrier (MPI waits forever);
//   - no-init: rank 1 exits 0 without initialising MPI, while rank 0 is in
//     MPI_Init_thread (OpenMPI waits for it forever, unless rank 0 had reached
//     MPI_Init before rank 1 exited: then OpenMPI ends the launch itself, which is an
//     end as clear, and passes too).
func TestWatchdog(t *testing.T) {
	if mpitest.Inside() {
		mode := os.Getenv("MPI_TEST_WATCHDOG")
		watch := func() {
			mpi.SetWatchdog(watchdogLimit, func(call string, waited time.Duration) {
				fmt.Printf("watchdog: %s blocked for more than %v\n", call, watchdogLimit)
				os.Stdout.Sync()
				os.Exit(watchdogExit)
			})
		}
		if mode == "no-init" {
			if os.Getenv("OMPI_COMM_WORLD_RANK") == "1" {
				os.Exit(0)
			}
			watch()
		}
		c, err := mpi.Init()
		if err != nil {
			t.Fatal(err)
		}
		if mode == "stall" {
			watch() // after Init, which a loaded machine may make slow
		}
		if c.Rank() == 1 {
			mpi.SetWatchdog(0, nil) // this rank's own bound stays out of the test
			time.Sleep(time.Hour)
		}
		_ = c.Barrier()
		t.Fatal("barrier passed without rank 1")
	}
	p, args := mpitest.MPIExecArgs(2)
	if p == "" {
		t.Skip("mpiexec not found in PATH")
	}
	if err := mpi.Load(); err != nil {
		t.Skip(err.Error())
	}
	for _, tc := range []struct{ mode, call string }{{"stall", "MPI_Barrier"}, {"no-init", "MPI_Init_thread"}} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Setenv("MPI_TEST_WATCHDOG", tc.mode)
			t0 := time.Now()
			out, err := mpitest.Launch(t, p, args, 2)
			took := time.Since(t0)
			if !errors.Is(err, mpitest.ErrLaunch) || errors.Is(err, mpitest.ErrTimeout) {
				t.Fatalf("%s: %v (want a failure before the launch timeout):\n%s", tc.mode, err, out)
			}
			if tc.mode == "no-init" && !strings.Contains(out, "watchdog: ") && strings.Contains(out, `did not call "init" before exiting`) {
				t.Logf("no-init: OpenMPI ended the launch itself in %v", took.Round(time.Millisecond))
				return
			}
			if !strings.Contains(out, "watchdog: "+tc.call+" blocked") {
				t.Fatalf("%s: no rank reported its watchdog on %s:\n%s", tc.mode, tc.call, out)
			}
			if took > mpitest.Timeout/2 {
				t.Errorf("%s: the launch took %v", tc.mode, took)
			}
			t.Logf("%s: ended in %v", tc.mode, took.Round(time.Millisecond))
		})
	}
}
