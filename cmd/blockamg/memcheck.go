package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/blockamg/blockamg/fem"
)

// solve estimates the memory a run needs before it allocates anything and refuses one
// that does not fit (fem.MemoryLimits: MemAvailable, cgroup v1/v2 limits, RLIMIT_AS,
// RLIMIT_DATA) with the figures, instead of dying minutes later in the Go runtime's
// fatal "out of memory" (a goroutine dump) or being killed by the kernel.
//
// The models are fits of measured peaks (--json's peak_rss_bytes, VmHWM; Go 1.26,
// default GOGC, 2 threads), not bounds; they err on the high side by a few percent.
//
// ex56, CPU, default options: ne = 16, 24, 32, 48, 64, 80, 96 (14,739 … 2,738,019
// unknowns) peaked at 43.1, 84.0, 168, 530, 1193, 2304 and 3992 MB, 1445–1560 bytes
// per unknown from 100k unknowns on (the assembled matrix is 684 of them: the peak is
// 2.1× the matrix); least squares gives 12.7 MB + 1449 B/unknown.
const (
	memBase       = 24 << 20 // the runtime, tables, the coarse factor: bytes
	memPerUnknown = 1460     // bytes per unknown, ex56 on the CPU, default options
	// solve --gpu with the hierarchy built on the host (--host-setup) keeps it there
	// too, with page-locked copies: ne = 160 (12.4M unknowns) took 33.9 GB of host RSS
	// and 35.1 GB on the device (an H200), 2734 and 2830 bytes per unknown.
	memPerUnknownGPUHost   = 2750
	memPerUnknownGPUDevice = 2850
	// The set-up on the device (the default) builds nothing on the host: ne = 100
	// (3.09M unknowns, --steps 3) peaked at 2.54 GB of host RSS — the assembled
	// matrix, the near-null space and the vectors, 823 bytes per unknown — and held
	// 7.38 GB on the device, 2388 per unknown, with the set-up's scratch (pattern
	// products' rooms, graphs) on top for a moment: 10% more.
	memPerUnknownDevSetupHost   = 800
	memPerUnknownDevSetupDevice = 2500
	// With the set-up on the device ex56 is assembled there too (deviceAssembly): the
	// host keeps vectors only — coordinates, the six rigid-body modes, b, x and their
	// page-locked copies, the moduli — about 20 float64 per unknown.
	memPerUnknownDevAsmHost = 200
	// A matrix file: the reader's triplets and CSR come before the BSR matrix. The
	// ex56 matrix written by gen for ne = 24 and 48 (3.50M and 27.4M non-zeros, 78 per
	// row) peaked at 111 and 747 MB read as PETSc binary, 144 and 1024 MB as Matrix
	// Market; a 5-point Laplacian of 490k rows (symmetric Matrix Market, 2.4M stored
	// non-zeros) at 261 MB. Fitted per stored non-zero and per row:
	memPerNNZPETSc = 22.5 // bytes per non-zero, PETSc binary
	memPerNNZMM    = 32.5 // bytes per stored non-zero, Matrix Market (text)
	memPerRow      = 335  // bytes per row: the solve's and the hierarchy's vectors
	// When the prolongators become dense (a small mesh smoothed many times) the
	// set-up's memory stops growing with AggNSmooths: at most about memDense·n² bytes
	// for n unknowns (ne = 12, AggNSmooths = 20: P is dense, 278 MB at 6591 unknowns).
	memDense = 8
)

// memOptionFactor scales the default-options model by the options that change the
// per-unknown cost, each measured on ex56 ne = 32 and 48 against the default run:
// --smoother-f32 1.24–1.26, --filter 1.13–1.14, --steps 1.04–1.05 (1.21 and 1.19 over
// --agg-nsmooths 2 alone), --w-stats 1.03;
// --agg-nsmooths (ne = 24, 32, 48): 0 → 0.80–0.90, 2 → 1.63–1.90, 3 → 2.46–2.53,
// 4 → 3.94–4.42, 5 → 5.94–14.9. Smoothing fills P, the Galerkin products and the
// coarse operators with a wider stencil at every step, and how much depends on the
// mesh: beyond 5 steps the factor is extrapolated as the cube of the stencil width
// (2N + 6 blocks, from the fit of the first steps), capped by memDense.
func (c *solveConfig) memOptionFactor() float64 {
	f := 1.0
	switch n := c.amg.AggNSmooths; {
	case n <= 5:
		f = [...]float64{0.9, 1, 2.1, 3, 5, 16}[n]
	default:
		f = 16 * math.Pow(float64(2*n+6)/16, 3)
	}
	if c.amg.SmootherFloat32 {
		f *= 1.27
	} else if c.amg.UpperProducts && !c.gpu {
		f *= 1.2 // the plate tet4's peak RSS 286 → 338 MB
	}
	if c.amg.FilterTheta > 0 {
		f *= 1.15
	}
	switch {
	case c.steps > 0 && c.amg.AggNSmooths >= 2:
		f *= 1.15 // Update's smoothing chain allocates its scratch anew
	case c.steps > 0:
		f *= 1.05
	}
	if c.wStats {
		f *= 1.04
	}
	return f
}

// memoryLimits is what solve checks its estimate against (tests inject others).
var memoryLimits = fem.MemoryLimits

// checkHostMemory refuses a run whose host memory estimate does not fit. It reads at
// most a matrix file's header (a few bytes), so it answers in milliseconds. A file
// whose header cannot be read is left to the reader to report.
func (c *solveConfig) checkHostMemory() error {
	need, what, ok := c.hostMemoryNeed()
	if !ok {
		return nil
	}
	return fem.CheckMemory(what, need, memoryLimits())
}

// hostMemoryNeed returns the estimate of the host memory of the run and what it is
// for; ok is false when nothing can be estimated.
func (c *solveConfig) hostMemoryNeed() (need int64, what string, ok bool) {
	f := c.memOptionFactor()
	if c.meshFlags.path != "" {
		// A mesh's cost per node depends on its elements, unknown before reading it.
		return 0, "", false
	}
	if c.matrix == "" {
		n := 3 * int64(c.ne+1) * int64(c.ne+1) * int64(c.ne+1)
		per, where := float64(memPerUnknown), "set-up and solve"
		switch {
		case c.setsUpOnDevice() && !c.mms:
			per, where = memPerUnknownDevAsmHost, "the host side of a --gpu run (assembly and set-up on the device)"
		case c.setsUpOnDevice():
			per, where = memPerUnknownDevSetupHost, "the host side of a --gpu run (set-up on the device)"
		case c.gpu:
			per, where = memPerUnknownGPUHost, "the host side of a --gpu run (hierarchy built on the host)"
		}
		need = c.capDense(memBase+int64(f*per*float64(n)), n)
		return need, fmt.Sprintf("ex56 ne = %d (%d unknowns), %s,", c.ne, n, where), true
	}
	h, err := readMatrixHeader(c.matrix)
	if err != nil {
		return 0, "", false
	}
	per := memPerNNZPETSc
	if h.matrixMarket {
		per = memPerNNZMM
	}
	base := per*float64(h.entries) + memPerRow*float64(h.rows)
	if c.gpu {
		base *= float64(memPerUnknownGPUHost) / memPerUnknown
	}
	need = c.capDense(memBase+int64(f*base), h.rows)
	return need, fmt.Sprintf("%s (%d rows, %d stored non-zeros by its header), set-up and solve,", c.matrix, h.rows, h.entries), true
}

// capDense caps need at what a run with dense prolongators takes (memDense) plus the
// default-options cost: further smoothing cannot fill more than everything.
func (c *solveConfig) capDense(need, n int64) int64 {
	if c.amg.AggNSmooths <= 2 {
		return need
	}
	dense := float64(memBase) + memPerUnknown*float64(n) + memDense*float64(n)*float64(n)
	if dense < float64(need) {
		return int64(dense)
	}
	return need
}

// deviceMemoryNeed returns the estimate of the device memory of a --gpu run of the
// ex56 problem (0 for a matrix file: the device cost per non-zero was not measured).
func (c *solveConfig) deviceMemoryNeed() int64 {
	if c.matrix != "" || c.meshFlags.path != "" {
		return 0
	}
	n := 3 * int64(c.ne+1) * int64(c.ne+1) * int64(c.ne+1)
	per := float64(memPerUnknownGPUDevice)
	if c.setsUpOnDevice() {
		per = memPerUnknownDevSetupDevice
	}
	return c.capDense(int64(c.memOptionFactor()*per*float64(n)), n)
}

// setsUpOnDevice reports whether a --gpu run sets up on the device: unless --host-setup,
// for the options the device set-up covers (cycle.CheckSetupResident's).
func (c *solveConfig) setsUpOnDevice() bool {
	return c.gpu && !c.hostSetup && c.amg.AggNSmooths <= 1 && c.amg.FilterTheta == 0 && !c.amg.SmootherFloat32
}

// checkDeviceMemory refuses a --gpu run whose device memory estimate exceeds the
// device's free memory (free, total in bytes; free 0 means unknown and passes).
func (c *solveConfig) checkDeviceMemory(device string, free, total uint64) error {
	need := c.deviceMemoryNeed()
	if free == 0 || need <= int64(free) {
		return nil
	}
	return fem.CheckMemory(fmt.Sprintf("ex56 ne = %d on the device", c.ne), need,
		[]fem.MemoryLimit{{Name: "the free memory of " + device, Limit: int64(total), Available: int64(free)}})
}

// matrixHeader is what a matrix file's header says of its size.
type matrixHeader struct {
	matrixMarket bool
	rows         int64
	entries      int64 // stored non-zeros: twice the header's for a symmetric Matrix Market file
}

// readMatrixHeader reads the size from the header of a Matrix Market or PETSc binary
// matrix file, without reading the entries.
func readMatrixHeader(path string) (matrixHeader, error) {
	f, err := os.Open(path)
	if err != nil {
		return matrixHeader{}, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	p, err := br.Peek(16)
	if len(p) < 4 {
		return matrixHeader{}, fmt.Errorf("%s: too short for a header: %v", path, err)
	}
	if bytes.EqualFold(p[:4], []byte("%%Ma")) {
		banner, err := br.ReadString('\n')
		if err != nil {
			return matrixHeader{}, err
		}
		sym := 1
		if f := strings.Fields(strings.ToLower(banner)); len(f) >= 5 && f[4] != "general" {
			sym = 2 // symmetric, skew-symmetric, hermitian: one triangle stored
		}
		for i := 0; i < 1000; i++ {
			line, err := br.ReadString('\n')
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "%") {
				v := strings.Fields(t)
				if len(v) != 3 {
					return matrixHeader{}, fmt.Errorf("%s: size line %q", path, t)
				}
				rows, err1 := strconv.ParseInt(v[0], 10, 64)
				nnz, err2 := strconv.ParseInt(v[2], 10, 64)
				if err1 != nil || err2 != nil || rows < 0 || nnz < 0 || nnz > math.MaxInt64/2 {
					return matrixHeader{}, fmt.Errorf("%s: size line %q", path, t)
				}
				return matrixHeader{matrixMarket: true, rows: rows, entries: int64(sym) * nnz}, nil
			}
			if err != nil {
				return matrixHeader{}, err
			}
		}
		return matrixHeader{}, fmt.Errorf("%s: no size line in the first 1000 lines", path)
	}
	if len(p) < 16 || binary.BigEndian.Uint32(p) != 1211216 { // PETSc MAT_FILE_CLASSID
		return matrixHeader{}, fmt.Errorf("%s: not a Matrix Market or PETSc Mat header", path)
	}
	rows := int64(int32(binary.BigEndian.Uint32(p[4:])))
	nnz := int64(int32(binary.BigEndian.Uint32(p[12:])))
	if rows < 0 || nnz < 0 {
		return matrixHeader{}, fmt.Errorf("%s: negative sizes in the PETSc header", path)
	}
	return matrixHeader{rows: rows, entries: nnz}, nil
}
