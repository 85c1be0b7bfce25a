package amg

import (
	"fmt"
	"testing"

	"github.com/blockamg/blockamg/krylov"
)

// BenchmarkEx56 times PETSc's ex56 comparison on one worker: first set-up, re-set-up
// with new values on the same pattern (Update), and the CG solve (rtol 1e-8 on the
// unpreconditioned residual), with the options of the PETSc reference run
// (threshold −0.01, coarse_eq_limit 200, Chebyshev esteig 0,0.2,0,1.05, degree 2).
// It reports the iteration count as "its". Sizes: ne = 39 and 63 (run with
// -bench 'Ex56/ne=39' to pick one).
func BenchmarkEx56(b *testing.B) {
	for _, ne := range []int{39, 63} {
		b.Run(fmt.Sprintf("ne=%d", ne), func(b *testing.B) {
			A, rhs, ns := ex56(b, ne)
			opt := DefaultOptions()
			opt.Threshold = -0.01
			opt.CoarseEqLimit = 200
			opt.ChebyshevEstEig = [4]float64{0, 0.2, 0, 1.05}
			opt.Workers = 1
			b.Run("setup", func(b *testing.B) {
				for b.Loop() {
					if _, err := Setup(A, ns, opt); err != nil {
						b.Fatal(err)
					}
				}
			})
			h, err := Setup(A, ns, opt)
			if err != nil {
				b.Fatal(err)
			}
			b.Run("update", func(b *testing.B) {
				for b.Loop() {
					if err := h.Update(A); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("solve", func(b *testing.B) {
				its := 0
				for b.Loop() {
					x := make([]float64, len(rhs))
					kopt := krylov.DefaultOptions()
					kopt.Workers = 1
					res, err := refCG(h, rhs, x, kopt)
					if err != nil {
						b.Fatal(err)
					}
					its = res.Iterations
				}
				b.ReportMetric(float64(its), "its")
			})
		})
	}
}
