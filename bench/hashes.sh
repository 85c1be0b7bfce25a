#!/bin/sh
# hashes.sh [BIN] — the SHA-256 of the solution x that `blockamg solve` writes for
# ex56 ne = 20 and 64 (first solve and after one recurring step) and for every case in
# ../shared/data, one line per case. Two trees that print the same lines compute the
# same bits; run it with the binary of each (default: go run ./cmd/blockamg).
set -eu
cd "$(dirname "$0")/.."
BIN=${1:-}
if [ -z "$BIN" ]; then
	BIN=$(mktemp -d)/blockamg
	go build -o "$BIN" ./cmd/blockamg
fi
D=../shared/data
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
run() { # name, flags...
	name=$1
	shift
	if "$BIN" solve -q --json --solution "$T/x.mtx" "$@" >"$T/out.json"; then
		it=$(grep -m1 '"iterations"' "$T/out.json" | tr -dc 0-9)
		echo "$name iterations=$it x=$(sha256sum "$T/x.mtx" | cut -c1-16)"
	else
		echo "$name FAILED"
	fi
}
run ex56-ne20 --ne 20
run ex56-ne20-step1 --ne 20 --steps 1
run ex56-ne64 --ne 64
run ex56-ne20-f32 --ne 20 --smoother-f32
run ex56-ne20-filter --ne 20 --filter 0.1
[ -d "$D" ] || { echo "no $D: data cases skipped"; exit 0; }
for c in hypre_beam_tet_459 hypre_beam_hex_459; do
	run "$c" --matrix $D/$c/A.mtx --block-size 3 --coords $D/$c/coords.mtx --rhs $D/$c/b.mtx
done
run hypre_elast2d --matrix $D/hypre_elast2d/A.mtx --block-size 2 --nullspace $D/hypre_elast2d/rbm3.mtx
run pyamg_bar --matrix $D/pyamg_bar/A.mtx --block-size 3 --nullspace $D/pyamg_bar/B.mtx
run petsc_ex56_ne9 --matrix $D/petsc_ex56/A_ne9.petsc --block-size 3 --coords $D/petsc_ex56/coords_ne9.mtx --rhs $D/petsc_ex56/b_ne9.petsc
run petsc_ex56_ne11 --matrix $D/petsc_ex56/A_ne11.petsc --block-size 3 --coords $D/petsc_ex56/coords_ne11.mtx --rhs $D/petsc_ex56/b_ne11.petsc
