package cuda

import (
	"flag"
	"slices"
	"strings"
	"testing"
)

var flagPtxas = flag.String("cuda.ptxas", "", "print ptxas's resource report for the kernels whose names contain this")

// TestPtxasReport prints ptxas's resource report (registers, stack frame, spills) for
// the kernels whose names contain -cuda.ptxas, compiled for sm_90 by the NVRTC this
// machine has (BLOCKAMG_NVRTC names one): occupancy questions answered without a GPU.
// Only the units that define such a kernel are compiled. A report, not a check; it
// skips without the flag or without NVRTC.
func TestPtxasReport(t *testing.T) {
	filter := *flagPtxas
	if filter == "" {
		t.Skip("-cuda.ptxas=<kernel name part> prints ptxas's resource report")
	}
	match := func(u *kernelUnit) bool {
		return slices.ContainsFunc(u.kernels, func(k string) bool { return strings.Contains(k, filter) })
	}
	_, logs := compileUnitsSM90(t, match, "--ptxas-options=-v")
	for _, u := range units(t).units {
		log, ok := logs[u.file]
		if !ok {
			continue
		}
		lines := strings.Split(log, "\n")
		for i, l := range lines {
			if strings.Contains(l, "Compiling entry function") && strings.Contains(l, filter) {
				t.Logf("kernels/%s:", u.file)
				for j := i; j < min(i+4, len(lines)); j++ {
					t.Log(strings.TrimSpace(lines[j]))
				}
			}
		}
	}
}
