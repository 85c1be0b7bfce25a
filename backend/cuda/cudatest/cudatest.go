// Package cudatest is test support for the packages built on backend/cuda (its own
// tests, inside package cuda, keep theirs): one CUDA backend shared by a test binary,
// skipped with a one-line reason where there is no driver or device, closed at the
// end; and the opt-in performance reports' flags.
package cudatest

import (
	"errors"
	"flag"
	"os"
	"sync"
	"testing"

	"github.com/blockamg/blockamg/backend/cuda"
)

var shared struct {
	once sync.Once
	be   *cuda.Backend
	err  error
}

// Device returns the backend shared by the tests of the binary, or skips the test
// with the one-line reason when there is no driver or no device.
func Device(t *testing.T) *cuda.Backend {
	t.Helper()
	shared.once.Do(func() { shared.be, shared.err = cuda.New(cuda.Options{}) })
	if err := shared.err; err != nil {
		if errors.Is(err, cuda.ErrNoDriver) || errors.Is(err, cuda.ErrNoDevice) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	return shared.be
}

// Main runs the tests and closes the shared backend, failing the binary when closing
// reports a device error: call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if shared.be != nil {
		if err := shared.be.Close(); err != nil && code == 0 {
			os.Stderr.WriteString("closing the CUDA backend: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}

// The opt-in performance reports: test flags, e.g.
// cudafem.test -test.run PerfReport -cuda.perf -cuda.perf-ne 64.
var (
	flagPerf   = flag.Bool("cuda.perf", false, "run the performance reports (GBs of host and device memory)")
	flagPerfNE = flag.Int("cuda.perf-ne", 100, "ex56 size of the performance reports")
)

// PerfNE skips an opt-in performance report unless -cuda.perf (what names the report
// in the skip line) and returns its problem size, -cuda.perf-ne.
func PerfNE(t *testing.T, what string) int {
	t.Helper()
	if !*flagPerf {
		t.Skip("-cuda.perf runs the " + what)
	}
	if *flagPerfNE < 2 {
		t.Fatalf("-cuda.perf-ne %d: want an integer ≥ 2", *flagPerfNE)
	}
	return *flagPerfNE
}
