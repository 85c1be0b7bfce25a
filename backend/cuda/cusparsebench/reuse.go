package cusparsebench

import (
	"errors"
	"fmt"

	"github.com/blockamg/blockamg/backend/cuda"
	"github.com/blockamg/blockamg/internal/cudadrv"
)

// Reuse is cuSPARSE's own answer to a recurring product on a fixed pattern:
// the reuse pipeline (cusparseSpGEMMreuse_workEstimation, _nnz and _copy once, then
// cusparseSpGEMMreuse_compute for the values) on the scalar operands of a
// Galerkin. It is the fair baseline for our numeric phase, which also reuses a
// symbolic phase: Galerkin times cusparseSpGEMM's whole sequence, pattern
// included, as a user computing a product once would call it.
type Reuse struct {
	g     *Galerkin
	w, ac spCSR
	prod  [2]reuseProduct // W = A·P, Ac = Pᵀ·W
	freed bool
}

// reuseProduct is the state one product keeps between numeric runs: its descriptors
// and the buffers 4 and 5 that cusparseSpGEMMreuse_compute reads (1 to 3 are freed
// once the pattern is made, as cuSPARSE's documentation allows).
type reuseProduct struct {
	d          cudadrv.SpGEMMDescr
	mx, my, mc cudadrv.SpMatDescr
	buf        [5]rawBuf
}

// Reuse runs the reuse pipeline's symbolic steps for W = A·P and then Ac = Pᵀ·W and
// keeps what the numeric steps need. The products are separate from those of
// Galerkin.Run. Free it before the Galerkin.
func (g *Galerkin) Reuse() (*Reuse, error) {
	r := &Reuse{g: g}
	r.w.rows, r.w.cols = g.a.rows, g.p.cols
	r.ac.rows, r.ac.cols = g.pt.rows, g.p.cols
	err := g.c.b.OnDevice(func(cudadrv.Stream) error {
		if err := g.c.b.Failed(); err != nil {
			return err
		}
		if err := r.symbolic(&r.prod[0], &g.a, &g.p, &r.w); err != nil {
			return fmt.Errorf("A·P: %w", err)
		}
		if r.w.nnz == 0 {
			return errors.New("A·P: cuSPARSE returned an empty W")
		}
		if err := r.symbolic(&r.prod[1], &g.pt, &r.w, &r.ac); err != nil {
			return fmt.Errorf("Pᵀ·W: %w", err)
		}
		return nil
	})
	if err != nil {
		r.Free()
		return nil, fmt.Errorf("cuda: cuSPARSE reuse pipeline: %w", err)
	}
	return r, nil
}

// symbolic makes c's pattern for c = x·y with the reuse pipeline, on the device thread.
func (r *Reuse) symbolic(pr *reuseProduct, x, y, c *spCSR) error {
	h := r.g.c.h
	var err error
	if pr.mx, err = x.descr(); err != nil {
		return err
	}
	if pr.my, err = y.descr(); err != nil {
		return err
	}
	if err := c.rowPtr.ensure(uint64(c.rows+1) * 4); err != nil {
		return err
	}
	if pr.mc, err = cudadrv.CreateCsr32(int64(c.rows), int64(c.cols), 0, c.rowPtr.ptr, 0, 0); err != nil {
		return err
	}
	if pr.d, err = cudadrv.SpGEMMCreateDescr(); err != nil {
		return err
	}
	if err := sizedStep("buffer 1", &pr.buf[0], func(n uint64, buf cudadrv.DevPtr) (uint64, error) {
		return cudadrv.SpGEMMReuseWorkEstimation(h, pr.mx, pr.my, pr.mc, pr.d, n, buf)
	}); err != nil {
		return err
	}
	n, err := cudadrv.SpGEMMReuseNnz(h, pr.mx, pr.my, pr.mc, pr.d, [3]uint64{}, [3]cudadrv.DevPtr{})
	if err != nil {
		return err
	}
	for i := range n {
		if err := pr.buf[1+i].ensure(n[i]); err != nil {
			return fmt.Errorf("buffer %d: %w", 2+i, err)
		}
	}
	if _, err := cudadrv.SpGEMMReuseNnz(h, pr.mx, pr.my, pr.mc, pr.d, n, [3]cudadrv.DevPtr{pr.buf[1].ptr, pr.buf[2].ptr, pr.buf[3].ptr}); err != nil {
		return err
	}
	pr.buf[0].free()
	pr.buf[1].free()
	if err := c.sizeFrom(pr.mc); err != nil {
		return err
	}
	if err := c.pointAt(pr.mc); err != nil {
		return err
	}
	if err := sizedStep("buffer 5", &pr.buf[4], func(n uint64, buf cudadrv.DevPtr) (uint64, error) {
		return cudadrv.SpGEMMReuseCopy(h, pr.mx, pr.my, pr.mc, pr.d, n, buf)
	}); err != nil {
		return err
	}
	pr.buf[2].free()
	return nil
}

// Run computes the values of W = A·P (cuda.StageAP), of Ac = Pᵀ·W from the current W
// (cuda.StagePW), or both (cuda.StageAll), by cusparseSpGEMMreuse_compute on the patterns Reuse
// made. It queues the work and returns.
func (r *Reuse) Run(stage cuda.Stage) error {
	return r.g.c.b.OnDevice(func(cudadrv.Stream) error { return r.run(stage) })
}

func (r *Reuse) run(stage cuda.Stage) error {
	if r.freed {
		panic("cuda: Reuse used after Free")
	}
	if err := r.g.c.b.Failed(); err != nil {
		return err
	}
	h := r.g.c.h
	if stage != cuda.StagePW {
		p := &r.prod[0]
		if err := cudadrv.SpGEMMReuseCompute(h, p.mx, p.my, p.mc, p.d); err != nil {
			return fmt.Errorf("cuSPARSE reuse A·P: %w", err)
		}
	}
	if stage != cuda.StageAP {
		p := &r.prod[1]
		if err := cudadrv.SpGEMMReuseCompute(h, p.mx, p.my, p.mc, p.d); err != nil {
			return fmt.Errorf("cuSPARSE reuse Pᵀ·W: %w", err)
		}
	}
	return nil
}

// TimeMedian is Galerkin.TimeMedian's protocol for the numeric runs.
func (r *Reuse) TimeMedian(warm, reps int, stage cuda.Stage) (float64, error) {
	return timeMedian(warm, reps, func() error { return r.Run(stage) },
		func() (float64, error) { return r.g.c.timeEvents(func() error { return r.run(stage) }) })
}

// PoisonValues fills the values of W and Ac with NaN (the patterns are the pipeline's
// state and stay), so that a later DownloadAc shows any value a run leaves unwritten.
func (r *Reuse) PoisonValues() error {
	return r.g.c.b.OnDevice(func(cudadrv.Stream) error {
		for _, m := range []*spCSR{&r.w, &r.ac} {
			if err := cudadrv.MemsetD8(m.vl.ptr, 0xFF, m.vl.bytes); err != nil {
				return err
			}
		}
		return nil
	})
}

// DownloadAc copies Ac of the last cuda.StageAll run to the host, counting the bytes.
func (r *Reuse) DownloadAc() (*CSR32, error) { return r.g.c.download(&r.ac) }

// NnzW returns W's scalar nonzeros as cuSPARSE's reuse pipeline made them.
func (r *Reuse) NnzW() int64 { return r.w.nnz }

// Bytes returns the device memory the pipeline holds beyond the operands: W, Ac and
// the kept buffers.
func (r *Reuse) Bytes() int64 {
	n := r.w.bytes() + r.ac.bytes()
	for _, p := range r.prod {
		for _, b := range p.buf {
			n += int64(b.bytes)
		}
	}
	return n
}

// Free releases the descriptors and device memory after the stream's work; freeing
// twice is a no-op.
func (r *Reuse) Free() {
	if r.freed {
		return
	}
	r.freed = true
	if r.g.c.b.Closed() {
		return
	}
	r.g.c.b.OnDevice(func(cudadrv.Stream) error {
		cudadrv.StreamSynchronize(r.g.c.stream)
		for i := range r.prod {
			p := &r.prod[i]
			if p.d != 0 {
				cudadrv.SpGEMMDestroyDescr(p.d)
			}
			for _, d := range []cudadrv.SpMatDescr{p.mx, p.my, p.mc} {
				if d != 0 {
					cudadrv.DestroySpMat(d)
				}
			}
			for j := range p.buf {
				p.buf[j].free()
			}
		}
		r.w.free()
		r.ac.free()
		return nil
	})
}
