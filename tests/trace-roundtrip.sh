#!/bin/sh
# trace-roundtrip.sh - records tests/trace_emit with `hipsim record` (through
# tests/record_driver) and checks the trace with the babeltrace2 CLI: the
# count of every event, some field values, the vpid context, snapshot mode,
# exit status, isolation from another traced process, SIGINT cleanup, and
# that a daemon hipsim record started is gone when it returns (by its pid:
# other users of the machine's one root sessiond may run their own).
# Skips (77) without lttng-sessiond/babeltrace2 or in a --without-lttng build.
set -u
b=${top_builddir:-.}
emit="$b/tests/trace_emit"
driver="$b/tests/record_driver"
module="$b/.libs/libhipcore-lttng.so"
rounds=3
nev=33

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

grep -q '^#define HIPCORE_WITH_LTTNG 1' "$b/config.h" || skip "built --without-lttng"
command -v lttng-sessiond >/dev/null 2>&1 || skip "lttng-sessiond not installed"
command -v lttng >/dev/null 2>&1 || skip "lttng not installed"
command -v babeltrace2 >/dev/null 2>&1 || skip "babeltrace2 not installed"
[ -f "$module" ] || fail "probe module $module not built"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-roundtrip.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
if [ "$(id -u)" = 0 ] && [ -w /run/lock ]; then
	lock=/run/lock/hipsim-record.lock
else
	lock=/tmp/hipsim-record-$(id -u).lock
fi

# A daemon that `hipsim record` started (it says so on stderr) must be gone
# once it returns, unless another hipsim record still holds the daemon lock.
check_daemons() {
	sp=$(sed -n 's/.*started lttng-sessiond (pid \([0-9]*\)).*/\1/p' "$tmp/err")
	[ -n "$sp" ] || return 0
	if kill -0 "$sp" 2>/dev/null && flock -xn "$lock" true; then
		fail "lttng-sessiond $sp left behind"
	fi
}

# 1. normal session, module given with --provider
unset HIPCORE_LTTNG
"$driver" record -o "$tmp/t" --provider "$module" -- "$emit" $rounds >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/err"
[ $rc -eq 0 ] || fail "record exited $rc"
check_daemons
grep -q "trace_emit: $((rounds * nev)) events" "$tmp/out" || fail "command stdout not passed through"
grep -q "hipsim record: $((rounds * nev)) events recorded in .*, 0 discarded" "$tmp/err" ||
	fail "record did not report $((rounds * nev)) events, 0 discarded"

babeltrace2 "$tmp/t" >"$tmp/text" 2>"$tmp/bterr" || fail "babeltrace2 failed: $(cat "$tmp/bterr")"
total=$(grep -c ' hipcore:' "$tmp/text")
[ "$total" -eq $((rounds * nev)) ] || fail "trace has $total events, want $((rounds * nev))"
for ev in call device_open device_close stream_open stream_close alloc free write read \
	kernel_load launch sync graph_prepare graph_begin graph_end graph_replay graph_destroy \
	pool_reserve device_alloc device_free pinned_alloc pinned_free staging dq_push dq_flush \
	dq_host_wait xstream_wait capture cache failure taint stream_adopt buffer_hold; do
	n=$(grep -c " hipcore:$ev: " "$tmp/text")
	[ "$n" -eq $rounds ] || fail "hipcore:$ev recorded $n times, want $rounds"
done
# field values (see trace_emit.c)
for r in 0 1 2; do
	grep -q "hipcore:alloc: .*{ stream = 7, buffer = $((100 + r)), size = $((4096 * (r + 1))), status = 0, host_ns = [1-9]" "$tmp/text" ||
		fail "alloc of round $r missing or wrong"
	grep -q "hipcore:write: .*{ stream = 7, buffer = $((100 + r)), offset = $((8 * r)), size = 512, property = 2, status = 0" "$tmp/text" ||
		fail "write of round $r missing or wrong"
	grep -q "hipcore:launch: .*n_bindings = 2, duration_ns = $((1000 + r)), .*binding_buffer = \[ \[0\] = $((100 + r)), \[1\] = 200 \], .*binding_offset = \[ \[0\] = 0, \[1\] = 64 \], .*binding_access = \[ \[0\] = 1, \[1\] = 3 \]" "$tmp/text" ||
		fail "launch bindings of round $r missing or wrong"
	grep -q "hipcore:failure: .*{ device = 1, failure = 11, kind = 3, n_causes = $r, stream = 7 }" "$tmp/text" ||
		fail "failure of round $r missing or wrong"
	grep -q "hipcore:buffer_hold: .*{ stream = 8, buffer = $((100 + r)), status = 0" "$tmp/text" ||
		fail "buffer_hold of round $r missing or wrong"
done
grep -q "hipcore:device_open: .*total_memory = 17179869184, alignment = 512 }" "$tmp/text" ||
	fail "device_open lacks its geometry"
grep -q "hipcore:stream_adopt: .*{ device = 1, stream = 8, native = 0x7F00, status = 0" "$tmp/text" ||
	fail "stream_adopt missing or wrong"
grep -q "hipcore:call: .*{ fn = 9, stream = 7," "$tmp/text" || fail "call fn id wrong"
grep -q "hipcore:device_alloc: .*addr = 0x7F0000001000, size = 1048576" "$tmp/text" ||
	fail "device_alloc hex address wrong"
grep -q "hipcore:pool_reserve: .*page = 0, new_page = 1," "$tmp/text" || fail "pool_reserve bool wrong"
pid=$(sed -n 's/^trace_emit: pid //p' "$tmp/out")
pids=$(sed -n 's/.*vpid = \([0-9]*\).*/\1/p' "$tmp/text" | sort -u | tr '\n' ' ')
[ "$pids" = "$pid " ] || fail "events from vpids '$pids', want only the command's ($pid)"

# 2. snapshot session, module given with HIPCORE_LTTNG
HIPCORE_LTTNG=$(cd "$(dirname "$module")" && pwd)/libhipcore-lttng.so
export HIPCORE_LTTNG
"$driver" record -o "$tmp/s" --snapshot -- "$emit" 1 >/dev/null 2>"$tmp/err"
rc=$?
cat "$tmp/err"
[ $rc -eq 0 ] || fail "snapshot record exited $rc"
check_daemons
n=$(babeltrace2 "$tmp/s" 2>/dev/null | grep -c ' hipcore:')
[ "$n" -eq $nev ] || fail "snapshot holds $n events, want $nev"

# 3. the command's exit status comes back; a process not tracked is not recorded
"$driver" record -o "$tmp/f" -- /bin/sh -c 'exit 5' 2>"$tmp/err"
rc=$?
[ $rc -eq 5 ] || fail "exit status $rc, want 5"
grep -q "hipsim record: 0 events recorded" "$tmp/err" || fail "no-event run not reported: $(cat "$tmp/err")"
check_daemons

# 4. isolation and reuse of a running daemon: another traced process
# emitting during the recording is not recorded, and hipsim record leaves a
# daemon it did not start running.  The daemon is started like hipsim does
# (under the daemon lock, pid in the lock file), so that a concurrent
# hipsim record neither stops it under us nor leaves it behind.
exec 9<>"$lock"
flock -x 9
ours=
pidfile=/var/run/lttng/lttng-sessiond.pid
if ! { [ -s $pidfile ] && kill -0 "$(cat $pidfile)" 2>/dev/null; }; then
	lttng-sessiond --daemonize --no-kernel >/dev/null 2>&1 || fail "cannot start lttng-sessiond"
	ours=$(cat $pidfile 2>/dev/null)
	printf '%s\n' "$ours" >"$lock"
fi
flock -s 9
locked=1
stop_ours() {	# the last user stops the daemon named in the lock file
	[ -n "$locked" ] || return 0
	locked=
	flock -xn 9 || { exec 9>&-; return 0; }
	sp=$(cat "$lock")
	if [ -n "$sp" ] && [ "$sp" = "$(cat $pidfile 2>/dev/null)" ]; then
		kill "$sp" 2>/dev/null
		i=0
		while kill -0 "$sp" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$sp" 2>/dev/null
	fi
	: >"$lock"
	exec 9>&-
}
trap 'stop_ours; rm -rf "$tmp"' EXIT
daemon=$(cat $pidfile)
"$emit" 2 700 >"$tmp/other" 2>&1 &
other=$!
"$driver" record -o "$tmp/i" -- "$emit" 1 1400 >"$tmp/out" 2>"$tmp/err"
rc=$?
wait $other
[ $rc -eq 0 ] || fail "isolation record exited $rc: $(cat "$tmp/err")"
kill -0 "$daemon" 2>/dev/null || fail "the running daemon $daemon was stopped"
grep -q "started lttng-sessiond" "$tmp/err" && fail "a second daemon was started"
pid=$(sed -n 's/^trace_emit: pid //p' "$tmp/out")
pids=$(babeltrace2 "$tmp/i" 2>/dev/null | sed -n 's/.*vpid = \([0-9]*\).*/\1/p' | sort -u | tr '\n' ' ')
[ "$pids" = "$pid " ] || fail "isolation: vpids '$pids' recorded, want only $pid (other was $other)"

# 5. SIGINT while the command runs: forwarded, session destroyed, 130.
"$driver" record -o "$tmp/c" -- sleep 30 >/dev/null 2>"$tmp/err" &
rec=$!
i=0
until lttng list 2>/dev/null | grep -q "hipsim-$rec-" || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
[ $i -lt 100 ] || fail "session hipsim-$rec-* never appeared"
sleep 0.3	# let it pass from `lttng start` to waiting on the command
kill -INT $rec
wait $rec
rc=$?
[ $rc -eq 130 ] || fail "interrupted record exited $rc, want 130: $(cat "$tmp/err")"
if lttng list 2>/dev/null | grep -q "hipsim-$rec-"; then fail "session left after SIGINT"; fi
kill -0 "$daemon" 2>/dev/null || fail "the running daemon $daemon was stopped"
stop_ours
if [ -n "$ours" ] && kill -0 "$ours" 2>/dev/null && flock -xn "$lock" true; then
	fail "our lttng-sessiond $ours left behind"
fi
echo "PASS: $((rounds * nev)) events, snapshot $nev, exit status, isolation, SIGINT"
