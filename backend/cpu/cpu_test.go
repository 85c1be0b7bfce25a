package cpu_test

import (
	"testing"

	"blockamg/backend/backendtest"
	"blockamg/backend/cpu"
)

func TestConformance(t *testing.T) { backendtest.TestAll(t, cpu.New(0)) }

// TestConformanceOneWorker runs the suite serially: results must not depend on the
// worker count, and the suite's references must hold for both.
func TestConformanceOneWorker(t *testing.T) { backendtest.TestAll(t, cpu.New(1)) }
