package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/internal/cudadrv"
)

// TestGPUInfoNoDriver checks the message and the non-zero exit without a driver; with
// one it checks that the report names the device.
func TestGPUInfoNoDriver(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"gpu-info", "--mib", "64", "--reps", "3"}, &out, &errb)
	if cudadrv.Load() != nil {
		if code == 0 || !strings.Contains(errb.String(), "no CUDA driver found") {
			t.Fatalf("without a driver: exit %d, stderr %q", code, errb.String())
		}
		return
	}
	if code != 0 || !strings.Contains(out.String(), "compute capability") || !strings.Contains(out.String(), "copy bandwidth") {
		t.Fatalf("with a driver: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
