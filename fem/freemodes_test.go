package fem

import "testing"

// TestFreeRigidModes counts the rigid-body motions that clamps on a 4×4×4 grid of
// nodes leave free against the count by hand: none clamped 6; one node 3 (its
// rotations); two nodes 1 (the rotation about their line); three not on one line 0;
// the face z = 0 clamped in x only 4 (translations y and z, rotations about x and y,
// about axes in that face, which move it only in y and z); in x and y 3 (translation
// z and the two tilts of the face out of its plane); a whole line of nodes 1.
func TestFreeRigidModes(t *testing.T) {
	const n = 4
	var coords []float64
	for k := range n {
		for j := range n {
			for i := range n {
				coords = append(coords, float64(i)+10, float64(j)-3, float64(k)*0.5)
			}
		}
	}
	id := func(i, j, k int) int { return i + n*(j+n*k) }
	for _, c := range []struct {
		what string
		fix  func(f []uint8)
		want int
	}{
		{"nothing", func(f []uint8) {}, 6},
		{"one node", func(f []uint8) { f[id(1, 2, 3)] = 7 }, 3},
		{"two nodes", func(f []uint8) { f[id(0, 0, 0)], f[id(3, 1, 2)] = 7, 7 }, 1},
		{"three nodes", func(f []uint8) { f[id(0, 0, 0)], f[id(3, 0, 0)], f[id(0, 3, 1)] = 7, 7, 7 }, 0},
		{"face in x", func(f []uint8) {
			for j := range n {
				for i := range n {
					f[id(i, j, 0)] = 1
				}
			}
		}, 4},
		{"face in x and y", func(f []uint8) {
			for j := range n {
				for i := range n {
					f[id(i, j, 0)] = 3
				}
			}
		}, 3},
		{"one line", func(f []uint8) {
			for i := range n {
				f[id(i, 1, 2)] = 7
			}
		}, 1},
	} {
		f := make([]uint8, n*n*n)
		c.fix(f)
		got, err := FreeRigidModes(coords, f)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s: %d free rigid-body motions, want %d", c.what, got, c.want)
		}
	}
	if _, err := FreeRigidModes(coords, make([]uint8, 3)); err == nil {
		t.Error("3 masks for 64 nodes: no error")
	}
}
