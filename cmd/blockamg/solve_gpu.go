package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/blockamg/blockamg"
	"github.com/blockamg/blockamg/amg/cycle"
	"github.com/blockamg/blockamg/backend/cuda"
	"github.com/blockamg/blockamg/fem/cudafem"
	"github.com/blockamg/blockamg/internal/cudadrv"
)

func runtimeWorkers() int { return runtime.GOMAXPROCS(0) }

func nowSeconds() float64 { return float64(time.Now().UnixNano()) / 1e9 }

// openGPU opens the CUDA backend, turning a missing driver or device into the one-line
// error users see; --gpu never falls back to the CPU.
func openGPU(opt cuda.Options) (*cuda.Backend, error) {
	be, err := cuda.New(opt)
	switch {
	case errors.Is(err, cudadrv.ErrNoDriver):
		return nil, errors.New("--gpu: no CUDA driver found (libcuda.so.1); nothing was solved")
	case errors.Is(err, cudadrv.ErrNoDevice):
		return nil, errors.New("--gpu: no CUDA device found; nothing was solved")
	case err != nil:
		return nil, fmt.Errorf("--gpu: %w", err)
	}
	return be, nil
}

// solveGPU runs the set-up, the recurring steps (device assembly into the device BSR
// for ex56, device re-setup) and the solves on the GPU: the front door on the device
// (see backendEngine), whose set-up is the device's — only A and B are uploaded —
// unless --host-setup or options it does not cover put it on the host (patterns,
// aggregates and plans computed there once and uploaded). The device is opened
// before any work, so that a machine without one fails at once.
func solveGPU(c *solveConfig, stdout, stderr io.Writer) error {
	opt := cuda.Options{}
	switch c.gpuGal {
	case "model", "":
	case "tune":
		opt.GalerkinTune = true
	default:
		v := cuda.GalerkinVariant(c.gpuGal)
		if !slices.Contains(cuda.GalerkinVariants, v) || !v.Deterministic() {
			return fmt.Errorf("--gpu-galerkin %q: want model, tune or one of %v (deterministic ones)", c.gpuGal, cuda.GalerkinVariants)
		}
		opt.Galerkin = v
	}
	be, err := openGPU(opt)
	if err != nil {
		return err
	}
	defer be.Close()
	startFree := be.Info().FreeMem
	// runSolve checked the host's memory; the device's is known now.
	if err := c.checkDeviceMemory(be.Name(), startFree, be.Info().TotalMem); err != nil {
		return err
	}
	c.deviceSetup = !c.hostSetup && cycle.CheckSetupResident(be, c.amg) == nil
	var asm *cudafem.Assembly
	var devEl *cudafem.Elasticity
	defer func() {
		if asm != nil {
			asm.Free()
		}
		if devEl != nil {
			devEl.Free()
		}
	}()
	// What the CUDA backend adds to the engine: page-locked vectors, the right-hand
	// side's upload overlapping the re-setup, device assembly, device memory and the
	// floor model.
	more := func(e *backendEngine, p *problem) error {
		e.hostAlloc, e.hostFree = be.HostAlloc, be.HostFree
		e.startUpload = be.StartUpload
		if p.box != nil {
			fine := e.s.FineOperator().(*cuda.Matrix)
			if asm == nil { // else made by the device assembly, on fine's pattern
				var err error
				if asm, err = cudafem.New(be, p.asm); err != nil {
					return err
				}
				if err := asm.CheckPattern(fine); err != nil {
					return err
				}
			}
			e.stepAsm = &stepAssembly{
				materials: func(k int) {
					if e.mod == nil {
						e.mod = e.hostVector(p.box.Elements())
					}
					copy(e.mod, stepModulus(p, k))
				},
				assemble: func() error { return asm.NumericHost(fine, e.mod) },
			}
		}
		if p.mesh != nil {
			if devEl == nil { // a host set-up: the device assembles into its fine operator
				var err error
				var A *cuda.Matrix
				if devEl, A, err = cudafem.NewElasticity(be, p.mesh.el); err != nil {
					return err
				}
				A.Free()
			}
			fine := e.s.FineOperator().(*cuda.Matrix)
			// The materials in page-locked memory, so that each step's upload runs
			// at the link's speed (two doubles an element: 96 MB at 6M elements).
			var E, nu []float64
			e.stepAsm = &stepAssembly{
				materials: func(k int) {
					if E == nil {
						E, nu = e.hostVector(len(p.mesh.E)), e.hostVector(len(p.mesh.nu))
						copy(nu, p.mesh.nu)
					}
					p.mesh.lastE = p.mesh.stepMaterialsInto(E, k)
				},
				assemble: func() error { return devEl.NumericHost(fine, E, nu) },
			}
		}
		if e.s.DeviceSetup() != nil {
			releaseHost(p)
		}
		// Device memory held: the hierarchy, plans, b and x, plus PCG's four work
		// vectors.
		n := int64(e.rows())
		if free, _, err := be.MemInfo(); err == nil {
			held := int64(startFree) - int64(free) + 4*n*8
			e.devMem = func() int64 { return held }
		}
		if c.steps > 0 {
			bw, err := be.CopyBandwidth(1<<30, 10)
			if err != nil {
				return err
			}
			// What the step's device assembly must move: ex56's moduli read and
			// values written; a mesh's element data and materials read too.
			var assembly int64
			switch {
			case asm != nil:
				assembly = asm.ValueBytes()
			case devEl != nil:
				assembly = devEl.DataBytes() + devEl.ValueBytes()
			}
			e.floor = e.floorModel(assembly, max(bw.MemcpyGBs, bw.KernelGBs)*1e9)
		}
		return nil
	}
	var eng *backendEngine
	build := backendSetup(c, be, &eng)
	onDevice := func(p *problem) (*built, error) {
		if !p.onDevice {
			return build(p)
		}
		var A *cuda.Matrix
		var err error
		if p.mesh != nil {
			devEl, A, err = assembleMeshOnDevice(be, p)
		} else {
			asm, A, err = assembleOnDevice(be, p)
		}
		if err != nil {
			return nil, err
		}
		be.SetPhase("upload + device set-up")
		s, err := blockamg.NewSolverOn(A, p.ns, c.solverOptions(be))
		if err != nil {
			return nil, err
		}
		eng = &backendEngine{s: s, be: be, amgOpt: c.amg, upload: s.UploadTime().Seconds()}
		return builtBy(s), nil
	}
	return solveRun(c, onDevice, backendOpen(&eng, more), stdout, stderr)
}

// deviceAssembly reports whether the problem is to be assembled on the device,
// pattern and values, so that the host never holds the matrix: ex56 (not a file)
// with --gpu and the device set-up (not --host-setup, and options it covers), and
// not --manufactured, whose right-hand side is A times a vector on the host.
func (c *solveConfig) deviceAssembly() bool {
	return c.gpu && c.deviceSetup && c.matrix == "" && !c.mms
}

// assembleMeshOnDevice uploads the mesh's symbolic assembly and runs the numeric
// phase on the device with the first materials (cudafem.Elasticity), timed into p.
func assembleMeshOnDevice(be *cuda.Backend, p *problem) (*cudafem.Elasticity, *cuda.Matrix, error) {
	be.SetPhase("assembly (device)")
	t := time.Now()
	d, A, err := cudafem.NewElasticity(be, p.mesh.el)
	if err == nil {
		err = be.Err()
	}
	p.symbolic += time.Since(t) // the upload of the host's symbolic phase
	t = time.Now()
	if err == nil {
		err = d.NumericHost(A, p.mesh.E, p.mesh.nu)
	}
	p.numeric = time.Since(t)
	if err != nil {
		if d != nil {
			A.Free()
			d.Free()
		}
		return nil, nil, fmt.Errorf("device assembly: %w", err)
	}
	return d, A, nil
}

// assembleOnDevice runs ex56's symbolic and numeric assembly on the device
// (cudafem.Symbolic, NumericHost with the default material), timed into p.
func assembleOnDevice(be *cuda.Backend, p *problem) (*cudafem.Assembly, *cuda.Matrix, error) {
	be.SetPhase("assembly (device)")
	t := time.Now()
	asm, A, err := cudafem.Symbolic(be, p.box)
	if err == nil {
		err = be.Err()
	}
	p.symbolic = time.Since(t)
	t = time.Now()
	if err == nil {
		err = asm.NumericHost(A, nil)
	}
	p.numeric = time.Since(t)
	if err != nil {
		if asm != nil {
			A.Free()
			asm.Free()
		}
		return nil, nil, fmt.Errorf("device assembly: %w", err)
	}
	return asm, A, nil
}

// releaseHost drops the problem's host matrix and near-null space after a set-up on
// the device, which keeps neither (the solver holds A's pattern alone), so that the
// collector can take them back: every later step writes the device's values — ex56
// by device assembly, which needs the mesh and the gather tables, not the matrix
// (cudafem.New read its sizes); a matrix from a file by scaling on the device.
func releaseHost(p *problem) {
	p.A, p.ns = nil, nil
	if p.asm != nil {
		p.asm.Matrix = nil
	}
}
