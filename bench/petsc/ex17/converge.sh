#!/usr/bin/env bash
# converge.sh: ex17's error against its exact solution on the unit-cube meshes of
# bench/meshes/make.sh's ex17 set (made here if missing), for P1, P2, Q1 and Q2, with rates.
#
#   bench/petsc/ex17/converge.sh [OUTDIR]          default OUTDIR: bench/petsc/ex17/out
#
# Each run is bench/petsc/ex17/run.sh in OUTDIR/ELEMENT-hH; SOL (default elas_trig) and SOLVER
# pass through to it. The rate between two meshes is log(e1/e2) / log(h1/h2) with the nominal h,
# and log(e1/e2) / log((n2/n1)^(1/3)) with the node counts n, which does not trust gmsh's h.
set -euo pipefail
[[ $# -le 1 ]] || { echo "usage: bench/petsc/ex17/converge.sh [OUTDIR]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$here/out}
meshes=$root/bench/meshes/out
need=("$meshes"/cube-h0.0625-tet10lin.msh "$meshes"/hexbox-h0.03125-hex8.msh "$meshes"/hexbox-h0.125-hex27.msh)
for m in "${need[@]}"; do
  [[ -f $m ]] || { "$root/bench/meshes/make.sh" -o "$meshes" ex17 >/dev/null; break; }
done
mkdir -p "$out"
rows=$out/errors.txt
: >"$rows"
run() { # ELEMENT DEGREE MESHNAME H
  local dir=$out/$1-h$4
  "$here/run.sh" "$meshes/$3-h$4-$5.msh" "$2" "$dir" >/dev/null 2>"$dir.err" ||
    { cat "$dir.err" >&2; exit 1; }
  echo "$1 $4 $(sed -nE 's/^nodal_out: .* nodes ([0-9]+) dirichlet ([0-9]+) L2_error (\S+) max_nodal_error (\S+).*/\1 \3 \4/p' "$dir/ex17.log")" >>"$rows"
}
for h in 0.5 0.25 0.125 0.0625; do run P1 1 cube $h tet4; done
for h in 0.5 0.25 0.125 0.0625; do run P2 2 cube $h tet10lin; done
for h in 0.25 0.125 0.0625 0.03125; do run Q1 1 hexbox $h hex8; done
for h in 0.25 0.125; do run Q2 2 hexbox $h hex27; done
python3 - "$rows" "${SOL:-elas_trig}" <<'PY'
import math, sys
rows = [l.split() for l in open(sys.argv[1])]
print(f"ex17 -sol_type {sys.argv[2]} on the unit cube: L2 error (DMComputeL2Diff) and the largest nodal error")
print(f"| {'element':<7} | {'h':>7} | {'nodes':>7} | {'L2 error':>10} | {'rate (h)':>8} | {'rate (n)':>8} | {'max nodal':>10} |")
print(f"|{'-'*9}|{'-'*9}|{'-'*9}|{'-'*12}|{'-'*10}|{'-'*10}|{'-'*12}|")
prev = None
for el, h, n, e, m in rows:
    h, n, e, m = float(h), int(n), float(e), float(m)
    rh = rn = ''
    if prev and prev[0] == el:
        rh = f"{math.log(prev[3] / e) / math.log(prev[1] / h):.2f}"
        rn = f"{math.log(prev[3] / e) / math.log((n / prev[2]) ** (1 / 3)):.2f}"
    print(f"| {el:<7} | {h:>7g} | {n:>7d} | {e:>10.3e} | {rh:>8} | {rn:>8} | {m:>10.3e} |")
    prev = (el, h, n, e)
PY
