package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
	"github.com/blockamg/blockamg/meshpng"
	"github.com/blockamg/blockamg/vtu"
)

// meshFlags are solve's flags for a Gmsh mesh (--mesh).
type meshFlags struct {
	path     string
	fix      listFlag // GROUP or GROUP:COMPONENTS
	traction listFlag // GROUP:tx,ty,tz
	material listFlag // [GROUP:]E,nu
	body     string   // fx,fy,fz on every element
	order    string   // rcm | file
	vtu, png string
}

// listFlag is a flag that may be given more than once.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// register defines the mesh flags on fs; drawing (--vtu, --png) only where a solution
// is drawn (solve, not gen).
func (mf *meshFlags) register(fs *flag.FlagSet, drawing bool) {
	fs.StringVar(&mf.path, "mesh", "", "solve linear elasticity on this Gmsh MSH 4.1 mesh (tet4, tet10, hex8) instead of ex56")
	fs.Var(&mf.fix, "fix", "with --mesh: clamp surface group GROUP (all components), or GROUP:xz for some; repeatable")
	fs.Var(&mf.traction, "traction", "with --mesh: traction GROUP:tx,ty,tz (force per area) on a surface group; repeatable")
	fs.Var(&mf.material, "material", "with --mesh: GROUP:E,nu for a volume group, or E,nu for every group not named (default 1,0.3); repeatable")
	fs.StringVar(&mf.body, "body-force", "", "with --mesh: body force fx,fy,fz per volume on every element")
	fs.StringVar(&mf.order, "order", "rcm", "with --mesh: node order: rcm (reverse Cuthill–McKee, banded) or file")
	if !drawing {
		return
	}
	fs.StringVar(&mf.vtu, "vtu", "", "with --mesh: write the displacement and the von Mises stress per element to this VTK file (.vtu, for ParaView)")
	fs.StringVar(&mf.png, "png", "", "with --mesh: draw the deformed mesh into this PNG file")
}

// check refuses the mesh flags without --mesh, and --mesh with ex56's or a matrix's.
func (mf *meshFlags) check(set map[string]bool) error {
	if mf.path == "" {
		for _, n := range []string{"fix", "traction", "material", "body-force", "order", "vtu", "png"} {
			if set[n] {
				return fmt.Errorf("--%s needs --mesh", n)
			}
		}
		return nil
	}
	for _, n := range []string{"ne", "alpha", "matrix"} {
		if set[n] {
			return fmt.Errorf("--mesh and --%s exclude each other", n)
		}
	}
	if mf.order != "rcm" && mf.order != "file" {
		return fmt.Errorf("--order %q: want rcm or file", mf.order)
	}
	if len(mf.fix) == 0 {
		return errors.New("--mesh needs at least one --fix GROUP: without a clamp the elastic operator is singular (rigid-body motions)")
	}
	return nil
}

// meshProblem is a Gmsh mesh's elasticity problem: the assembly's symbolic phase,
// the materials of the first solve, and the loads.
type meshProblem struct {
	m      *mesh.Mesh
	el     *fem.Elasticity
	E, nu  []float64
	first  int32 // the volume group whose modulus the recurring steps change
	loads  fem.Loads
	lastE  []float64 // the materials of the last assembly, for the stress
	groups int       // volume groups
	// perm is the node order solved in: its node i is the mesh file's node perm[i]
	// (nil: the file's order).
	perm []int32
}

// fileOrder returns the solution x (the solved node order) in the mesh file's node
// order, for --solution: the order a user's nodes have in the file they gave.
func (mp *meshProblem) fileOrder(x []float64) []float64 {
	if mp.perm == nil {
		return x
	}
	out := make([]float64, len(x))
	for i, p := range mp.perm {
		copy(out[3*int(p):3*int(p)+3], x[3*i:3*i+3])
	}
	return out
}

// parseNumbers parses "a,b,c" into exactly n finite floats; its errors name the
// part at fault and leave the flag to the caller.
func parseNumbers(s string, n int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("want %d numbers separated by commas, not %d", n, len(parts))
	}
	v := make([]float64, n)
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		switch {
		case errors.Is(err, strconv.ErrRange):
			return nil, fmt.Errorf("%q is out of the range of a double", p)
		case err != nil:
			return nil, fmt.Errorf("%q is not a number", p)
		case math.IsNaN(f) || math.IsInf(f, 0):
			return nil, fmt.Errorf("%q is not finite", p)
		}
		v[i] = f
	}
	return v, nil
}

// components parses a component list such as "xz" into fem's mask.
func components(s string) (uint8, error) {
	var m uint8
	for _, r := range s {
		bit := uint8(0)
		switch r {
		case 'x':
			bit = 1
		case 'y':
			bit = 2
		case 'z':
			bit = 4
		}
		if bit == 0 || m&bit != 0 {
			return 0, fmt.Errorf("components %q: want some of the letters x, y, z, each once", s)
		}
		m |= bit
	}
	if m == 0 {
		return 0, fmt.Errorf("no components after the colon: want some of the letters x, y, z, or GROUP alone for all three")
	}
	return m, nil
}

// loadMeshProblem reads the mesh, orders its nodes, sets up the assembly, assembles
// the first matrix (on the host unless device is set: then the device assembles it,
// and no matrix is made here) and the right-hand side.
func loadMeshProblem(c *solveConfig, pr progress, device bool, stderr io.Writer) (*problem, error) {
	mf := &c.meshFlags
	done := pr.start("reading %s", mf.path)
	m, warns, err := mesh.ReadFile(mf.path)
	done()
	if err != nil {
		return nil, err
	}
	if !c.quiet {
		for _, w := range warns {
			fmt.Fprintf(stderr, "blockamg %s warning: %v\n", pr.prefix(), w)
		}
	}
	if err := m.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", mf.path, err)
	}
	var perm []int32
	if mf.order == "rcm" {
		perm = mesh.RCM(m)
		m = m.Renumber(perm)
	}
	fixed := make([]uint8, m.Nodes())
	for _, f := range mf.fix {
		g, comp, colon := strings.Cut(f, ":")
		mask := uint8(7)
		if colon {
			if mask, err = components(comp); err != nil {
				return nil, fmt.Errorf("--fix %s: %w", f, err)
			}
		}
		if err := fem.FixGroup(m, fixed, g, mask); err != nil {
			if _, vol := m.GroupByName(3, g); vol {
				return nil, fmt.Errorf("--fix %s: %q is a volume group; clamps go on surface groups (the mesh's: %s)", f, g, groupNames(m, 2))
			}
			return nil, fmt.Errorf("--fix %s: %w (the mesh's surface groups: %s)", f, err, groupNames(m, 2))
		}
	}
	// Clamps that leave a rigid-body motion free make the operator singular: say so
	// here, not as a failed factorization deep in the set-up.
	if free, err := fem.FreeRigidModes(m.Coords, fixed); err != nil {
		return nil, fmt.Errorf("%s: %w", mf.path, err)
	} else if free > 0 {
		return nil, fmt.Errorf("--fix %s: the clamps leave %d of the 6 rigid-body motions free, so the elastic operator is singular: clamp more components or nodes not on one line", strings.Join(mf.fix, " --fix "), free)
	}
	var mats []fem.Material
	def := false
	for _, s := range mf.material {
		g, vals, ok := strings.Cut(s, ":")
		if !ok {
			g, vals = "", s
		} else if g == "" {
			return nil, fmt.Errorf("--material %q: no group before the colon: want GROUP:E,nu, or E,nu for every group not named", s)
		}
		if g == "" {
			if def {
				return nil, fmt.Errorf("--material %q: a second default material (E,nu without a group)", s)
			}
			def = true
		}
		v, err := parseNumbers(vals, 2)
		if err != nil {
			return nil, fmt.Errorf("--material %q: %w", s, err)
		}
		if err := (fem.Material{E: v[0], Nu: v[1]}).Check(); err != nil {
			return nil, fmt.Errorf("--material %q: %w", s, err)
		}
		if v[1] > 0.49 && v[1] < 0.5 && !c.quiet {
			// Displacement elements lock as ν → ½ and the operator's condition grows
			// like λ/μ: a solve may not converge, and one that does is stiff.
			fmt.Fprintf(stderr, "blockamg %swarning: --material %s: ν = %g is nearly incompressible (λ/μ = %.3g): expect many iterations and locking\n", pr.prefix(), s, v[1], 2*v[1]/(1-2*v[1]))
		}
		mats = append(mats, fem.Material{Group: g, E: v[0], Nu: v[1]})
	}
	if !def {
		mats = append(mats, fem.Material{E: 1, Nu: 0.3})
	}
	t := time.Now()
	done = pr.start("setting up the assembly (%d nodes, %d unknowns)", m.Nodes(), 3*m.Nodes())
	el, err := fem.NewElasticity(m, fem.ElasticityOptions{Fixed: fixed, Workers: c.threads})
	done()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", mf.path, err)
	}
	sym := time.Since(t)
	E, nu, err := el.Materials(mats...)
	if err != nil {
		return nil, fmt.Errorf("--material: %w (the mesh's volume groups: %s)", err, groupNames(m, 3))
	}
	mp := &meshProblem{m: m, el: el, E: E, nu: nu, lastE: E, perm: perm}
	for _, g := range m.Groups {
		if g.Dim == 3 {
			if mp.groups == 0 || g.Tag < mp.first {
				mp.first = g.Tag
			}
			mp.groups++
		}
	}
	for _, s := range mf.traction {
		g, vals, ok := strings.Cut(s, ":")
		if !ok {
			return nil, fmt.Errorf("--traction %q: want GROUP:tx,ty,tz", s)
		}
		v, err := parseNumbers(vals, 3)
		if err != nil {
			return nil, fmt.Errorf("--traction %q: %w", s, err)
		}
		if _, ok := m.GroupByName(2, g); !ok {
			if _, vol := m.GroupByName(3, g); vol {
				return nil, fmt.Errorf("--traction %q: %q is a volume group; tractions act on surface groups (the mesh's: %s)", s, g, groupNames(m, 2))
			}
			return nil, fmt.Errorf("--traction %q: no surface group %q (the mesh's surface groups: %s)", s, g, groupNames(m, 2))
		}
		mp.loads.Traction = append(mp.loads.Traction, fem.Traction{Group: g, Force: fem.Uniform([3]float64(v))})
	}
	if mf.body != "" {
		v, err := parseNumbers(mf.body, 3)
		if err != nil {
			return nil, fmt.Errorf("--body-force %q: %w", mf.body, err)
		}
		mp.loads.Body = append(mp.loads.Body, fem.BodyForce{Force: fem.Uniform([3]float64(v))})
	}
	p := &problem{name: mf.path, mesh: mp, symbolic: sym}
	n := 3 * m.Nodes()
	if !device {
		t = time.Now()
		p.A = el.NewMatrix()
		if err := el.Numeric(p.A, E, nu, c.threads); err != nil {
			return nil, err
		}
		p.numeric = time.Since(t)
	} else {
		p.onDevice = true
	}
	p.b = make([]float64, n)
	if err := el.RHS(p.b, p.A, mp.loads); err != nil {
		return nil, fmt.Errorf("%s: %w (the mesh's surface groups: %s)", mf.path, err, groupNames(m, 2))
	}
	if norm(p.b) == 0 {
		if len(mp.loads.Traction) > 0 || len(mp.loads.Body) > 0 {
			return nil, errors.New("the right-hand side is zero: the loads given are zero or act only on clamped components (--fix)")
		}
		return nil, errors.New("the right-hand side is zero: give a load (--traction GROUP:tx,ty,tz or --body-force fx,fy,fz)")
	}
	B, err := el.NearNullSpace()
	if err != nil {
		return nil, err
	}
	p.ns = &amg.NullSpace{Rows: n, Cols: 6, Data: B}
	return p, nil
}

// groupNames lists the mesh's groups of dimension dim for messages.
func groupNames(m *mesh.Mesh, dim int) string {
	var names []string
	for _, g := range m.Groups {
		if g.Dim == dim {
			if g.Name != "" {
				names = append(names, strconv.Quote(g.Name))
			} else {
				names = append(names, fmt.Sprint(g.Tag))
			}
		}
	}
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// stepMaterials returns the Young's moduli of recurring step k: the first volume
// group's (by tag) multiplied by stepFactor(k); ν stays.
func (mp *meshProblem) stepMaterials(k int) []float64 {
	return mp.stepMaterialsInto(make([]float64, len(mp.E)), k)
}

// stepMaterialsInto writes stepMaterials(k) into E (one value an element) and
// returns it.
func (mp *meshProblem) stepMaterialsInto(E []float64, k int) []float64 {
	f := stepFactor(k)
	copy(E, mp.E)
	for e := range E {
		if mp.el.ElementGroup(e) == mp.first {
			E[e] *= f
		}
	}
	return E
}

// writeMeshOutputs writes --vtu and --png for the solution x of the materials last
// assembled.
func writeMeshOutputs(c *solveConfig, mp *meshProblem, x []float64, pr progress) error {
	if c.meshFlags.vtu != "" {
		done := pr.start("writing %s (displacement, von Mises stress, group)", c.meshFlags.vtu)
		vm, err := mp.el.VonMises(x, mp.lastE, mp.nu)
		if err == nil {
			group := make([]float64, mp.el.Elements())
			for e := range group {
				group[e] = float64(mp.el.ElementGroup(e))
			}
			// The file's node tags, so that a point of the VTK file can be found in the
			// mesh whatever order the nodes were solved in (exact as doubles below 2⁵³).
			points := []vtu.Field{{Name: "displacement", Components: 3, Values: x}}
			if len(mp.m.NodeTag) == mp.m.Nodes() {
				tags := make([]float64, len(mp.m.NodeTag))
				for i, t := range mp.m.NodeTag {
					tags[i] = float64(t)
				}
				points = append(points, vtu.Field{Name: "node_tag", Components: 1, Values: tags})
			}
			err = vtu.WriteFile(c.meshFlags.vtu, mp.m, points,
				[]vtu.Field{{Name: "von_mises", Components: 1, Values: vm}, {Name: "group", Components: 1, Values: group}})
		}
		done()
		if err != nil {
			return fmt.Errorf("--vtu %s: %w", c.meshFlags.vtu, err)
		}
	}
	if c.meshFlags.png != "" {
		done := pr.start("drawing %s (the deformed mesh)", c.meshFlags.png)
		info, err := meshpng.WriteFile(c.meshFlags.png, mp.m, x, meshpng.Options{})
		done()
		if err != nil {
			return fmt.Errorf("--png %s: %w", c.meshFlags.png, err)
		}
		if !c.quiet && pr.w != nil {
			fmt.Fprintf(pr.w, "%s%s: the displacement drawn ×%.3g, coloured by |u| from 0 (blue) to %.3g (red)\n",
				pr.prefix(), c.meshFlags.png, info.Scale, info.MaxDisplacement)
		}
	}
	return nil
}
