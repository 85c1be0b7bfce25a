// Package cudafem runs the numeric phase of fem's two-phase assemblies on an NVIDIA
// GPU: it writes the values of a device BSR matrix (backend/cuda) from per-element
// materials in device memory, so that a recurring step that changes the material
// moves one or two float64 per element across the bus, not the matrix. Assembly is
// ex56's structured box (kernels/assembly.cu; the element→slot map is arithmetic on
// the grid), Elasticity an unstructured mesh's fem.Elasticity (kernels/elasticity.cu,
// from the host's symbolic arrays uploaded once); both are bitwise the CPU's.
//
// The kernels are translation units of backend/cuda (assembly.cu is compiled with
// the others every run uses when the backend starts; elasticity.cu on its first
// launch), launched on the backend's device thread and stream (cuda.Backend.Launch,
// LaunchShared), so they are ordered with the solver's own work. fem does not depend
// on this package or on the backend.
package cudafem

import (
	"fmt"

	"github.com/blockamg/blockamg/backend/cuda"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/internal/cudadrv"
)

// asmRows and asmGroups are ASM_ROWS and ASM_GROUPS of kernels/assembly.cu: a
// thread block of asm_numeric takes asmGroups groups of asmRows block rows.
const (
	asmRows   = 9
	asmGroups = 4
)

// Assembly fills device BSR matrices with the values of a fem.Assembly's stiffness
// matrix, from per-element moduli in device memory: the numeric phase of fem's
// two-phase assembly run on the GPU (kernels/assembly.cu).
//
// It holds only fem.GatherTables (about 5 KB): the element→slot map is arithmetic on
// the structured grid, so there is no per-element or per-slot table to upload. A step
// that changes the material uploads one float64 per element and writes the matrix
// values on the device; nothing matrix-sized crosses the bus.
//
// The values are bitwise those of fem.Assembly.Numeric (same gather order, no fused
// multiply-adds) as long as Go does not fuse Numeric's multiply-adds itself, which it
// does not on amd64 (GOAMD64 < v3); see fem.GatherTables.
type Assembly struct {
	b                       *cuda.Backend
	box                     *fem.Box
	nn, ne, nodes, elements int
	nnzb                    int64
	tabF                    *cuda.Buffer[float64] // Ref then Diag
	tabI                    *cuda.Buffer[int32]   // Local then inv
	mod                     *cuda.Buffer[float64] // NumericHost's upload buffer, on first use
	flag                    *cuda.Flag            // CheckPattern's result, on first use
	modFlag                 *cuda.Flag            // NumericHost's first bad element
	defaultModulus          []float64             // fem's default material, on first use
	freed                   bool
}

// New uploads the gather tables of fa once to b's device. fa's matrix must have fewer
// than 2³¹ block rows (fem.MaxNe guarantees it).
func New(b *cuda.Backend, fa *fem.Assembly) (*Assembly, error) {
	m := fa.Matrix
	nodes := fa.Box().Nodes()
	if m == nil || m.BlockRows != nodes || m.BlockCols != nodes || m.R != 3 || m.C != 3 || m.NNZBlocks() != fa.Box().NNZBlocks() {
		return nil, fmt.Errorf("cuda: assembly: not the matrix of a %d-node box assembly", nodes)
	}
	return newAssembly(b, fa.Box())
}

// Symbolic runs the symbolic phase of box's assembly on b's device: it makes the
// matrix fem.Box.Symbolic makes — the same pattern, with zero values — in device
// memory, and the Assembly that fills it, so that no matrix-sized array is on the
// host or crosses the bus (the pattern is arithmetic on the grid: kernel
// asm_pattern). The caller owns the matrix (Free).
func Symbolic(b *cuda.Backend, box *fem.Box) (*Assembly, *cuda.Matrix, error) {
	da, err := newAssembly(b, box)
	if err != nil {
		return nil, nil, err
	}
	nodes := box.Nodes()
	rp, err := cuda.Alloc[int64](b, nodes+1)
	if err != nil {
		da.Free()
		return nil, nil, fmt.Errorf("cuda: assembly: pattern: %w", err)
	}
	col, err := cuda.Alloc[int32](b, int(box.NNZBlocks()))
	if err != nil {
		rp.Free()
		da.Free()
		return nil, nil, fmt.Errorf("cuda: assembly: pattern: %w", err)
	}
	nn, n, rpp, cp := int32(da.nn), int32(nodes), rp.Ptr(), col.Ptr()
	b.Launch("asm_pattern", cuda.BlocksFor(int64(nodes)), func(a *cudadrv.Args) { a.I32(nn).I32(n).Ptr(rpp).Ptr(cp) })
	A, err := b.NewMatrixOn(nodes, nodes, 3, 3, rp, col)
	if err != nil {
		da.Free()
		return nil, nil, fmt.Errorf("cuda: assembly: %w", err)
	}
	if err := b.Failed(); err != nil {
		A.Free()
		da.Free()
		return nil, nil, fmt.Errorf("cuda: assembly: pattern: %w", err)
	}
	return da, A, nil
}

func newAssembly(b *cuda.Backend, box *fem.Box) (*Assembly, error) {
	g := box.GatherTables()
	nodes := g.Nn * g.Nn * g.Nn
	if int64(nodes) >= 1<<31-asmRows*asmGroups {
		return nil, fmt.Errorf("cuda: assembly: %d nodes: at most 2³¹ on the device", nodes)
	}
	da := &Assembly{b: b, box: box, nn: g.Nn, ne: g.Ne, nodes: nodes, elements: g.Ne * g.Ne * g.Ne, nnzb: box.NNZBlocks()}

	tf := make([]float64, 0, 8*8*9+8*3)
	for la := range g.Ref {
		for lb := range g.Ref[la] {
			tf = append(tf, g.Ref[la][lb][:]...)
		}
	}
	for la := range g.Diag {
		tf = append(tf, g.Diag[la][:]...)
	}
	ti := make([]int32, 8+8*27)
	for p := 0; p < 8; p++ {
		ti[p] = int32(g.Local[p])
		inv := ti[8+27*p : 8+27*(p+1)]
		for s := range inv {
			inv[s] = -1
		}
		for lb, s := range g.Slot[p] {
			if s < 0 || s >= 27 || inv[s] != -1 {
				return nil, fmt.Errorf("cuda: assembly: element position %d: stencil slot %d of local node %d out of range or repeated", p, s, lb)
			}
			inv[s] = int32(lb)
		}
	}
	var err error
	if da.tabF, err = upload(b, tf); err != nil {
		da.Free()
		return nil, fmt.Errorf("cuda: assembly tables: %w", err)
	}
	if da.tabI, err = upload(b, ti); err != nil {
		da.Free()
		return nil, fmt.Errorf("cuda: assembly tables: %w", err)
	}
	for _, name := range []string{"asm_numeric", "asm_check_pattern", "asm_check_modulus", "asm_pattern"} {
		if err = b.LookupKernel(name); err != nil {
			da.Free()
			return nil, fmt.Errorf("cuda: assembly: %w", err)
		}
	}
	return da, nil
}

// upload allocates a device buffer holding src.
func upload[T cuda.Elem](b *cuda.Backend, src []T) (*cuda.Buffer[T], error) {
	u, err := cuda.Alloc[T](b, len(src))
	if err != nil {
		return nil, err
	}
	return u, u.Upload(src)
}

func (da *Assembly) live() {
	if da.freed {
		panic("cuda: assembly used after Free")
	}
}

// checkSizes reports whether A has the dimensions and block count of the assembly's
// matrix, and its transpose (when A has one) too.
func (da *Assembly) checkSizes(A *cuda.Matrix) error {
	da.b.CheckMatrix(A)
	for _, m := range []*cuda.Matrix{A, A.Transpose()} {
		if m == nil {
			continue
		}
		br, bc, r, c := m.Dims()
		if br != da.nodes || bc != da.nodes || r != 3 || c != 3 ||
			int64(m.RowPtr().Len()) != int64(da.nodes)+1 || int64(m.ColIdx().Len()) != da.nnzb || int64(m.Values().Len()) != 9*da.nnzb {
			return fmt.Errorf("cuda: assembly: device matrix of %d×%d blocks of %d×%d with %d blocks stored; the assembly's has %d×%d blocks of 3×3 with %d",
				br, bc, r, c, m.ColIdx().Len(), da.nodes, da.nodes, da.nnzb)
		}
	}
	return nil
}

// Numeric queues the writing of every value of A from the per-element moduli in
// modulus (fem's element order; the values are not checked on the device: see
// fem.Assembly.CheckModulus). A must have the assembly's pattern; Numeric checks its
// sizes (an error otherwise) and CheckPattern checks the pattern itself. When A was
// uploaded with its transpose, the transpose's values are written too: A is exactly
// symmetric, so Aᵀ has A's pattern and values and a device copy makes it.
//
// The kernel runs asynchronously; a device failure shows in the returned error when it
// is already known, else in the backend's Err later.
func (da *Assembly) Numeric(A *cuda.Matrix, modulus *cuda.Buffer[float64]) error {
	da.live()
	b := da.b
	if err := da.checkSizes(A); err != nil {
		return err
	}
	modulus.Ptr() // panics on a freed buffer
	if modulus.Backend() != b {
		return fmt.Errorf("cuda: assembly: modulus buffer of another backend")
	}
	if modulus.Len() != da.elements {
		return fmt.Errorf("cuda: assembly: %d element moduli for %d elements", modulus.Len(), da.elements)
	}
	if err := b.Failed(); err != nil {
		return err
	}
	da.numeric(A, modulus, 0)
	return nil
}

// numeric queues asm_numeric (guarded by the flag at bad when it is not 0) and the
// transpose's copy.
func (da *Assembly) numeric(A *cuda.Matrix, modulus *cuda.Buffer[float64], bad cudadrv.DevPtr) {
	b := da.b
	nn, ne, nodes, elements := int32(da.nn), int32(da.ne), int32(da.nodes), int32(da.elements)
	rp, mp, tf, ti, vp := A.RowPtr().Ptr(), modulus.Ptr(), da.tabF.Ptr(), da.tabI.Ptr(), A.Values().Ptr()
	blocks := uint32((da.nodes + asmRows*asmGroups - 1) / (asmRows * asmGroups))
	b.Launch("asm_numeric", blocks, func(a *cudadrv.Args) {
		a.I32(nn).I32(ne).I32(nodes).Ptr(rp).Ptr(mp).Ptr(tf).Ptr(ti).Ptr(bad).I32(elements).Ptr(vp)
	})
	if t := A.Transpose(); t != nil {
		t.Values().CopyFrom(A.Values())
	}
}

// NumericHost uploads modulus (one float64 per element; nil means fem's default
// material, ElementModulus) and runs Numeric with it. Bad moduli (wrong length,
// negative, NaN or infinite) are fem.Assembly.CheckModulus's error, and A is then left
// unchanged. The length is checked here; the values are checked on the device, by a
// kernel that runs before the assembly and stops it, so the host reads the moduli
// only to name the first bad one (one 4-byte flag comes back per call). The uploads
// and the flag are counted under the backend's current phase. NumericHost waits for
// the assembly to finish.
func (da *Assembly) NumericHost(A *cuda.Matrix, modulus []float64) error {
	da.live()
	if modulus != nil && len(modulus) != da.elements {
		return da.box.CheckModulus(modulus)
	}
	if err := da.checkSizes(A); err != nil {
		return err
	}
	if modulus == nil {
		if da.defaultModulus == nil {
			da.defaultModulus = da.box.ElementModulus()
		}
		modulus = da.defaultModulus
	}
	b := da.b
	if da.mod == nil {
		var err error
		if da.mod, err = cuda.Alloc[float64](b, da.elements); err != nil {
			return fmt.Errorf("cuda: assembly: %w", err)
		}
	}
	if da.modFlag == nil {
		var err error
		if da.modFlag, err = cuda.NewFlag(b, int32(da.elements)); err != nil {
			return fmt.Errorf("cuda: assembly: %w", err)
		}
	}
	if err := da.mod.Upload(modulus); err != nil {
		return fmt.Errorf("cuda: assembly: uploading the moduli: %w", err)
	}
	if err := b.Failed(); err != nil {
		return err
	}
	n, mp, fp := int32(da.elements), da.mod.Ptr(), da.modFlag.Ptr()
	b.Launch("asm_check_modulus", cuda.StridedBlocks(int64(n)), func(a *cudadrv.Args) { a.I32(n).Ptr(mp).Ptr(fp) })
	da.numeric(A, da.mod, fp)
	e, bad, err := da.modFlag.Read()
	if err != nil {
		return fmt.Errorf("cuda: assembly: %w", err)
	}
	if !bad {
		return nil
	}
	if err := da.box.CheckModulus(modulus); err != nil {
		return err
	}
	return fmt.Errorf("cuda: assembly: element %d: modulus %v rejected on the device", e, modulus[e])
}

// CheckPattern compares A's block pattern on the device with the assembly's (row
// pointers and columns, through the arithmetic stencil: nothing matrix-sized is
// uploaded or downloaded, a 4-byte flag comes back). It returns an error naming the
// first row that differs.
func (da *Assembly) CheckPattern(A *cuda.Matrix) error {
	da.live()
	if err := da.checkSizes(A); err != nil {
		return err
	}
	b := da.b
	if da.flag == nil {
		var err error
		if da.flag, err = cuda.NewFlag(b, int32(da.nodes)); err != nil {
			return fmt.Errorf("cuda: assembly: %w", err)
		}
	}
	nn, nodes, nnz := int32(da.nn), int32(da.nodes), da.nnzb
	rp, cp, fp := A.RowPtr().Ptr(), A.ColIdx().Ptr(), da.flag.Ptr()
	b.Launch("asm_check_pattern", cuda.BlocksFor(int64(nodes)), func(a *cudadrv.Args) {
		a.I32(nn).I32(nodes).I64(nnz).Ptr(rp).Ptr(cp).Ptr(fp)
	})
	row, bad, err := da.flag.Read()
	if err != nil {
		return err
	}
	if bad {
		return fmt.Errorf("cuda: assembly: device matrix block row %d does not hold the 27-point stencil of the assembly", row)
	}
	return nil
}

// Bytes returns the device memory the assembly holds: the tables, and the moduli and
// flag buffers once NumericHost and CheckPattern have allocated them.
func (da *Assembly) Bytes() int64 {
	var n int64
	for _, u := range []*cuda.Buffer[float64]{da.tabF, da.mod} {
		if u != nil {
			n += u.Bytes()
		}
	}
	if da.tabI != nil {
		n += da.tabI.Bytes()
	}
	for _, f := range []*cuda.Flag{da.flag, da.modFlag} {
		if f != nil {
			n += f.Bytes()
		}
	}
	return n
}

// ValueBytes returns the bytes one Numeric must move at least: the matrix values it
// writes and the moduli it reads (its floor for bandwidth reports).
func (da *Assembly) ValueBytes() int64 { return 9*8*da.nnzb + 8*int64(da.elements) }

// Free releases the device memory; freeing twice is a no-op.
func (da *Assembly) Free() {
	if da.freed {
		return
	}
	da.freed = true
	for _, u := range []*cuda.Buffer[float64]{da.tabF, da.mod} {
		if u != nil {
			u.Free()
		}
	}
	if da.tabI != nil {
		da.tabI.Free()
	}
	for _, f := range []*cuda.Flag{da.flag, da.modFlag} {
		f.Free()
	}
}
