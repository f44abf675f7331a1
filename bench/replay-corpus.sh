#!/bin/sh
# bench/replay-corpus.sh [HIPSIM [ROUNDS]] - replay speed on the real
# PyTorch histories of tests/corpus/torch: each trace replayed ROUNDS times
# (default 5) by `hipsim replay FILE --json` (HIPSIM defaults to the build
# in _build/main), on CPU $CPU (default 1).  One line per trace: events,
# then the lowest, median and highest of the report's replay_events_per_s
# (the replay loop alone: reading, the engine and the device close; not the
# process's start).  Run from the source tree.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
hipsim=${1:-$src/_build/main/tools/hipsim/hipsim}
rounds=${2:-5}
cpu=${CPU:-1}
[ -x "$hipsim" ] || { echo "replay-corpus: no hipsim at $hipsim" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
printf '%-18s %8s %28s\n' trace events "events/s: min / median / max"
for f in "$src"/tests/corpus/torch/*.csv.gz; do
	i=0
	: >"$tmp/rates"
	while [ "$i" -lt "$rounds" ]; do
		taskset -c "$cpu" "$hipsim" replay "$f" --json >"$tmp/report.json"
		sed -n 's/^  "replay_events_per_s": \([0-9.]*\).*/\1/p' "$tmp/report.json" >>"$tmp/rates"
		i=$((i + 1))
	done
	ev=$(sed -n 's/^  "events": \([0-9]*\).*/\1/p' "$tmp/report.json")
	sort -g "$tmp/rates" | awk -v n="$(basename "$f" .csv.gz)" -v ev="$ev" '
		{ v[NR] = $1 } END { printf "%-18s %8s %8.2f / %5.2f / %5.2f M\n", n, ev,
			v[1] / 1e6, v[int((NR + 1) / 2)] / 1e6, v[NR] / 1e6 }'
done
