#!/bin/sh
# hip-workloads.sh - hipsim's built-in workloads on the GPU as a user runs
# them, each checked against the simulator:
#
#   tests/gpu/hip-workloads.sh [HIPSIM]     (default _build/d/tools/hipsim/hipsim)
#
# For service, training, inference and loader: `hipsim run --backend hip
# --data --json` (the real kernels, every read-back folded into the
# report's read_checksum) and the same run on the simulator in data mode.
# A workload passes when the GPU run has no failure and its read_checksum,
# peak in use, peak reserved, device allocations and copied bytes equal
# the simulator's.  One line per workload on stdout; the JSON reports in
# $OUT (default ./hip-workloads-out).
# Env: STEPS (default 200), BACKEND (default hip; BACKEND=sim dry-runs the
# script without a GPU), HC_RUN_TIMEOUT (seconds per run, default 120),
# PROFILE (the simulator's profile: one of the GPU's kind, e.g.
# h100-calibrated, since pool page sizes follow the device's memory; the
# built-in H200 profile reserves a few hundred bytes differently on an
# H100), POOLS (a --pools value for both runs, e.g. expandable: the
# simulator's figures for that layout against the GPU's).
# Exit status: 0 all pass, 1 a difference or failure, 2 usage, 77 no GPU.
set -u
hipsim=${1:-_build/d/tools/hipsim/hipsim}
out=${OUT:-./hip-workloads-out}
steps=${STEPS:-200}
backend=${BACKEND:-hip}
limit=${HC_RUN_TIMEOUT:-120}
profile=${PROFILE:+--profile $PROFILE}
pools=${POOLS:+--pools $POOLS}
keys="failures read_checksum peak_in_use_bytes peak_reserved_bytes device_allocs bytes_h2d bytes_d2h"

[ -x "$hipsim" ] || { echo "hip-workloads.sh: no hipsim at $hipsim" >&2; exit 2; }
mkdir -p "$out" || exit 2

field() { # field FILE KEY: the value of a top-level "KEY": line, quotes dropped
	sed -n "s/^  \"$2\": \"*\([^\",]*\)\"*,*\$/\1/p" "$1" | head -1
}

status=0
printf '%-10s %-6s %-18s %14s %14s %8s %s\n' workload result checksum peak_in_use \
	peak_reserved allocs "wall ms (gpu)"
for w in service training inference loader; do
	# shellcheck disable=SC2086
	timeout "$limit" "$hipsim" run --backend "$backend" $pools --workload "$w" --steps "$steps" \
		--data --json >"$out/$w-$backend.json" 2>"$out/$w-$backend.err"
	rc=$?
	if [ $rc -ne 0 ] && grep -q 'cannot open device' "$out/$w-$backend.err"; then
		cat "$out/$w-$backend.err" >&2
		echo "hip-workloads.sh: skipped: no GPU"
		exit 77
	fi
	# shellcheck disable=SC2086
	timeout "$limit" "$hipsim" run --backend sim $profile $pools --workload "$w" --steps "$steps" \
		--data --json >"$out/$w-sim.json" 2>"$out/$w-sim.err"
	rs=$?
	verdict=pass
	[ $rc -eq 0 ] && [ $rs -eq 0 ] || verdict="FAIL(exit $rc/$rs)"
	for k in $keys; do
		a=$(field "$out/$w-$backend.json" "$k")
		b=$(field "$out/$w-sim.json" "$k")
		if [ -z "$a" ] || [ "$a" != "$b" ]; then
			verdict=FAIL
			echo "  $w: $k: $backend '$a', sim '$b'"
		fi
	done
	[ "$(field "$out/$w-$backend.json" failures)" = 0 ] || verdict=FAIL
	[ "$verdict" = pass ] || status=1
	wall=$(field "$out/$w-$backend.json" replay_wall_ns)
	printf '%-10s %-6s %-18s %14s %14s %8s %s\n' "$w" "$verdict" \
		"$(field "$out/$w-$backend.json" read_checksum)" \
		"$(field "$out/$w-$backend.json" peak_in_use_bytes)" \
		"$(field "$out/$w-$backend.json" peak_reserved_bytes)" \
		"$(field "$out/$w-$backend.json" device_allocs)" \
		"$(awk -v n="${wall:-0}" 'BEGIN { printf "%.1f", n / 1e6 }')"
done
exit $status
