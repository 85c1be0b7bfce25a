package fem

import "math"

// Rule is a quadrature rule on a reference cell: ∫ f ≈ Σ_q Weights[q]·f(Points[q]).
// Surface rules leave the third coordinate of their points zero.
type Rule struct {
	Points  [][3]float64 // reference coordinates of the points
	Weights []float64    // one per point
}

// Len is the number of points.
func (r Rule) Len() int { return len(r.Weights) }

// gaussLegendre returns the n-point Gauss–Legendre rule on [−1, 1] (n = 1, 2 or 3),
// exact for polynomials of degree 2n−1; its points are exact negatives of each other.
func gaussLegendre(n int) (x, w []float64) {
	switch n {
	case 1:
		return []float64{0}, []float64{2}
	case 2:
		g := 1 / math.Sqrt(3)
		return []float64{-g, g}, []float64{1, 1}
	case 3:
		g := math.Sqrt(0.6)
		return []float64{-g, 0, g}, []float64{5.0 / 9, 8.0 / 9, 5.0 / 9}
	}
	panic("fem: gaussLegendre: n outside 1…3")
}

// gaussUnit is gaussLegendre mapped onto [0, 1].
func gaussUnit(n int) (x, w []float64) {
	x, w = gaussLegendre(n)
	for i := range x {
		x[i], w[i] = (1+x[i])/2, w[i]/2
	}
	return x, w
}

// gaussCube is the n×n×n tensor Gauss rule on [−1, 1]³ (x fastest), exact for
// polynomials of degree 2n−1 in each variable.
func gaussCube(n int) Rule {
	x, w := gaussLegendre(n)
	var r Rule
	for k := range x {
		for j := range x {
			for i := range x {
				r.Points = append(r.Points, [3]float64{x[i], x[j], x[k]})
				r.Weights = append(r.Weights, w[i]*w[j]*w[k])
			}
		}
	}
	return r
}

// gaussSquare is the n×n tensor Gauss rule on [−1, 1]² (x fastest).
func gaussSquare(n int) Rule {
	x, w := gaussLegendre(n)
	var r Rule
	for j := range x {
		for i := range x {
			r.Points = append(r.Points, [3]float64{x[i], x[j], 0})
			r.Weights = append(r.Weights, w[i]*w[j])
		}
	}
	return r
}

// tetCentroid is the one-point rule on the reference tetrahedron
// {ξ, η, ζ ≥ 0, ξ+η+ζ ≤ 1} (volume 1/6), exact for degree 1.
func tetCentroid() Rule {
	return Rule{Points: [][3]float64{{0.25, 0.25, 0.25}}, Weights: []float64{1.0 / 6}}
}

// tetDegree2 is the symmetric four-point rule on the reference tetrahedron, exact for
// degree 2: each point has barycentric coordinates (b, a, a, a) in some order, with
// a = (5−√5)/20 and b = 1−3a = (5+3√5)/20, and weight 1/24.
func tetDegree2() Rule {
	a := (5 - math.Sqrt(5)) / 20
	b := 1 - 3*a
	w := 1.0 / 24
	return Rule{
		// Barycentric (L0, L1, L2, L3) with ξ = L1, η = L2, ζ = L3: the point near
		// corner 0 first, then those near corners 1, 2, 3.
		Points:  [][3]float64{{a, a, a}, {b, a, a}, {a, b, a}, {a, a, b}},
		Weights: []float64{w, w, w, w},
	}
}

// tetCollapsed is the conical-product rule on the reference tetrahedron: the n³ Gauss
// points of the unit cube (u, v, w) mapped by ξ = u, η = (1−u)v, ζ = (1−u)(1−v)w, the
// weights multiplied by that map's Jacobian (1−u)²(1−v). A monomial of degree p
// becomes a polynomial of degree p+2 in u, p+1 in v and p in w, so n points per
// direction integrate degree 2n−3 exactly (n = 3: degree 3, 27 points).
func tetCollapsed(n int) Rule {
	x, w := gaussUnit(n)
	var r Rule
	for i := range x {
		for j := range x {
			for k := range x {
				u, v, t := x[i], x[j], x[k]
				r.Points = append(r.Points, [3]float64{u, (1 - u) * v, (1 - u) * (1 - v) * t})
				r.Weights = append(r.Weights, w[i]*w[j]*w[k]*(1-u)*(1-u)*(1-v))
			}
		}
	}
	return r
}

// triDegree2 is the three-point rule on the reference triangle {ξ, η ≥ 0, ξ+η ≤ 1}
// (area 1/2) with points at barycentric (2/3, 1/6, 1/6) and its permutations, each of
// weight 1/6: exact for degree 2.
func triDegree2() Rule {
	return Rule{
		Points:  [][3]float64{{1.0 / 6, 1.0 / 6, 0}, {2.0 / 3, 1.0 / 6, 0}, {1.0 / 6, 2.0 / 3, 0}},
		Weights: []float64{1.0 / 6, 1.0 / 6, 1.0 / 6},
	}
}

// triCollapsed is the conical-product rule on the reference triangle: the n² Gauss
// points of the unit square mapped by ξ = u, η = (1−u)v with Jacobian (1−u); degree
// 2n−2 is integrated exactly (n = 3: degree 4, 9 points).
func triCollapsed(n int) Rule {
	x, w := gaussUnit(n)
	var r Rule
	for i := range x {
		for j := range x {
			u, v := x[i], x[j]
			r.Points = append(r.Points, [3]float64{u, (1 - u) * v, 0})
			r.Weights = append(r.Weights, w[i]*w[j]*(1-u))
		}
	}
	return r
}
