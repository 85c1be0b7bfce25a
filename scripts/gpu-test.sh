#!/usr/bin/env bash
# GPU test driver, in two halves because the GPU machine has no Go toolchain:
#
#   scripts/gpu-test.sh build   here: CGO_ENABLED=0 test binaries, the CLI (blockamg) and
#                               the benchmark command (blockamg-bench) into devbin/
#   scripts/gpu-test.sh run     there (repo root, devbin/ carried): gpu-info, the GPU test
#                               suites (the front door's GPU tests among them),
#                               compute-sanitizer memcheck on the conformance
#                               suite, and the SpMV bandwidth report (ne=100)
#
# run writes its logs to $OUT (or ./out when OUT is unset): all.log (every step),
# memcheck.log, perf.log and summary.txt, and ends by printing the summary.
# Environment for run: PERF=0 skips the bandwidth report, SANITIZE=0 skips memcheck,
# PERF_NE sets the report's size (default 100; the test flag -cuda.perf-ne), PROFILE=1
# adds the SASS of the 3×3 SpMV kernels (sass.txt) and an Nsight Compute profile of one
# of them (ncu.log).
set -uo pipefail
cd "$(dirname "$0")/.."

build() {
	set -e
	mkdir -p devbin
	export CGO_ENABLED=0
	go test -c -o devbin/cuda.test ./backend/cuda
	go test -c -o devbin/cudafem.test ./fem/cudafem
	go test -c -o devbin/cusparsebench.test ./backend/cuda/cusparsebench
	go test -c -o devbin/cpu.test ./backend/cpu
	go test -c -o devbin/cudadrv.test ./internal/cudadrv
	go test -c -o devbin/cycle.test ./amg/cycle
	go test -c -o devbin/blockamg-bench.test ./cmd/blockamg-bench
	go test -c -o devbin/blockamg.test .
	go test -c -o devbin/cli.test ./cmd/blockamg
	go build -o devbin/blockamg ./cmd/blockamg
	go build -o devbin/blockamg-bench ./cmd/blockamg-bench
	ls -l devbin
}

run() {
	local out=${OUT:-out}
	mkdir -p "$out"
	local summary="$out/summary.txt"
	: >"$summary"
	local all="$out/all.log"
	: >"$all"
	step() { # step NAME TIMEOUT CMD...: run with a time limit, log, record the status
		local name=$1 limit=$2 log="$out/all.log"
		shift 2
		case $name in memcheck | perf | ncu) log="$out/$name.log" ;; esac
		echo "=== $name: $*" | tee -a "$all"
		local t0=$SECONDS
		timeout "$limit" "$@" 2>&1 | tee -a "$log"
		local rc=${PIPESTATUS[0]}
		echo "$name: exit $rc ($((SECONDS - t0)) s)" | tee -a "$summary"
	}
	{
		nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
		ldconfig -p | grep -E 'libcuda\.so|libnvrtc'
	} 2>&1 | tee -a "$all"
	# Ordered by importance. gpu-info-cold starts on an empty kernel cache: its
	# "kernels:" line is the cold start's compile time.
	local cold
	cold=$(mktemp -d)
	step gpu-info-cold 60 env XDG_CACHE_HOME="$cold" devbin/blockamg gpu-info
	rm -rf "$cold"
	step gpu-info 60 devbin/blockamg gpu-info
	step cudadrv 60 devbin/cudadrv.test -test.v
	step cuda 150 devbin/cuda.test -test.v -test.run 'Conformance|MatchesCPU|Counters|KernelCache|KernelLookup|KernelsCompile|Generators'
	step cudafem 30 devbin/cudafem.test -test.v -test.run 'MatchesCPU'
	step solver 60 devbin/blockamg.test -test.v -test.run 'GPU'
	step cli 120 devbin/cli.test -test.v -test.run 'GPU|BackendEngine'
	if [ "${PERF:-1}" != 0 ]; then
		step perf 200 devbin/cuda.test -test.v -test.run 'PerfReport' -cuda.perf -cuda.perf-ne "${PERF_NE:-100}"
		grep -E 'copy bandwidth|%' "$out/perf.log" | sed 's/^ *perf_test.go:[0-9]*: //' >>"$summary"
	fi
	if [ "${SANITIZE:-1}" != 0 ]; then
		step memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 3 devbin/cuda.test -test.run 'Conformance'
		grep -E 'ERROR SUMMARY' "$out/memcheck.log" | tail -1 | tee -a "$summary"
	fi
	step cuda-debug 60 env BLOCKAMG_CUDA_DEBUG=1 devbin/cuda.test -test.run 'Conformance'
	step cpu 30 devbin/cpu.test
	if [ "${PROFILE:-0}" = 1 ]; then
		local cubin
		cubin=$(ls -t "${HOME:-/root}"/.cache/blockamg/kernels-bsr-*.cubin | head -1)
		{
			cuobjdump -res-usage "$cubin" | grep -A1 -E 'spmv_3x3'
			cuobjdump -sass "$cubin" | awk '/Function : bsr_spmv_3x3_r16_u2$/,/EXIT/'
		} >"$out/sass.txt" 2>&1
		step ncu 150 ncu --clock-control none -k regex:"${NCU_KERNEL:-bsr_spmv_3x3_r16_u2$}" -c 1 \
			--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
			devbin/cuda.test -test.run PerfReport -cuda.perf -cuda.perf-ne "${PERF_NE:-100}"
	fi
	echo "==== summary"
	cat "$summary"
	! grep -q 'exit [1-9]' "$summary"
}

# pipeline: the device-resident recurring phase and the kernels it uses: resident
# hierarchy vs amg.Update, assembly, filtering, cuSPARSE baseline tests, memcheck on
# the small pipeline, then solve --gpu at NE (default 100) with STEPS recurring steps
# next to the CPU run; ONLY picks steps among resident kernels memcheck gpu cpu big
# (ne = 160 end to end) galerkin (blockamg-bench galerkin-gpu at GNE, default 64, and
# the benchmark command's GPU tests).
pipeline() {
	local out=${OUT:-out}
	mkdir -p "$out"
	local summary="$out/summary.txt"
	: >"$summary"
	step() {
		local name=$1 limit=$2
		shift 2
		echo "=== $name: $*" | tee -a "$out/all.log"
		local t0=$SECONDS
		timeout "$limit" "$@" >"$out/$name.log" 2>&1
		local rc=$?
		tail -n "${TAILN:-25}" "$out/$name.log"
		echo "$name: exit $rc ($((SECONDS - t0)) s)" | tee -a "$summary"
	}
	local ne=${NE:-100} steps=${STEPS:-3}
	local flags="--threshold -0.01 --coarse-eq-limit 200 --cheb-esteig 0,0.2,0,1.05"
	want() { case " ${ONLY:-resident kernels memcheck gpu cpu} " in *" $1 "*) return 0 ;; esac; return 1; }
	want resident && step resident 120 devbin/cycle.test -test.v -test.count=1
	want kernels && step kernels 200 devbin/cuda.test -test.v -test.run 'Assembly|Filter|Conformance|SpMVMatchesCPU|GalerkinEx56|GalerkinRandom|InvertBlockDiag|SmoothPlan|Scan|StartUpload|PCGMatchesCPU'
	want kernels && step assembly 60 devbin/cudafem.test -test.v -test.run 'Assembly'
	want kernels && step cusparse-baseline 60 devbin/cusparsebench.test -test.v -test.run 'Cusparse|ExpandCSR32|CompareCSR32'
	want kernels && step cusparse 60 devbin/cudadrv.test -test.v -test.run 'Cusparse'
	want memcheck && step memcheck 200 compute-sanitizer --tool memcheck --error-exitcode 3 devbin/cycle.test -test.run 'Resident' -test.count=1
	want memcheck && step memcheck-solve 120 compute-sanitizer --tool memcheck --error-exitcode 3 devbin/blockamg solve --gpu --ne 6 --steps 2
	want gpu && step gpu$ne 240 devbin/blockamg solve --gpu --ne "$ne" --steps "$steps" $flags ${EXTRA:-}
	want cpu && step cpu$ne 240 devbin/blockamg solve --ne "$ne" --steps 1 $flags ${EXTRA:-}
	want big && step gpu160 300 devbin/blockamg solve --gpu --ne 160 --steps 1 $flags ${EXTRA:-}
	want galerkin && step "galerkin${GNE:-64}" 300 devbin/blockamg-bench galerkin-gpu --ne "${GNE:-64}" --runs 10
	want galerkin && step bench-tests 120 devbin/blockamg-bench.test -test.v -test.run 'GalerkinGPU'
	echo "==== summary"
	cat "$summary"
}

case "${1:-}" in
build) build ;;
pipeline) pipeline ;;
run) run ;;
*)
	echo "usage: $0 build|run|pipeline" >&2
	exit 2
	;;
esac
