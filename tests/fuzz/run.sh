#!/bin/sh
# tests/fuzz/run.sh SECONDS [BUILD-DIR] [TARGET...] - run each fuzz target.
#
# Each target starts from its seed corpus tests/fuzz/corpus/<target>/
# (copied to BUILD-DIR/fuzz/work/<target>/, which keeps what the run adds)
# and runs for SECONDS.  A target passes when libFuzzer exits 0.  Prints one
# line per target: "fuzz_<t>: PASS|FAIL execs=N cov=N ft=N", the last line
# "N passed, N failed, 0 skipped"; logs are BUILD-DIR/fuzz/<target>.log,
# crash inputs BUILD-DIR/fuzz/crash-*.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-30}
b=$(cd "${2:-$src/_build/fuzz}" && pwd)
[ $# -ge 2 ] && shift 2 || shift $#
targets=${*:-"profile rmm layout ctf api"}
pass=0 fail=0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export LSAN_OPTIONS=suppressions=$src/tests/fuzz/lsan.supp
for t in $targets; do
	bin=$b/fuzz/fuzz_$t
	work=$b/fuzz/work/$t
	log=$b/fuzz/fuzz_$t.log
	mkdir -p "$work"
	# fuzz_ctf: libbabeltrace2 allocates a dynamic array as long as the
	# (mutated) length field says, up to many GiB; fork mode lets libFuzzer
	# skip those out-of-memory inputs (-ignore_ooms) and still stop on any
	# crash, sanitizer report or leak.
	case "$t" in ctf) mode="-fork=1 -ignore_ooms=1" ;; *) mode="" ;; esac
	cp "$src/tests/fuzz/corpus/$t"/* "$work"/ 2>/dev/null
	if [ -x "$bin" ] && (cd "$b/fuzz" && "$bin" $mode -max_total_time="$secs" -timeout=25 \
		-rss_limit_mb=3072 -print_final_stats=1 "$work" >"$log" 2>&1); then
		res=PASS; pass=$((pass + 1))
	else
		res=FAIL; fail=$((fail + 1))
		grep -E 'ERROR|SUMMARY|runtime error|fuzz_api:|Test unit written' "$log" | head -n 20
	fi
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	last=$(grep -E '^#[0-9]+.*cov:' "$log" | tail -n 1)
	cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	echo "fuzz_$t: $res execs=${execs:-0} cov=${cov:-0} ft=${ft:-0} corpus=$(ls "$work" | wc -l)"
done
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
