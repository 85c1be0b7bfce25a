package mpitest_test

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/blockamg/blockamg/dist/internal/mpitest"
	"github.com/blockamg/blockamg/dist/mpi"
)

// skipWithout skips outside a launch when mpiexec or libmpi is missing.
func skipWithout(t *testing.T) string {
	p, _ := mpitest.MPIExecArgs(2)
	if p == "" {
		t.Skip("mpiexec not found in PATH")
	}
	if err := mpi.Load(); err != nil {
		t.Skip(err.Error())
	}
	return p
}

// A rank that dies while its peer waits in a collective must end the launch with a
// failure, well before the timeout, never hang it.
func TestDyingRankEndsTheLaunch(t *testing.T) {
	if mpitest.Inside() {
		c, err := mpi.Init()
		if err != nil {
			t.Fatal(err)
		}
		if c.Rank() == 1 {
			os.Exit(5)
		}
		_ = c.Barrier() // never completes: rank 1 is gone
		t.Fatal("barrier passed without rank 1")
	}
	p := skipWithout(t)
	_, args := mpitest.MPIExecArgs(2)
	t0 := time.Now()
	out, err := mpitest.Launch(t, p, args, 2)
	if !errors.Is(err, mpitest.ErrLaunch) || errors.Is(err, mpitest.ErrTimeout) {
		t.Fatalf("launch with a dying rank: %v (want a failure before the timeout):\n%s", err, out)
	}
	t.Logf("failed in %v: %v", time.Since(t0).Round(time.Millisecond), err)
}

// A launch whose world is not the size the test asked for fails every rank.
func TestSizeMismatchFails(t *testing.T) {
	if mpitest.Inside() {
		mpitest.Run(t, nil, func(t *testing.T, c *mpi.Comm) {})
		return
	}
	p := skipWithout(t)
	_, args := mpitest.MPIExecArgs(2)
	out, err := mpitest.Launch(t, p, args, 3) // two ranks started, three expected
	if !errors.Is(err, mpitest.ErrLaunch) || !strings.Contains(out, "the launch asked for 3") {
		t.Fatalf("mismatched launch: %v:\n%s", err, out)
	}
}
