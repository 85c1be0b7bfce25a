package fem_test

import (
	"math"
	"testing"

	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/mesh"
)

// mixedMesh joins a tet10 box and a hex8 box (moved to x ∈ [2, 3]) into one mesh of
// two volume sets with disjoint nodes: what the global element numbering, the
// per-set offsets and the kinds must handle.
func mixedMesh(t *testing.T) *mesh.Mesh {
	a := boxMesh(t, mesh.Tet10, 2, 2, 2, 0.2, 1)
	b := boxMesh(t, mesh.Hex8, 3, 2, 2, 0.2, 2)
	off := int32(a.Nodes())
	m := &mesh.Mesh{Coords: append([]float64(nil), a.Coords...), Groups: a.Groups}
	for p := 0; p < b.Nodes(); p++ {
		m.Coords = append(m.Coords, b.Coords[3*p]+2, b.Coords[3*p+1], b.Coords[3*p+2])
	}
	shift := func(s mesh.Elements) mesh.Elements {
		c := s
		c.Nodes = make([]int32, len(s.Nodes))
		for i, p := range s.Nodes {
			c.Nodes[i] = p + off
		}
		return c
	}
	m.Volumes = []mesh.Elements{a.Volumes[0], shift(b.Volumes[0])}
	m.Surfaces = append(append([]mesh.Elements(nil), a.Surfaces...), shift(b.Surfaces[0]))
	return m
}

// TestLayoutReproducesNumeric runs the numeric phase as the package documentation
// writes it, from Layout's arrays alone (what a device kernel gets), and compares
// with Numeric bit for bit, on a mesh of two kinds with a mixed Dirichlet mask.
func TestLayoutReproducesNumeric(t *testing.T) {
	m := mixedMesh(t)
	fixed := mixedMask(t, m)
	el := mustElasticity(t, m, fem.ElasticityOptions{Fixed: fixed})
	E, nu := materials(t, el)
	want := mustNumeric(t, el, E, nu, 3)
	L := el.Layout()
	if L.Nodes != m.Nodes() || L.Elements != el.Elements() || len(L.Kinds) != 2 {
		t.Fatalf("layout: %d nodes, %d elements, %d kinds", L.Nodes, L.Elements, len(L.Kinds))
	}
	val := make([]float64, len(want))
	var saved [][9]float64
	for a := 0; a < L.Nodes; a++ {
		row := val[9*L.RowPtr[a] : 9*L.RowPtr[a+1]]
		for i := range row {
			row[i] = 0
		}
		for k := L.IncPtr[a]; k < L.IncPtr[a+1]; k++ {
			e, la := L.IncElem[k], int(L.IncLocal[k])
			kind := L.Kinds[L.ElemKind[e]]
			n := kind.Nodes
			tt := 1 + nu[e]
			mu := E[e] / float64(2*tt)
			lam := float64(E[e]*nu[e]) / float64(tt*(1-float64(2*nu[e])))
			rho := lam / mu
			M := make([][9]float64, n)
			s := make([][3]float64, n)
			for q := 0; q < kind.Points; q++ {
				R := L.QData[10*(L.QPtr[e]+int64(q)):]
				h := math.Sqrt(float64(R[9] * mu))
				for b := 0; b < n; b++ {
					G := kind.Grad[(q*n+b)*3:]
					for d := 0; d < 3; d++ {
						s[b][d] = float64(h * (float64(float64(G[0]*R[d])+float64(G[1]*R[3+d])) + float64(G[2]*R[6+d])))
					}
				}
				for b := 0; b < n; b++ {
					for i := 0; i < 3; i++ {
						for j := 0; j < 3; j++ {
							p := float64(s[la][i] * s[b][j])
							if q == 0 {
								M[b][3*i+j] = p
							} else {
								M[b][3*i+j] = M[b][3*i+j] + p
							}
						}
					}
				}
			}
			kr := make([][9]float64, n)
			for b := 0; b < n; b++ {
				tr := float64(M[b][0]+M[b][4]) + M[b][8]
				for i := 0; i < 3; i++ {
					for j := 0; j < 3; j++ {
						v := M[b][3*j+i]
						if i == j {
							v = float64(v + tr)
						}
						kr[b][3*i+j] = v + float64(rho*M[b][3*i+j])
					}
				}
			}
			for b := 0; b < n; b++ {
				blk := 9 * (L.RowPtr[a] + int64(L.Slot[L.SlotPtr[k]+int64(b)]))
				for r := 0; r < 9; r++ {
					val[blk+int64(r)] += kr[b][r]
				}
			}
		}
		for s := L.ElimPtr[a]; s < L.ElimPtr[a+1]; s++ {
			saved = append(saved, [9]float64(val[9*L.ElimSlot[s]:]))
		}
		for k := L.RowPtr[a]; k < L.RowPtr[a+1]; k++ {
			c := int(L.ColIdx[k])
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					if (L.Fixed[a]>>i&1 != 0 || L.Fixed[c]>>j&1 != 0) && !(c == a && i == j) {
						val[9*k+int64(3*i+j)] = 0
					}
				}
			}
		}
	}
	for i := range want {
		if math.Float64bits(val[i]) != math.Float64bits(want[i]) {
			t.Fatalf("value %d: from the layout %v, Numeric %v", i, val[i], want[i])
		}
	}
	if len(saved) == 0 || int64(len(saved)) != L.ElimPtr[L.Nodes] {
		t.Fatalf("%d saved blocks, ElimPtr ends at %d", len(saved), L.ElimPtr[L.Nodes])
	}
	for a := 0; a < L.Nodes; a++ {
		if d := L.DiagSlot[a]; L.ColIdx[d] != int32(a) || d < L.RowPtr[a] || d >= L.RowPtr[a+1] {
			t.Fatalf("DiagSlot[%d] = %d is not the diagonal block", a, d)
		}
	}
}
