package cudadrv

import (
	"errors"

	"github.com/ebitengine/purego"
)

// Graph is a captured CUDA graph; GraphExec its instantiated, launchable form.
type (
	Graph     uintptr
	GraphExec uintptr
)

// ErrNoGraphs is returned by the graph calls when the driver does not export them.
var ErrNoGraphs = errors.New("cudadrv: the driver has no stream capture or graph launch")

// graphAPI holds the optional graph entry points: a driver without them still loads
// (Graphs reports false), and callers fall back to plain launches.
var graphAPI struct {
	ok               bool
	beginCapture     func(s uintptr, mode int32) int32
	endCapture       func(s uintptr, g *uintptr) int32
	instantiateFlags func(e *uintptr, g uintptr, flags uint64) int32
	launch           func(e uintptr, s uintptr) int32
	execDestroy      func(e uintptr) int32
	destroy          func(g uintptr) int32
}

// loadGraphs binds the graph calls after the required ones; a missing symbol leaves
// graphs unavailable rather than failing Load.
func loadGraphs(h uintptr) {
	binds := []struct {
		fptr  any
		names []string
	}{
		{&graphAPI.beginCapture, []string{"cuStreamBeginCapture_v2", "cuStreamBeginCapture"}},
		{&graphAPI.endCapture, []string{"cuStreamEndCapture"}},
		{&graphAPI.instantiateFlags, []string{"cuGraphInstantiateWithFlags"}},
		{&graphAPI.launch, []string{"cuGraphLaunch"}},
		{&graphAPI.execDestroy, []string{"cuGraphExecDestroy"}},
		{&graphAPI.destroy, []string{"cuGraphDestroy"}},
	}
	for _, b := range binds {
		ok := false
		for _, n := range b.names {
			if sym, err := purego.Dlsym(h, n); err == nil && sym != 0 {
				purego.RegisterFunc(b.fptr, sym)
				ok = true
				break
			}
		}
		if !ok {
			return
		}
	}
	graphAPI.ok = true
}

// Graphs reports whether the driver offers stream capture and graph launch.
func Graphs() bool { return graphAPI.ok }

// captureModeThreadLocal is CU_STREAM_CAPTURE_MODE_THREAD_LOCAL: unsafe calls (a
// synchronous copy, an allocation) from this thread during the capture are errors.
const captureModeThreadLocal = 1

// StreamBeginCapture starts recording the work queued on s into a graph.
func StreamBeginCapture(s Stream) error {
	loaded()
	if !graphAPI.ok {
		return ErrNoGraphs
	}
	return check("cuStreamBeginCapture", graphAPI.beginCapture(uintptr(s), captureModeThreadLocal))
}

// StreamEndCapture stops recording on s and returns the graph.
func StreamEndCapture(s Stream) (Graph, error) {
	loaded()
	if !graphAPI.ok {
		return 0, ErrNoGraphs
	}
	var g uintptr
	err := check("cuStreamEndCapture", graphAPI.endCapture(uintptr(s), &g))
	return Graph(g), err
}

// GraphInstantiate makes a launchable graph.
func GraphInstantiate(g Graph) (GraphExec, error) {
	loaded()
	if !graphAPI.ok {
		return 0, ErrNoGraphs
	}
	var e uintptr
	err := check("cuGraphInstantiateWithFlags", graphAPI.instantiateFlags(&e, uintptr(g), 0))
	return GraphExec(e), err
}

// GraphLaunch queues the graph on s.
func GraphLaunch(e GraphExec, s Stream) error {
	loaded()
	return check("cuGraphLaunch", graphAPI.launch(uintptr(e), uintptr(s)))
}

// GraphExecDestroy frees an instantiated graph.
func GraphExecDestroy(e GraphExec) error {
	loaded()
	return check("cuGraphExecDestroy", graphAPI.execDestroy(uintptr(e)))
}

// GraphDestroy frees a graph.
func GraphDestroy(g Graph) error {
	loaded()
	return check("cuGraphDestroy", graphAPI.destroy(uintptr(g)))
}
