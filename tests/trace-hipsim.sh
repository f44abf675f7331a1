#!/bin/sh
# trace-hipsim.sh - records `hipsim run` with `hipsim record` and a real
# session daemon, then checks the trace with the babeltrace2 CLI against
# what the workload did: the service workload with N steps on S streams
# makes exactly 2N+1 allocations and frees, N+1 writes, N reads, N launches,
# S stream opens and S syncs; every freed and written buffer id was
# allocated first, every call event has status 0, and the number of public
# call events equals the report's event count.
# Skips (77) without lttng-sessiond/babeltrace2 or in a --without-lttng build.
set -u
b=${top_builddir:-.}
hipsim="$b/tools/hipsim/hipsim"
module="$b/.libs/libhipcore-lttng.so"
steps=40
streams=4

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

grep -q '^#define HIPCORE_WITH_LTTNG 1' "$b/config.h" || skip "built --without-lttng"
command -v lttng-sessiond >/dev/null 2>&1 || skip "lttng-sessiond not installed"
command -v babeltrace2 >/dev/null 2>&1 || skip "babeltrace2 not installed"
[ -f "$module" ] || fail "probe module $module not built"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-hipsim.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

"$hipsim" record -o "$tmp/trace" --provider "$module" -- \
	"$hipsim" run --workload service --steps $steps --streams $streams --json \
	>"$tmp/run.json" 2>"$tmp/err" || { cat "$tmp/err"; fail "hipsim record exited $?"; }
cat "$tmp/err"
grep -q ', 0 discarded' "$tmp/err" || fail "events were discarded"
babeltrace2 "$tmp/trace" >"$tmp/text" 2>"$tmp/bt.err" || { cat "$tmp/bt.err"; fail "babeltrace2 failed"; }

count() { grep -c " hipcore:$1: " "$tmp/text"; }
expect() { # expect EVENT N
	n=$(count "$1")
	[ "$n" -eq "$2" ] || fail "hipcore:$1: $n events, expected $2"
	echo "ok: hipcore:$1 x $n"
}
expect alloc $((2 * steps + 1))
expect free $((2 * steps + 1))
expect write $((steps + 1))
expect read $steps
expect launch $steps
expect stream_open $streams
expect sync $streams
expect kernel_load 1
expect device_open 1
expect device_close 1

# Every call succeeded.
bad=$(grep -E ' hipcore:(alloc|free|write|read|launch|sync|stream_open): ' "$tmp/text" |
	grep -vc 'status = 0,')
[ "$bad" -eq 0 ] || fail "$bad call events with a non-zero status"

# Buffer ids: each freed or written buffer was allocated before.
awk '
	/ hipcore:alloc: / { if (match($0, /buffer = [0-9]+/)) live[substr($0, RSTART + 9, RLENGTH - 9)] = 1 }
	/ hipcore:(free|write): / {
		if (match($0, /buffer = [0-9]+/)) {
			id = substr($0, RSTART + 9, RLENGTH - 9)
			if (!(id in live)) { print "unknown buffer " id ": " $0; bad = 1 }
		}
	}
	END { exit bad }' "$tmp/text" || fail "an event names a buffer never allocated"

# The report counted the same public calls the trace holds.
events=$(sed -n 's/^ *"events": \([0-9]*\),*$/\1/p' "$tmp/run.json")
calls=$(grep -cE ' hipcore:(alloc|free|write|read|launch|sync|stream_open|kernel_load): ' "$tmp/text")
[ "$events" = "$calls" ] || fail "report has $events events, trace has $calls call events"
echo "ok: $calls call events, as the report says"
echo "PASS"
