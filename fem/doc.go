// Package fem generates 3D linear elasticity problems: PETSc's ex56 on the unit cube,
// and isotropic elasticity on unstructured meshes (package mesh: tet4, tet10, hex8),
// both assembled straight into 3×3-block BSR in two phases, and the rigid-body modes
// that smoothed aggregation takes as its near-null space.
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
// # Unstructured assembly
//
// Elasticity assembles −div σ(u) = f with σ = λ·tr(ε)·I + 2μ·ε on a mesh.Mesh, one
// Young's modulus and Poisson ratio per element (Materials maps them from volume
// groups). Elements come from a registry keyed by mesh.Type (ReferenceElement: shape
// functions in Gmsh's node order, gradients, a stiffness and a load rule; one file
// per type). Volume elements are numbered across the mesh's volume sets in order;
// node n owns unknowns 3n … 3n+2 and block row n. mesh.RCM and Mesh.Renumber give a
// narrow band, once, before NewElasticity.
//
//   - NewElasticity (once) checks the elements, computes per element and stiffness
//     quadrature point J⁻¹ and w·detJ (rejecting detJ ≤ DetTol·L³ with an error
//     naming the element's tag), the node→(element, local node) incidence in
//     ascending element order, the BSR pattern (the nodes sharing a volume element,
//     sorted, the diagonal included), the element→slot map, and from the Dirichlet
//     mask the blocks whose couplings the elimination removes.
//   - Numeric (every step) rewrites the values for new materials, allocating nothing.
//   - RHS (every step) integrates body forces and tractions and applies the
//     elimination's correction for the prescribed values of the step.
//
// Data layout. Layout returns the flat arrays a device kernel reproduces Numeric
// from (ElasticityLayout documents each): QPtr/QData (ten float64 per quadrature
// point: J⁻¹ row-major, J⁻¹[k][d] = ∂ξ_k/∂x_d, then w·detJ), the reference gradients
// per kind (Grad[(q·n+b)·3+k]), ElemKind, IncPtr/IncElem/IncLocal (CSR over nodes,
// int64 pointers), SlotPtr/Slot (per incidence, one int32 per element node: the
// block's position relative to RowPtr[row], so the storage index RowPtr[row]+Slot
// and the value offset 9·(RowPtr[row]+Slot) are formed in int64), Fixed, DiagSlot,
// ElimPtr/ElimSlot. The stored map costs 4 bytes per element node pair plus 8 per
// incidence for SlotPtr. Measured on 12³-cell cubes against the matrix's bytes:
// slots 0.45 (tet4), 0.16 (tet10), 0.14 (hex8); quadrature data 0.41, 0.11, 0.29;
// incidence 0.10, 0.02, 0.02 — the linear tetrahedron, with 13 blocks per row,
// has the smallest matrix per element.
//
// Numeric phase. Block row a is computed by one worker (rows split into chunks by
// par.ForWeighted over each row's work, fixed by the mesh and the worker count), so
// the matrix is bitwise the same for any worker count, with no atomics or
// colouring. Every product below is rounded to float64 before it is used (Go:
// float64(x*y), which forbids fused multiply-add on every GOARCH; CUDA: __dmul_rn
// and __dadd_rn, IEEE division), sums are evaluated left to right, x += y is
// x = x + (y); saved is what RHS reads (a device that assembles must copy those
// blocks too for it):
//
//	for each block row a (one worker):
//	    the row's 9·(RowPtr[a+1]−RowPtr[a]) values = +0
//	    for k = IncPtr[a] … IncPtr[a+1]−1:            // ascending elements
//	        e, la = IncElem[k], IncLocal[k]; n, P = nodes, points of e's kind
//	        t = 1 + ν[e]; μ = E[e] / (2·t); λ = (E[e]·ν[e]) / (t·(1 − 2·ν[e])); ρ = λ / μ
//	        for q = 0 … P−1:
//	            R = QData[10·(QPtr[e]+q):]; h = √(R[9]·μ)    // IEEE square root
//	            s[b][d] = h·((Ĝ[q][b][0]·R[d] + Ĝ[q][b][1]·R[3+d]) + Ĝ[q][b][2]·R[6+d])
//	                for every b < n, d < 3             // Ĝ: the kind's Grad
//	            for b = 0 … n−1, i = 0 … 2, j = 0 … 2:
//	                M[b][i][j] = s[la][i]·s[b][j]      if q = 0
//	                M[b][i][j] += s[la][i]·s[b][j]     otherwise
//	        for b = 0 … n−1:
//	            τ = (M[b][0][0] + M[b][1][1]) + M[b][2][2]
//	            for i = 0 … 2, j = 0 … 2:
//	                v = (M[b][j][i] + τ) + ρ·M[b][i][j]   if i = j
//	                v = M[b][j][i] + ρ·M[b][i][j]         otherwise
//	                block(RowPtr[a] + Slot[SlotPtr[k]+b])[3i+j] += v
//	    if a Dirichlet mask is set:
//	        for s = ElimPtr[a] … ElimPtr[a+1]−1: saved[s] = block(ElimSlot[s])
//	        in each block (a, c) of the row, entry (i, j) = +0 where bit i of
//	            Fixed[a] or bit j of Fixed[c] is set, unless c = a and i = j
//
// This is K_ab = Σ_e μ(tr(M)I + Mᵀ) + λM with M = Σ_q w·detJ·g_a g_bᵀ, g = J⁻ᵀ∇N̂: the
// textbook BᵀDB (tested against it). The gradients scaled by √(w·detJ·μ) carry the
// weight and μ (the code's M is μ times this one), so a point costs nine products and
// nine sums a block and λ enters once, as ρ. Element block (b, a)'s M is (a, b)'s
// transposed product for product, so both sides of the diagonal add the same rounded
// terms in
// the same order, so A is exactly symmetric; the elimination zeroes entries in
// symmetric pairs and keeps the diagonal as assembled (the scaling stays that of the
// operator), so a sufficiently fixed A is symmetric positive definite, and the
// pattern, explicit zeros included, never changes. The operator on a renumbered mesh
// is the same bits, permuted (elements keep their order).
//
// Right-hand side. Body forces: element vectors ∫ N_a f dV by the element's load rule
// in parallel, then each node sums its elements' in ascending element order.
// Tractions: ∫ N_a t dS over Tri3, Tri6 and Quad4 faces, face by face in mesh order.
// Then, for a free component i of node a, b −= A_(a,i),(c,j)·g_(c,j) over the saved
// blocks in order and the fixed components j of c in order, with the couplings as
// assembled; a fixed component gets A_ii·g_i. Every step gives the same bits for any
// worker count.
//
// Near-null space. NearNullSpace gives the six rigid-body modes and keeps their rows
// of fixed components: on clamped and roller-supported tet beams zeroing them saved
// no CG iteration (see NearNullSpace for the numbers).
//
// Stress. VonMises evaluates σ at the stiffness points and averages the von Mises
// stress over each element with the weights w·detJ.
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
