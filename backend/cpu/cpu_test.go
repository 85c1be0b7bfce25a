package cpu_test

import (
	"testing"

	"github.com/blockamg/blockamg/backend/backendtest"
	"github.com/blockamg/blockamg/backend/cpu"
)

func TestConformance(t *testing.T) { backendtest.TestAll(t, cpu.New(0)) }

// TestConformanceOneWorker runs the suite serially: results must not depend on the
// worker count, and the suite's references must hold for both.
func TestConformanceOneWorker(t *testing.T) { backendtest.TestAll(t, cpu.New(1)) }
