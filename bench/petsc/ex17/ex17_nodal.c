/*
 * ex17_nodal.c: PETSc's own elasticity tutorial (src/snes/tutorials/ex17.c), compiled from the
 * example tree that petsc-dev installs, with one addition: -nodal_out FILE writes the solution at
 * every finite-element node together with the node's coordinates, so that an independent assembler
 * can be compared node by node, matched by position rather than by numbering.
 *
 * -quadrature_out FILE writes the cell quadrature rule ex17's element uses (points on PETSc's
 * reference cell, [-1,1]^3 or the simplex x,y,z >= -1, x+y+z <= -1, and weights), so that another
 * assembler can integrate the body force with the same points and agree to rounding.
 *
 * -cells_out FILE writes each cell's vertices in the order of its closure, the order in which
 * PETSc maps the reference cell's vertices (checked here for tetrahedra against PETSc's own affine
 * map): with an unsymmetric rule (the conical product rule on simplices), matching quadrature
 * points also needs this orientation.
 *
 * ex17.c is not copied: the Makefile passes its path as EX17_C and it is #included unchanged. Its
 * only VecViewFromOptions call (the -displacement_view after SNESSolve) is routed through
 * NodalViewFromOptions, which does what the original call did and then the dump. The PETSc
 * headers are included first so that the macro cannot touch their declarations.
 */
#include <petscdmplex.h>
#include <petscsnes.h>
#include <petscds.h>
#include <petscbag.h>
#include <petscconvest.h>

static PetscErrorCode NodalViewFromOptions(Vec u, PetscObject obj, const char name[]);
#define VecViewFromOptions(u, obj, name) NodalViewFromOptions(u, obj, name)
#include EX17_C
#undef VecViewFromOptions

/* Position of the node carried by point p: the coordinate field's own value there when the
 * coordinates have a node on p (a vertex, or an edge of high-order Gmsh geometry), otherwise the
 * mean of the vertices in p's closure, which is where a Lagrange node on p lies when the geometry is
 * affine (simplices) or multilinear (hexahedra: edge, face and cell centres). */
static PetscErrorCode NodePosition(DM dm, PetscSection cs, const PetscScalar *ca, PetscInt cdim, PetscInt vStart, PetscInt vEnd, PetscInt p, PetscReal x[], PetscBool *fromCoords)
{
  PetscInt cdof, off, n, *cl = NULL, nv = 0;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < cdim; ++d) x[d] = 0.0;
  PetscCall(PetscSectionGetDof(cs, p, &cdof));
  if (cdof == cdim) {
    PetscCall(PetscSectionGetOffset(cs, p, &off));
    for (PetscInt d = 0; d < cdim; ++d) x[d] = PetscRealPart(ca[off + d]);
    *fromCoords = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  *fromCoords = PETSC_FALSE;
  PetscCall(DMPlexGetTransitiveClosure(dm, p, PETSC_TRUE, &n, &cl));
  for (PetscInt i = 0; i < n; ++i) {
    const PetscInt q = cl[2 * i];
    if (q < vStart || q >= vEnd) continue;
    PetscCall(PetscSectionGetOffset(cs, q, &off));
    for (PetscInt d = 0; d < cdim; ++d) x[d] += PetscRealPart(ca[off + d]);
    ++nv;
  }
  PetscCall(DMPlexRestoreTransitiveClosure(dm, p, PETSC_TRUE, &n, &cl));
  for (PetscInt d = 0; d < cdim; ++d) x[d] /= nv;
  PetscFunctionReturn(0);
}

static PetscErrorCode NodalDump(Vec u, const char path[])
{
  DM                 dm, cdm;
  Vec                loc, cloc;
  PetscSection       s, cs;
  PetscDS            ds;
  const PetscScalar *a, *ca;
  PetscErrorCode (*exact)(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *);
  void     *ectx;
  PetscInt *comps, dim, cdim, Nc, depth, vStart, vEnd, nodes = 0, fixed = 0, fromCoords = 0;
  PetscReal l2, maxerr = 0.0;
  FILE     *f;

  PetscFunctionBeginUser;
  PetscCall(VecGetDM(u, &dm));
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCall(DMGetDS(dm, &ds));
  PetscCall(PetscDSGetComponents(ds, &comps));
  Nc = comps[0];
  PetscCall(PetscDSGetExactSolution(ds, 0, &exact, &ectx));
  PetscCall(DMComputeL2Diff(dm, 0.0, &exact, &ectx, u, &l2));
  /* The global vector leaves out the Dirichlet dofs; the local one gets them from the boundary
   * conditions ex17 registered, as its own residual evaluation does. */
  PetscCall(DMGetLocalVector(dm, &loc));
  PetscCall(VecSet(loc, 0.0));
  PetscCall(DMPlexInsertBoundaryValues(dm, PETSC_TRUE, loc, 0.0, NULL, NULL, NULL));
  PetscCall(DMGlobalToLocal(dm, u, INSERT_VALUES, loc));
  PetscCall(DMGetLocalSection(dm, &s));
  PetscCall(DMGetCoordinateDM(dm, &cdm));
  PetscCall(DMGetLocalSection(cdm, &cs));
  PetscCall(DMGetCoordinatesLocal(dm, &cloc));
  PetscCall(DMPlexGetDepth(dm, &depth));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(VecGetArrayRead(loc, &a));
  PetscCall(VecGetArrayRead(cloc, &ca));
  for (PetscInt d = 0; d <= depth; ++d) {
    PetscInt pStart, pEnd;
    PetscCall(DMPlexGetDepthStratum(dm, d, &pStart, &pEnd));
    for (PetscInt p = pStart; p < pEnd; ++p) {
      PetscInt dof;
      PetscCall(PetscSectionGetDof(s, p, &dof));
      PetscCheck(dof == 0 || dof == Nc, PETSC_COMM_SELF, PETSC_ERR_SUP, "point %" PetscInt_FMT " carries %" PetscInt_FMT " dofs: -nodal_out handles one node per point (P1, P2, Q1, Q2)", p, dof);
      if (dof) ++nodes;
    }
  }
  PetscCall(PetscFOpen(PETSC_COMM_SELF, path, "w", &f));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "# ex17 nodal solution: nodes %" PetscInt_FMT " dim %" PetscInt_FMT " components %" PetscInt_FMT " L2_error %.17g\n", nodes, dim, Nc, (double)l2));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "# point depth vertex bc x y z u_x u_y u_z exact_x exact_y exact_z\n"));
  for (PetscInt d = 0; d <= depth; ++d) {
    PetscInt pStart, pEnd;
    PetscCall(DMPlexGetDepthStratum(dm, d, &pStart, &pEnd));
    for (PetscInt p = pStart; p < pEnd; ++p) {
      PetscInt    dof, cdof, off;
      PetscReal   x[3] = {0, 0, 0};
      PetscScalar ex[3] = {0, 0, 0};
      PetscBool   fc;

      PetscCall(PetscSectionGetDof(s, p, &dof));
      if (!dof) continue;
      PetscCall(PetscSectionGetConstraintDof(s, p, &cdof));
      PetscCall(PetscSectionGetOffset(s, p, &off));
      PetscCall(NodePosition(dm, cs, ca, cdim, vStart, vEnd, p, x, &fc));
      if (fc && d > 0) ++fromCoords;
      if (cdof) ++fixed;
      PetscCall((*exact)(dim, 0.0, x, Nc, ex, ectx));
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT, p, d, d == 0 ? p - vStart : -1, cdof));
      for (PetscInt c = 0; c < 3; ++c) PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, " %.17g", (double)x[c]));
      for (PetscInt c = 0; c < 3; ++c) PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, " %.17g", c < Nc ? (double)PetscRealPart(a[off + c]) : 0.0));
      for (PetscInt c = 0; c < 3; ++c) PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, " %.17g", (double)PetscRealPart(ex[c])));
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\n"));
      for (PetscInt c = 0; c < Nc; ++c) maxerr = PetscMax(maxerr, PetscAbsScalar(a[off + c] - ex[c]));
    }
  }
  PetscCall(PetscFClose(PETSC_COMM_SELF, f));
  PetscCall(VecRestoreArrayRead(cloc, &ca));
  PetscCall(VecRestoreArrayRead(loc, &a));
  PetscCall(DMRestoreLocalVector(dm, &loc));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "nodal_out: %s nodes %" PetscInt_FMT " dirichlet %" PetscInt_FMT " L2_error %.6e max_nodal_error %.6e%s\n", path, nodes, fixed, (double)l2, (double)maxerr, fromCoords ? " (non-vertex nodes placed by high-order coordinates)" : ""));
  PetscFunctionReturn(0);
}

static PetscErrorCode QuadratureDump(Vec u, const char path[])
{
  DM               dm;
  PetscObject      obj;
  PetscQuadrature  q;
  PetscInt         qdim, qNc, Np;
  const PetscReal *points, *weights;
  FILE            *f;

  PetscFunctionBeginUser;
  PetscCall(VecGetDM(u, &dm));
  PetscCall(DMGetField(dm, 0, NULL, &obj));
  PetscCall(PetscFEGetQuadrature((PetscFE)obj, &q));
  PetscCall(PetscQuadratureGetData(q, &qdim, &qNc, &Np, &points, &weights));
  PetscCall(PetscFOpen(PETSC_COMM_SELF, path, "w", &f));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "# ex17 cell quadrature: points %" PetscInt_FMT " dim %" PetscInt_FMT "\n# xi eta zeta weight\n", Np, qdim));
  for (PetscInt i = 0; i < Np; ++i) {
    for (PetscInt d = 0; d < qdim; ++d) PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "%.17g ", (double)points[i * qdim + d]));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "%.17g\n", (double)weights[i * qNc]));
  }
  PetscCall(PetscFClose(PETSC_COMM_SELF, f));
  PetscFunctionReturn(0);
}

/* PETSc's reference tetrahedron, its vertices in closure order (as the dual basis lists them). */
static const PetscReal refTet[4][3] = {{-1, -1, -1}, {-1, 1, -1}, {1, -1, -1}, {-1, -1, 1}};

static PetscErrorCode CellsDump(Vec u, const char path[])
{
  DM                 dm;
  Vec                cloc;
  PetscSection       cs;
  const PetscScalar *ca;
  PetscInt           cStart, cEnd, vStart, vEnd, cdim;
  FILE              *f;

  PetscFunctionBeginUser;
  PetscCall(VecGetDM(u, &dm));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMGetCoordinatesLocal(dm, &cloc));
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(VecGetArrayRead(cloc, &ca));
  PetscCall(PetscFOpen(PETSC_COMM_SELF, path, "w", &f));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "# ex17 cells: %" PetscInt_FMT "\n# cell then its vertices (nodal_out's vertex column) in closure order\n", cEnd - cStart));
  for (PetscInt c = cStart; c < cEnd; ++c) {
    PetscInt *cl = NULL, n, vert[8], nv = 0;
    PetscCall(DMPlexGetTransitiveClosure(dm, c, PETSC_TRUE, &n, &cl));
    for (PetscInt i = 0; i < n; ++i)
      if (cl[2 * i] >= vStart && cl[2 * i] < vEnd && nv < 8) vert[nv++] = cl[2 * i];
    PetscCall(DMPlexRestoreTransitiveClosure(dm, c, PETSC_TRUE, &n, &cl));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "%" PetscInt_FMT, c - cStart));
    for (PetscInt i = 0; i < nv; ++i) PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, " %" PetscInt_FMT, vert[i] - vStart));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\n"));
    if (nv == 4 && cdim == 3) {
      /* x(xi) = v0 + J (xi - xi0), PETSc's map; each reference vertex must land on its vertex. */
      PetscReal v0[3], J[9], invJ[9], detJ;
      PetscCall(DMPlexComputeCellGeometryAffineFEM(dm, c, v0, J, invJ, &detJ));
      for (PetscInt k = 0; k < 4; ++k) {
        PetscInt off;
        PetscCall(PetscSectionGetOffset(cs, vert[k], &off));
        for (PetscInt d = 0; d < 3; ++d) {
          PetscReal x = v0[d];
          for (PetscInt e = 0; e < 3; ++e) x += J[d * 3 + e] * (refTet[k][e] + 1.0);
          PetscCheck(PetscAbsReal(x - PetscRealPart(ca[off + d])) <= 1e-10 * (1.0 + PetscAbsReal(x)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "cell %" PetscInt_FMT ": reference vertex %" PetscInt_FMT " does not map to closure vertex %" PetscInt_FMT, c, k, k);
        }
      }
    }
  }
  PetscCall(PetscFClose(PETSC_COMM_SELF, f));
  PetscCall(VecRestoreArrayRead(cloc, &ca));
  PetscFunctionReturn(0);
}

static PetscErrorCode NodalViewFromOptions(Vec u, PetscObject obj, const char name[])
{
  char        path[PETSC_MAX_PATH_LEN];
  PetscBool   set;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCall(VecViewFromOptions(u, obj, name));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-quadrature_out", path, sizeof(path), &set));
  if (set) PetscCall(QuadratureDump(u, path));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-cells_out", path, sizeof(path), &set));
  if (set) PetscCall(CellsDump(u, path));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-nodal_out", path, sizeof(path), &set));
  if (!set) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)u), &size));
  PetscCheck(size == 1, PetscObjectComm((PetscObject)u), PETSC_ERR_SUP, "-nodal_out writes a serial run's solution only");
  PetscCall(NodalDump(u, path));
  PetscFunctionReturn(0);
}
