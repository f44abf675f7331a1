#!/bin/sh
# bench/replay-mixed-ab.sh OLD_BUILD NEW_BUILD [ROUNDS [EVENTS]] - compares
# two builds (configured build directories, bench/bench_replay and
# tools/hipsim/hipsim made) on issue 28's unfriendly CSV, the way their
# figures can be trusted on a shared machine:
#   time: `bench_replay --mixed` of each build in turn, OLD, NEW, OLD,
#     NEW, ... ROUNDS times each (default 5), on CPU $CPU (default 1), so
#     that both see the same minutes of the machine's load; then the
#     lowest, median and highest mixed_csv_events_per_s of each (the
#     10 M-event input bench_replay writes and removes itself);
#   instructions: callgrind's count for `hipsim replay` of one input of
#     EVENTS events (default 300000, written by OLD's
#     `bench_replay --write-mixed`), the whole process, and that count per
#     event: deterministic, so one run each.
# Run from anywhere; needs valgrind and taskset.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 OLD_BUILD NEW_BUILD [ROUNDS [EVENTS]]" >&2; exit 2; }
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd)
rounds=${3:-5}
events=${4:-300000}
cpu=${CPU:-1}
for b in "$old" "$new"; do
	if [ ! -x "$b/bench/bench_replay" ] || [ ! -x "$b/tools/hipsim/hipsim" ]; then
		echo "replay-mixed-ab: $b lacks bench/bench_replay or tools/hipsim/hipsim" >&2
		exit 2
	fi
done
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

i=0
while [ "$i" -lt "$rounds" ]; do
	for which in old new; do
		if [ "$which" = old ]; then b=$old; else b=$new; fi
		taskset -c "$cpu" "$b/bench/bench_replay" --mixed >"$tmp/out"
		sed -n 's/.*"mixed_csv_events_per_s","value":\([0-9]*\).*/\1/p' "$tmp/out" >>"$tmp/$which.rates"
		echo "round $((i + 1)) $which $(tail -n 1 "$tmp/$which.rates") events/s"
	done
	i=$((i + 1))
done
for which in old new; do
	sort -g "$tmp/$which.rates" | awk -v w="$which" '{ v[NR] = $1 } END {
		printf "%s: mixed_csv_events_per_s %.2f / %.2f / %.2f M (min / median / max of %d)\n",
			w, v[1] / 1e6, (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) / 1e6,
			v[NR] / 1e6, NR }'
done

"$old/bench/bench_replay" --write-mixed "$tmp/mixed.csv" "$events"
for which in old new; do
	if [ "$which" = old ]; then b=$old; else b=$new; fi
	(cd "$b" && ./libtool --mode=execute valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" \
		./tools/hipsim/hipsim replay "$tmp/mixed.csv" >/dev/null 2>&1) ||
		echo "$which: hipsim replay exited $? (its count still follows)" >&2
	total=$(callgrind_annotate "$tmp/cg" | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
	echo "$which: hipsim replay of $events mixed events: $total instructions, $((total / events)) per event"
done
