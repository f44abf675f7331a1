#!/bin/sh
# tests/fuzz/run.sh SECONDS [BUILD-DIR] [TARGET...] - run each fuzz target.
#
# Each target starts from its seed corpus tests/fuzz/corpus/<target>/
# (copied to BUILD-DIR/fuzz/work/<target>/, which keeps what the run adds)
# and runs for SECONDS.  A target passes when libFuzzer exits 0.  Prints one
# line per target: "fuzz_<t>: PASS|FAIL execs=N cov=N ft=N corpus=N", the
# last line "N passed, N failed, 0 skipped"; logs are
# BUILD-DIR/fuzz/fuzz_<t>.log, crash inputs BUILD-DIR/fuzz/crash-*.
# FUZZ_TIMEOUT (seconds, default 25): the per-input limit; raise it for long
# runs at low priority on a busy machine, where starvation reads as a timeout.
#
# fuzz_ctf only: its inputs are decoded by libbabeltrace2 before read_ctf.c
# sees them, and Debian's libbabeltrace2 2.0 has bugs of its own on
# malformed streams (huge allocations from a length field, assertion aborts,
# a NULL dereference in bt_field_array_borrow_element_field_by_index).  The
# target runs in fork mode with -ignore_ooms=1, and a crash whose innermost
# project-independent frame is in libbabeltrace2, its plugins or glib (and
# that is not a libbabeltrace2 precondition failure, which would be this
# project's misuse of its API) is set aside in BUILD-DIR/fuzz/upstream/ and
# the run goes on for the time left; any other crash fails the target.
# fuzz_ctf_decode builds its messages in memory (no CTF bytes, no parsing in
# libbabeltrace2) and runs in normal mode like the others.  fuzz_replay
# reads CTF as hipsim does, in a child process under decoder limits, so
# libbabeltrace2's crashes, hangs and blow-ups are read errors there, and it
# runs in normal mode too.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-30}
b=$(cd "${2:-$src/_build/fuzz}" && pwd)
[ $# -ge 2 ] && shift 2 || shift $#
targets=${*:-"profile rmm layout layout_file ctf ctf_decode api replay"}
pass=0 fail=0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export LSAN_OPTIONS=suppressions=$src/tests/fuzz/lsan.supp

# upstream_crash LOG: whether the crash in LOG is libbabeltrace2's own.
upstream_crash() {
	grep -q 'precondition not satisfied' "$1" && return 1
	frame=$(grep -v 'PLUGIN/' "$1" | sed -n '/ERROR: \(AddressSanitizer\|libFuzzer\|UndefinedBehavior\)/,$p' |
		grep -E '^ *#[0-9]+ ' |
		grep -vE '__sanitizer|fuzzer::|__asan|__interceptor|__ubsan|libc\.so|/nptl/|/stdlib/|/signal/|/assert/|__GI_|raise|abort|__assert' |
		head -n 1)
	echo "$frame" | grep -qE 'libbabeltrace2\.so|babeltrace-plugin-|libglib-2\.0\.so'
}

for t in $targets; do
	bin=$b/fuzz/fuzz_$t
	work=$b/fuzz/work/$t
	log=$b/fuzz/fuzz_$t.log
	mkdir -p "$work"
	cp "$src/tests/fuzz/corpus/$t"/* "$work"/ 2>/dev/null
	case "$t" in ctf) mode="-fork=1 -ignore_ooms=1" ;; *) mode="" ;; esac
	: >"$log"
	left=$secs execs=0 upstream=0 res=FAIL
	start=$(date +%s)
	while [ -x "$bin" ] && [ "$left" -gt 0 ]; do
		rm -f "$b"/fuzz/crash-*
		if (cd "$b/fuzz" && "$bin" $mode -max_total_time="$left" -timeout="${FUZZ_TIMEOUT:-25}" \
			-rss_limit_mb=3072 -print_final_stats=1 "$work" >"$log.part" 2>&1); then
			rc=0
		else
			rc=1
		fi
		cat "$log.part" >>"$log"
		n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log.part" | tail -n 1)
		execs=$((execs + ${n:-0}))
		if [ $rc -eq 0 ]; then
			res=PASS
			break
		fi
		if [ "$t" = ctf ] && upstream_crash "$log.part"; then
			upstream=$((upstream + 1))
			mkdir -p "$b/fuzz/upstream"
			mv "$b"/fuzz/crash-* "$b/fuzz/upstream/" 2>/dev/null
			left=$((secs - ($(date +%s) - start)))
			res=PASS
			continue
		fi
		res=FAIL
		break
	done
	rm -f "$log.part"
	if [ "$res" = PASS ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		grep -v 'PLUGIN/' "$log" | grep -E 'ERROR|SUMMARY|runtime error|fuzz_api:|fuzz_ctf_decode:|Test unit written' | head -n 20
	fi
	last=$(grep -E '^#[0-9]+.*cov:' "$log" | tail -n 1)
	cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	extra=""
	[ "$upstream" -gt 0 ] && extra=" upstream_crashes=$upstream"
	echo "fuzz_$t: $res execs=$execs cov=${cov:-0} ft=${ft:-0} corpus=$(ls "$work" | wc -l)$extra"
done
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
