package fem

import (
	"math"
	"testing"
)

// TestRigidBodyModesFarFromOrigin: shifting the mesh does not change the span of the
// rigid-body modes, so the orthonormalized modes of a mesh moved far from the origin
// must equal those of the mesh in place (they are built about the centroid), and must
// not be rejected as degenerate (rotations about the origin are then nearly
// translations).
func TestRigidBodyModesFarFromOrigin(t *testing.T) {
	b := mustBox(t, Ex56(4))
	x := b.Coords()
	ref, _, err := RigidBodyModes(x, 3, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []float64{1e6, 1e12} {
		y := make([]float64, len(x))
		for i, v := range x {
			y[i] = v + off*float64(1+i%3) // a different shift per axis
		}
		got, _, err := RigidBodyModes(y, 3, true)
		if err != nil {
			t.Errorf("offset %g: %v", off, err)
			continue
		}
		// The ex56 coordinates are multiples of 1/4, so the shifted ones are exact and
		// only the Gram–Schmidt rounding separates the two.
		const tol = 1e-13
		d := 0.0
		for i := range got {
			d = math.Max(d, math.Abs(got[i]-ref[i]))
		}
		t.Logf("offset %g: max difference %.3g", off, d)
		if d > tol {
			t.Errorf("offset %g: modes differ from the unshifted ones by %.3g", off, d)
		}
	}
}
