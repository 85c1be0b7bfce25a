// Package fem generates 3D linear elasticity problems: PETSc's ex56 on the unit cube,
// assembled straight into 3×3-block BSR in two phases, and the rigid-body modes that
// smoothed aggregation takes as its near-null space.
//
// # The problem (ex56)
//
// A Box is the unit cube cut into ne×ne×ne Q1 hexahedra of side h = 1/ne, the problem of
// PETSc's tutorial src/ksp/ksp/tutorials/ex56.c run serially:
//
//   - Material: Young's modulus E = 1 and Poisson ratio ν = 0.25, with modulus E·α in the
//     elements whose centre lies within 0.25 of the cube's centre (α = 1e-3 by default,
//     ex56's -alpha). ElementModulus lists the per-element moduli.
//   - Element: ex56 hard-codes its element matrix as a table; ReferenceStiffness
//     computes it: the unit-cube Q1 element with selective reduced integration (deviatoric
//     part by 2×2×2 Gauss points, volumetric part by one centre point), which matches the
//     table to 1e-16. Every element, whatever its size, gets modulus × that unit-cube
//     matrix, as in ex56 (the true stiffness of an h-cube is h times it).
//   - Boundary condition: the nodes of the face z = 0 are clamped the way ex56 does it,
//     inside the element matrices of the bottom layer: a clamped node keeps only 0.1
//     times each element's own diagonal entries, its other couplings (row and column)
//     are dropped. The pattern keeps those blocks as explicit zeros, as PETSc's does.
//   - Load: each element adds (h², 2h², 0) to each of its unclamped nodes (RHS).
//
// The matrix, right-hand side and coordinates equal the files ex56 wrote for ne = 9
// and 11 to round-off (tests against ../shared/data/petsc_ex56).
//
// # Numbering
//
// Node (i, j, k) at (h·i, h·j, h·k) has index i + nn·j + nn²·k with nn = ne+1; element
// (i, j, k), whose lowest corner is node (i, j, k), has index i + ne·j + ne²·k. Unknowns
// are interleaved by node: node n owns rows 3n, 3n+1, 3n+2 (x, y, z displacement), and
// block row n of the BSR matrix. Inside an element the eight nodes are numbered as ex56
// does: (0,0,0), (1,0,0), (1,1,0), (0,1,0), then the same four at z+1. ex56 itself hands
// PETSc its coordinates in another order (k fastest, x and z swapped against the matrix);
// Coords returns the correct ones.
//
// # Two-phase assembly
//
// Assembly recurs in every Newton or time step while the mesh stays, so it is split:
//
//   - Box.Symbolic (once) builds the BSR pattern, the 27-point stencil of every node with
//     sorted columns, allocates the values, and tabulates what the numeric phase needs.
//   - Assembly.Numeric (every step) takes one Young's modulus per element (nil: the
//     ex56 sphere) and rewrites the values in place, allocating nothing.
//
// Element→slot map. The slot of the block coupling nodes a and b is arithmetic on a
// structured grid: RowPtr[a] plus the rank of b's offset among a's in-range stencil
// offsets, in (z, y, x) order. Assembly.ElementSlots returns an element's 8×8 slots
// (−1 where the clamp drops a coupling) computed this way, so no map is stored: at
// ne = 160 a stored int64 map would take 4.1M elements × 64 slots × 8 B = 2.1 GB next to
// 8 GB of values; this one takes nothing.
//
// Numeric phase. Every element matrix is its modulus times the one reference matrix
// (precomputed once as 8×8 blocks of 3×3), so no element integration happens per step;
// what remains is 576 multiply-adds per block row and writing the values. Work is split
// by block rows, not by elements: a worker owns a contiguous range of nodes and, for each
// node, gathers the block row of each of the (up to) eight elements around it, in
// ascending element order, into a 27-block buffer, then writes the buffer to the row's
// slots. Every value is thus written by one goroutine and summed in an order fixed by the
// mesh alone, so the matrix is bitwise identical for any worker count, needs no atomics
// or colouring, and equals the textbook element-by-element scatter bit for bit (the
// scatter adds each slot's contributions in the same ascending element order). The
// clamp is folded into the gather (a clamped row takes only the scaled diagonals; a row
// next to the clamp skips the clamped nodes), so the numeric phase has no searches and
// no branches per entry. The reference matrix is exactly symmetric, hence so is A.
//
// Memory. Besides the matrix (pattern and values) an Assembly keeps one float64 per
// element (the default moduli); Numeric needs a 2 KB buffer per worker. At ne = 160
// (12.5M unknowns, 8.49 GB of matrix) the peak resident size of Symbolic + Numeric is
// 8.34 GB. On Linux, Symbolic advises transparent huge pages for large value arrays:
// the first write of the values then faults 2 MiB at a time instead of 4 KiB, which cut
// the first Numeric at ne = 160 from 95 s to 26 s on a 2-core VM and later ones from
// 12.8 s to 0.7 s (fewer TLB misses). Symbolic first compares MatrixBytes, the exact
// size of the matrix, with the machine's memory (physical, or the container's cgroup
// limit when lower) and returns an error wrapping ErrTooLarge instead of starting an
// assembly that could only end in the runtime's fatal out-of-memory.
//
// # Rigid-body modes
//
// RigidBodyModes builds the near-null space from node coordinates (dim 3: three
// translations and three rotations in PETSc's order; dim 2: two translations and one
// rotation), raw or orthonormalized by modified Gram–Schmidt applied twice. It returns
// the dense (nodes·dim)×k row-major array AMG consumes and, aliasing it, a BSR block
// column of nodes dim×k blocks. A·B vanishes to round-off on every row the boundary
// condition leaves intact.
package fem
