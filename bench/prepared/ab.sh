#!/bin/bash
# ab.sh builds, on the development machine, what one device call needs to check and
# time the prepared patches against the tree they apply to: fem/cudafem's test binary
# for HEAD (devbin/base.test) and for HEAD with each patch (devbin/p1.test, …), packed
# in tmp/devbin.tar.xz, and tmp/ab-device.sh, the script to run there (carry ["tmp"]):
# the whole GPU suite on base and on each patch, compute-sanitizer memcheck and
# racecheck on each patch's TestElasticityGPUMatchesCPU, then the assembly's perf run
# alternated base, p1, …, twice, one line a mesh and kernel.
#
#   bench/prepared/ab.sh bench/prepared/elas-staged-write-ranks.patch
#
# Land a patch only if every check passes and both meshes are faster in both rounds;
# delete the patch from bench/prepared once measured, either way.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
[ $# -ge 1 ] || { echo "usage: bench/prepared/ab.sh PATCH..." >&2; exit 2; }
for p in "$@"; do [ -f "$p" ] || { echo "ab.sh: $p: no such patch" >&2; exit 2; }; done
mkdir -p devbin tmp
rm -f devbin/base.test devbin/p*.test
echo "ab.sh: building base ($(git rev-parse --short HEAD))" >&2
CGO_ENABLED=0 go test -c -o devbin/base.test ./fem/cudafem
names=()
i=0
for p in "$@"; do
	i=$((i + 1))
	wt=$(mktemp -d /tmp/ab-wt.XXXXXX)
	git worktree add -q --detach "$wt" HEAD
	(cd "$wt" && git apply "$root/$p")
	echo "ab.sh: building p$i ($p)" >&2
	(cd "$wt" && CGO_ENABLED=0 go test -c -o "$root/devbin/p$i.test" ./fem/cudafem)
	git worktree remove --force "$wt"
	names+=("p$i")
done
tar cf - devbin/base.test $(printf 'devbin/%s.test ' "${names[@]}") | xz -T2 -0 >tmp/devbin.tar.xz
{
	cat <<'HEAD'
#!/bin/bash
# Written by bench/prepared/ab.sh: run on the device machine with carry ["tmp"].
cd "$(dirname "$0")/.."
xz -dc tmp/devbin.tar.xz | tar xf -
export XDG_CACHE_HOME=/tmp/kc
F='s/.*\((6000000|750000) elements.*: (elas_staged[a-z0-9_]*) \(cut for ([0-9]+) KiB, rounds ([01]): ([0-9]+) groups.*: ([0-9.]+) ms median.*floor ([0-9.]+) ms, ([0-9.]+)× it.*/\1 \2 \3KiB r\4 g\5 \6 ms floor \7 \8x/'
HEAD
	echo "bins=\"base ${names[*]}\""
	cat <<'BODY'
for b in $bins; do
  date +%T; echo "== suite $b"; timeout 200 devbin/$b.test -test.v 2>&1 | grep -E "^(--- |ok|PASS|FAIL)|differ|want|panic" | head -40
done
for b in $bins; do
  [ $b = base ] && continue
  date +%T; echo "== memcheck $b"; timeout 150 compute-sanitizer --tool memcheck devbin/$b.test -test.run ElasticityGPUMatchesCPU 2>&1 | tail -2
  date +%T; echo "== racecheck $b"; timeout 150 compute-sanitizer --tool racecheck devbin/$b.test -test.run ElasticityGPUMatchesCPU 2>&1 | tail -2
done
export BLOCKAMG_ELAS_VARIANTS=elas_staged
for i in 1 2; do for b in $bins; do
  date +%T; echo "== perf $b"; timeout 100 devbin/$b.test -test.v -test.run ElasticityGPUPerf -cuda.perf -cuda.perf-ne 100 2>&1 | grep -E "median|FAIL|panic" | sed -E "$F"
done; done
date +%T
BODY
} >tmp/ab-device.sh
chmod +x tmp/ab-device.sh
echo "ab.sh: tmp/devbin.tar.xz ($(du -h tmp/devbin.tar.xz | cut -f1)) and tmp/ab-device.sh ready: run tmp/ab-device.sh with carry [\"tmp\"]" >&2
