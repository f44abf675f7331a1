#!/bin/sh
# hipsim-data.sh - the built-in workloads on the HIP backend, without a GPU:
# over the fake runtime (tests/fake_cudart.c), which backs device memory
# with host memory and runs the built-in kernels' host reference, every
# workload runs with zero failures; with --data, the bytes it reads back
# (the report's read_checksum, reads_checked, bytes_read_back) are the
# simulator's in data mode, and so are the launches; another seed gives
# another checksum (the comparison can fail).  The hip report's time is a
# measured duration (not the device clock's reading), the simulator's a
# prediction, and compare reads the pair as the prediction's error.  The same comparison on a
# GPU is tests/gpu/issue29.sh's data check.
set -u
b=${top_builddir:-.}
hipsim="$b/tools/hipsim/hipsim"
fake="$(cd "$b" && pwd)/tests/.libs/fake_cudart.so"
fail() { echo "FAIL: $*"; exit 1; }

test -f "$fake" || { echo "SKIP: no $fake"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-data.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
keys=read_checksum,reads_checked,bytes_read_back,launches,failures

for ws in service:12 training:16 inference:8 loader:12; do
	w=${ws%:*} n=${ws#*:}
	"$hipsim" run --workload "$w" --steps "$n" --data --json >"$tmp/sim.json" 2>"$tmp/err" ||
		fail "$w: sim --data: exit $?: $(cat "$tmp/err")"
	HIPCORE_HIP_LIBRARY=$fake "$hipsim" run --backend hip --workload "$w" --steps "$n" \
		--data --json >"$tmp/hip.json" 2>"$tmp/err" ||
		fail "$w: hip --data over the fake: exit $?: $(cat "$tmp/err") $(grep first_failure "$tmp/hip.json")"
	"$hipsim" compare --keys "$keys" "$tmp/sim.json" "$tmp/hip.json" >"$tmp/cmp" 2>&1 ||
		fail "$w: sim and hip read back different bytes: $(cat "$tmp/cmp")"
	grep -q '"reads_checked": [1-9]' "$tmp/hip.json" || fail "$w: nothing read back"
	HIPCORE_HIP_LIBRARY=$fake "$hipsim" run --backend hip --workload "$w" --steps "$n" \
		>"$tmp/plain.txt" 2>&1 || fail "$w: hip without --data: $(grep failures "$tmp/plain.txt")"
	grep -q 'failures ............. 0$' "$tmp/plain.txt" || fail "$w: failures on hip"
	# a GPU's time is a measurement from the device's open, not a prediction
	grep -q '^  measured time \.* [0-9.]* ms (device clock' "$tmp/plain.txt" ||
		fail "$w: no measured time on hip"
	grep -q 'predicted' "$tmp/plain.txt" && fail "$w: hip's report predicts"
	m=$(sed -n 's/.*"measured_ns": \([0-9]*\).*/\1/p' "$tmp/hip.json")
	wall=$(sed -n 's/.*"replay_wall_ns": \([0-9]*\).*/\1/p' "$tmp/hip.json")
	[ -n "$m" ] && [ "$m" -le $((2 * wall + 1000000000)) ] ||
		fail "$w: measured_ns '$m' is no duration (wall $wall ns)"
	grep -q '"time_kind": "measured"' "$tmp/hip.json" || fail "$w: time_kind"
	grep -q '"time_kind": "predicted"' "$tmp/sim.json" || fail "$w: sim's time_kind"
	"$hipsim" compare "$tmp/hip.json" "$tmp/sim.json" >"$tmp/cmp"
	grep -q '^time: measured [0-9.]* ms (A, hip), predicted [0-9.]* ms (B, sim): prediction error [-+]' \
		"$tmp/cmp" || fail "$w: compare does not read as prediction against measurement"
	echo "ok: $w ($n steps): $(grep -o '"read_checksum": "[0-9a-f]*"' "$tmp/hip.json")"
done
# the check can fail: the service with another seed reads back other bytes
"$hipsim" run --workload service --steps 12 --data --seed 2 --json >"$tmp/other.json" || fail "seed 2"
"$hipsim" run --workload service --steps 12 --data --json >"$tmp/sim.json" || fail "seed 1"
if "$hipsim" compare --keys read_checksum "$tmp/sim.json" "$tmp/other.json" >/dev/null 2>&1; then
	fail "seeds 1 and 2 give the same read checksum"
fi
echo "hipsim-data.sh: ok"
