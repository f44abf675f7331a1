#!/bin/sh
# bench/probes/run-cpu.sh [PROBE...] - builds and runs the host-only probes
# (lock: the stream lock's biased and futex round trips, core/lock.c;
# atomics: a bare compare-and-swap + exchange round trip) on the CPU named
# by CPU (default 1), printing each probe's JSON lines.  The GPU probes
# (callmix, context, hostcopy, hostreg, streams) run through
# tests/gpu/run-on-device.sh instead.  Run from the source tree.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
cpu=${CPU:-1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for p in ${*:-lock atomics}; do
	case "$p" in
	lock) cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$src" -o "$out/lock" "$src/bench/probes/lock.c" \
		"$src/core/lock.c" "$src/util/env.c" -lpthread ;;
	atomics) cc -O2 -std=gnu11 -o "$out/atomics" "$src/bench/probes/atomics.c" ;;
	*) echo "run-cpu.sh: unknown probe '$p' (lock, atomics)" >&2; exit 2 ;;
	esac
	taskset -c "$cpu" "$out/$p"
done
