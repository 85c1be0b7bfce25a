package cycle

import "github.com/blockamg/blockamg/backend"

// The damped block-Jacobi smoother: Degree steps of x += ω·D⁻¹(b − A·x) with
// ω = 4/(3·λmax(D⁻¹A)), the weight that damps the upper two thirds of the spectrum
// (PyAMG's default). It is symmetric in the A inner product, so the V-cycle stays a
// valid CG preconditioner.

func init() { RegisterSmoother("jacobi", newJacobi) }

func newJacobi(be backend.Backend, lv *Level) (Smoother, error) {
	if err := checkInterval(lv); err != nil {
		return nil, err
	}
	omega := func() float64 { return 4 / (3 * lv.EigMax) }
	return &polynomial{
		be: be, lv: lv,
		first: omega,
		init:  func() float64 { return 0 },
		coef:  func(int, *float64) (float64, float64) { return 0, omega() },
	}, nil
}
