// Package mpitest runs a test's body on every rank of an mpiexec launch of the test
// binary itself: the test, run normally, re-executes its own binary under mpiexec for
// that one test and checks the launch's exit status and that every rank passed.
// It is test support only.
package mpitest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blockamg/blockamg/dist/mpi"
)

// Environment variables that mark a re-executed test binary: the test it runs and
// the world size it expects.
const (
	envTest = "BLOCKAMG_MPITEST_RUN"
	envSize = "BLOCKAMG_MPITEST_SIZE"
)

// Timeout bounds one launch: a rank that dies or a launch whose ranks do not find
// each other fails the test instead of hanging it.
var Timeout = 90 * time.Second

// Run runs body on every rank of a launch of n ranks, for each n in sizes, as
// subtests "ranks=n". It must be called from a top-level test. Inside the launch it
// initialises MPI, checks that the world has the expected size (a launch that does not
// match fails), runs body, and aborts the whole world when body failed, so that no
// rank waits for a failed peer. It skips, with the reason, when mpiexec or libmpi is
// absent.
func Run(t *testing.T, sizes []int, body func(t *testing.T, c *mpi.Comm)) {
	if os.Getenv(envTest) != "" {
		inside(t, body)
		return
	}
	mpiexec, _ := MPIExecArgs(0)
	if mpiexec == "" {
		t.Skip("mpiexec not found in PATH")
	}
	if err := mpi.Load(); err != nil {
		t.Skip(err.Error())
	}
	for _, n := range sizes {
		t.Run(fmt.Sprintf("ranks=%d", n), func(t *testing.T) {
			_, args := MPIExecArgs(n)
			launch(t, mpiexec, args, n)
		})
	}
}

// RunAlone runs body in the test binary re-executed without mpiexec, where MPI is a
// singleton world of size 1.
func RunAlone(t *testing.T, body func(t *testing.T, c *mpi.Comm)) {
	if os.Getenv(envTest) != "" {
		inside(t, body)
		return
	}
	if err := mpi.Load(); err != nil {
		t.Skip(err.Error())
	}
	launch(t, "", nil, 1)
}

// launch runs this test binary, under prog with args (or directly when prog is ""),
// for the calling top-level test, and fails t unless it exits 0 and n ranks report
// that the test passed.
func launch(t *testing.T, prog string, args []string, n int) {
	out, err := Launch(t, prog, args, n)
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if testing.Verbose() {
		t.Logf("%d ranks passed:\n%s", n, out)
	}
}

// ErrLaunch is wrapped by Launch's error when the launch fails, times out, or fewer
// than n ranks report a pass.
var ErrLaunch = errors.New("mpitest: launch failed")

// ErrTimeout is wrapped, with ErrLaunch, when the launch ran past Timeout.
var ErrTimeout = errors.New("mpitest: launch timed out")

// Launch runs this test binary for the calling top-level test, under prog with args
// (directly when prog is ""), expecting n ranks, and returns the combined output and
// an error wrapping ErrLaunch unless the launch exited 0 with n ranks reporting a
// pass. Tests of failure handling call it directly.
func Launch(t *testing.T, prog string, args []string, n int) (string, error) {
	name := strings.SplitN(t.Name(), "/", 2)[0]
	testArgs := []string{"-test.run=^" + name + "$", "-test.v", "-test.count=1"}
	if prog == "" {
		prog = os.Args[0]
	} else {
		args = append(append([]string(nil), args...), os.Args[0])
	}
	args = append(args, testArgs...)
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	// mpiexec ends its ranks on SIGTERM; SIGKILL only if it does not exit in time.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = append(os.Environ(), envTest+"="+name, envSize+"="+strconv.Itoa(n), "GOMAXPROCS=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	passed := strings.Count(out.String(), "--- PASS: "+name+" ")
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return out.String(), fmt.Errorf("%w: %w: %d ranks after %v", ErrLaunch, ErrTimeout, n, Timeout)
	case err != nil:
		return out.String(), fmt.Errorf("%w: %d ranks: %v", ErrLaunch, n, err)
	case passed != n:
		return out.String(), fmt.Errorf("%w: %d ranks launched, %d report PASS", ErrLaunch, n, passed)
	}
	return out.String(), nil
}

// MPIExecArgs returns mpiexec and the arguments Run launches n ranks with, or "" when
// mpiexec is not in PATH.
func MPIExecArgs(n int) (string, []string) {
	p, err := exec.LookPath("mpiexec")
	if err != nil {
		return "", nil
	}
	return p, []string{"--allow-run-as-root", "--oversubscribe", "-n", strconv.Itoa(n)}
}

// Inside reports whether this process is a rank of a launch made by Run or Launch.
func Inside() bool { return os.Getenv(envTest) != "" }

// inside is the body's run on one rank.
func inside(t *testing.T, body func(t *testing.T, c *mpi.Comm)) {
	c, err := mpi.Init()
	if err != nil {
		t.Fatalf("mpi.Init: %v", err)
	}
	want, _ := strconv.Atoi(os.Getenv(envSize))
	if c.Size() != want {
		// Each rank of a foreign launcher sees a world of its own: nobody to abort.
		t.Fatalf("world has %d ranks, the launch asked for %d (mpiexec of another MPI?)", c.Size(), want)
	}
	ok := false
	defer func() {
		if r := recover(); r != nil {
			// The abort below would end the process before the panic's report.
			fmt.Fprintf(os.Stdout, "rank %d panicked: %v\n%s", c.Rank(), r, debug.Stack())
		}
		if !ok || t.Failed() {
			t.Logf("rank %d failed: aborting the world", c.Rank())
			os.Stdout.Sync()
			c.Abort(3)
		}
	}()
	body(t, c)
	if err := c.Barrier(); err != nil {
		t.Fatalf("final barrier: %v", err)
	}
	if err := c.Finalize(); err != nil {
		t.Fatalf("MPI_Finalize: %v", err)
	}
	ok = true
}
