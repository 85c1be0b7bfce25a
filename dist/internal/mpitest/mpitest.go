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
	mpiexec, err := exec.LookPath("mpiexec")
	if err != nil {
		t.Skip("mpiexec not found in PATH")
	}
	if err := mpi.Load(); err != nil {
		t.Skip(err.Error())
	}
	for _, n := range sizes {
		t.Run(fmt.Sprintf("ranks=%d", n), func(t *testing.T) {
			args := []string{"--allow-run-as-root", "--oversubscribe", "-n", strconv.Itoa(n)}
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
	name := strings.SplitN(t.Name(), "/", 2)[0]
	testArgs := []string{"-test.run=^" + name + "$", "-test.v", "-test.count=1"}
	if prog == "" {
		prog = os.Args[0]
	} else {
		args = append(args, os.Args[0])
	}
	args = append(args, testArgs...)
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	// mpiexec ends its ranks on SIGTERM; SIGKILL only if it does not exit in time.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = append(os.Environ(), envTest+"="+name, envSize+"="+strconv.Itoa(n),
		"GOMAXPROCS=1", "OMPI_MCA_rmaps_base_oversubscribe=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	passed := strings.Count(out.String(), "--- PASS: "+name+" ")
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		t.Fatalf("launch of %d ranks timed out after %v:\n%s", n, Timeout, out.String())
	case err != nil:
		t.Fatalf("launch of %d ranks: %v:\n%s", n, err, out.String())
	case passed != n:
		t.Fatalf("launch of %d ranks: %d ranks report PASS:\n%s", n, passed, out.String())
	}
	if testing.Verbose() {
		t.Logf("%d ranks passed:\n%s", n, out.String())
	}
}

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
