package cuda

import (
	"blockamg/backend"
	"blockamg/internal/cudadrv"
)

var _ backend.Recorder = (*Backend)(nil)

// recording is a CUDA graph captured from the backend's stream.
type recording struct {
	b     *Backend
	g     cudadrv.Graph
	e     cudadrv.GraphExec
	freed bool
}

// Record implements backend.Recorder with stream capture: f's launches are recorded
// into a graph (not run), which is instantiated once. Not available with
// BLOCKAMG_CUDA_DEBUG=1 (a launch then synchronises, which capture forbids) or on a
// driver without graphs (cudadrv.ErrNoGraphs).
func (b *Backend) Record(f func()) (backend.Recording, error) {
	if !cudadrv.Graphs() || cudadrv.Debug() {
		return nil, cudadrv.ErrNoGraphs
	}
	if err := b.Err(); err != nil {
		return nil, err
	}
	if err := b.do(func() error { return cudadrv.StreamBeginCapture(b.stream) }); err != nil {
		return nil, err
	}
	f()
	var g cudadrv.Graph
	if err := b.do(func() error {
		var err error
		g, err = cudadrv.StreamEndCapture(b.stream)
		return err
	}); err != nil {
		return nil, err
	}
	r := &recording{b: b, g: g}
	if err := b.do(func() error {
		var err error
		r.e, err = cudadrv.GraphInstantiate(g)
		return err
	}); err != nil {
		b.do(func() error { return cudadrv.GraphDestroy(g) })
		return nil, err
	}
	return r, nil
}

// Replay queues the graph on the backend's stream.
func (r *recording) Replay() {
	if r.freed {
		panic("cuda: recording replayed after Free")
	}
	b, e := r.b, r.e
	b.enqueue(func() error { return cudadrv.GraphLaunch(e, b.stream) })
}

// Free releases the graph after queued work.
func (r *recording) Free() {
	if r.freed {
		return
	}
	r.freed = true
	b, e, g := r.b, r.e, r.g
	b.enqueue(func() error {
		cudadrv.GraphExecDestroy(e)
		return cudadrv.GraphDestroy(g)
	})
}
