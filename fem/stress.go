package fem

import (
	"fmt"
	"math"

	"github.com/blockamg/blockamg/internal/par"
)

// VonMises returns the von Mises stress of displacement u (3 per node) in each
// element: σ = λ·tr(ε)·I + 2μ·ε with ε = sym ∇u at each stiffness quadrature point,
// σ_vm = √(½[(σxx−σyy)² + (σyy−σzz)² + (σzz−σxx)²] + 3(σxy² + σyz² + σzx²)), averaged
// over the points with their weights w·detJ (the element's mean). Bad material data
// is an error wrapping ErrMaterial.
func (el *Elasticity) VonMises(u []float64, E, nu []float64) ([]float64, error) {
	if len(u) != 3*el.nodes {
		panic(fmt.Sprintf("fem: VonMises: len(u) = %d, want %d", len(u), 3*el.nodes))
	}
	if err := el.CheckMaterial(E, nu); err != nil {
		return nil, err
	}
	out := make([]float64, el.Elements())
	par.For(len(out), el.workers, 1024, func(lo, hi int) {
		var g [maxNodes][3]float64
		for e := lo; e < hi; e++ {
			s := &el.sets[el.elemSet[e]]
			nodes := el.elemNodes(e)
			mu, lambda := lame(E[e], nu[e])
			sum, vol := 0.0, 0.0
			for q := 0; q < s.nq; q++ {
				rec := el.qdata[(el.qptr[e]+int64(q))*qRecord:][:qRecord]
				var H [3][3]float64 // H[i][d] = ∂u_i/∂x_d
				for b, p := range nodes {
					dn := s.grad[(q*s.n+b)*3:]
					for d := 0; d < 3; d++ {
						g[b][d] = dn[0]*rec[d] + dn[1]*rec[3+d] + dn[2]*rec[6+d]
					}
					for i := 0; i < 3; i++ {
						ui := u[3*int(p)+i]
						for d := 0; d < 3; d++ {
							H[i][d] += ui * g[b][d]
						}
					}
				}
				tr := H[0][0] + H[1][1] + H[2][2]
				var sg [3][3]float64
				for i := 0; i < 3; i++ {
					for j := 0; j < 3; j++ {
						sg[i][j] = mu * (H[i][j] + H[j][i])
					}
					sg[i][i] += lambda * tr
				}
				dxy, dyz, dzx := sg[0][0]-sg[1][1], sg[1][1]-sg[2][2], sg[2][2]-sg[0][0]
				vm := math.Sqrt(0.5*(dxy*dxy+dyz*dyz+dzx*dzx) + 3*(sg[0][1]*sg[0][1]+sg[1][2]*sg[1][2]+sg[2][0]*sg[2][0]))
				sum += rec[9] * vm
				vol += rec[9]
			}
			out[e] = sum / vol
		}
	})
	return out, nil
}
