#!/usr/bin/env bash
# run.sh: NVIDIA AMGX 2.5 and `blockamg solve --gpu` on the same ex56 matrices, side by side.
#
#   bash bench/amgx/run.sh [NE | PART.msh ...]   (default: 64 100), on the GPU machine, from
#                                          the repository root, with devbin/ carried
#
# A Gmsh mesh is solved with MESH_FLAGS (default: --fix fixed --traction load:0,0,-1): gen
# --mesh writes the system solve --mesh solves, and blockamg's own run is solve --gpu --mesh
# (the mesh assembled on the device) where ex56's is solve --gpu --ne.
#
# devbin/ must hold blockamg (scripts/gpu-test.sh build puts it there) and devbin/amgx/ the
# AMGX archive's parts (amgx-2.5.0-sm90.tar.xz.part-aa, -ab and, if present, .sha256, copied
# from ../shared/peers/amgx/). The archive is unpacked once to /tmp/amgx, bench/amgx/amgx_bench.c
# compiled against it, and for every NE:
#   1. blockamg gen writes ex56 (matrix, right-hand side, coordinates) to /tmp/exNE/
#   2. amgx_bench runs every configuration in bench/amgx/configs/ (each under timeout
#      $AMGX_TIMEOUT s, default 60) with $STEPS recurring steps (default 3)
#   3. the best configuration that converged (smallest first set-up + first solve) is put
#      next to blockamg solve --gpu on the same files (--coords for the rigid-body modes) and
#      on the built-in problem with the options of the project's GPU benchmark
# Logs and JSON go to $OUT (default out/amgx): one file per run, summary.txt at the end.
# Environment: STEPS, AMGX_TIMEOUT, CONFIGS (space-separated config names, default all),
# AMGX_EXTRA (more amgx_bench flags, e.g. --no-pin), OURS_FILE_EXTRA (more flags for the
# blockamg run on the files).
set -uo pipefail
cd "$(dirname "$0")/../.."

nes=("$@")
[ ${#nes[@]} -eq 0 ] && nes=(64 100)
steps=${STEPS:-3}
amgx_timeout=${AMGX_TIMEOUT:-60}
out=${OUT:-out/amgx}
mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
exec > >(tee "$out/run.log") 2>&1
say() { echo "$@" | tee -a "$summary"; }
t_start=$(date +%s)

blockamg=devbin/blockamg
lib=/tmp/amgx
bench=/tmp/amgx/amgx_bench
[ -x "$blockamg" ] || { echo "run.sh: $blockamg missing (scripts/gpu-test.sh build)"; exit 1; }
command -v python3 >/dev/null || { echo "run.sh: python3 is needed for the tables"; exit 1; }

# --- AMGX: unpack once, compile the driver ------------------------------------------------
if [ ! -f "$lib/libamgxsh.so" ]; then
	parts=(devbin/amgx/amgx-2.5.0-sm90.tar.xz.part-*)
	[ -f "${parts[0]}" ] || { echo "run.sh: no AMGX archive parts in devbin/amgx/"; exit 1; }
	if [ -f devbin/amgx/amgx-2.5.0-sm90.tar.xz.sha256 ]; then
		want=$(awk '{print $1}' devbin/amgx/amgx-2.5.0-sm90.tar.xz.sha256)
		got=$(cat "${parts[@]}" | sha256sum | awk '{print $1}')
		[ "$want" = "$got" ] || { echo "run.sh: AMGX archive checksum $got, expected $want"; exit 1; }
	fi
	mkdir -p "$lib"
	cat "${parts[@]}" | xz -d | tar x -C "$lib" || { echo "run.sh: unpacking AMGX failed"; exit 1; }
fi
# AMGX needs CUDA 13's cuBLAS, cuSPARSE and cuSOLVER: from the loader's cache, or the first
# CUDA folder that has them.
cudalib=""
if ! ldconfig -p 2>/dev/null | grep -q 'libcublas\.so\.13'; then
	for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-13*/lib64 /usr/lib/x86_64-linux-gnu; do
		if [ -e "$d/libcublas.so.13" ]; then cudalib=$d; break; fi
	done
	[ -n "$cudalib" ] || cudalib=$(dirname "$(find / -xdev -name 'libcublas.so.13' 2>/dev/null | head -1)" 2>/dev/null)
fi
linkdirs="-Wl,-rpath,$lib"
[ -n "$cudalib" ] && linkdirs="$linkdirs -Wl,-rpath,$cudalib -Wl,-rpath-link,$cudalib"
cflags="-O2 -Wall -Wextra"
if ! gcc $cflags -fopenmp bench/amgx/amgx_bench.c -I"$lib/include" -L"$lib" -lamgxsh $linkdirs -lm -o "$bench" 2>"$out/build.log"; then
	echo "run.sh: build with -fopenmp failed (see $out/build.log), building without"
	gcc $cflags bench/amgx/amgx_bench.c -I"$lib/include" -L"$lib" -lamgxsh $linkdirs -lm -o "$bench" 2>>"$out/build.log" ||
		{ cat "$out/build.log"; echo "run.sh: build failed"; exit 1; }
fi
[ -s "$out/build.log" ] && { echo "run.sh: compiler messages:"; cat "$out/build.log"; }
if ldd "$bench" | grep -q 'not found'; then
	ldd "$bench"
	echo "run.sh: libraries missing for amgx_bench"
	exit 1
fi
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}

configs=()
if [ -n "${CONFIGS:-}" ]; then
	for c in $CONFIGS; do configs+=("bench/amgx/configs/$c.json"); done
else
	configs=(bench/amgx/configs/*.json)
fi

say "AMGX 2.5.0 (sm_90) vs blockamg solve --gpu; ex56, PCG from x0 = 0 to rtol 1e-8, $steps recurring steps"
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
status=0

read -r -a mesh_flags <<<"${MESH_FLAGS:---fix fixed --traction load:0,0,-1}"
for ne in "${nes[@]}"; do
	# ne is ex56's size or a mesh file; label names the files and the tables.
	if [[ $ne == *.msh ]]; then
		problem=(--mesh "$ne" "${mesh_flags[@]}")
		ne=$(basename "$ne" .msh)
	else
		problem=(--ne "$ne")
	fi
	dir=/tmp/ex$ne
	mkdir -p "$dir"
	if [ ! -s "$dir/A.petsc" ] || [ ! -s "$dir/b.petsc" ] || [ ! -s "$dir/x.mtx" ]; then
		t0=$SECONDS
		"$blockamg" gen -q "${problem[@]}" -o "$dir/A.petsc" --rhs "$dir/b.petsc" --coords "$dir/x.mtx" >"$out/gen_ne$ne.log" 2>&1 ||
			{ cat "$out/gen_ne$ne.log"; echo "run.sh: gen ${problem[*]} failed"; status=1; continue; }
		echo "gen: $(cat "$out/gen_ne$ne.log") ($((SECONDS - t0)) s)"
	fi

	# --- AMGX, every configuration --------------------------------------------------------
	for cfg in "${configs[@]}"; do
		name=$(basename "$cfg" .json)
		log="$out/amgx_ne${ne}_$name"
		t0=$(date +%s)
		timeout "$amgx_timeout" "$bench" --matrix "$dir/A.petsc" --rhs "$dir/b.petsc" --config "$cfg" \
			--tol 1e-8 --maxit 1000 --steps "$steps" ${AMGX_EXTRA:-} >"$log.out" 2>"$log.err"
		rc=$?
		echo "rc=$rc wall_s=$(($(date +%s) - t0))" >>"$log.out"
		grep '^amgx ' "$log.out" | grep -v '^amgx json' | sed "s/^/ne=$ne $name: /"
		[ $rc -eq 124 ] && echo "ne=$ne $name: timed out after $amgx_timeout s"
		[ $rc -ne 0 ] && [ $rc -ne 124 ] && { echo "ne=$ne $name: exit $rc; last stderr lines:"; tail -n 5 "$log.err"; }
	done

	# --- blockamg on the same files, and on the built-in problem --------------------------
	"$blockamg" solve --gpu --matrix "$dir/A.petsc" --rhs "$dir/b.petsc" --block-size 3 --coords "$dir/x.mtx" \
		--steps "$steps" --json ${OURS_FILE_EXTRA:-} >"$out/ours_file_ne$ne.json" 2>"$out/ours_file_ne$ne.err" ||
		{ echo "ne=$ne: blockamg solve --gpu --matrix failed:"; tail -n 5 "$out/ours_file_ne$ne.err"; status=1; }
	"$blockamg" solve --gpu "${problem[@]}" --steps "$steps" --threshold -0.01 --coarse-eq-limit 200 \
		--cheb-esteig 0,0.2,0,1.05 --json >"$out/ours_builtin_ne$ne.json" 2>"$out/ours_builtin_ne$ne.err" ||
		{ echo "ne=$ne: blockamg solve --gpu ${problem[*]} failed:"; tail -n 5 "$out/ours_builtin_ne$ne.err"; status=1; }

	python3 - "$ne" "$out" "$steps" <<'PY' | tee -a "$summary"
import glob, json, os, statistics, sys
ne, out, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])

def med(v):
    return statistics.median(v) if v else float('nan')

# AMGX: every configuration's JSON line; the best one that converged everywhere.
runs = []
for path in sorted(glob.glob(os.path.join(out, 'amgx_ne%s_*.out' % ne))):
    name = os.path.basename(path)[len('amgx_ne%s_' % ne):-len('.out')]
    rc, js = None, None
    for line in open(path):
        if line.startswith('amgx json '):
            js = json.loads(line[len('amgx json '):])
        if line.startswith('rc='):
            rc = int(line.split()[0][3:])
    runs.append((name, rc, js))
print('\nne=%s: AMGX configurations (seconds; ok = converged to 1e-8, host-checked, every step)' % ne)
print('%-18s %4s %8s %8s %8s %6s %10s %10s %6s' % ('config', 'rc', 'upload', 'setup', 'solve', 'its', 'relres', 'step(med)', 'ok'))
best = None
for name, rc, js in runs:
    if js is None:
        print('%-18s %4s %8s' % (name, rc, 'no result'))
        continue
    st = [s['replace_s'] + s['resetup_s'] + s['solve_s'] for s in js['steps']]
    ok = rc == 0 and js['ok'] and len(js['steps']) == steps
    print('%-18s %4s %8.4f %8.4f %8.4f %6d %10.2e %10.4f %6s' % (name, rc, js['upload_s'], js['setup_s'], js['solve_s'],
          js['iterations'], js['relres'], med(st), 'yes' if ok else 'no'))
    if ok and (best is None or js['setup_s'] + js['solve_s'] < best[1]['setup_s'] + best[1]['solve_s']):
        best = (name, js)

def ours(kind):
    path = os.path.join(out, 'ours_%s_ne%s.json' % (kind, ne))
    try:
        return json.load(open(path))
    except Exception:
        return None

def num(v):
    return float('nan') if v is None else v

def ours_row(r):
    if r is None:
        return None
    if r.get('error'):
        print('ours: %s' % r['error'])
    fd = r.get('first_device_setup_seconds', 0.0)
    st = r.get('steps') or []
    up, su = r.get('upload_seconds', 0.0) - fd, r['setup_seconds'] + fd
    if r.get('device_setup'):
        # Set up on the device: setup_seconds is the whole set-up there (its numeric
        # part included), upload_seconds the upload of A and B.
        up, su = r.get('upload_seconds', 0.0), r['setup_seconds']
    return {
        'upload': up,
        'setup': su,
        'solve': r['solve_seconds'],
        'pcg': r.get('pcg_seconds', float('nan')),
        'its': r['iterations'],
        'relres': num(r.get('relative_residual')),
        'values': med([s['assembly_seconds'] for s in st]),
        'resetup': med([s['setup_seconds'] for s in st]),
        'ssolve': med([s['solve_seconds'] for s in st]),
        'sits': med([s['iterations'] for s in st]),
        'step': med([s['assembly_seconds'] + s['setup_seconds'] + s['solve_seconds'] for s in st]),
    }

a = None
if best:
    js = best[1]
    st = js['steps']
    a = {
        'upload': js['upload_s'], 'setup': js['setup_s'], 'solve': js['solve_s'], 'pcg': js['pcg_s'],
        'its': js['iterations'], 'relres': js['relres'],
        'values': med([s['replace_s'] for s in st]), 'resetup': med([s['resetup_s'] for s in st]),
        'ssolve': med([s['solve_s'] for s in st]), 'sits': med([s['iterations'] for s in st]),
        'step': med([s['replace_s'] + s['resetup_s'] + s['solve_s'] for s in st]),
    }
f, b = ours_row(ours('file')), ours_row(ours('builtin'))
for r in (a, f, b):
    if r:
        r['first'] = r['upload'] + r['setup'] + r['solve']

rows = [
    ('upload', 'upload'),
    ('first set-up', 'setup'),
    ('first solve', 'solve'),
    ('  PCG alone', 'pcg'),
    ('iterations', 'its'),
    ('relative residual', 'relres'),
    ('upload+set-up+solve', 'first'),
    ('step: new values', 'values'),
    ('step: re-setup', 'resetup'),
    ('step: solve', 'ssolve'),
    ('step: iterations', 'sits'),
    ('recurring step', 'step'),
]
print('\nne=%s: AMGX (%s) vs blockamg --gpu; seconds, steps are medians over %d' % (ne, best[0] if best else 'no configuration converged', steps))
print('%-22s %12s %12s %12s %10s %10s' % ('', 'AMGX', 'ours (file)', 'ours (asm)', 'AMGX/file', 'AMGX/asm'))
def cell(r, k):
    if r is None:
        return '%12s' % '-'
    v = r[k]
    if k in ('its', 'sits'):
        return '%12g' % v
    if k == 'relres':
        return '%12.2e' % v
    return '%12.4f' % v
def ratio(x, y, k):
    if x is None or y is None or k == 'relres' or not y[k]:
        return '%10s' % '-'
    return '%10.2f' % (x[k] / y[k])
for label, k in rows:
    print('%-22s %s %s %s %s %s' % (label, cell(a, k), cell(f, k), cell(b, k), ratio(a, f, k), ratio(a, b, k)))
print('AMGX: upload = AMGX_matrix_upload_all; set-up = AMGX_solver_setup; solve = b upload + solve + x download;')
print('      new values = AMGX_matrix_replace_coefficients (host values x (1+k/10), uploaded); re-setup = AMGX_solver_resetup.')
print('ours: upload = A and B (set-up on the device) or, with --host-setup, the hierarchy patterns and plans;')
print('      set-up = the set-up on the device, or host set-up + first device numeric set-up; new values = device scaling (file)')
print('      or device assembly (asm: ex56 with a changed soft-sphere modulus, or the mesh with a changed first group modulus); re-setup = device re-setup.')
if not best or f is None or b is None:
    sys.exit(1)
PY
	[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done

say ""
say "run.sh: $(($(date +%s) - t_start)) s in all; logs in $out"
exit $status
