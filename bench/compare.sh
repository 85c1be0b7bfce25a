#!/usr/bin/env bash
# compare.sh: PETSc GAMG and blockamg on the same ex56 problem in one run, side by side.
#
#   bench/compare.sh NE [THREADS]      e.g. bench/compare.sh 39 1;  bench/compare.sh 63 2
#   bench/compare.sh PART.msh THREADS MESH-FLAGS...
#                                      a Gmsh mesh, e.g. bench/compare.sh bracket.msh 1 --fix fixed
#                                      --traction load:0,0,-1 --material 210e3,0.3: `blockamg gen
#                                      --mesh` writes the system `blockamg solve --mesh` solves
#                                      (the same flags), and PETSc solves those files
#
# PETSc (bench/petsc/gamg_bench, built here against Debian's petsc-dev) loads the matrix and
# right-hand side that `blockamg gen` writes, with the rigid-body modes of the correct
# coordinates (MatNullSpaceCreateRigidBody orthonormalises them), and runs with THREADS MPI
# processes; blockamg runs with THREADS worker goroutines and GOMAXPROCS=THREADS. Both use CG
# from x0 = 0 to rtol 1e-8 on the unpreconditioned residual and the options of issue 4.
# Reuse set-up: PETSc scales A (MatScale, same pattern) and calls KSPSetUp with
# -pc_gamg_reuse_interpolation; blockamg re-assembles with a changed material and calls Update.
#
# Environment: BLOCKAMG=PATH runs that blockamg binary (for `gen` and `solve`) instead of building
# this tree's, e.g. to compare two trees against PETSc in one sitting:
#   BLOCKAMG=/tmp/before-blockamg bench/compare.sh 39 1;  BLOCKAMG=/tmp/after-blockamg bench/compare.sh 39 1
# WORK=DIR keeps the generated files there (default: a fresh temporary directory);
# OURS_EXTRA adds blockamg solve flags (e.g. OURS_EXTRA=--smoother-f32); RTOL sets both
# solvers' relative tolerance (default 1e-8); THRESHOLD both solvers' strength threshold (default
# -0.01: every coupling kept; thin or stretched parts want a positive one, e.g. THRESHOLD=0.02).
set -euo pipefail
ne=${1:?usage: bench/compare.sh NE [THREADS] | bench/compare.sh PART.msh THREADS MESH-FLAGS...}
threads=${2:-1}
rtol=${RTOL:-1e-8}
threshold=${THRESHOLD:--0.01}
mesh=()
if [[ $ne == *.msh ]]; then
  [[ -f $ne ]] || { echo "compare.sh: $ne: no such mesh file" >&2; exit 2; }
  mesh=(--mesh "$(realpath "$ne")" "${@:3}")
fi
root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-$(mktemp -d)}
make -s -C "$root/bench/petsc" gamg_bench >/dev/null
if [[ -n ${BLOCKAMG:-} ]]; then
  bin=$(realpath "$BLOCKAMG")
  [[ -x $bin ]] || { echo "compare.sh: BLOCKAMG=$BLOCKAMG is not an executable" >&2; exit 2; }
else
  bin=$work/blockamg
  (cd "$root" && go build -o "$bin" ./cmd/blockamg)
fi

if ((${#mesh[@]})); then
  "$bin" gen -q "${mesh[@]}" -o "$work/A.petsc" --rhs "$work/b.petsc" --coords "$work/x.mtx" >/dev/null
  problem=("${mesh[@]}")
else
  "$bin" gen -q --ne "$ne" -o "$work/A.petsc" --rhs "$work/b.petsc" --coords "$work/x.mtx"
  problem=(--ne "$ne")
fi
# PETSc takes coordinates as an interleaved Vec; gen writes a nodes×3 Matrix Market array.
python3 - "$work/x.mtx" "$work/x.petsc" <<'PY'
import struct, sys
rows = [l for l in open(sys.argv[1]) if not l.startswith('%') and l.strip()]
n, k = map(int, rows[0].split())
v = [float(l) for l in rows[1:]]
inter = [v[j * n + i] for i in range(n) for j in range(k)]  # column-major → interleaved
open(sys.argv[2], 'wb').write(struct.pack('>ii', 1211214, len(inter)) + struct.pack('>%dd' % len(inter), *inter))
PY

petsc_opts="-ksp_type cg -ksp_rtol $rtol -ksp_norm_type unpreconditioned -pc_type gamg -pc_gamg_agg_nsmooths 1
 -pc_gamg_threshold $threshold -pc_gamg_coarse_eq_limit 200 -pc_gamg_esteig_ksp_max_it 10 -mg_levels_ksp_type chebyshev
 -mg_levels_ksp_max_it 2 -mg_levels_ksp_chebyshev_esteig 0,0.2,0,1.05 -pc_mg_cycle_type v -pc_gamg_reuse_interpolation true"
ours_opts="--threshold $threshold --agg-nsmooths 1 --coarse-eq-limit 200 --esteig-its 10 --smoother-its 2
 --cheb-esteig 0,0.2,0,1.05 --rtol $rtol"

petsc=$(OMP_NUM_THREADS=1 mpiexec --allow-run-as-root -n "$threads" "$root/bench/petsc/gamg_bench" \
  -f "$work/A.petsc" -rhs "$work/b.petsc" -coords "$work/x.petsc" $petsc_opts)
# OURS_EXTRA adds blockamg flags (e.g. OURS_EXTRA=--smoother-f32).
ours=$(GOMAXPROCS=$threads "$bin" solve --json -q "${problem[@]}" --threads "$threads" --steps 1 $ours_opts ${OURS_EXTRA:-})

python3 - "$ne" "$threads" "$petsc" "$ours" <<'PY'
import json, sys
ne, threads, petsc, ours = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
p = dict(kv.split('=') for kv in petsc.split()[1:])
o = {
    'iterations': ours['iterations'],
    'first_setup': ours['setup_seconds'],
    'reuse_setup': ours['resetup_seconds'],
    'solve': ours['solve_seconds'],
    'setup+solve': ours['setup_seconds'] + ours['solve_seconds'],
    'peak_rss_MB': ours['peak_rss_bytes'] / 1e6,
}
q = {
    'iterations': int(p['iterations']),
    'first_setup': float(p['first_setup']),
    'reuse_setup': float(p['reuse_setup']),
    'solve': float(p['solve']),
    'setup+solve': float(p['first_setup']) + float(p['solve']),
    'peak_rss_MB': float(p['peak_rss_bytes']) / 1e6,
}
name = f"ex56 ne={ne}" if not ne.endswith('.msh') else ne
print(f"{name} ({ours['unknowns']} unknowns), {threads} thread(s)/process(es); "
      f"PETSc rel. residual {p['relres']}, blockamg {ours['relative_residual']:.3e}")
print(f"| {'quantity':<12} | {'PETSc GAMG':>10} | {'blockamg':>10} | {'ratio':>6} |")
print(f"|{'-'*14}|{'-'*12}|{'-'*12}|{'-'*8}|")
for k in o:
    r = o[k] / q[k] if q[k] else float('nan')
    fmt = '{:>10d}' if k == 'iterations' else '{:>10.3f}'
    print(f"| {k:<12} | {fmt.format(q[k])} | {fmt.format(o[k])} | {r:>6.2f} |")
PY
