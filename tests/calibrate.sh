#!/bin/sh
# calibrate.sh - hipsim calibrate and validate from the command line, no GPU:
# calibrating the simulator writes a profile that hipsim run accepts and that
# names its command; calibrate --backend hip without a device exits 2 with a
# message and writes nothing; validate without a GPU exits 77 (skipped) with
# a message; validate --measure-on sim compares the simulator with itself
# (memory identical, time error +0.0 %, exit 0), under --pools and
# --flush-count too, which move its figures as they must; usage errors exit 2.
# On a machine where the hip backend opens, the no-GPU checks are skipped.
set -u
b=${top_builddir:-.}
hipsim="$b/tools/hipsim/hipsim"
fail() { echo "FAIL: $*"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-calibrate.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# the simulator calibrates to a profile hipsim run can load
"$hipsim" calibrate --backend sim --quick --repeats 3 -o "$tmp/sim.profile" 2>"$tmp/err" ||
	fail "calibrate --backend sim: exit $?: $(cat "$tmp/err")"
grep -q '^# command: hipsim calibrate --backend sim --quick --repeats 3 -o ' "$tmp/sim.profile" ||
	fail "no command line in the header"
grep -q '^# device: NVIDIA H200 (simulated)$' "$tmp/sim.profile" || fail "no device in the header"
grep -q '^h2d_pinned_latency = 8000 ns$' "$tmp/sim.profile" || fail "h2d_pinned_latency not 8000 ns"
grep -q '^vmm_granularity = 2097152 B$' "$tmp/sim.profile" || fail "vmm_granularity not 2 MiB"
grep -q '^pmem_map = 30000 ns$' "$tmp/sim.profile" || fail "pmem_map not 30000 ns"
grep -q '^pmem_unmap_per_mib = 306 ns$' "$tmp/sim.profile" || fail "pmem_unmap_per_mib not 306 ns"
grep -q 'hipsim calibrate: \[9/12\] virtual memory (reserve, map, unmap)' "$tmp/err" ||
	fail "no virtual-memory phase"
grep -q 'hipsim calibrate: \[11/12\] kernel launch and graphs' "$tmp/err" ||
	fail "no kernel-launch phase"
grep -q 'hipsim calibrate: \[12/12\] built-in kernels' "$tmp/err" ||
	fail "no progress line per phase on a non-tty stderr"
"$hipsim" run --profile "$tmp/sim.profile" --steps 5 >/dev/null || fail "run rejects the profile"

# usage errors
"$hipsim" calibrate --backend sim >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "calibrate without -o: not exit 2"
grep -q -- '-o PROFILE is required' "$tmp/err" || fail "calibrate without -o: no message"
"$hipsim" calibrate --backend cuda -o "$tmp/x" >/dev/null 2>&1
[ $? -eq 2 ] || fail "calibrate --backend cuda: not exit 2"
"$hipsim" validate --repeats 0 >/dev/null 2>&1
[ $? -eq 2 ] || fail "validate --repeats 0: not exit 2"
"$hipsim" validate --workload nosuch >/dev/null 2>&1
[ $? -eq 2 ] || fail "validate --workload nosuch: not exit 2"
"$hipsim" validate --profile "$tmp/nonexistent" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "validate with a missing profile: not exit 2"
grep -q nonexistent "$tmp/err" || fail "validate with a missing profile: path not named"

# the harness against the simulator itself
"$hipsim" validate --measure-on sim --steps 20 >"$tmp/v.txt" || fail "validate --measure-on sim: exit $?"
[ "$(grep -c 'overall: memory exact, time error +0.0 %' "$tmp/v.txt")" -eq 4 ] ||
	fail "validate --measure-on sim: not 4 exact workloads: $(cat "$tmp/v.txt")"
grep -q DIFFERENT "$tmp/v.txt" && fail "validate --measure-on sim: a figure differs"
"$hipsim" validate --measure-on sim --steps 10 --workload training --json \
	--profile "$tmp/sim.profile" >"$tmp/v.json" || fail "validate --json: exit $?"
grep -q '"memory_identical": true' "$tmp/v.json" || fail "validate --json: memory not identical"
grep -q '"workload": "training"' "$tmp/v.json" || fail "validate --json: no workload"
grep -q '"measured_runs": 3' "$tmp/v.json" || fail "validate --json: not 3 measured runs"
grep -q '"measured_stable": true' "$tmp/v.json" || fail "validate --json: runs vary on the simulator"
# --call-times: every public call of the workload counted on both sides,
# and on the simulator nothing but the calls advances the clock (the
# sampling costs no virtual time)
"$hipsim" validate --measure-on sim --steps 10 --workload training --call-times \
	--profile "$tmp/sim.profile" >"$tmp/c.txt" || fail "validate --call-times: exit $?"
grep -q '^    hc_launch  *360/360  ' "$tmp/c.txt" || fail "--call-times: not 360 launches: $(cat "$tmp/c.txt")"
grep -q '^    memory sampling  *[1-9][0-9]*/[1-9][0-9]*  *0.000  *0.000 ' "$tmp/c.txt" ||
	fail "--call-times: sampling missing or not free on the simulator"
awk '/total time, ms/ { total = $4 } /between the calls/ { between = $4; seen = 1 }
     END { exit !(seen && total > 0 && between <= 0.01 * total) }' "$tmp/c.txt" ||
	fail "--call-times: the calls do not account for the simulated time"

# the variant (--pools, --flush-count): applied to both sides, so memory
# stays identical while the figures move the way the variant must move
# them, named in the table's heading and recorded in the JSON
fig() { # FILE SIDE KEY: the first KEY inside the SIDE ("measured", "predicted") object
	awk -v side="\"$2\":" -v key="\"$3\":" '$1 == side { on = 1 }
		on && $1 == key { v = $2; sub(/,$/, "", v); print v; exit }' "$1"
}
for v in default subslices exclusive; do
	"$hipsim" validate --measure-on sim --steps 10 --repeats 1 --workload training --json \
		--pools $v >"$tmp/$v.json" || fail "validate --pools $v: exit $?"
	grep -q "^  \"pools\": \"$v\",\$" "$tmp/$v.json" || fail "validate --pools $v: not in the JSON"
	grep -q '"memory_identical": true' "$tmp/$v.json" || fail "validate --pools $v: memory differs"
done
for side in measured predicted; do
	d=$(fig "$tmp/default.json" $side device_allocs)
	s=$(fig "$tmp/subslices.json" $side device_allocs)
	e=$(fig "$tmp/exclusive.json" $side device_allocs)
	[ -n "$d" ] && [ -n "$s" ] && [ -n "$e" ] && [ "$s" -lt "$d" ] && [ "$e" -gt "$d" ] ||
		fail "validate --pools, $side: device allocations default ${d:-?}, subslices ${s:-?}, exclusive ${e:-?}"
	d=$(fig "$tmp/default.json" $side peak_reserved_bytes)
	e=$(fig "$tmp/exclusive.json" $side peak_reserved_bytes)
	[ -n "$d" ] && [ -n "$e" ] && [ "$e" -gt "$d" ] ||
		fail "validate --pools, $side: peak reserved default ${d:-?}, exclusive ${e:-?}"
done
grep -q '^  "flush_count": 0,$' "$tmp/default.json" || fail "validate: no default flush_count in the JSON"
for n in 16 64; do
	"$hipsim" validate --measure-on sim --steps 10 --repeats 1 --workload training --json \
		--flush-count $n >"$tmp/f$n.json" || fail "validate --flush-count $n: exit $?"
	grep -q "^  \"flush_count\": $n,\$" "$tmp/f$n.json" || fail "validate --flush-count $n: not in the JSON"
done
for side in measured predicted; do
	a=$(fig "$tmp/f16.json" $side dq_flushes)
	c=$(fig "$tmp/f64.json" $side dq_flushes)
	[ -n "$a" ] && [ -n "$c" ] && [ "$a" -gt "$c" ] ||
		fail "validate --flush-count, $side: 16 flushes ${a:-?} times, 64 ${c:-?}"
done
"$hipsim" validate --measure-on sim --steps 10 --repeats 1 --workload training \
	--pools exclusive --flush-count 16 --stage-max 1M >"$tmp/v.txt" || fail "validate --pools exclusive: exit $?"
grep -q '^workload training, pools exclusive, flush-count 16, flush-bytes default, stage-max 1048576 (measured' \
	"$tmp/v.txt" || fail "validate: no variant in the heading: $(head -1 "$tmp/v.txt")"
"$hipsim" validate --measure-on sim --pools nosuch >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "validate --pools nosuch: not exit 2"
grep -q "^hipsim validate: --pools: 'nosuch' is neither a pool layout" "$tmp/err" ||
	fail "validate --pools nosuch: $(cat "$tmp/err")"
"$hipsim" validate --measure-on sim --flush-count x >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "validate --flush-count x: not exit 2"
grep -q "^hipsim validate: --flush-count: 'x' is not a number" "$tmp/err" ||
	fail "validate --flush-count x: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && fail "validate with a bad option printed a table"

# the profile's file is opened before any measurement: a path that cannot
# be written fails at once, and a failed write is reported
"$hipsim" calibrate --backend sim --quick --repeats 3 -o "$tmp/no/such/dir/p" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "calibrate -o into a missing directory: not exit 2"
grep -q "^hipsim calibrate: -o: cannot write '$tmp/no/such/dir/p': No such file or directory\$" "$tmp/err" ||
	fail "calibrate -o into a missing directory: $(cat "$tmp/err")"
grep -q '\[1/10\]' "$tmp/err" && fail "calibrate measured before finding its output unwritable"
"$hipsim" calibrate --backend sim --quick --repeats 3 -o /dev/full >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "calibrate -o /dev/full: not exit 2"
grep -q "^hipsim calibrate: writing '/dev/full' failed: No space left on device\$" "$tmp/err" ||
	fail "calibrate -o /dev/full: $(cat "$tmp/err")"
"$hipsim" calibrate --backend sim --repeats 0 -o "$tmp/x" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "calibrate --repeats 0: not exit 2"
grep -q '^hipsim calibrate: --repeats: 0 is out of range: 1 to 100000$' "$tmp/err" ||
	fail "calibrate --repeats 0: $(cat "$tmp/err")"

# without a GPU
"$hipsim" calibrate --backend hip --quick --repeats 1 -o "$tmp/hip.profile" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ]; then
	echo "a GPU answered: the no-device checks do not apply here"
	exit 0
fi
[ $rc -eq 2 ] || fail "calibrate --backend hip without a device: exit $rc, not 2"
grep -q 'no usable hip device; nothing written' "$tmp/err" || fail "no message: $(cat "$tmp/err")"
grep -q 'HC_ERR_NO_RUNTIME\|HC_ERR_DEVICE' "$tmp/err" || fail "no status in the message"
[ -e "$tmp/hip.profile" ] && fail "a profile was written without a device"
# an existing profile stays as it was when the calibration fails
cp "$tmp/sim.profile" "$tmp/keep.profile"
"$hipsim" calibrate --backend hip --quick --repeats 1 -o "$tmp/keep.profile" >/dev/null 2>&1
[ $? -eq 2 ] || fail "calibrate --backend hip over a profile without a device: not exit 2"
cmp -s "$tmp/sim.profile" "$tmp/keep.profile" || fail "a failed calibration changed the existing profile"
"$hipsim" validate --steps 5 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 77 ] || fail "validate without a GPU: exit $rc, not 77"
grep -q '^hipsim validate: skipped: no GPU' "$tmp/err" || fail "validate: no skip message"
[ -s "$tmp/out" ] && fail "validate without a GPU printed a table"
exit 0
