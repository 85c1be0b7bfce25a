package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/matio"
)

func init() {
	register("gen", "generate PETSc's ex56 3D elasticity problem, or assemble a Gmsh mesh's (matrix, rhs, coordinates, rigid-body modes)", runGen)
}

// genProgressNe is the mesh size from which gen reports its phases on stderr: from
// about 200k unknowns on, assembling and writing take over a second.
const genProgressNe = 40

func runGen(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("gen", "--ne N | --mesh part.msh --fix GROUP --traction GROUP:tx,ty,tz … -o A.petsc|A.mtx [--rhs b.petsc|b.mtx] [--coords x.mtx] [--nullspace B.mtx] [flags]", stderr)
	var mf meshFlags
	mf.register(fs, false)
	ne := fs.Int("ne", 0, "elements per side of the unit cube (required); (ne+1)³ nodes, 3 unknowns each")
	p := fem.Ex56(0)
	fs.Float64Var(&p.Alpha, "alpha", p.Alpha, "modulus factor inside the soft sphere (ex56 -alpha)")
	fs.Float64Var(&p.E, "E", p.E, "Young's modulus outside the sphere")
	fs.Float64Var(&p.Nu, "nu", p.Nu, "Poisson ratio")
	out := fs.String("o", "", "matrix output: PETSc binary, or Matrix Market for a .mtx name (required)")
	rhs := fs.String("rhs", "", "right-hand side output: PETSc binary Vec, or Matrix Market n×1 array for .mtx")
	coords := fs.String("coords", "", "node coordinates output, Matrix Market nodes×3 array (.mtx), matrix node order")
	null := fs.String("nullspace", "", "rigid-body modes output, Matrix Market n×6 array (.mtx)")
	orth := fs.Bool("orthonormalize", false, "orthonormalize the rigid-body modes (modified Gram–Schmidt, twice)")
	workers := fs.Int("workers", 0, "goroutines for assembly (0: GOMAXPROCS)")
	quiet := fs.Bool("q", false, "no progress on stderr")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected argument %q", pos[0])
	}
	if *workers < 0 {
		return fmt.Errorf("--workers %d: want ≥ 0 (0: GOMAXPROCS)", *workers)
	}
	// Two outputs with one name would silently overwrite each other.
	seen := map[string]string{}
	for flag, path := range map[string]string{"o": *out, "rhs": *rhs, "coords": *coords, "nullspace": *null} {
		if path == "" {
			continue
		}
		key := filepath.Clean(path)
		if other, dup := seen[key]; dup {
			return fmt.Errorf("-%s and -%s both write %s", other, flag, path)
		}
		seen[key] = flag
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := mf.check(set); err != nil {
		return err
	}
	if mf.path != "" {
		if *out == "" {
			fs.Usage()
			return errors.New("-o is required")
		}
		return genMesh(&mf, *out, *rhs, *coords, *null, *workers, *quiet, stdout, stderr)
	}
	if *ne == 0 || *out == "" {
		fs.Usage()
		return errors.New("--ne and -o are required")
	}
	for flag, path := range map[string]string{"coords": *coords, "nullspace": *null} {
		if path != "" && !strings.EqualFold(filepath.Ext(path), ".mtx") {
			return fmt.Errorf("--%s %s: dense arrays are written as Matrix Market, name the file .mtx", flag, path)
		}
	}
	p.Ne = *ne
	box, err := fem.NewBox(p)
	if err != nil {
		return err
	}

	start := time.Now()
	verbose := !*quiet && *ne >= genProgressNe
	phase := func(format string, a ...any) func() {
		if !verbose {
			return func() {}
		}
		t := time.Now()
		fmt.Fprintf(stderr, "gen: "+format+" ...", a...)
		return func() { fmt.Fprintf(stderr, " %.2f s\n", time.Since(t).Seconds()) }
	}

	done := phase("symbolic assembly, %d unknowns", box.Unknowns())
	asm, err := box.Symbolic(*workers)
	if err != nil {
		return err
	}
	done()
	A := asm.Matrix
	done = phase("numeric assembly, %d blocks (%.2f GB)", A.NNZBlocks(), float64(A.Bytes())/1e9)
	if err := asm.Numeric(A, nil, *workers); err != nil {
		return err
	}
	done()
	done = phase("writing %s", *out)
	if err := matio.WriteMatrix(*out, A); err != nil {
		return err
	}
	done()
	if *rhs != "" {
		done = phase("writing %s", *rhs)
		if err := matio.WriteVector(*rhs, box.RHS()); err != nil {
			return err
		}
		done()
	}
	x := box.Coords()
	if *coords != "" {
		done = phase("writing %s", *coords)
		if err := writeDense(*coords, &matio.Dense{Rows: box.Nodes(), Cols: 3, Data: x}); err != nil {
			return err
		}
		done()
	}
	if *null != "" {
		done = phase("writing %s", *null)
		B, _, err := fem.RigidBodyModes(x, 3, *orth)
		if err != nil {
			return err
		}
		if err := writeDense(*null, &matio.Dense{Rows: box.Unknowns(), Cols: 6, Data: B}); err != nil {
			return err
		}
		done()
	}
	fmt.Fprintf(stdout, "ex56 ne=%d alpha=%g: %d unknowns, %d blocks of 3×3 (%d nonzeros) -> %s\n",
		p.Ne, p.Alpha, box.Unknowns(), A.NNZBlocks(), 9*A.NNZBlocks(), *out)
	if verbose {
		fmt.Fprintf(stderr, "gen: total %.2f s\n", time.Since(start).Seconds())
	}
	return nil
}

// genMesh assembles a Gmsh mesh's elasticity problem as solve --mesh does (the same
// node order, materials, clamps and loads) and writes its matrix, right-hand side,
// coordinates and near-null space, so that another solver (PETSc's GAMG in
// bench/mesh_compare.sh) solves the very same system.
func genMesh(mf *meshFlags, out, rhs, coords, null string, workers int, quiet bool, stdout, stderr io.Writer) error {
	for flag, path := range map[string]string{"coords": coords, "nullspace": null} {
		if path != "" && !strings.EqualFold(filepath.Ext(path), ".mtx") {
			return fmt.Errorf("--%s %s: dense arrays are written as Matrix Market, name the file .mtx", flag, path)
		}
	}
	c := &solveConfig{meshFlags: *mf, threads: workers, quiet: quiet}
	pr := progress{w: stderr, on: !quiet, cmd: "gen"}
	if st, err := os.Stat(mf.path); err == nil && st.Size() < 20<<20 {
		pr.on = false
	}
	p, err := loadMeshProblem(c, pr, false, stderr)
	if err != nil {
		return err
	}
	if err := matio.WriteMatrix(out, p.A); err != nil {
		return err
	}
	if rhs != "" {
		if err := matio.WriteVector(rhs, p.b); err != nil {
			return err
		}
	}
	m := p.mesh.m
	if coords != "" {
		if err := writeDense(coords, &matio.Dense{Rows: m.Nodes(), Cols: 3, Data: m.Coords}); err != nil {
			return err
		}
	}
	if null != "" {
		if err := writeDense(null, &matio.Dense{Rows: p.ns.Rows, Cols: p.ns.Cols, Data: p.ns.Data}); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "%s: %d unknowns, %d blocks of 3×3 (%d nonzeros), %d elements -> %s\n",
		mf.path, p.A.Rows(), p.A.NNZBlocks(), 9*p.A.NNZBlocks(), p.mesh.el.Elements(), out)
	return nil
}

// writeDense writes d to path as a Matrix Market array.
func writeDense(path string, d *matio.Dense) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := matio.WriteDense(w, d); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
