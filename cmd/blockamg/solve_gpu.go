package main

import (
	"errors"
	"io"
	"runtime"
)

func runtimeWorkers() int { return runtime.GOMAXPROCS(0) }

// errNoGPUSolve is returned by solve --gpu until the device-resident pipeline lands:
// --gpu never falls back to the CPU silently.
var errNoGPUSolve = errors.New("--gpu: the GPU-resident AMG pipeline is not built yet; nothing was solved (run without --gpu for the CPU solver)")

func solveGPU(c *solveConfig, stdout, stderr io.Writer) error {
	return errNoGPUSolve
}
