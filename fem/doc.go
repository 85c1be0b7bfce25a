// Package fem generates 3D linear elasticity problems: PETSc's ex56 on the unit cube,
// assembled straight into 3×3-block BSR in two phases, and the rigid-body modes that
// smoothed aggregation takes as its near-null space.
package fem
