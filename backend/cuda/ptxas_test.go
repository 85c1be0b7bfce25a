package cuda

import (
	"flag"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/internal/cudadrv"
)

var flagPtxas = flag.String("cuda.ptxas", "", "print ptxas's resource report for the kernels whose names contain this")

// TestPtxasReport prints ptxas's resource report (registers, stack frame, spills) for
// the kernels whose names contain -cuda.ptxas, compiled for sm_90 by the NVRTC this
// machine has (BLOCKAMG_NVRTC names one): occupancy questions answered without a GPU.
// A report, not a check; it skips without the flag or without NVRTC.
func TestPtxasReport(t *testing.T) {
	filter := *flagPtxas
	if filter == "" {
		t.Skip("-cuda.ptxas=<kernel name part> prints ptxas's resource report")
	}
	if _, err := cudadrv.LoadNVRTC(); err != nil {
		t.Skip(err)
	}
	_, log, err := cudadrv.CompileCUBIN(Source(), "blockamg.cu", append(compileOptions("sm_90", false), "--ptxas-options=-v"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(log, "\n")
	for i, l := range lines {
		if strings.Contains(l, "Compiling entry function") && strings.Contains(l, filter) {
			for j := i; j < min(i+4, len(lines)); j++ {
				t.Log(strings.TrimSpace(lines[j]))
			}
		}
	}
}
