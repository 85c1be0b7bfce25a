package dist

import (
	"math"
	"time"
)

// LevelShape is what one rank holds of one level of a distributed hierarchy and what
// its halo exchanges move, measured on a partition whose ranks have one neighbour
// each (slabs of a box mesh): the input of the scaling model (Model).
type LevelShape struct {
	Rows      int     // block rows this rank owns
	Block     int     // scalars per block row (b on the fine level, k below)
	AHalo     int     // ghost blocks of the operator's product (received per exchange, one face)
	PHalo     int     // ghost blocks of the prolongation P·x_c (coarse blocks, one face); 0 on the coarsest level
	RHalo     int     // ghost blocks of the restriction Pᵀ·r (fine blocks, one face); 0 on the coarsest level
	ANnzRow   float64 // stored blocks per row of the operator
	PNnzRow   float64 // stored blocks per row of P; 0 on the coarsest level
	NextBlock int     // scalars per block of the next coarser level; 0 on the coarsest
}

// LevelShapes returns this rank's LevelShape of every level of d, from its plans.
func (d *Hierarchy) LevelShapes() []LevelShape {
	out := make([]LevelShape, len(d.Levels))
	for l, L := range d.Levels {
		a := L.A
		s := LevelShape{Rows: a.Hi - a.Lo, Block: a.Local.R, AHalo: a.Halo.RecvBlocks()}
		if n := a.Hi - a.Lo; n > 0 {
			s.ANnzRow = float64(a.Local.RowPtr[n]+a.Ghost.RowPtr[n]) / float64(n)
		}
		if L.P != nil {
			n := L.P.Hi - L.P.Lo
			s.PHalo, s.RHalo, s.NextBlock = L.P.Halo.RecvBlocks(), L.PT.Halo.RecvBlocks(), L.P.Local.C
			if n > 0 {
				s.PNnzRow = float64(L.P.Local.RowPtr[n]+L.P.Ghost.RowPtr[n]) / float64(n)
			}
		}
		out[l] = s
	}
	return out
}

// Network is the scaling model's interconnect. A halo exchange posts every receive
// and send before it waits (Matrix.MulVec), so its messages travel together: it costs
// one Latency, Overhead per message sent or received (the injection and matching
// cost that does not overlap), and its bytes over Bandwidth (a full-duplex link: the
// received bytes, as many as are sent). A collective costs a Latency per round. The
// model does not overlap communication with computation, though MulVec multiplies
// the local part while the halo travels, which makes it pessimistic.
type Network struct {
	Name      string
	Latency   time.Duration
	Overhead  time.Duration // per message
	Bandwidth float64       // bytes per second, per rank
}

// Model is the measured input of the weak-scaling prediction of the recurring step
// (new values, re-setup, solve), for ranks that each own a cube of a box mesh with
// the per-rank load of the measured run.
type Model struct {
	// Levels are one rank's levels in the measured run (LevelShapes), whose ranks
	// each had a single neighbour across one face (slabs of a box mesh split in two:
	// a face of (2·Rows)^(2/3) nodes). A cube of the same Rows has faces of
	// Rows^(2/3) nodes, so every halo is scaled by 2^(-2/3) for a face.
	Levels []LevelShape
	// SolveWork is one CG iteration's computation on a rank (its time outside MPI),
	// with the V-cycle and the redundant coarse solve.
	SolveWork time.Duration
	// SetupWork is the re-setup's computation on a rank, taken as the serial Update's
	// time times the rank's share of the rows (the per-rank set-up this model is for,
	// not today's replicated one).
	SetupWork time.Duration
	// Unknowns is the rank's share of the unknowns; Iterations(n) is CG's iteration
	// count for a problem of n unknowns, fitted to measured counts (IterationFit).
	Unknowns   int
	Iterations func(n float64) float64
	// EigSteps is the CG–Lanczos steps of each level's λ estimate in a re-setup
	// (amg.Options.EstEigKSPMaxIt), SmootherDegree the Chebyshev degree.
	EigSteps, SmootherDegree int
	// CoarseBytes is the coarsest level's right-hand side (the Allgather of every
	// coarse solve) and CoarseMatrixBytes its operator (gathered once per re-setup to
	// be factored redundantly), both for the whole problem; CoarseRatio the
	// measured ratio of block rows between two levels, which says how many levels a
	// problem P times larger adds.
	CoarseBytes, CoarseMatrixBytes int64
	CoarseRatio                    float64
}

// ScalingPoint is the model's prediction for one rank count.
type ScalingPoint struct {
	Ranks      int
	Neighbours int     // halo neighbours of the most connected rank on the fine level
	Iterations float64 // CG iterations of the whole problem
	Levels     int
	// Per recurring step: the re-setup and the solve, with the communication part of
	// each, and the efficiency T(1)/T(P) of the whole step against one rank holding
	// the same load alone (no communication, the iterations of its smaller problem).
	Resetup, ResetupComm, Solve, SolveComm time.Duration
	Efficiency                             float64
	// CommEfficiency is the efficiency with the communication alone: the step at
	// the iterations of the one-rank problem.
	CommEfficiency float64
}

// cubeGrid returns the most even px·py·pz = p (each a power of two's share when p
// is a power of two).
func cubeGrid(p int) [3]int {
	best, bestScore := [3]int{p, 1, 1}, math.Inf(1)
	for x := 1; x <= p; x++ {
		if p%x != 0 {
			continue
		}
		for y := 1; y <= p/x; y++ {
			if (p/x)%y != 0 {
				continue
			}
			z := p / x / y
			// The surface of a unit cube split x·y·z ways, per part.
			score := float64(x+y+z) - 3
			if score < bestScore-1e-12 {
				best, bestScore = [3]int{x, y, z}, score
			}
		}
	}
	return best
}

// neighbours returns the face, edge and corner neighbours of the most connected rank
// of a px·py·pz grid of cubes: in each direction a rank has up to min(p_d − 1, 2)
// sides with a neighbour.
func neighbours(g [3]int) (faces, edges, corners int) {
	var s [3]int
	for d, p := range g {
		s[d] = min(p-1, 2)
	}
	faces = s[0] + s[1] + s[2]
	edges = s[0]*s[1] + s[0]*s[2] + s[1]*s[2]
	corners = s[0] * s[1] * s[2]
	return faces, edges, corners
}

// collective returns the time of an Allgather over p ranks that gathers total bytes
// (recursive doubling: ⌈log₂ p⌉ rounds, every byte but one's own share received).
func (n Network) collective(p int, total int64) time.Duration {
	if p <= 1 {
		return 0
	}
	rounds := math.Ceil(math.Log2(float64(p)))
	sec := rounds*n.Latency.Seconds() + float64(total)*float64(p-1)/float64(p)/n.Bandwidth
	return time.Duration(sec * 1e9)
}

// exchange returns the time of one halo exchange on a rank with the given neighbours
// that receives (and sends as many) faceRows block rows over each face, and over each
// edge and corner the rows a line and a point of the face hold (a face of m² rows has
// lines of m rows), rowBytes bytes each.
func (n Network) exchange(faces, edges, corners int, faceRows, rowBytes float64) time.Duration {
	if faceRows <= 0 || faces == 0 {
		return 0
	}
	m := math.Sqrt(faceRows)
	rows := float64(faces)*faceRows + float64(edges)*m + float64(corners)
	msgs := 2 * (faces + edges + corners)
	sec := n.Latency.Seconds() + float64(msgs)*n.Overhead.Seconds() + rows*rowBytes/n.Bandwidth
	return time.Duration(sec * 1e9)
}

// slabToCubeFace is the ratio of a cube's face to the face of a slab of the same
// volume half as thick (a box split in two): (V)^(2/3) against (2V)^(2/3).
var slabToCubeFace = math.Pow(2, -2.0/3)

// WeakScaling predicts the recurring step at each rank count in ranks, every rank
// owning a cube of the measured per-rank load (cubeGrid decomposes the box), on net.
//
// Per CG iteration: the computation measured, plus per level above the coarsest
// 2·SmootherDegree exchanges of the operator's halo, one of P's and one of Pᵀ's (the
// V-cycle), one more of the fine operator's (CG's product), three Allgathers of one
// value per rank (Dot: two dots and a norm) and the coarse right-hand side's
// Allgather. Halos are the measured one-face halos scaled to a cube's face
// (slabToCubeFace), on every face, edge and corner of the most connected rank.
// A problem P times the measured one's has log(P)/log(CoarseRatio) more levels; each
// costs what the measured coarsest non-trivial level's exchanges cost.
//
// Per re-setup: the computation (SetupWork), plus per level EigSteps exchanges of the
// operator's halo and 2·EigSteps Allgathers (the λ estimate), and three exchanges of
// matrix rows: the ghost rows of A and of P that the smoothing of P and PᵀAP read, and
// the partial rows of Ac that go back to their owners, each ghost row carrying its
// stored blocks; then the coarsest operator's Allgather.
func (m Model) WeakScaling(net Network, ranks []int) []ScalingPoint {
	base := m.SetupWork + time.Duration(m.Iterations(float64(m.Unknowns))*float64(m.SolveWork))
	var out []ScalingPoint
	for _, p := range ranks {
		g := cubeGrid(p)
		nf, ne, nc := neighbours(g)
		pt := ScalingPoint{Ranks: p, Neighbours: nf + ne + nc, Iterations: m.Iterations(float64(m.Unknowns) * float64(p))}
		var cycle, fine, setup time.Duration
		last := len(m.Levels) - 1
		var extra time.Duration // one added level's exchanges
		for l, L := range m.Levels[:last] {
			face := func(blocks int) float64 { return float64(blocks) * slabToCubeFace }
			vec := func(blocks, c int) time.Duration { return net.exchange(nf, ne, nc, face(blocks), float64(8*c)) }
			aEx := vec(L.AHalo, L.Block)
			lv := time.Duration(2*m.SmootherDegree)*aEx + vec(L.PHalo, L.NextBlock) + vec(L.RHalo, L.Block)
			cycle += lv
			if l == 0 {
				fine = aEx
			}
			if L.AHalo > 0 {
				extra = lv
			}
			// Re-setup: the λ estimate, and the ghost rows of A, P and Ac.
			setup += time.Duration(m.EigSteps)*aEx + time.Duration(2*m.EigSteps)*net.collective(p, int64(8*p))
			next := m.Levels[l+1]
			rowBytes := 8 * (L.ANnzRow*float64(L.Block*L.Block) + L.PNnzRow*float64(L.Block*L.NextBlock))
			acBytes := 8 * next.ANnzRow * float64(next.Block*next.Block)
			setup += net.exchange(nf, ne, nc, face(L.AHalo), rowBytes) + net.exchange(nf, ne, nc, face(next.AHalo), acBytes)
		}
		added := 0
		if p > 1 && m.CoarseRatio > 1 {
			added = int(math.Ceil(math.Log(float64(p)) / math.Log(m.CoarseRatio)))
		}
		pt.Levels = len(m.Levels) + added
		cycle += time.Duration(added) * extra
		perIt := cycle + fine + 3*net.collective(p, int64(8*p)) + net.collective(p, m.CoarseBytes)
		setup += net.collective(p, m.CoarseMatrixBytes)
		pt.SolveComm = time.Duration(pt.Iterations * float64(perIt))
		pt.Solve = time.Duration(pt.Iterations*float64(m.SolveWork)) + pt.SolveComm
		pt.ResetupComm = setup
		pt.Resetup = m.SetupWork + setup
		if p == 1 {
			perIt = 0
			pt.SolveComm, pt.ResetupComm = 0, 0
			pt.Solve, pt.Resetup = time.Duration(pt.Iterations*float64(m.SolveWork)), m.SetupWork
		}
		pt.Efficiency = float64(base) / float64(pt.Resetup+pt.Solve)
		its1 := m.Iterations(float64(m.Unknowns))
		pt.CommEfficiency = float64(base) / (float64(base) + float64(pt.ResetupComm) + its1*float64(perIt))
		out = append(out, pt)
	}
	return out
}

// IterationFit returns the least-squares fit it(n) = a + b·log₂ n to measured
// iteration counts its[i] at sizes n[i] (b ≥ 0: a count that fell with the size is
// taken as flat), for Model.Iterations.
func IterationFit(n []float64, its []int) func(float64) float64 {
	var sx, sy, sxx, sxy float64
	k := float64(len(n))
	for i := range n {
		x := math.Log2(n[i])
		sx, sy, sxx, sxy = sx+x, sy+float64(its[i]), sxx+x*x, sxy+x*float64(its[i])
	}
	b := 0.0
	if den := k*sxx - sx*sx; den > 0 {
		b = max((k*sxy-sx*sy)/den, 0)
	}
	a := (sy - b*sx) / k
	return func(v float64) float64 { return a + b*math.Log2(v) }
}
