package fem

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// ex56Source is where Debian's petsc-dev puts the tutorial; its element table is an
// independent reference for ReferenceStiffness.
const ex56Source = "/usr/share/petsc/3.18/share/petsc/examples/src/ksp/ksp/tutorials/ex56.c"

// ex56Table parses the 576 numbers of elem_3d_elast_v_25 from ex56.c.
func ex56Table(t *testing.T) []float64 {
	src, err := os.ReadFile(ex56Source)
	if err != nil {
		t.Skipf("ex56.c absent (%v): petsc-dev not installed", err)
	}
	s := string(src)
	i := strings.Index(s, "PetscScalar DD[] = {")
	if i < 0 {
		t.Fatalf("%s: element table not found", ex56Source)
	}
	body := s[i+len("PetscScalar DD[] = {"):]
	body = body[:strings.Index(body, "};")]
	var v []float64
	for _, tok := range regexp.MustCompile(`[-+0-9.Ee]+`).FindAllString(body, -1) {
		x, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", ex56Source, tok, err)
		}
		v = append(v, x)
	}
	if len(v) != 576 {
		t.Fatalf("%s: %d table entries, want 576", ex56Source, len(v))
	}
	return v
}

func TestReferenceStiffnessMatchesEx56Table(t *testing.T) {
	want := ex56Table(t)
	got, err := ReferenceStiffness(0.25)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := range want {
		worst = math.Max(worst, math.Abs(got[i]-want[i]))
	}
	// The table is printed with 17 digits but carries round-off of its own (its
	// symmetric entries differ by up to ~1e-16).
	if worst > 1e-15 {
		t.Errorf("largest difference from ex56's table %.3g, want ≤ 1e-15", worst)
	}
}

// TestReferenceStiffnessClosedForm checks entries against hand-integrated values of the
// selectively reduced element for a second Poisson ratio: with μ = 1/(2(1+ν)) and
// κ = 1/(3(1−2ν)),
//
//	K[0][0] (node 0, x–x)         = 10μ/27 + κ/16
//	K[0][1] (node 0, x–y)         = μ/12 − (2μ/3)/12 + κ/16 = μ/36 + κ/16
//	K[0][3] (nodes 0 and 1, x–x)  = −(4μ/3)/9 + 2μ/18 − κ/16 = −μ/27 − κ/16
func TestReferenceStiffnessClosedForm(t *testing.T) {
	for _, nu := range []float64{0.25, 0.3, 0.45} {
		k, err := ReferenceStiffness(nu)
		if err != nil {
			t.Fatal(err)
		}
		mu, kappa := 1/(2*(1+nu)), 1/(3*(1-2*nu))
		for _, c := range []struct {
			i, j int
			want float64
		}{
			{0, 0, 10*mu/27 + kappa/16},
			{0, 1, mu/36 + kappa/16},
			{0, 3, -mu/27 - kappa/16},
		} {
			if got := k[c.i*24+c.j]; math.Abs(got-c.want) > 1e-15 {
				t.Errorf("ν=%v: K[%d][%d] = %.17g, want %.17g", nu, c.i, c.j, got, c.want)
			}
		}
	}
}

func TestReferenceStiffnessRigidModes(t *testing.T) {
	for _, nu := range []float64{0.25, 0.3, 0.49} {
		k, err := ReferenceStiffness(nu)
		if err != nil {
			t.Fatal(err)
		}
		var scale float64
		for i := 0; i < 24; i++ {
			scale = math.Max(scale, math.Abs(k[i*24+i]))
			for j := 0; j < 24; j++ {
				if k[i*24+j] != k[j*24+i] {
					t.Fatalf("ν=%v: K[%d][%d] = %v ≠ K[%d][%d] = %v", nu, i, j, k[i*24+j], j, i, k[j*24+i])
				}
			}
		}
		var coords []float64
		for _, o := range localNode {
			coords = append(coords, float64(o[0]), float64(o[1]), float64(o[2]))
		}
		B, _, err := RigidBodyModes(coords, 3, false)
		if err != nil {
			t.Fatal(err)
		}
		for m := 0; m < 6; m++ {
			for i := 0; i < 24; i++ {
				s := 0.0
				for j := 0; j < 24; j++ {
					s += k[i*24+j] * B[j*6+m]
				}
				if math.Abs(s) > 1e-15*scale {
					t.Errorf("ν=%v: (K·mode %d)[%d] = %.3g", nu, m, i, s)
				}
			}
		}
		// Positive on deformations: a uniform stretch along x stores energy.
		var u [24]float64
		for a, o := range localNode {
			u[3*a] = float64(o[0])
		}
		if e := quad(k, u[:]); !(e > 0) {
			t.Errorf("ν=%v: energy of a stretch %v, want > 0", nu, e)
		}
	}
	if _, err := ReferenceStiffness(0.5); err == nil {
		t.Error("ν = 0.5 accepted")
	}
}

func quad(k, u []float64) float64 {
	n := len(u)
	s := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s += u[i] * k[i*n+j] * u[j]
		}
	}
	return s
}
