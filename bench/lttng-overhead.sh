#!/bin/sh
# bench/lttng-overhead.sh [ROUNDS] - the pool-hit pair (bench_api's
# alloc_free_pair_ns) built --without-lttng against --with-lttng with the
# provider not loaded, alternating ROUNDS times (default 5) on CPU $CPU
# (default 1).  Builds both in $WORK (default /tmp/hc-lttng-overhead; kept
# between runs, so a second run only re-makes what changed).  Prints one
# line per run: "without|with alloc_free_pair_ns".  Run from the source tree.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-/tmp/hc-lttng-overhead}
rounds=${1:-5}
cpu=${CPU:-1}
[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi >/dev/null)
for v in without with; do
	mkdir -p "$work/$v"
	(cd "$work/$v" && { [ -f Makefile ] || "$src/configure" -q --"$v"-lttng >/dev/null; } &&
		make -j"${JOBS:-2}" bench/bench_api >/dev/null)
done
i=0
while [ "$i" -lt "$rounds" ]; do
	for v in without with; do
		ns=$(cd "$work/$v" && HIPCORE_LTTNG=0 taskset -c "$cpu" ./bench/bench_api |
			sed -n 's/.*"metric": *"alloc_free_pair_ns", *"value": *\([0-9.]*\).*/\1/p' | head -n 1)
		echo "$v ${ns:-?}"
	done
	i=$((i + 1))
done
