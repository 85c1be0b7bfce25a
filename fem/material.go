package fem

import (
	"fmt"
	"math"
)

// Material is an isotropic linear elastic material assigned to a volume group.
type Material struct {
	Group string  // the volume group's name, or its tag in decimal; "" for every element no other entry names
	E     float64 // Young's modulus
	Nu    float64 // Poisson ratio
}

// Check returns nil when m's values are valid (E positive and finite, Nu in
// (−1, 0.5)), otherwise an error wrapping ErrMaterial that names the bad value.
func (m Material) Check() error {
	if !(m.E > 0) || math.IsInf(m.E, 0) {
		return fmt.Errorf("%w: Young's modulus %v is not positive and finite", ErrMaterial, m.E)
	}
	if !(m.Nu > -1 && m.Nu < 0.5) {
		return fmt.Errorf("%w: Poisson ratio %v outside (−1, 0.5)", ErrMaterial, m.Nu)
	}
	return nil
}

// Materials returns the per-element arrays Numeric takes: element e gets the entry
// whose group is e's, or else the entry with Group "". A group the mesh does not
// have, two entries for one group, an element left without a material, or values
// Check refuses are errors wrapping ErrMaterial.
func (el *Elasticity) Materials(mats ...Material) (E, nu []float64, err error) {
	byTag := map[int32]int{}
	def := -1
	for i, mt := range mats {
		if err := mt.Check(); err != nil {
			if mt.Group == "" {
				return nil, nil, fmt.Errorf("the default material: %w", err)
			}
			return nil, nil, fmt.Errorf("material of volume group %q: %w", mt.Group, err)
		}
		if mt.Group == "" {
			if def >= 0 {
				return nil, nil, fmt.Errorf("%w: two default materials", ErrMaterial)
			}
			def = i
			continue
		}
		g, ok := el.m.GroupByName(3, mt.Group)
		if !ok {
			return nil, nil, fmt.Errorf("%w: no volume group %q", ErrMaterial, mt.Group)
		}
		if _, dup := byTag[g.Tag]; dup {
			return nil, nil, fmt.Errorf("%w: two materials for volume group %q", ErrMaterial, mt.Group)
		}
		byTag[g.Tag] = i
	}
	ne := el.Elements()
	E, nu = make([]float64, ne), make([]float64, ne)
	for e := 0; e < ne; e++ {
		i, ok := byTag[el.ElementGroup(e)]
		if !ok {
			if def < 0 {
				return nil, nil, fmt.Errorf("%w: %s of volume group %d has no material", ErrMaterial, el.describe(e), el.ElementGroup(e))
			}
			i = def
		}
		E[e], nu[e] = mats[i].E, mats[i].Nu
	}
	if err := el.CheckMaterial(E, nu); err != nil {
		return nil, nil, err
	}
	return E, nu, nil
}
