package dist

import (
	"slices"

	"github.com/blockamg/blockamg/bsr"
)

// tagAssemble tags the messages of an assembly of partial rows.
const tagAssemble = 26004

// blockKey is a block of a matrix being assembled: global row and column.
type blockKey struct{ i, j int64 }

// Galerkin returns this rank's rows of the coarse operator Ac = Pᵀ·A·P (rows and
// columns on P's column layout, global columns), ready for NewMatrix. Each rank forms
// W = A·P on its own fine rows, with the rows of P that A's ghost columns name fetched
// from their owners (GhostRows), then Pᵀ·W's contributions of those rows, which it
// sends to the owners of their coarse rows, where each block is summed over the ranks
// in rank order. Every rank must call it together.
func Galerkin(a, p *Matrix) (*bsr.Matrix, error) {
	gp, err := newGalerkinPlan(a, p)
	if err != nil {
		return nil, err
	}
	if err := gp.numeric(); err != nil {
		return nil, err
	}
	return gp.asm.out, nil
}

// galerkinPlan is Galerkin's patterns and messages kept: P's rows that this rank
// reads, the pattern of W = A·P on its rows, that of its partial rows of Pᵀ·W, and the
// assembly of those rows by their owners, so that new values of A and P give Ac's
// values with values alone travelling.
type galerkinPlan struct {
	a     *Matrix
	p     *operand
	wPtr  []int64 // W's row pointers, by fine row
	wCols []int32 // W's dense columns (p.cols), ascending in each row
	// Pᵀ·W's partial blocks by dense coarse row I: acPtr over the dense columns, acCols
	// the dense columns J of each, ascending.
	acPtr  []int64
	acCols []int32
	acc    []float64 // the partial blocks' values, in (I, J) order
	asm    *assembly
	slot   []int32   // per dense column: its place in the W row being computed
	w      []float64 // one row of W
}

// newGalerkinPlan fetches P's ghost rows and agrees the patterns with the other ranks.
// Every rank must call it together.
func newGalerkinPlan(a, p *Matrix) (*galerkinPlan, error) {
	if !slices.Equal(p.Layout.Offsets, a.Layout.Offsets) || !slices.Equal(a.Layout.Offsets, a.ColLayout.Offsets) {
		panic("dist: Galerkin: P's rows are not distributed as the square operator's")
	}
	b, k := a.Local.R, p.Local.C
	op, err := newOperand(a, p)
	if err != nil {
		return nil, err
	}
	n := a.Hi - a.Lo
	nc := len(op.cols)
	gp := &galerkinPlan{a: a, p: op, wPtr: make([]int64, n+1), slot: make([]int32, nc)}
	for t := range gp.slot {
		gp.slot[t] = -1
	}
	// W's pattern: the union of the rows of P that A's row names.
	var row []int32
	longest := 0
	for i := 0; i < n; i++ {
		row = op.rowUnion(a, i, false, gp.slot, row)
		gp.wCols = append(gp.wCols, row...)
		gp.wPtr[i+1] = int64(len(gp.wCols))
		longest = max(longest, len(row))
	}
	gp.w = make([]float64, longest*b*k)
	// Pᵀ·W's pattern: coarse row I holds the union of W's rows i for which P_iI is
	// stored. P's own rows, transposed, give those i.
	tPtr := make([]int64, nc+1)
	for _, c := range op.own.ColIdx {
		tPtr[c+1]++
	}
	for c := 0; c < nc; c++ {
		tPtr[c+1] += tPtr[c]
	}
	tRows := make([]int32, len(op.own.ColIdx))
	fill := slices.Clone(tPtr[:nc])
	for i := 0; i < n; i++ {
		for _, c := range op.own.ColIdx[op.own.RowPtr[i]:op.own.RowPtr[i+1]] {
			tRows[fill[c]] = int32(i)
			fill[c]++
		}
	}
	gp.acPtr = make([]int64, nc+1)
	var keys []blockKey
	for I := 0; I < nc; I++ {
		row = row[:0]
		for _, i := range tRows[tPtr[I]:tPtr[I+1]] {
			for _, c := range gp.wCols[gp.wPtr[i]:gp.wPtr[i+1]] {
				if gp.slot[c] < 0 {
					gp.slot[c] = 0
					row = append(row, c)
				}
			}
		}
		slices.Sort(row)
		for _, c := range row {
			gp.slot[c] = -1
			keys = append(keys, blockKey{op.cols[I], op.cols[c]})
		}
		gp.acCols = append(gp.acCols, row...)
		gp.acPtr[I+1] = int64(len(gp.acCols))
	}
	gp.acc = make([]float64, len(gp.acCols)*k*k)
	if gp.asm, err = newAssembly(a.Comm, p.ColLayout, p.ColLayout.N(), k, k, keys); err != nil {
		return nil, err
	}
	return gp, nil
}

// numeric computes this rank's rows of Ac from A's and P's present values: P's ghost
// rows fetched again, W_i = Σ_j A_ij P_j (the local part's columns first, then the
// ghost part's), Ac_IJ += P_iIᵀ·W_iJ over the fine rows in order, and the partial rows
// summed by their owners (assembly). Every rank must call it together.
func (gp *galerkinPlan) numeric() error {
	if err := gp.p.refresh(); err != nil {
		return err
	}
	a, op := gp.a, gp.p
	b, k := a.Local.R, op.own.C
	bb, bk, kk := int64(b*b), int64(b*k), int64(k*k)
	clear(gp.acc)
	gemm, gemmTN := bsr.GemmFunc(b, b, k), bsr.GemmTNFunc(k, b, k)
	for i := 0; i < a.Hi-a.Lo; i++ {
		w0, w1 := gp.wPtr[i], gp.wPtr[i+1]
		wc := gp.wCols[w0:w1]
		for t, c := range wc {
			gp.slot[c] = int32(t)
		}
		clear(gp.w[:(w1-w0)*bk])
		own, gh := op.own, op.ghost
		for q := a.Local.RowPtr[i]; q < a.Local.RowPtr[i+1]; q++ {
			blk, j := a.Local.Val[q*bb:(q+1)*bb], a.Local.ColIdx[q]
			for e := own.RowPtr[j]; e < own.RowPtr[j+1]; e++ {
				s := int64(gp.slot[own.ColIdx[e]])
				gemm(blk, op.ownBlock(e), gp.w[s*bk:(s+1)*bk])
			}
		}
		for q := a.Ghost.RowPtr[i]; q < a.Ghost.RowPtr[i+1]; q++ {
			blk, j := a.Ghost.Val[q*bb:(q+1)*bb], a.Ghost.ColIdx[q]
			for e := gh.RowPtr[j]; e < gh.RowPtr[j+1]; e++ {
				s := int64(gp.slot[gh.ColIdx[e]])
				gemm(blk, gh.Val[e*bk:(e+1)*bk], gp.w[s*bk:(s+1)*bk])
			}
		}
		// Ac_IJ += P_iIᵀ·W_iJ: W_i's columns are among row I's, both ascending, so
		// one walk along row I finds them all.
		for e := op.own.RowPtr[i]; e < op.own.RowPtr[i+1]; e++ {
			I := op.own.ColIdx[e]
			pI := op.ownBlock(e)
			q := gp.acPtr[I]
			for t, c := range wc {
				for gp.acCols[q] != c {
					q++
				}
				gemmTN(pI, gp.w[int64(t)*bk:int64(t+1)*bk], gp.acc[q*kk:(q+1)*kk])
			}
		}
	}
	return gp.asm.numeric(gp.acc)
}

// Transpose returns this rank's rows of Pᵀ (rows on P's column layout, columns on
// its row layout, global), ready for NewRectMatrix: the restriction as a matrix of its
// own, whose rows gather the blocks of P that other ranks hold.
// Every rank must call it together.
func Transpose(p *Matrix) (*bsr.Matrix, error) {
	tp, err := newTransposePlan(p)
	if err != nil {
		return nil, err
	}
	if err := tp.numeric(); err != nil {
		return nil, err
	}
	return tp.asm.out, nil
}

// transposePlan is Transpose's pattern and messages kept.
type transposePlan struct {
	p    *Matrix
	refs []int64   // P's blocks in row order, each row's by global column (appendRefs)
	vals []float64 // P's blocks transposed, in refs' order
	asm  *assembly
}

// newTransposePlan agrees the restriction's pattern with the other ranks: block (i, j)
// of P is block (j, i) of Pᵀ, sent to the owner of row j. Every rank must call it
// together.
func newTransposePlan(p *Matrix) (*transposePlan, error) {
	tp := &transposePlan{p: p}
	var cols []int64
	var keys []blockKey
	for i := 0; i < p.Hi-p.Lo; i++ {
		n := len(cols)
		cols, tp.refs = p.appendRefs(i, cols, tp.refs)
		for _, j := range cols[n:] {
			keys = append(keys, blockKey{j, int64(p.Lo + i)})
		}
	}
	bs := p.Local.R * p.Local.C
	tp.vals = make([]float64, len(keys)*bs)
	var err error
	if tp.asm, err = newAssembly(p.Comm, p.ColLayout, p.Layout.N(), p.Local.C, p.Local.R, keys); err != nil {
		return nil, err
	}
	return tp, nil
}

// numeric transposes P's present values into the restriction's rows. Every rank must
// call it together.
func (tp *transposePlan) numeric() error {
	p := tp.p
	R, C := p.Local.R, p.Local.C
	bs := int64(R * C)
	for t, ref := range tp.refs {
		var src []float64
		if ref >= 0 {
			src = p.Local.Val[ref*bs : (ref+1)*bs]
		} else {
			src = p.Ghost.Val[(-1-ref)*bs : -ref*bs]
		}
		dst := tp.vals[int64(t)*bs : int64(t+1)*bs]
		for r := 0; r < R; r++ {
			for c := 0; c < C; c++ {
				dst[c*R+r] = src[r*C+c]
			}
		}
	}
	return tp.asm.numeric(tp.vals)
}
