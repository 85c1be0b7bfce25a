#!/usr/bin/env bash
# run.sh: PETSc's ex17 (3D linear elasticity on DMPlex) on a Gmsh mesh, serially, solved tightly,
# with the solution written node by node next to the nodes' coordinates; see README.md.
#
#   bench/petsc/ex17/run.sh MESH.msh DEGREE OUTDIR
#
# DEGREE 1 or 2: P1/P2 on tetrahedra, Q1/Q2 on hexahedra (ex17 picks the element family from the
# cells).
# Second-order Gmsh files are read by their vertices only (-dm_plex_gmsh_highorder 0): PETSc 3.18
# misplaces second-order geometry nodes, and P2 then sits on straight-sided tetrahedra, so a
# second-order file to compare against must be straight-sided (make.sh's tet10lin).
# OUTDIR receives nodal.txt, cells.txt, quadrature.txt, command.txt and ex17.log.
#
# Environment:
#   SOL=elas_trig   ex17's -sol_type (elas_trig: trigonometric exact solution, Dirichlet on all of
#                   "marker" = 1; elas_quad: quadratic one, the same boundary condition)
#   MARKER=auto     where label "marker" comes from: regions (the mesh's physical group named
#                   "marker", -dm_plex_gmsh_use_regions), boundary (every boundary face gets value 1,
#                   -dm_plex_boundary_label marker), auto (regions if the file names a "marker"
#                   group, else boundary)
#   SOLVER=gamg     gamg (CG + GAMG with ex17's rigid-body near-null space) or direct (MUMPS LU
#                   inside GMRES, which checks the residual; its serial factorisation takes minutes
#                   beyond ~100k unknowns); either to a relative residual of 1e-12
#   EX17_OPTS       further PETSc options, appended last (e.g. "-displacement_view vtk:u.vtu")
set -euo pipefail
usage() { echo "usage: bench/petsc/ex17/run.sh MESH.msh DEGREE(1|2) OUTDIR" >&2; exit 2; }
[[ $# -eq 3 ]] || usage
mesh=$1 degree=$2 outdir=$3
[[ $degree == 1 || $degree == 2 ]] || usage
[[ -f $mesh ]] || { echo "run.sh: no mesh file $mesh" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
command -v mpicc >/dev/null || { echo "run.sh: mpicc not found (apt-get install petsc-dev)" >&2; exit 1; }
pkg-config --exists petsc || { echo "run.sh: pkg-config finds no petsc (apt-get install petsc-dev)" >&2; exit 1; }
make -s -C "$here" build/ex17
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

sol=${SOL:-elas_trig}
marker=${MARKER:-auto}
if [[ $marker == auto ]]; then
  # $PhysicalNames is text in binary MSH files too.
  if grep -aq '^2 [0-9]* "marker"' "$mesh"; then marker=regions; else marker=boundary; fi
fi
case $marker in
  regions)
    grep -aq '^2 1 "marker"' "$mesh" ||
      echo "run.sh: warning: $mesh has no surface group \"marker\" with tag 1; elas_trig/elas_quad fix only marker = 1" >&2
    marker_opts=(-dm_plex_gmsh_use_regions) ;;
  boundary) marker_opts=(-dm_plex_boundary_label marker) ;;
  *) echo "run.sh: MARKER must be auto, regions or boundary" >&2; exit 2 ;;
esac
case ${SOLVER:-gamg} in
  direct) solver_opts=(-ksp_type gmres -pc_type lu -pc_factor_mat_solver_type mumps) ;;
  gamg) solver_opts=(-ksp_type cg -pc_type gamg -ksp_norm_type unpreconditioned) ;;
  *) echo "run.sh: SOLVER must be direct or gamg" >&2; exit 2 ;;
esac

# ksponly: the problem is linear, so one Newton step from u = 0 (boundary values inserted) is the
# solution; the KSP tolerance then is the only one that matters.
cmd=("$here/build/ex17" -dm_plex_filename "$(realpath "$mesh")" "${marker_opts[@]}" -dm_plex_gmsh_highorder 0
  -dm_plex_check_all -sol_type "$sol" -displacement_petscspace_degree "$degree"
  -snes_type ksponly "${solver_opts[@]}" -ksp_rtol 1e-12 -ksp_atol 1e-300 -ksp_max_it 10000
  -ksp_error_if_not_converged -ksp_converged_reason -snes_converged_reason
  -nodal_out "$outdir/nodal.txt" -cells_out "$outdir/cells.txt" -quadrature_out "$outdir/quadrature.txt"
  ${EX17_OPTS:-})
printf '%q ' "${cmd[@]}" >"$outdir/command.txt"
echo >>"$outdir/command.txt"
echo "run.sh: marker from $marker; $(cat "$outdir/command.txt")" >&2
"${cmd[@]}" 2>&1 | tee "$outdir/ex17.log"
grep -q '^nodal_out:' "$outdir/ex17.log" || { echo "run.sh: ex17 wrote no solution, see $outdir/ex17.log" >&2; exit 1; }
if grep -q 'dirichlet 0 ' "$outdir/ex17.log"; then
  echo "run.sh: no node is constrained: label marker has no points with value 1" >&2
  exit 1
fi
