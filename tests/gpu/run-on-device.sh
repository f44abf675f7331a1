#!/bin/sh
# run-on-device.sh - the GPU suite and the GPU benchmarks, ON the GPU
# machine, from what tests/gpu/make-carry.sh gathered (run from the
# repository root there):
#
#   tests/gpu/run-on-device.sh [CARRY_DIR [PROGRAM...]]
#
# CARRY_DIR defaults to _carry/gpu (git-ignored: name it in the device
# tool's carry).  PROGRAM picks some of the six (all by default), to split
# the run over several device calls of at most 10 minutes each;
# HC_GPU_TIMEOUT (seconds, default 240) bounds each program.
#
# It puts the carried libraries (CARRY_DIR/lib, and CARRY_DIR/debs/*.deb
# unpacked under /opt/carry when present) and the CUDA runtime's directory
# on LD_LIBRARY_PATH, compiles kernels.cu to PTX with nvcc, then runs
# check_hip_gpu (virtual memory included), check_api_gpu, bench_hip_gpu,
# bench_api_gpu, bench_write_gpu and bench_vmm_gpu (virtual memory against
# cudaMalloc).  Each program's output goes to $OUT/<name>.out (OUT
# defaults to a fresh directory under /tmp), the JSON lines of the benches
# also to $OUT/bench.jsonl, and one line per program to $OUT/summary.
# Exit status: 0 when both checks passed (or skipped with 77), else 1.
set -u
carry=${1:-_carry/gpu}
test $# -gt 0 && shift
progs=${*:-check_hip_gpu check_api_gpu bench_hip_gpu bench_api_gpu bench_write_gpu bench_vmm_gpu}
out=${OUT:-$(mktemp -d /tmp/hc-gpu.XXXXXX)}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
per_prog=${HC_GPU_TIMEOUT:-240}

test -d "$carry/bin" || { echo "run-on-device: no $carry/bin (run tests/gpu/make-carry.sh here first)" >&2; exit 2; }
mkdir -p "$out"
carry=$(cd "$carry" && pwd)

ld="$carry/lib"
if ls "$carry"/debs/*.deb >/dev/null 2>&1; then
	for f in "$carry"/debs/*.deb; do dpkg -x "$f" /opt/carry; done
	ld="$ld:/opt/carry/usr/lib/x86_64-linux-gnu:/opt/carry/lib/x86_64-linux-gnu"
fi
for d in /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/lib64; do
	test -d "$d" && ld="$ld:$d"
done
LD_LIBRARY_PATH="$ld${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

ptx="$out/kernels.ptx"
if test -x "$nvcc" || command -v "$nvcc" >/dev/null 2>&1; then
	"$nvcc" -ptx -arch=compute_80 -o "$ptx" "$carry/kernels.cu" >"$out/nvcc.out" 2>&1 ||
		echo "run-on-device: nvcc failed, see $out/nvcc.out" >&2
fi
if ! test -s "$ptx" && test -s "$carry/kernels.ptx"; then
	cp "$carry/kernels.ptx" "$ptx"
fi
if test -s "$ptx"; then
	HC_GPU_PTX=$ptx
	export HC_GPU_PTX
else
	echo "run-on-device: no PTX: the kernel cases will not run" >&2
fi

: >"$out/summary"
: >"$out/bench.jsonl"
status=0
for p in $progs; do
	test -x "$carry/bin/$p" || { echo "$p missing from $carry/bin" >>"$out/summary"; status=1; continue; }
	echo "== $p" >&2
	timeout "$per_prog" "$carry/bin/$p" >"$out/$p.out" 2>"$out/$p.err"
	rc=$?
	cat "$out/$p.out" "$out/$p.err" >&2
	case $p in
	check_*)
		case $rc in
		0) verdict=pass ;;
		77) verdict=skip ;;
		*) verdict=FAIL; status=1 ;;
		esac ;;
	*)
		grep '^{' "$out/$p.out" >>"$out/bench.jsonl"
		if test $rc -ne 0; then verdict=FAIL; status=1
		elif grep -q SKIP "$out/$p.err"; then verdict=skip
		else verdict=ran; fi ;;
	esac
	echo "$p rc=$rc $verdict $(grep -hE '^(PASS|FAIL|SKIP)|SKIP:' "$out/$p.out" "$out/$p.err" | tail -1 | cut -c1-200)" >>"$out/summary"
done
echo "== summary ($out)" >&2
cat "$out/summary" >&2
exit $status
