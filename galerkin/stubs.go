package galerkin

import "blockamg/bsr"

type planExtra struct{}

func (e *planExtra) bytes() int64 { return 0 }

func (p *Plan) numericFusedRow(A, P *bsr.Matrix, workers int)  { p.numericTwoPassAlloc(A, P, workers) }
func (p *Plan) numericRecompute(A, P *bsr.Matrix, workers int) { p.numericTwoPassAlloc(A, P, workers) }
func (p *Plan) numericInspector(A, P *bsr.Matrix, workers int) { p.numericTwoPassAlloc(A, P, workers) }
func (p *Plan) buildInspector(A, P *bsr.Matrix)                {}
func (p *Plan) numericTwoPassAlloc(A, P *bsr.Matrix, workers int) {
	p.wVal = make([]float64, p.w.nnz()*int64(p.b*p.k))
	p.numericTwoPass(A, P, workers)
	p.wVal = nil
}
