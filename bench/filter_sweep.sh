#!/usr/bin/env bash
# filter_sweep.sh: the prolongator-filtering θ sweep of issue 8, one table per problem.
#
#   bench/filter_sweep.sh NE [THREADS] [extra solve flags]   e.g. bench/filter_sweep.sh 63 1
#   bench/filter_sweep.sh PART.msh [THREADS] [extra solve flags]
#                      a Gmsh mesh instead of ex56, with MESH_FLAGS (default: --fix fixed
#                      --traction load:0,0,-1); the shared-data sweep is then skipped
#
# BLOCKAMG_BIN=path uses that binary instead of building cmd/blockamg.
# NE = 0 skips the ex56 table (shared data only). The extra solve flags apply to both parts
# (e.g. --aggressive-levels 0 for plain aggregation everywhere).
#
# For θ ∈ {0, 0.01, 0.02, 0.05, 0.1}: fine P blocks and how many were dropped, W = A·P and
# Ac blocks on the fine level, operator complexity, memory of the hierarchy's operators,
# the fine-level PᵀAP numeric time (median of the re-setups of --steps 3, where PᵀAP is
# numeric only), and CG iterations. Then the same sweep, iterations only, on every case in
# ../shared/data (when present), with PETSc GAMG's reference counts beside them and, per θ,
# the share of the fine P's blocks dropped (so that an unchanged count is seen to mean
# "nothing dropped" or "dropped without effect").
set -euo pipefail
ne=${1:?usage: bench/filter_sweep.sh NE [THREADS] [solve flags]}
threads=${2:-1}
shift $(( $# >= 2 ? 2 : 1 ))
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${BLOCKAMG_BIN:-}" ]; then # a binary built before, e.g. while the tree does not build
  bin=$BLOCKAMG_BIN
else
  bin=$(mktemp -d)/blockamg
  go build -o "$bin" "$root/cmd/blockamg"
fi
thetas="0 0.01 0.02 0.05 0.1"

compact() { python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)))'; }

table() { # reads "θ JSON" lines
python3 -c '
import json, sys, statistics
print("| θ | P blocks | dropped | W blocks | Ac blocks | op. complexity | operators MB | fine PᵀAP s | ratio | its |")
print("|---|---|---|---|---|---|---|---|---|---|")
base = None
for line in sys.stdin:
    theta, js = line.split(" ", 1)
    r = json.loads(js)
    L0, L1 = r["levels"][0], r["levels"][1]
    f = L0.get("filter") or {}
    t = statistics.median([s["fine_galerkin_seconds"] for s in r["steps"]])
    base = base or t
    mb = sum(l["bytes"] + l.get("p_bytes", 0) for l in r["levels"]) / 1e6
    pb, ac, w, its = L0["p_nnz_blocks"], L1["nnz_blocks"], r["w_blocks"][0], r["iterations"]
    oc, dropped = r["operator_complexity"], f.get("dropped_blocks", 0)
    print(f"| {theta} | {pb} | {dropped} | {w} | {ac} | {oc:.3f} | {mb:.1f} | {t:.4f} | {base / t:.2f}× | {its} |")
'
}

if [[ $ne == *.msh ]]; then
  read -r -a mesh_flags <<<"${MESH_FLAGS:---fix fixed --traction load:0,0,-1}"
  echo "$ne, $threads thread(s), flags: ${mesh_flags[*]} $*"
  for th in $thetas; do
    echo "$th $(GOMAXPROCS=$threads "$bin" solve --json -q --mesh "$ne" "${mesh_flags[@]}" --threads "$threads" --steps 3 --w-stats --filter "$th" "$@" | compact)"
  done | table
  exit 0
fi
if [ "$ne" != 0 ]; then
  echo "ex56 ne=$ne, $threads thread(s), flags: $*"
  for th in $thetas; do
    echo "$th $(GOMAXPROCS=$threads "$bin" solve --json -q --ne "$ne" --threads "$threads" --steps 3 --w-stats --filter "$th" "$@" | compact)"
  done | table
fi
extra=("$@")

data=$root/../shared/data
[ -d "$data" ] || { echo "($data absent: shared-data sweep skipped)"; exit 0; }
echo
echo "shared data, iterations (fine-level P blocks dropped) for θ = $thetas; threshold 0, flags: ${extra[*]}; PETSc GAMG with modes in brackets"
run_case() { # name petsc-count solve-args...
  local name=$1 ref=$2; shift 2
  local row="| $name |"
  for th in $thetas; do
    row="$row $(GOMAXPROCS=$threads "$bin" solve --json -q --threads "$threads" --threshold 0 --filter "$th" "$@" "${extra[@]}" | python3 -c '
import json, sys
r = json.load(sys.stdin)
f = r["levels"][0].get("filter") or {}
its, d, n = r["iterations"], f.get("dropped_blocks", 0), f.get("nnz_blocks_before", 0)
print(f"{its} ({100 * d / n:.0f}%)" if n else f"{its} (0%)")
') |"
  done
  echo "$row ($ref) |"
}
echo "| case | θ=${thetas// / | θ=} | PETSc |"
echo "|---|---|---|---|---|---|---|"
run_case hypre_elast2d 32 --matrix "$data/hypre_elast2d/A.mtx" --block-size 2 --nullspace "$data/hypre_elast2d/rbm3.mtx"
run_case hypre_beam_tet_459 31 --matrix "$data/hypre_beam_tet_459/A.mtx" --block-size 3 --nullspace "$data/hypre_beam_tet_459/B6.mtx" --rhs "$data/hypre_beam_tet_459/b.mtx"
run_case hypre_beam_hex_459 28 --matrix "$data/hypre_beam_hex_459/A.mtx" --block-size 3 --nullspace "$data/hypre_beam_hex_459/B6.mtx" --rhs "$data/hypre_beam_hex_459/b.mtx"
run_case pyamg_bar 28 --matrix "$data/pyamg_bar/A.mtx" --block-size 3 --nullspace "$data/pyamg_bar/B.mtx"
run_case petsc_ex56_ne9 16 --matrix "$data/petsc_ex56/A_ne9.petsc" --block-size 3 --coords "$data/petsc_ex56/coords_ne9.mtx" --rhs "$data/petsc_ex56/b_ne9.petsc"
run_case petsc_ex56_ne11 17 --matrix "$data/petsc_ex56/A_ne11.petsc" --block-size 3 --coords "$data/petsc_ex56/coords_ne11.mtx" --rhs "$data/petsc_ex56/b_ne11.petsc"
