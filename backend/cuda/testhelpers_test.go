package cuda

import "github.com/blockamg/blockamg/bsr"

// Test-only views of the plans.

// halfVariants lists the variants whose Pᵀ·W stage computes the symmetric half when
// the plan is symmetric (they read its upper blocks' lists).
func halfVariants() []GalerkinVariant {
	var vs []GalerkinVariant
	for _, e := range galerkinTable {
		if e.kernel.reads(true).has(bufAcSel) {
			vs = append(vs, e.name)
		}
	}
	return vs
}

// absolute expands the packed lists into global block index pairs.
func (s *hostSchedule) absolute(A, P *bsr.Matrix) {
	s.absoluteW(A, P)
	s.absoluteAc()
}
