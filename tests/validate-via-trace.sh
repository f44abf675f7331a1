#!/bin/sh
# validate-via-trace.sh - `hipsim validate --via-trace` end to end without a
# GPU: record a run with `hipsim record` (a real session daemon), replay its
# trace on the simulator, compare.
#
# 1. --measure-on sim, all four workloads: the recorded run and the replay
#    are the simulator with the same profile, so memory is identical in all
#    three columns and the time error is +0.0 % (exit 0, JSON says so).
# 2. backend hip over the fake runtime (tests/fake_cudart.c), training: the
#    HIP backend times every kernel (HIPCORE_TIME_KERNELS=1, the fake says
#    0.25 ms each), the kept trace holds one hipcore:kernel_time per launch,
#    and the replay, with a profile of the fake's memory and alignment,
#    gives the memory figures of the untraced and the recorded run.
# Skips (77) without lttng-sessiond or babeltrace2, or --without-lttng.
set -u
b=${top_builddir:-.}
src=${top_srcdir:-.}
hipsim="$b/tools/hipsim/hipsim"
module="$(cd "$b" && pwd)/.libs/libhipcore-lttng.so"
fake="$(cd "$b" && pwd)/tests/.libs/fake_cudart.so"
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

grep -q '^#define HIPCORE_WITH_LTTNG 1' "$b/config.h" || skip "built --without-lttng"
command -v lttng-sessiond >/dev/null 2>&1 || skip "lttng-sessiond not installed"
command -v babeltrace2 >/dev/null 2>&1 || skip "babeltrace2 not installed"
[ -f "$module" ] || fail "probe module $module not built"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-vt.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

"$hipsim" validate --measure-on sim --via-trace --provider "$module" --steps 12 --repeats 1 \
	--json >"$tmp/v.json" 2>"$tmp/err" || fail "validate --via-trace on sim: exit $?: $(cat "$tmp/err")"
[ "$(grep -c '"memory_identical": true' "$tmp/v.json")" -eq 4 ] ||
	fail "memory not identical on all four: $(cat "$tmp/v.json")"
[ "$(grep -c '"total_time_error_pct": 0.0,\?$' "$tmp/v.json")" -eq 4 ] ||
	fail "time error not 0.0 on all four: $(grep time_error "$tmp/v.json")"
[ "$(grep -c '"via_trace": true' "$tmp/v.json")" -eq 4 ] || fail "not four via-trace results"
echo "ok: four workloads via their traces on the simulator, exact"

if [ -f "$fake" ] && grep -q '^#define HIPCORE_WITH_HIP 1' "$b/config.h"; then
	sed -e 's/^total_memory = .*/total_memory = 80 GiB/' -e 's/^alignment = .*/alignment = 1024/' \
		"$src/profiles/h200.profile" >"$tmp/fake.profile"
	HIPCORE_HIP_LIBRARY=$fake "$hipsim" validate --via-trace --provider "$module" \
		--profile "$tmp/fake.profile" --workload training --steps 16 --repeats 1 \
		--keep-traces "$tmp/kept" >"$tmp/v.txt" 2>"$tmp/err" ||
		fail "validate --via-trace on the fake: exit $?: $(cat "$tmp/v.txt" "$tmp/err")"
	grep -q 'overall: memory exact' "$tmp/v.txt" || fail "fake: memory differs: $(cat "$tmp/v.txt")"
	launches=$(sed -n 's/^  launches *\([0-9]*\) .*/\1/p' "$tmp/v.txt")
	timed=$(babeltrace2 "$tmp/kept/trace-training" | grep -c ' hipcore:kernel_time: ')
	[ -n "$launches" ] && [ "$timed" -eq "$launches" ] ||
		fail "fake: $timed kernel_time events for ${launches:-?} launches"
	[ -s "$tmp/kept/training-recorded.json" ] && [ -s "$tmp/kept/training-replayed.json" ] ||
		fail "fake: reports not kept"
	echo "ok: training on the fake GPU, $timed launches timed, memory identical"
fi
echo "validate-via-trace.sh: ok"
