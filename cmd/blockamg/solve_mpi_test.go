package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blockamg/blockamg/dist/mpi"
	"github.com/blockamg/blockamg/matio"
)

// envAsCommand makes the test binary run as the blockamg command (TestMain), so that
// the tests can launch it under mpiexec without building the command.
const envAsCommand = "BLOCKAMG_TEST_AS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(envAsCommand) != "" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// mpiLaunch runs this test binary as `blockamg args...` on n ranks of mpiexec, within
// a timeout (a hang fails the test instead of stalling it), and returns stdout, stderr
// and the launch's exit status.
func mpiLaunch(t *testing.T, n int, args ...string) (string, string, int) {
	t.Helper()
	mpiexec, err := exec.LookPath("mpiexec")
	if err != nil {
		t.Skip("mpiexec not found in PATH")
	}
	if err := mpi.Load(); err != nil {
		t.Skip(err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mpiexec, append([]string{"--allow-run-as-root", "--oversubscribe", "-n", fmt.Sprint(n), os.Args[0]}, args...)...)
	// mpiexec ends its ranks on SIGTERM; SIGKILL only if it does not exit in time.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = append(os.Environ(), envAsCommand+"=1", "GOMAXPROCS=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("mpiexec -n %d blockamg %v: no end within the timeout\nstdout:\n%s\nstderr:\n%s", n, args, out.String(), errb.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("mpiexec: %v", err)
	}
	return out.String(), errb.String(), code
}

// TestSolveMPI checks `mpiexec -n N blockamg solve --ne 9 --json` against the serial
// solve: the iteration count within one, the solution within 1e-8 relative, one JSON
// object on stdout (rank 0's) naming the world size and every rank's counters.
func TestSolveMPI(t *testing.T) {
	dir := t.TempDir()
	serialX := filepath.Join(dir, "serial.mtx")
	var out, errb bytes.Buffer
	if code := run([]string{"solve", "--ne", "9", "--json", "--solution", serialX}, &out, &errb); code != 0 {
		t.Fatalf("serial solve: exit %d: %s", code, errb.String())
	}
	var serial solveReport
	if err := json.Unmarshal(out.Bytes(), &serial); err != nil {
		t.Fatal(err)
	}
	xs, err := matio.ReadDense(serialX)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("ranks=%d", n), func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("x%d.mtx", n))
			stdout, stderr, code := mpiLaunch(t, n, "solve", "--ne", "9", "--json", "--solution", path)
			if code != 0 {
				t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
			}
			var r mpiSolveReport
			dec := json.NewDecoder(strings.NewReader(stdout))
			if err := dec.Decode(&r); err != nil {
				t.Fatalf("stdout is not a JSON report: %v\n%s", err, stdout)
			}
			if dec.More() {
				t.Errorf("more than one JSON object on stdout (a rank other than 0 printed):\n%s", stdout)
			}
			t.Logf("serial %d iterations, %d ranks %d iterations, residual %.3g", serial.Iterations, n, r.Iterations, float64(r.RelativeResidual))
			if r.Ranks != n || len(r.MPI) != n {
				t.Errorf("ranks %d, counters of %d ranks; want %d", r.Ranks, len(r.MPI), n)
			}
			if d := r.Iterations - serial.Iterations; d < -1 || d > 1 {
				t.Errorf("%d iterations on %d ranks, serial %d", r.Iterations, n, serial.Iterations)
			}
			if r.Unknowns != serial.Unknowns || !(float64(r.RelativeResidual) <= 1e-8) {
				t.Errorf("unknowns %d (serial %d), relative residual %g", r.Unknowns, serial.Unknowns, float64(r.RelativeResidual))
			}
			for _, rk := range r.MPI {
				if len(rk.Phases) != len(mpiPhases) || rk.Phases[1].Sends == 0 || rk.Phases[1].Collectives == 0 {
					t.Errorf("rank %d: counters %+v: want every phase, the solve's with messages and collectives", rk.Rank, rk.Phases)
				}
			}
			xd, err := matio.ReadDense(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(xd.Data) != len(xs.Data) {
				t.Fatalf("solution has %d values, serial %d", len(xd.Data), len(xs.Data))
			}
			if d := relDiff(xd.Data, xs.Data); !(d <= 1e-8) {
				t.Errorf("solution differs from the serial one by %.3g relative", d)
			}
		})
	}
}

// TestSolveMPIRefused checks that a flag the distributed solve does not run ends every
// rank with exit 2 and the reason, rather than a hang.
func TestSolveMPIRefused(t *testing.T) {
	for _, flag := range [][]string{{"--steps", "1"}, {"--gpu"}} {
		_, stderr, code := mpiLaunch(t, 2, append([]string{"solve", "--ne", "4"}, flag...)...)
		if code != exitBadInput {
			t.Errorf("%v: exit %d, want %d\n%s", flag, code, exitBadInput, stderr)
		}
		if got := strings.Count(stderr, "not supported under mpiexec yet"); got != 2 {
			t.Errorf("%v: %d ranks gave the reason, want 2:\n%s", flag, got, stderr)
		}
	}
}

// TestSolveMPIFailure checks that an error after MPI is initialised ends every rank
// with exit 2 (MPI_Abort), each rank saying why.
func TestSolveMPIFailure(t *testing.T) {
	_, stderr, code := mpiLaunch(t, 2, "solve", "--matrix", filepath.Join(t.TempDir(), "absent.mtx"))
	if code != exitBadInput {
		t.Errorf("exit %d, want %d\n%s", code, exitBadInput, stderr)
	}
	if !strings.Contains(stderr, "rank 0 of 2") && !strings.Contains(stderr, "rank 1 of 2") {
		t.Errorf("no rank said why:\n%s", stderr)
	}
}
