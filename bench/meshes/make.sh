#!/usr/bin/env bash
# make.sh: meshes the benchmark parts with gmsh and prints, per mesh, its size and meshing time.
#
#   bench/meshes/make.sh [-o OUTDIR] [SET...]          default SETs: ex17 parts
#
# SETs:
#   ex17   cube.geo (tet4, straight-sided tet10) at h = 1/2 ... 1/16 and hexbox.geo (hex8 at
#          h = 1/4 ... 1/32, hex27 at 1/4 and 1/8): the meshes bench/petsc/ex17/converge.sh solves
#   parts  bracket, plate (tetrahedra and hexahedra) and twomat at two sizes each, as tet4, tet10
#          (curved: second-order nodes on the CAD surfaces) and tet10lin (second-order nodes at the
#          edge midpoints, the variant PETSc 3.18 reads correctly; see bench/petsc/ex17/README.md)
#   scale  bracket sized for about 50k, 500k and 3M unknowns (3 x nodes), tet4 and tet10, binary;
#          the 3M tet4 mesh only with SCALE_3M=1 (about a million nodes)
#
# Meshes go to OUTDIR (default bench/meshes/out, ignored by git) as NAME-hH-VARIANT.msh, MSH 4.1,
# ASCII unless binary (scale, or BIN=1), each with its gmsh log next to it.
# ex17 and parts mesh with gmsh's default 3D Delaunay on one thread, which gives the same mesh on
# every run (with more threads gmsh meshes surfaces concurrently and the result varies), so that
# tet4, tet10 and tet10lin of one size share their vertices and elements. scale uses HXT
# (Mesh.Algorithm3D 10) on GMSH_THREADS threads (default: all cores): on the bracket it is about ten
# times faster (Delaunay takes about a minute for 400k unknowns here) but differs from run to run
# by a few tenths of a percent in the node count, even on one thread.
set -euo pipefail
usage() { echo "usage: bench/meshes/make.sh [-o OUTDIR] [ex17|parts|scale ...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=$here/out
while getopts o:h opt; do
  case $opt in
    o) out=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
sets=("$@")
[[ ${#sets[@]} -gt 0 ]] || sets=(ex17 parts)
for s in "${sets[@]}"; do
  case $s in ex17 | parts | scale) ;; *) echo "make.sh: unknown set '$s'" >&2; usage ;; esac
done
command -v gmsh >/dev/null || { echo "make.sh: gmsh not found (apt-get install gmsh)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "make.sh: python3 not found (mshstat.py counts the nodes)" >&2; exit 1; }
mkdir -p "$out"
hxt_threads=${GMSH_THREADS:-$(nproc)}
algo=(-setnumber Mesh.Algorithm3D 1 -nt 1)

printf '| %-34s | %7s | %8s | %9s | %10s | %s\n' mesh h seconds nodes unknowns elements
printf '|%s|%s|%s|%s|%s|%s\n' "$(printf -- '-%.0s' {1..36})" '---------' '----------' '-----------' '------------' '---'

# mesh NAME GEO H VARIANT BINARY [gmsh options...]: one mesh and its table row.
mesh() {
  local name=$1 geo=$2 h=$3 variant=$4 binary=$5
  shift 5
  local file=$out/$name-h$h-$variant.msh order=()
  case $variant in
    tet4 | hex8) order=(-order 1) ;;
    tet10 | hex27) order=(-order 2) ;;
    tet10lin) order=(-order 2 -setnumber Mesh.SecondOrderLinear 1) ;;
    *) echo "make.sh: unknown variant $variant" >&2; exit 1 ;;
  esac
  local fmt=(-format msh41)
  [[ $binary == 1 || ${BIN:-0} == 1 ]] && fmt+=(-bin)
  local t0 t1
  t0=$(date +%s.%N)
  if ! gmsh -3 "$here/$geo" -setnumber h "$h" "$@" "${order[@]}" "${algo[@]}" "${fmt[@]}" \
    -o "$file" >"$file.log" 2>&1; then
    echo "make.sh: gmsh failed on $geo (h=$h $variant), see $file.log" >&2
    exit 1
  fi
  t1=$(date +%s.%N)
  # gmsh reports .geo errors (a boolean operation that failed, an empty selection) and goes on.
  if grep -q '^Error' "$file.log"; then
    grep '^Error' "$file.log" >&2
    echo "make.sh: gmsh reported errors on $geo (h=$h $variant), see $file.log" >&2
    exit 1
  fi
  local stat
  stat=$(python3 "$here/mshstat.py" "$file")
  local nodes unknowns rest
  nodes=$(sed -E 's/.*nodes=([0-9]+).*/\1/' <<<"$stat")
  unknowns=$(sed -E 's/.*unknowns=([0-9]+).*/\1/' <<<"$stat")
  rest=$(sed -E 's/.*unknowns=[0-9]+ //' <<<"$stat")
  printf '| %-34s | %7s | %8.2f | %9d | %10d | %s\n' "$(basename "$file")" "$h" \
    "$(echo "$t1 - $t0" | bc)" "$nodes" "$unknowns" "$rest"
}

for s in "${sets[@]}"; do
  case $s in
    ex17)
      for h in 0.5 0.25 0.125 0.0625; do
        mesh cube cube.geo $h tet4 0
        mesh cube cube.geo $h tet10lin 0
      done
      for h in 0.25 0.125 0.0625 0.03125; do mesh hexbox hexbox.geo $h hex8 0; done
      for h in 0.25 0.125; do mesh hexbox hexbox.geo $h hex27 0; done
      ;;
    parts)
      for h in 6 3; do for v in tet4 tet10 tet10lin; do mesh bracket bracket.geo $h $v 0; done; done
      for h in 10 5; do
        for v in tet4 tet10 tet10lin; do mesh plate plate.geo $h $v 0; done
        mesh plate plate.geo $h hex8 0 -setnumber hex 1
      done
      for h in 4 2; do for v in tet4 tet10 tet10lin; do mesh twomat twomat.geo $h $v 0; done; done
      ;;
    scale)
      algo=(-setnumber Mesh.Algorithm3D 10 -nt "$hxt_threads")
      # h for about 50k, 500k and 3M unknowns; unknowns grow roughly like h^-3.
      mesh bracket bracket.geo 1.2 tet4 1
      mesh bracket bracket.geo 0.52 tet4 1
      [[ ${SCALE_3M:-0} == 1 ]] && mesh bracket bracket.geo 0.273 tet4 1
      mesh bracket bracket.geo 2.67 tet10 1
      mesh bracket bracket.geo 1.07 tet10 1
      mesh bracket bracket.geo 0.563 tet10 1
      algo=(-setnumber Mesh.Algorithm3D 1 -nt 1)
      ;;
  esac
done
