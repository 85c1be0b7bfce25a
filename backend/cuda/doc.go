// Package cuda is the NVIDIA GPU implementation of backend.Backend, built without cgo:
// the driver API and NVRTC are opened at run time through internal/cudadrv, so the same
// CGO_ENABLED=0 binary runs with or without a GPU. New fails with an error wrapping
// cudadrv.ErrNoDriver ("no CUDA driver: libcuda.so.1 not found") where there is none.
//
// # One device thread
//
// A CUDA context is current per OS thread. A Backend therefore owns one worker
// goroutine, locked to its thread, that makes the primary context current and runs
// every driver call; public methods send it closures over a channel. Kernel launches
// and other device-side operations are queued without waiting (the channel keeps their
// order, and all kernels go to one stream); host↔device copies and reductions wait for
// their result. A failure is sticky (see package backend) and Err reports it.
//
// # Kernels
//
// The kernels are CUDA C files embedded from kernels/, compiled by NVRTC to CUBIN for
// the device's own compute capability (sm_XY). Each kernels/*.cu file is a
// translation unit of its own (units.go): it includes common.cuh and the other
// headers it needs (search.cuh, bsr.cuh, resetup.cuh: the device helpers several
// files share), which the Go side inlines, and it becomes its own CUBIN, cache file
// and module. The cache is os.UserCacheDir()/blockamg (Options.CacheDir), one file a
// unit, keyed by a hash of the unit's source with its headers, the options, the
// NVRTC version and the architecture, written atomically.
//
// New waits only for the units every run uses, and those compile in parallel (one
// NVRTC program is single-threaded, and NVRTC is thread-safe): a goroutine per unit
// of the start set (the vectors, SpMV, the smoother's fused kernels, CG, Lanczos,
// scans, the re-setup and smoothing, the device set-up's coarsening, products and
// product schedules, the tensor-core Galerkin kernels it runs (galerkin_tc.cu), the
// assembly), the modules then loaded on the device thread. The units that only
// some runs use (laterUnits: galerkin.cu's other host-planned PᵀAP variants, filter.cu,
// smoothsearch.cu) are prepared in the background after that, a compilation on a
// spare core where the cache lacks them, and are loaded by the first launch of one of
// their kernels, which waits for them if need be. Which unit defines a kernel comes
// from an index made from the embedded sources, macro-generated names included
// (kernelNames); a name it lacks is looked up in every unit. Info reports the start
// set's cache directory, whether it all came from disk, the files compiled and the
// time taken. Each kernel has one typed Go launcher (launch.go).
//
// # Data
//
// Buffer[T] is typed device memory with an explicit Free. A device BSR matrix keeps
// bsr.Matrix's layout (RowPtr int64, ColIdx int32, Val float64 row-major blocks).
// SpMV has kernels specialised for 3×3, 3×6, 6×3 and 6×6 blocks, in which 16 or 32
// lanes own a block row and each lane one row of a block at a time (kernels/bsr.cu has
// the design and the measurements that chose it; chooseVariant the selection rule),
// and a generic one-thread-per-row kernel for other shapes. The transposed product uses an
// explicit transpose built once at upload, so it is a gather with no atomics. Dot
// products reduce in two stages over a fixed grid and a fixed tree: repeated runs give
// the same bits on any device.
//
// # Residency
//
// Every host↔device copy is counted per phase in the backend's Counters (SetPhase),
// including the 8 bytes each reduction brings back.
//
// # Files
//
// The device core: device.go (the thread, context, Options, Info), units.go (the
// translation units and the kernel index), compile.go (NVRTC, the kernel cache, the
// modules), buffer.go, pinned.go, flag.go, launch.go (launch shapes, the
// kernel cache by name), matrix.go and ops.go (BSR SpMV, vectors), timing.go,
// marker.go, and extend.go, the API of the packages beside it (fem/cudafem's device
// assembly, cusparsebench's cuSPARSE baseline). The cycle's fused kernels: cheb.go,
// lanczos.go, cgstep.go. The re-setup (backend.Resetter): resetup.go, smooth.go,
// filter.go, and the Galerkin product, galerkin_*.go: the plan (galerkin_plan.go), the
// host schedule and its statistics, one file per variant (its schedule, launches and
// model terms, registered in galerkin_variant.go's galerkinTable), the traffic model
// (galerkin_model.go), the device rates it takes (galerkin_rates.go) and
// fused-recompute's cache replay (galerkin_fusedsim.go). The device set-up's own
// coarsening (coarsen.go) and Galerkin plans: galerkin_device.go (the patterns, and
// the search kernels' numeric phase) and galerkin_devtc.go (the tensor-core
// variants' product lists built on the device).
//
// # Environment
//
// BLOCKAMG_NVRTC names the NVRTC library to load where the loader's path and the
// toolkit's directories do not have one (internal/cudadrv). BLOCKAMG_CUDA_DEBUG=1, read
// when the first New loads the driver, synchronises the device after every launch and
// checks it, so that a faulting kernel is named by its launch, and builds the kernels
// with line information (Info.Debug); it costs a round trip per kernel.
//
// The tests take flags for their opt-in reports and sizes: -cuda.perf and
// -cuda.perf-ne (the bandwidth reports), -cuda.galerkin-ne, -cuda.filter-ne,
// -cuda.ptxas (e.g. go test ./backend/cuda -args -cuda.galerkin-ne 39,64).
package cuda
