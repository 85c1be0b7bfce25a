package galerkin

import (
	"blockamg/bsr"
	"blockamg/internal/par"
)

// Stats are the pattern statistics of one Galerkin product that the traffic model
// needs. They depend on the patterns and block shapes only.
type Stats struct {
	N, M int // fine and coarse block rows
	B, K int // fine (A) and coarse (Ac) block sizes; P blocks are B×K

	NnzA, NnzP, NnzW, NnzAc int64 // stored blocks of A, P, W = A·P, Ac

	ProdAP int64 // block products B×B·B×K forming W: Σ over A blocks (i,j) of |P row j|
	ProdPW int64 // block products (B×K)ᵀ·B×K forming Ac: Σ over fine rows i of |P row i|·|W row i|

	MaxRowP, MaxRowW, MaxRowAc int // longest block rows of P, W and Ac
	MaxRowSlots                int // max(MaxRowP, MaxRowW): scratch length of the kernels
}

// ComputeStats returns the statistics of PᵀAP for the patterns of A and P (which must
// have compatible shapes, see Symbolic). It costs about as much as a Symbolic call.
func ComputeStats(A, P *bsr.Matrix) Stats {
	w := productPattern(A.BlockRows, A.RowPtr, A.ColIdx, P.RowPtr, P.ColIdx, P.BlockCols, par.Workers())
	pt, _ := transposePattern(P.BlockRows, P.BlockCols, P.RowPtr, P.ColIdx)
	ac := productPattern(P.BlockCols, pt.rowPtr, pt.colIdx, w.rowPtr, w.colIdx, P.BlockCols, par.Workers())
	return computeStats(A, P, w, pt, ac)
}

func computeStats(A, P *bsr.Matrix, w, pt, ac *pattern) Stats {
	s := Stats{
		N: A.BlockRows, M: P.BlockCols, B: A.R, K: P.C,
		NnzA: A.NNZBlocks(), NnzP: P.NNZBlocks(), NnzW: w.nnz(), NnzAc: ac.nnz(),
	}
	for i := 0; i < A.BlockRows; i++ {
		for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
			j := A.ColIdx[q]
			s.ProdAP += P.RowPtr[j+1] - P.RowPtr[j]
		}
		s.ProdPW += (P.RowPtr[i+1] - P.RowPtr[i]) * (w.rowPtr[i+1] - w.rowPtr[i])
		s.MaxRowP = max(s.MaxRowP, int(P.RowPtr[i+1]-P.RowPtr[i]))
		s.MaxRowW = max(s.MaxRowW, int(w.rowPtr[i+1]-w.rowPtr[i]))
	}
	for I := 0; I < ac.rows; I++ {
		s.MaxRowAc = max(s.MaxRowAc, int(ac.rowPtr[I+1]-ac.rowPtr[I]))
	}
	s.MaxRowSlots = max(s.MaxRowP, s.MaxRowW)
	return s
}

// Machine holds the parameters of the traffic model.
type Machine struct {
	CacheBytes int64   // last-level cache available to the product
	Bandwidth  float64 // sustained memory bandwidth, bytes per second
	FlopRate   float64 // sustained floating-point rate of the block kernels, flop/s
	Workers    int     // worker goroutines
}

// DefaultMachine returns parameters for a generic current CPU.
func DefaultMachine() Machine {
	return Machine{CacheBytes: 32 << 20, Bandwidth: 10e9, FlopRate: 3e9, Workers: par.Workers()}
}

// Prediction is the model's estimate for one variant.
type Prediction struct {
	Bytes   int64   // bytes read and written from memory
	Flops   int64   // floating-point operations
	Seconds float64 // predicted time
}

// Predict returns the model's estimate of the numeric phase of variant v.
func Predict(s Stats, mc Machine, v Variant) Prediction {
	b, k := int64(s.B), int64(s.K)
	flops := 2 * (s.ProdAP*b*b*k + s.ProdPW*b*k*k)
	bytes := s.NnzA*(b*b*8+4) + s.NnzP*(b*k*8+4) + s.NnzAc*k*k*8
	if v == TwoPass {
		bytes += 2 * s.NnzW * (b*k*8 + 4)
	}
	w := float64(max(mc.Workers, 1))
	sec := float64(bytes)/mc.Bandwidth + float64(flops)/(mc.FlopRate*w)
	return Prediction{Bytes: bytes, Flops: flops, Seconds: sec}
}

// Choose returns the variant with the smallest predicted time.
func Choose(s Stats, mc Machine) Variant {
	best, bt := TwoPass, Predict(s, mc, TwoPass).Seconds
	for _, v := range Variants {
		if t := Predict(s, mc, v).Seconds; t < bt {
			best, bt = v, t
		}
	}
	return best
}
