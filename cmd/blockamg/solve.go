package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/amg/cycle"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/galerkin"
	"github.com/blockamg/blockamg/krylov"
	"github.com/blockamg/blockamg/matio"
)

func init() {
	register("solve", "solve A·x = b with smoothed-aggregation AMG + CG (default: the ex56 problem)", runSolve)
}

// defaultSolveNe is the mesh of `blockamg solve` with no arguments: 46,875 unknowns,
// set up and solved in about a second on a laptop core.
const defaultSolveNe = 24

// solveConfig holds the parsed flags of solve.
type solveConfig struct {
	ne        int
	alpha     float64
	matrix    string
	blockSize int
	coords    string
	nullspace string
	rhs       string
	kry       krylov.Options
	amg       amg.Options
	chebEig   string
	galerkin  string
	steps     int
	threads   int
	jsonOut   bool
	plot      string
	mms       bool
	gpu       bool
	gpuGal    string // --gpu-galerkin
	hostSetup bool   // --host-setup
	// deviceSetup: the hierarchy is to be set up on the device (--gpu without
	// --host-setup, options it covers), set when the device is opened.
	deviceSetup bool
	quiet       bool
	wStats      bool
	half        bool   // --galerkin-half
	solution    string // --solution: write the last solve's x here
	meshFlags   meshFlags
	mpi         mpiFlags // under mpiexec
}

// problem is what solve works on: the matrix, its right-hand side and near-null space,
// and, for the built-in problem, the assembly that rebuilds the values each step.
type problem struct {
	name string
	A    *bsr.Matrix
	b    []float64
	ns   *amg.NullSpace
	// coords are a matrix file's node coordinates (--coords), coordDim per node; nil
	// without (ex56's and a mesh's are in box and mesh).
	coords   []float64
	coordDim int
	asm      *fem.Assembly // nil for a matrix read from a file
	box      *fem.Box
	// onDevice: ex56 to be assembled on the device, pattern and values (--gpu with
	// the device set-up): A and asm stay nil, and the host holds vectors only.
	onDevice bool
	// mesh is the elasticity problem of a Gmsh mesh (--mesh), nil otherwise.
	mesh *meshProblem
	// assembly times of the first, symbolic + numeric, assembly (zero for a file)
	symbolic, numeric time.Duration
}

// rows returns the number of unknowns; blockSize the unknowns per block row.
func (p *problem) rows() int {
	switch {
	case p.A != nil:
		return p.A.Rows()
	case p.mesh != nil:
		return 3 * p.mesh.m.Nodes()
	case p.box != nil:
		return p.box.Unknowns()
	}
	return p.A.Rows()
}

func (p *problem) blockSize() int {
	if p.A == nil {
		return 3
	}
	return p.A.R
}

func runSolve(args []string, stdout, stderr io.Writer) error {
	cfg := solveConfig{kry: krylov.DefaultOptions(), amg: amg.DefaultOptions()}
	fs := newFlags("solve", "[--ne N --alpha A | --matrix FILE [--block-size b] [--coords FILE | --nullspace FILE] [--rhs FILE] | --mesh FILE.msh --fix GROUP[:xyz] … [--traction GROUP:tx,ty,tz …] [--material [GROUP:]E,nu …]] [flags]", stderr)
	cfg.mpi.register(fs, stderr)
	cfg.meshFlags.register(fs, true)
	fs.IntVar(&cfg.ne, "ne", defaultSolveNe, "ex56 problem: elements per side of the unit cube")
	fs.Float64Var(&cfg.alpha, "alpha", fem.Ex56(1).Alpha, "ex56 problem: modulus factor inside the soft sphere")
	fs.StringVar(&cfg.matrix, "matrix", "", "solve this matrix instead (Matrix Market .mtx or PETSc binary)")
	fs.IntVar(&cfg.blockSize, "block-size", 0, "unknowns per node of --matrix (0: from FILE.info for PETSc, else 1)")
	fs.StringVar(&cfg.coords, "coords", "", "node coordinates (nodes×dim array) of --matrix: rigid-body modes as near-null space")
	fs.StringVar(&cfg.nullspace, "nullspace", "", "near-null space of --matrix (n×k array); default: constant modes per unknown")
	fs.StringVar(&cfg.rhs, "rhs", "", "right-hand side of --matrix (n×1 array or PETSc Vec); default: ones")
	fs.Float64Var(&cfg.kry.RelTol, "rtol", cfg.kry.RelTol, "relative tolerance on the true residual ‖b−Ax‖/‖b‖ (x0 = 0)")
	fs.Float64Var(&cfg.kry.AbsTol, "atol", cfg.kry.AbsTol, "absolute tolerance on the true residual")
	fs.IntVar(&cfg.kry.MaxIter, "maxit", cfg.kry.MaxIter, fmt.Sprintf("maximum CG iterations (0 … %d)", maxSolveIt))
	fs.Float64Var(&cfg.amg.Threshold, "threshold", cfg.amg.Threshold, "strength threshold (-pc_gamg_threshold); negative keeps every block")
	fs.IntVar(&cfg.amg.AggNSmooths, "agg-nsmooths", cfg.amg.AggNSmooths, fmt.Sprintf("prolongator smoothing steps (-pc_gamg_agg_nsmooths; 0 … %d)", amg.LimitAggNSmooths))
	fs.IntVar(&cfg.amg.AggressiveLevels, "aggressive-levels", cfg.amg.AggressiveLevels, fmt.Sprintf("levels coarsened with distance-2 MIS (-pc_gamg_aggressive_coarsening; 0 … %d)", amg.LimitMaxLevels))
	fs.IntVar(&cfg.amg.CoarseEqLimit, "coarse-eq-limit", cfg.amg.CoarseEqLimit, fmt.Sprintf("stop coarsening at this many unknowns (-pc_gamg_coarse_eq_limit; 1 … %d)", amg.MaxCoarseUnknowns))
	fs.IntVar(&cfg.amg.MaxLevels, "max-levels", cfg.amg.MaxLevels, fmt.Sprintf("maximum number of levels (-pc_mg_levels; 1 … %d)", amg.LimitMaxLevels))
	fs.IntVar(&cfg.amg.EstEigKSPMaxIt, "esteig-its", cfg.amg.EstEigKSPMaxIt, fmt.Sprintf("CG–Lanczos steps estimating λ(D⁻¹A) (-pc_gamg_esteig_ksp_max_it; 1 … %d)", amg.LimitEstEigKSPMaxIt))
	fs.IntVar(&cfg.amg.SmootherIts, "smoother-its", cfg.amg.SmootherIts, fmt.Sprintf("Chebyshev degree, pre and post (-mg_levels_ksp_max_it; 1 … %d)", amg.LimitSmootherIts))
	def := cfg.amg.ChebyshevEstEig
	fs.StringVar(&cfg.chebEig, "cheb-esteig", fmt.Sprintf("%g,%g,%g,%g", def[0], def[1], def[2], def[3]),
		"Chebyshev interval a,b,c,d: [a·λmin+b·λmax, c·λmin+d·λmax] (-mg_levels_ksp_chebyshev_esteig)")
	fs.Float64Var(&cfg.amg.FilterTheta, "filter", 0, "prolongator filtering θ: drop P blocks under θ·(row max) in Frobenius norm, re-project onto the near-null space (0: off)")
	fs.Float64Var(&cfg.amg.FilterScale, "filter-scale", 1, "per-level factor s of the filter threshold: θ_l = θ·s^l")
	fs.StringVar(&cfg.amg.Smoother, "smoother", cycle.DefaultSmoother, "level smoother: "+cycle.SmootherNames()+" (jacobi: damped block Jacobi, ω = 4/(3·λmax))")
	fs.BoolVar(&cfg.amg.SmootherFloat32, "smoother-f32", false, "smooth with float32 copies of the level operators (half the traffic of the cycle's passes; CG stays float64)")
	fs.BoolVar(&cfg.amg.UpperProducts, "upper-products", false, "CPU, symmetric A: multiply the level operators by their blocks on and above the diagonal (about half the bytes a product streams: faster iterations, for half the operator memory more and a copy at set-up; pays in long solves)")
	fs.BoolVar(&cfg.wStats, "w-stats", false, "also report the blocks of W = A·P per level (one extra symbolic product per level)")
	fs.StringVar(&cfg.galerkin, "galerkin", string(galerkin.Auto), "PᵀAP algorithm: "+galerkin.VariantNames())
	fs.IntVar(&cfg.steps, "steps", 0, fmt.Sprintf("recurring steps: new values on the same pattern, Update, solve (shows the reuse cost; 0 … %d; under mpiexec the distributed levels keep their halo plans)", maxSolveSteps))
	fs.IntVar(&cfg.threads, "threads", 0, fmt.Sprintf("worker goroutines (0: GOMAXPROCS; at most %d); results are identical for any count", amg.LimitWorkers))
	fs.BoolVar(&cfg.jsonOut, "json", false, "print one JSON object instead of tables (schema in README.md)")
	fs.StringVar(&cfg.plot, "plot", "", "write a semilog convergence plot to this PNG file")
	fs.BoolVar(&cfg.mms, "manufactured", false, "use b = A·x* for a random x* and report the error of x")
	fs.BoolVar(&cfg.gpu, "gpu", false, "run on an NVIDIA GPU (an error when none is usable; never falls back)")
	fs.BoolVar(&cfg.hostSetup, "host-setup", false, "with --gpu: set the hierarchy up on the host and upload its patterns and plans (the device's first numeric set-up, re-setups and solves as without it), instead of the whole set-up on the device; for comparisons")
	fs.StringVar(&cfg.gpuGal, "gpu-galerkin", "model", "with --gpu: the device PᵀAP variant per level: model (the GPU traffic model's pick), tune (the fastest, timed on the first set-up) or a variant name (levels that do not offer it use the model's pick)")
	fs.BoolVar(&cfg.quiet, "q", false, "no progress on stderr")
	fs.StringVar(&cfg.solution, "solution", "", "write the solution x of the last solve to this file (Matrix Market array, 17 digits; with --mesh three rows a node, x y z, in the mesh file's node order)")
	fs.BoolVar(&cfg.half, "galerkin-half", true, "with a symmetric A (checked), compute the Ac blocks on and above the diagonal and mirror them, on the CPU and the GPU (false: all of them)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected argument %q", pos[0])
	}
	if err := cfg.finish(fs); err != nil {
		return err
	}
	if err := cfg.checkHostMemory(); err != nil {
		return err
	}
	if mpiWorldSize() > 1 {
		return solveMPI(&cfg, fs, stdout, stderr)
	}
	if cfg.gpu {
		return solveGPU(&cfg, stdout, stderr)
	}
	var eng *cpuEngine
	return solveRun(&cfg, cpuSetup(&cfg, &eng), cpuOpen(&eng), stdout, stderr)
}

// finish checks the flags that parsing alone cannot and fills the derived options.
func (c *solveConfig) finish(fs *flag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := c.meshFlags.check(set); err != nil {
		return err
	}
	if c.matrix != "" && (set["ne"] || set["alpha"]) {
		return errors.New("--matrix and --ne/--alpha exclude each other")
	}
	if c.matrix == "" {
		for _, name := range []string{"block-size", "coords", "nullspace", "rhs"} {
			if set[name] {
				return fmt.Errorf("--%s needs --matrix", name)
			}
		}
	}
	if c.coords != "" && c.nullspace != "" {
		return errors.New("--coords and --nullspace exclude each other")
	}
	if c.hostSetup && !c.gpu {
		return errors.New("--host-setup needs --gpu (without it the set-up is on the host)")
	}
	if c.wStats && c.gpu && !c.hostSetup {
		return errors.New("--w-stats counts W = A·P on the host hierarchy, which --gpu does not build: add --host-setup")
	}
	if c.ne < 1 || c.ne > fem.MaxNe {
		return fmt.Errorf("--ne %d: want 1 … %d", c.ne, fem.MaxNe)
	}
	if err := c.checkLimits(); err != nil {
		return err
	}
	// Fail before the solve, not after it, on an output's folder that does not exist.
	for _, o := range []struct{ flag, path string }{{"plot", c.plot}, {"solution", c.solution}, {"vtu", c.meshFlags.vtu}, {"png", c.meshFlags.png}} {
		if o.path == "" {
			continue
		}
		if st, err := os.Stat(filepath.Dir(o.path)); err != nil || !st.IsDir() {
			return fmt.Errorf("--%s %s: folder %s does not exist", o.flag, o.path, filepath.Dir(o.path))
		}
	}
	// A missing input fails here, before any progress line starts its reading.
	for _, in := range []struct{ flag, path string }{{"matrix", c.matrix}, {"mesh", c.meshFlags.path}, {"coords", c.coords}, {"nullspace", c.nullspace}, {"rhs", c.rhs}} {
		if in.path == "" {
			continue
		}
		if err := readable(in.path); err != nil {
			return fmt.Errorf("--%s: %w", in.flag, err)
		}
	}
	parts := strings.Split(c.chebEig, ",")
	if len(parts) != 4 {
		return fmt.Errorf("--cheb-esteig %q: want four numbers a,b,c,d", c.chebEig)
	}
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return fmt.Errorf("--cheb-esteig %q: %w", c.chebEig, err)
		}
		c.amg.ChebyshevEstEig[i] = v
	}
	if !cycle.KnownSmoother(c.amg.Smoother) {
		return fmt.Errorf("--smoother %q: want one of %s", c.amg.Smoother, cycle.SmootherNames())
	}
	c.amg.GalerkinVariant = galerkin.Variant(c.galerkin)
	if !c.amg.GalerkinVariant.Valid() || c.amg.GalerkinVariant == "" {
		return fmt.Errorf("--galerkin %q: want one of %s", c.galerkin, galerkin.VariantNames())
	}
	c.amg.Workers = c.threads
	c.kry.Workers = c.threads
	c.kry.History = true
	if err := c.amg.Validate(); err != nil {
		return err
	}
	return nil
}

// readable reports why path cannot be read as an input file, or nil.
func readable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a folder, want a file", path)
	}
	return nil
}

// Limits of solve's own flags that scale its work: CG iterations (PETSc's default is
// 10000; an AMG-preconditioned CG that has not converged in 100000 will not) and
// recurring steps (each a full re-setup and solve).
const (
	maxSolveIt    = 100_000
	maxSolveSteps = 1000
)

// checkLimits refuses a flag that scales the run's work or memory beyond its limit
// (amg.IntRanges for the AMG options), naming the flag, its value and the allowed
// range, before any work.
func (c *solveConfig) checkLimits() error {
	amgRange := map[string]amg.IntRange{}
	for _, r := range amg.IntRanges {
		amgRange[r.Name] = r
	}
	for _, f := range []struct {
		flag     string
		v        int
		min, max int
	}{
		{"threads", c.threads, 0, amgRange["Workers"].Max},
		{"maxit", c.kry.MaxIter, 0, maxSolveIt},
		{"steps", c.steps, 0, maxSolveSteps},
		{"agg-nsmooths", c.amg.AggNSmooths, amgRange["AggNSmooths"].Min, amgRange["AggNSmooths"].Max},
		{"aggressive-levels", c.amg.AggressiveLevels, amgRange["AggressiveLevels"].Min, amgRange["AggressiveLevels"].Max},
		{"coarse-eq-limit", c.amg.CoarseEqLimit, amgRange["CoarseEqLimit"].Min, amgRange["CoarseEqLimit"].Max},
		{"max-levels", c.amg.MaxLevels, amgRange["MaxLevels"].Min, amgRange["MaxLevels"].Max},
		{"esteig-its", c.amg.EstEigKSPMaxIt, amgRange["EstEigKSPMaxIt"].Min, amgRange["EstEigKSPMaxIt"].Max},
		{"smoother-its", c.amg.SmootherIts, amgRange["SmootherIts"].Min, amgRange["SmootherIts"].Max},
	} {
		if f.v < f.min || f.v > f.max {
			extra := ""
			if f.flag == "threads" {
				extra = " (0: GOMAXPROCS)"
			}
			return fmt.Errorf("--%s %d: outside the allowed range %d … %d%s", f.flag, f.v, f.min, f.max, extra)
		}
	}
	return nil
}

// progress prints phase messages on stderr when the problem is large enough for them
// to matter (work over about a second) and -q is not given.
type progress struct {
	w  io.Writer
	on bool
	// cmd names the command on each line ("" means solve).
	cmd string
}

func (p progress) prefix() string {
	if p.cmd == "" {
		return "solve: "
	}
	return p.cmd + ": "
}

// start prints that a phase begins and returns done, which prints the time since.
func (p progress) start(format string, a ...any) func() {
	end := p.begin(format, a...)
	t := time.Now()
	return func() { end(time.Since(t)) }
}

// begin prints that a phase begins and returns end, which prints the phase's time d:
// for a phase that is part of a longer call (the host set-up in NewSolver).
func (p progress) begin(format string, a ...any) func(d time.Duration) {
	if !p.on {
		return func(time.Duration) {}
	}
	fmt.Fprintf(p.w, p.prefix()+format+" ...", a...)
	return func(d time.Duration) { fmt.Fprintf(p.w, " %.2f s\n", d.Seconds()) }
}

// took prints a phase that has ended, with its time d.
func (p progress) took(what string, d time.Duration) {
	if p.on {
		fmt.Fprintf(p.w, "%s%s ... %.2f s\n", p.prefix(), what, d.Seconds())
	}
}

// loadProblem builds or reads the system to solve.
func loadProblem(c *solveConfig, pr progress) (*problem, error) {
	if c.meshFlags.path != "" {
		if st, err := os.Stat(c.meshFlags.path); err == nil && st.Size() < 20<<20 {
			pr.on = false
		}
		return loadMeshProblem(c, pr, c.deviceAssembly(), pr.w)
	}
	if c.matrix == "" {
		pr.on = pr.on && c.ne >= 40
		ex := fem.Ex56(c.ne)
		ex.Alpha = c.alpha
		box, err := fem.NewBox(ex)
		if err != nil {
			return nil, err
		}
		B, _, err := fem.RigidBodyModes(box.Coords(), 3, true)
		if err != nil {
			return nil, err
		}
		p := &problem{
			name: fmt.Sprintf("ex56 ne=%d alpha=%g", c.ne, c.alpha),
			b:    box.RHS(), box: box, ns: &amg.NullSpace{Rows: box.Unknowns(), Cols: 6, Data: B},
		}
		if c.deviceAssembly() {
			// The matrix is made on the device by the GPU set-up (solveGPU).
			p.onDevice = true
			return p, nil
		}
		done := pr.start("assembling ex56 ne=%d (%d unknowns)", c.ne, box.Unknowns())
		t := time.Now()
		asm, err := box.Symbolic(c.threads)
		if err != nil {
			return nil, err
		}
		sym := time.Since(t)
		t = time.Now()
		if err := asm.Numeric(asm.Matrix, nil, c.threads); err != nil {
			return nil, err
		}
		num := time.Since(t)
		done()
		p.A, p.asm, p.symbolic, p.numeric = asm.Matrix, asm, sym, num
		return p, nil
	}

	if st, err := os.Stat(c.matrix); err == nil && st.Size() < 50<<20 {
		pr.on = false
	}
	done := pr.start("reading %s", c.matrix)
	A, err := matio.ReadMatrix(c.matrix, c.blockSize)
	if err != nil {
		return nil, err
	}
	done()
	if A.BlockRows != A.BlockCols || A.R != A.C {
		return nil, fmt.Errorf("%s: matrix is %d×%d, want square", c.matrix, A.Rows(), A.Cols())
	}
	n := A.Rows()
	if n == 0 {
		return nil, fmt.Errorf("%s: the matrix is empty (0×0): nothing to solve", c.matrix)
	}
	p := &problem{name: c.matrix, A: A}
	switch {
	case c.coords != "":
		d, err := matio.ReadDense(c.coords)
		if err != nil {
			return nil, err
		}
		if d.Cols != 2 && d.Cols != 3 || d.Rows*d.Cols != n {
			return nil, fmt.Errorf("%s: %d×%d coordinates do not fit a %d-unknown matrix (want nodes×2 or nodes×3, one node per %d unknowns)",
				c.coords, d.Rows, d.Cols, n, d.Cols)
		}
		if A.R != d.Cols {
			return nil, fmt.Errorf("%s: %d-dimensional coordinates need --block-size %d (matrix has %d)", c.coords, d.Cols, d.Cols, A.R)
		}
		B, _, err := fem.RigidBodyModes(d.Data, d.Cols, true)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.coords, err)
		}
		p.ns = &amg.NullSpace{Rows: n, Cols: len(B) / n, Data: B}
		p.coords, p.coordDim = d.Data, d.Cols
	case c.nullspace != "":
		d, err := matio.ReadDense(c.nullspace)
		if err != nil {
			return nil, err
		}
		if d.Rows != n {
			return nil, fmt.Errorf("%s: near-null space has %d rows, matrix %d", c.nullspace, d.Rows, n)
		}
		p.ns = &amg.NullSpace{Rows: d.Rows, Cols: d.Cols, Data: d.Data}
	}
	if c.rhs != "" {
		d, err := matio.ReadDense(c.rhs)
		if err != nil {
			return nil, err
		}
		if d.Rows*d.Cols != n || d.Cols != 1 {
			return nil, fmt.Errorf("%s: right-hand side is %d×%d, want %d×1", c.rhs, d.Rows, d.Cols, n)
		}
		p.b = d.Data
	} else {
		p.b = make([]float64, n)
		for i := range p.b {
			p.b[i] = 1
		}
	}
	return p, nil
}

// stepResult is one solve: the first one, or one recurring step.
type stepResult struct {
	Step            int     `json:"step"`
	AssemblySeconds float64 `json:"assembly_seconds"`
	// AssembledOnDevice: ex56 was assembled on the device, pattern and values
	// (--gpu with the set-up there): the host never held A, and UploadSeconds
	// covers B alone.
	AssembledOnDevice bool    `json:"assembled_on_device,omitempty"`
	SetupSeconds      float64 `json:"setup_seconds"`
	SolveSeconds      float64 `json:"solve_seconds"`
	Iterations        int     `json:"iterations"`
	RelativeResidual  number  `json:"relative_residual"`
	GalerkinSeconds   float64 `json:"galerkin_seconds"`      // PᵀAP numeric, all levels
	FineGalerkin      float64 `json:"fine_galerkin_seconds"` // PᵀAP numeric, finest level
	// PᵀAP numeric per level (all but the coarsest), and on a device the variant run.
	GalerkinLevels   []float64 `json:"galerkin_level_seconds,omitempty"`
	GalerkinVariants []string  `json:"galerkin_variants,omitempty"`
	// Device runs: the re-setup's phases summed over levels (seconds).
	SetupPhases map[string]float64 `json:"setup_phases,omitempty"`
	// Device runs: the re-setup's phases per level (all but the coarsest), seconds.
	SetupLevels []levelSetup `json:"setup_levels,omitempty"`
	// Device runs: the PCG alone, without the right-hand side's upload and the
	// solution's download (part of SolveSeconds).
	PCGSeconds float64 `json:"pcg_seconds,omitempty"`
	// A step whose solve failed: its residual history (the last entry of steps).
	History numbers `json:"history,omitempty"`
}

// levelSetup is one level's share of a device re-setup, in seconds.
type levelSetup struct {
	Diag      float64 `json:"block_diagonal_inverse"`
	Eig       float64 `json:"eigenvalue_estimate"`
	Smooth    float64 `json:"p_smoothing"`
	Filter    float64 `json:"p_filtering"`
	Transpose float64 `json:"pt_refresh"`
	Galerkin  float64 `json:"ptap"`
	LambdaMax float64 `json:"lambda_max"`
}

// solveReport is the --json output. Its schema is documented in README.md; fields are
// only ever added.
type solveReport struct {
	Problem          string  `json:"problem"`
	Unknowns         int     `json:"unknowns"`
	BlockSize        int     `json:"block_size"`
	NullSpace        int     `json:"nullspace_vectors"`
	Threads          int     `json:"threads"`
	Iterations       int     `json:"iterations"`
	RelativeResidual number  `json:"relative_residual"`
	AssemblySeconds  float64 `json:"assembly_seconds"`
	// AssembledOnDevice: ex56 was assembled on the device, pattern and values
	// (--gpu with the set-up there): the host never held A, and UploadSeconds
	// covers B alone.
	AssembledOnDevice bool `json:"assembled_on_device,omitempty"`
	// SetupSeconds is the AMG set-up: on the host (amg.Setup), or after a set-up on
	// the device its total (device_setup's total_seconds), uploads of A and B
	// excluded.
	SetupSeconds       float64 `json:"setup_seconds"`
	SolveSeconds       float64 `json:"solve_seconds"`
	ResetupSeconds     float64 `json:"resetup_seconds,omitempty"`
	GridComplexity     float64 `json:"grid_complexity"`
	OperatorComplexity float64 `json:"operator_complexity"`
	// SymmetricGalerkin: the Galerkin products computed the symmetric half of each Ac
	// (a symmetric A, --galerkin-half).
	SymmetricGalerkin bool    `json:"symmetric_galerkin"`
	PeakRSSBytes      int64   `json:"peak_rss_bytes"`
	SolutionError     float64 `json:"solution_error,omitempty"`
	// Levels: after a set-up on the device, what it reports (sizes, aggregates,
	// graph edges, the λ estimates with ω and the Chebyshev interval); times zero.
	Levels []amg.LevelInfo `json:"levels"`
	// Phases: the host set-up's (zero after a set-up on the device, whose phases are
	// DeviceSetup's).
	Phases  amg.PhaseTimes `json:"phases"`
	Steps   []stepResult   `json:"steps,omitempty"`
	History numbers        `json:"history"`
	// With --w-stats: stored blocks of W = A·P per level (all but the coarsest).
	WBlocks []int64 `json:"w_blocks,omitempty"`
	// GPU runs only: the device, the uploads before the first solve and the
	// host↔device bytes per phase. UploadSeconds: after a host set-up, the upload of
	// the hierarchy's patterns and plans with the first numeric set-up on the device;
	// after a set-up on the device, the upload of A and B (with their checks on the
	// host); both with the allocation of b and x.
	Device        string  `json:"device,omitempty"`
	UploadSeconds float64 `json:"upload_seconds,omitempty"`
	// Device runs: the first solve's PCG alone (no b upload or x download).
	PCGSeconds float64 `json:"pcg_seconds,omitempty"`
	// The first numeric set-up on the device: part of UploadSeconds after a host
	// set-up, of SetupSeconds after a set-up on the device (its numeric phases and
	// the coarse factor).
	FirstDeviceSetupSeconds float64 `json:"first_device_setup_seconds,omitempty"`
	// DeviceSetup: the set-up on the device by level and phase (absent after a host
	// set-up).
	DeviceSetup *deviceSetupReport `json:"device_setup,omitempty"`
	// HostSetupReason: with --gpu, why the device did not set the hierarchy up and
	// the host did (absent when it did, and with --host-setup).
	HostSetupReason string `json:"host_setup_reason,omitempty"`
	// Device runs: the recurring step next to the bytes it must move at least.
	Floor *floorReport `json:"floor,omitempty"`
	// Device memory held by the run (hierarchy, vectors), from cuMemGetInfo.
	DeviceMemoryBytes int64                      `json:"device_memory_bytes,omitempty"`
	Traffic           map[string]backend.Traffic `json:"traffic,omitempty"`
	// Error is the error that ended a failed run (absent when it succeeded); the
	// other fields hold what was measured up to the failure.
	Error        string   `json:"error,omitempty"`
	trafficOrder []string // phases in the order they happened, for the table
}

// solveRun is the one solve driver: problem, set-up, first solve, recurring steps,
// report. The engine decides where the cycle and CG run (the CPU hierarchy, or the
// hierarchy set up on a device); everything else is shared, so CPU and GPU runs
// report the same quantities. open is called after build, before the first solve.
//
// A run that fails once the problem is known still reports: --json prints the report
// with what was measured up to the failure (set-up figures, iterations and residual
// history of the solve that failed) and the error in its "error" field, --plot draws
// the residual history so far; the error is returned all the same (exit status 2).
//
// build makes the engine's Solver (the library's front door), which sets the hierarchy
// up, and returns what there is to report of the set-up: the host hierarchy or the
// device set-up's report, and the part of its time that is not the set-up (uploads,
// reported apart); open then returns the engine.
func solveRun(c *solveConfig, build func(p *problem) (*built, error), open func(p *problem) (engine, error),
	stdout, stderr io.Writer) error {
	pr := progress{w: stderr, on: !c.quiet && !c.jsonOut}
	p, err := loadProblem(c, pr)
	if err != nil {
		return err
	}
	n := p.rows()
	pr.on = pr.on && n >= 100_000
	rep := &solveReport{
		Problem: p.name, Unknowns: n, BlockSize: p.blockSize(), NullSpace: p.blockSize(), Threads: workersOf(c.threads),
		AssemblySeconds: (p.symbolic + p.numeric).Seconds(),
	}
	if p.ns != nil {
		rep.NullSpace = p.ns.Cols
	}
	var eng engine
	bnorm := norm(p.b)
	// fail reports the failure err; history is the residual history of the solve that
	// failed (nil when none did), title names it on the plot.
	fail := func(err error, title string, history []float64) error {
		rep.Error = err.Error()
		if eng != nil {
			eng.report(rep)
		}
		rep.PeakRSSBytes = peakRSS()
		if c.plot != "" && len(history) > 0 {
			if perr := plotHistory(c.plot, title, history, bnorm); perr != nil {
				err = fmt.Errorf("%w (and %w)", err, perr)
			}
		}
		if c.jsonOut {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if jerr := enc.Encode(rep); jerr != nil {
				err = fmt.Errorf("%w (and --json: %w)", err, jerr)
			}
		}
		return err
	}

	var xstar []float64
	if c.mms {
		xstar = make([]float64, n)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range xstar {
			xstar[i] = rng.Float64()*2 - 1
		}
		p.b = make([]float64, n)
		p.A.MulVecWorkers(c.threads, 1, xstar, 0, p.b)
		bnorm = norm(p.b)
	}

	// CG needs a symmetric operator, and then every Ac is symmetric: the Galerkin
	// products compute half of each (amg.Options.Symmetric). A matrix that is not
	// symmetric keeps the full products, and is said so.
	c.amg.Symmetric = false
	switch {
	case c.half && p.onDevice:
		// The assemblies' matrices are exactly symmetric by construction (ex56's
		// reference element matrix is, an unstructured element block (a, b) is the
		// transpose of (b, a) to the bit; fem's tests check both), and there is no
		// host copy to check.
		c.amg.Symmetric = true
	case c.half:
		done := pr.start("checking that A is symmetric")
		err := p.A.CheckSymmetric()
		done()
		if err != nil {
			if !c.quiet {
				fmt.Fprintf(stderr, "blockamg solve: A is %v; CG expects a symmetric operator; the Galerkin products compute all of Ac\n", err)
			}
		} else {
			c.amg.Symmetric = true
		}
	}
	rep.SymmetricGalerkin = c.amg.Symmetric
	var end func(time.Duration)
	if !c.deviceSetup {
		end = pr.begin("AMG set-up")
	}
	t := time.Now()
	bu, err := build(p)
	if err != nil {
		if end != nil {
			end(time.Since(t))
		}
		return fail(err, "", nil)
	}
	setup := time.Since(t) - bu.upload
	rep.AssemblySeconds = (p.symbolic + p.numeric).Seconds() // a device assembly ran inside build
	rep.AssembledOnDevice = p.onDevice
	if bu.dev != nil {
		// Its own measure, to the device's completion; the host's checks of A and B
		// and their upload are the upload's.
		setup = bu.dev.Total
		if p.onDevice {
			pr.took("assembly on the device", p.symbolic+p.numeric)
			pr.took("checking and uploading B", bu.upload)
		} else {
			pr.took("checking and uploading A and B", bu.upload)
		}
		pr.took("AMG set-up (device)", setup)
	} else if end != nil {
		end(setup)
	} else {
		pr.took("AMG set-up (host)", setup)
	}
	if bu.fallback != nil {
		rep.HostSetupReason = bu.fallback.Error()
		if !c.quiet {
			fmt.Fprintf(stderr, "blockamg solve: the hierarchy was set up on the host: %v\n", bu.fallback)
		}
	}
	rep.SetupSeconds = setup.Seconds()
	if bu.dev != nil {
		rep.Levels = deviceLevels(bu.dev, bu.eig, c.amg)
		rep.GridComplexity, rep.OperatorComplexity = complexities(rep.Levels)
		rep.DeviceSetup = newDeviceSetupReport(bu.dev)
	} else {
		h := bu.h
		rep.GridComplexity, rep.OperatorComplexity = h.GridComplexity(), h.OperatorComplexity()
		rep.Levels, rep.Phases = h.Info(), h.Times()
		if c.wStats {
			rep.WBlocks = wBlocks(h)
		}
	}
	if eng, err = open(p); err != nil {
		eng = nil
		return fail(err, "", nil)
	}
	defer eng.close()

	// The right-hand side and the solution live where the engine moves them from
	// fastest (page-locked host memory for a GPU), as an application's would.
	x, rhs := eng.hostVector(n), eng.hostVector(n)
	copy(rhs, p.b)
	done := pr.start("CG solve")
	t = time.Now()
	res, err := eng.solve(rhs, x, c.kry)
	solve := time.Since(t)
	done()
	rep.Iterations, rep.RelativeResidual = res.Iterations, number(res.Residual/nonzero(bnorm))
	rep.SolveSeconds, rep.History = solve.Seconds(), res.History
	if err != nil {
		return fail(fmt.Errorf("%s%s: %w", p.name, eng.where(), err), p.name+eng.where(), res.History)
	}
	if xstar != nil {
		rep.SolutionError = relDiff(x, xstar)
	}

	// Recurring steps: new values on the same pattern, Update (and whatever the engine
	// must redo for new values), solve.
	var resetups []float64
	for step := 1; step <= c.steps; step++ {
		done = pr.start("step %d: new values, Update, solve", step)
		sr := stepResult{Step: step}
		if err := eng.step(step, p, rhs, c.threads, &sr); err != nil {
			rep.Steps = append(rep.Steps, sr)
			return fail(fmt.Errorf("step %d: %w", step, err), "", nil)
		}
		t = time.Now()
		r, err := eng.solve(rhs, x, c.kry)
		sr.SolveSeconds = time.Since(t).Seconds()
		done()
		sr.Iterations = r.Iterations
		sr.RelativeResidual = number(r.Residual / nonzero(bnorm))
		if err != nil {
			sr.History = r.History
			rep.Steps = append(rep.Steps, sr)
			return fail(fmt.Errorf("%s%s, step %d: %w", p.name, eng.where(), step, err),
				fmt.Sprintf("%s%s, step %d", p.name, eng.where(), step), r.History)
		}
		rep.Steps = append(rep.Steps, sr)
		resetups = append(resetups, sr.SetupSeconds)
	}
	if len(resetups) > 0 {
		rep.ResetupSeconds = median(resetups)
	}
	eng.report(rep)
	rep.PeakRSSBytes = peakRSS()
	if c.solution != "" {
		xs := x
		if p.mesh != nil {
			xs = p.mesh.fileOrder(x)
		}
		if err := writeSolution(c.solution, xs); err != nil {
			return err
		}
	}
	if p.mesh != nil {
		if err := writeMeshOutputs(c, p.mesh, x, pr); err != nil {
			return err
		}
	}

	if c.plot != "" {
		if err := plotHistory(c.plot, p.name+eng.where(), res.History, bnorm); err != nil {
			return err
		}
	}
	if c.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	switch {
	case rep.Device != "" && rep.DeviceSetup != nil:
		fmt.Fprintf(stdout, "device: %s (set-up, re-setup, assembly of new values, V-cycle and CG on the device)\n", rep.Device)
	case rep.Device != "":
		fmt.Fprintf(stdout, "device: %s (symbolic set-up on the host; numeric set-up, re-setup, assembly of new values, V-cycle and CG on the device)\n", rep.Device)
	}
	printSolve(stdout, rep, p)
	return nil
}

// number is a float of the JSON report that may be NaN or infinite after a breakdown:
// written as null then (JSON has no NaN or ±Inf, and encoding/json would refuse the
// whole report), as encoding/json writes a float64 otherwise.
type number float64

func (v number) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(v))
}

// numbers is a list of numbers of the JSON report (a residual history) whose
// non-finite entries are written as null.
type numbers []float64

func (v numbers) MarshalJSON() ([]byte, error) {
	if v == nil {
		return []byte("null"), nil
	}
	if !slices.ContainsFunc(v, func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }) {
		return json.Marshal([]float64(v))
	}
	out := []byte{'['}
	for i, x := range v {
		if i > 0 {
			out = append(out, ',')
		}
		b, err := number(x).MarshalJSON()
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return append(out, ']'), nil
}

// stepFactor is the factor by which recurring step k changes the problem: the soft
// sphere's modulus for ex56, every value for a matrix from a file.
func stepFactor(step int) float64 { return 1 + float64(step)/10 }

// stepModulus returns the element moduli of recurring step k of the ex56 problem (the
// soft sphere's modulus multiplied by stepFactor(k)), as a Newton or time step would
// change the material.
func stepModulus(p *problem, step int) []float64 {
	f := stepFactor(step)
	mod := p.box.ElementModulus()
	hard := p.box.Problem().E
	for e, m := range mod {
		if m != hard {
			mod[e] = m * f
		}
	}
	return mod
}

// newValues gives the host matrix the values of recurring step k on the same pattern:
// re-assembly with stepModulus for ex56; a matrix from a file is scaled by
// stepFactor(k) (cumulatively; b stays, so the solution changes).
func newValues(p *problem, step, workers int) error {
	if p.mesh != nil {
		E := p.mesh.stepMaterials(step)
		p.mesh.lastE = E
		return p.mesh.el.Numeric(p.A, E, p.mesh.nu, workers)
	}
	if p.asm == nil {
		p.A.Scale(stepFactor(step))
		return nil
	}
	return p.asm.Numeric(p.A, stepModulus(p, step), workers)
}

func printSolve(w io.Writer, r *solveReport, p *problem) {
	fmt.Fprintf(w, "%s: %d unknowns, %d×%d blocks, %d near-null vectors, %d threads\n\n",
		r.Problem, r.Unknowns, r.BlockSize, r.BlockSize, r.NullSpace, r.Threads)
	if r.DeviceSetup != nil {
		printDeviceLevels(w, r)
	} else {
		printHostLevels(w, r)
	}
	half := "all of each Ac"
	if r.SymmetricGalerkin {
		half = "the symmetric half of each Ac (A is symmetric)"
	}
	fmt.Fprintf(w, "grid complexity %.3f, operator complexity %.3f; Galerkin products compute %s\n\n", r.GridComplexity, r.OperatorComplexity, half)
	if r.DeviceSetup != nil {
		printDevicePhases(w, r, p)
	} else {
		printHostPhases(w, r, p)
	}
	printSteps(w, r)
}

// printHostLevels prints the levels table of a host set-up.
func printHostLevels(w io.Writer, r *solveReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "level\trows\tblock\tnnz blocks\tMB\tP blocks\tP shape\tP dropped\tW blocks\tλmax(D⁻¹A)\t")
	for i, l := range r.Levels {
		pshape, dropped, w := "-", "-", "-"
		if l.PNNZBlocks > 0 {
			pshape = fmt.Sprintf("%d×%d", l.PR, l.PC)
		}
		if l.Filter != nil {
			dropped = fmt.Sprintf("%d (θ=%.3g)", l.Filter.DroppedBlocks, l.Filter.Theta)
		}
		if i < len(r.WBlocks) {
			w = fmt.Sprint(r.WBlocks[i])
		}
		fmt.Fprintf(tw, "%d\t%d\t%d×%d\t%d\t%.1f\t%d\t%s\t%s\t%s\t%.3g\t\n", l.Level, l.Rows, l.BlockSize, l.BlockSize,
			l.NNZBlocks, float64(l.Bytes)/1e6, l.PNNZBlocks, pshape, dropped, w, l.EigMax)
	}
	tw.Flush()
}

// printHostPhases prints the host set-up's phase table.
func printHostPhases(w io.Writer, r *solveReport, p *problem) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\tseconds\t")
	row := func(name string, s float64) { fmt.Fprintf(tw, "%s\t%.4f\t\n", name, s) }
	if p.asm != nil || p.mesh != nil {
		row("assembly (symbolic)", p.symbolic.Seconds())
		row("assembly (numeric)", p.numeric.Seconds())
	}
	ph := r.Phases
	row("strength", ph.Strength.Seconds())
	row("aggregation", ph.Aggregation.Seconds())
	row("P_tent", ph.Tentative.Seconds())
	row("block-Jacobi set-up", ph.SmootherSetup.Seconds())
	row("eigenvalue estimates", ph.EigEstimate.Seconds())
	row("P smoothing", ph.Smoothing.Seconds())
	if ph.Filter > 0 {
		row("P filtering", ph.Filter.Seconds())
	}
	for _, l := range r.Levels {
		if l.PNNZBlocks > 0 {
			row(fmt.Sprintf("Galerkin PᵀAP level %d→%d", l.Level, l.Level+1), l.Times.Galerkin.Seconds())
		}
	}
	row("coarse Cholesky", ph.CoarseFactor.Seconds())
	row("set-up total", r.SetupSeconds)
	row("solve", r.SolveSeconds)
	tw.Flush()
}

// printSteps prints what follows the set-up: the first solve, the recurring steps,
// their floor, and the device's figures.
func printSteps(w io.Writer, r *solveReport) {
	fmt.Fprintf(w, "\nCG: %d iterations, relative true residual %.3e\n", r.Iterations, r.RelativeResidual)
	if r.SolutionError != 0 {
		fmt.Fprintf(w, "manufactured solution: relative error ‖x−x*‖/‖x*‖ = %.3e\n", r.SolutionError)
	}
	if len(r.Steps) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "step\tassembly s\tre-setup s\tPᵀAP s\tPᵀAP per level s\tsolve s\titerations\trel. residual\t")
		for _, s := range r.Steps {
			var per []string
			for i, g := range s.GalerkinLevels {
				v := fmt.Sprintf("%.4f", g)
				if i < len(s.GalerkinVariants) {
					v += " " + s.GalerkinVariants[i]
				}
				per = append(per, v)
			}
			fmt.Fprintf(tw, "%d\t%.4f\t%.4f\t%.4f\t%s\t%.4f\t%d\t%.3e\t\n", s.Step, s.AssemblySeconds, s.SetupSeconds,
				s.GalerkinSeconds, strings.Join(per, ", "), s.SolveSeconds, s.Iterations, s.RelativeResidual)
		}
		tw.Flush()
		if ph := r.Steps[len(r.Steps)-1].SetupPhases; ph != nil {
			fmt.Fprintf(w, "last re-setup on the device by phase (s): ")
			for i, k := range []string{"block-diagonal inverse", "eigenvalue estimate", "P smoothing", "P filtering", "Pᵀ refresh", "PᵀAP", "coarse"} {
				if i > 0 {
					fmt.Fprint(w, ", ")
				}
				fmt.Fprintf(w, "%s %.4f", k, ph[k])
			}
			fmt.Fprintln(w)
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "level\tD⁻¹ ms\tλ estimate ms\tP smoothing ms\tfilter ms\tPᵀ refresh ms\tPᵀAP ms\tλmax\t")
			for l, ls := range r.Steps[len(r.Steps)-1].SetupLevels {
				fmt.Fprintf(tw, "%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.4g\t\n", l, ls.Diag*1e3, ls.Eig*1e3, ls.Smooth*1e3,
					ls.Filter*1e3, ls.Transpose*1e3, ls.Galerkin*1e3, ls.LambdaMax)
			}
			tw.Flush()
		}
		if f := r.Floor; f != nil {
			fmt.Fprintf(w, "\nrecurring step vs its floor (bytes it must move, at the %.0f GB/s copy bandwidth measured in this run; medians over the steps):\n", f.BandwidthGBs)
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "phase\tfloor MB\tfloor ms\tmeasured ms\t×floor\t")
			row := func(name string, bytes int64, sec, ratio float64) {
				fmt.Fprintf(tw, "%s\t%.1f\t%.3f\t%.3f\t%.2f\t\n", name, float64(bytes)/1e6, float64(bytes)/(f.BandwidthGBs*1e9)*1e3, sec*1e3, ratio)
			}
			row("assembly", f.AssemblyBytes, f.AssemblySeconds, f.AssemblyRatio)
			row("re-setup", f.ResetupBytes, f.ResetupSeconds, f.ResetupRatio)
			row("CG iteration", f.IterationBytes, f.IterationSeconds, f.IterationRatio)
			fmt.Fprintf(tw, "whole step (assembly + re-setup + solve)\t\t%.3f\t%.3f\t%.2f\t\n", f.StepSeconds/f.StepRatio*1e3, f.StepSeconds*1e3, f.StepRatio)
			tw.Flush()
		}
	}
	fmt.Fprintf(w, "peak RSS %.1f MB\n", float64(r.PeakRSSBytes)/1e6)
	if r.Device == "" {
		return
	}
	perIt := 1e3 * r.PCGSeconds / float64(max(r.Iterations, 1))
	if r.DeviceSetup != nil {
		up := "upload of A and B"
		if r.AssembledOnDevice {
			up = "A assembled on the device; upload of B"
		}
		fmt.Fprintf(w, "%s %.4f s; set-up on the device %.4f s (numeric part %.4f s); device memory %.2f GB; %.3f ms per CG iteration (PCG alone)\n\n",
			up, r.UploadSeconds, r.SetupSeconds, r.FirstDeviceSetupSeconds, float64(r.DeviceMemoryBytes)/1e9, perIt)
	} else {
		fmt.Fprintf(w, "upload of patterns and plans + first device set-up %.4f s (device numeric set-up %.4f s); device memory %.2f GB; %.3f ms per CG iteration (PCG alone)\n\n",
			r.UploadSeconds, r.FirstDeviceSetupSeconds, float64(r.DeviceMemoryBytes)/1e9, perIt)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\tH2D bytes\tD2H bytes\tcopies\t")
	for _, ph := range r.trafficOrder {
		tr := r.Traffic[ph]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", ph, tr.H2DBytes, tr.D2HBytes, tr.H2DCalls+tr.D2HCalls)
	}
	tw.Flush()
}

// norm returns ‖v‖₂ (bsr.Norm: the plain sum of squares where it neither overflows
// nor underflows, so that relative residuals stay finite).
func norm(v []float64) float64 { return bsr.Norm(v) }

func relDiff(x, y []float64) float64 {
	d := 0.0
	for i := range x {
		d += (x[i] - y[i]) * (x[i] - y[i])
	}
	return math.Sqrt(d) / nonzero(norm(y))
}

func nonzero(v float64) float64 {
	if v == 0 {
		return 1
	}
	return v
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func workersOf(threads int) int {
	if threads > 0 {
		return threads
	}
	return runtimeWorkers()
}

// peakRSS returns the peak resident set size of this process (VmHWM), or 0 where
// /proc is not available.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}

// wBlocks returns the stored blocks of W = A·P on every level but the coarsest.
func wBlocks(h *amg.Hierarchy) []int64 {
	var out []int64
	for _, L := range h.Levels[:len(h.Levels)-1] {
		out = append(out, galerkin.ComputeStats(L.A, L.P).NnzW)
	}
	return out
}

// writeSolution writes x as an n×1 Matrix Market array.
func writeSolution(path string, x []float64) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--solution: %w", err)
	}
	werr := matio.WriteDense(f, &matio.Dense{Rows: len(x), Cols: 1, Data: x})
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("--solution %s: %w", path, werr)
	}
	return nil
}
