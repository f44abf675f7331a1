#!/bin/sh
# bench/xp-share.sh [HIPSIM [POOLS...]] - memory and predicted time of pool
# layouts on the corpus and the built-in workloads (issue 30; the table of
# doc/memory-efficiency.md 5.2).  For each trace of tests/corpus/torch and
# each of `hipsim run --workload training|service|inference|loader`, and
# each layout (default: workload expandable expandable-shared), one line:
# streams, peak in use (GiB), peak reserved (GiB), reserved / in use,
# device calls (allocations + frees + maps + unmaps) and predicted time
# (ms).  The simulator is deterministic: one run each.  Run from the
# source tree; HIPSIM defaults to the build in _build.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
hipsim=${1:-$src/_build/tools/hipsim/hipsim}
[ $# -gt 0 ] && shift
pools=${*:-workload expandable expandable-shared}
[ -x "$hipsim" ] || { echo "xp-share: no hipsim at $hipsim" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

row() { # NAME POOLS < report.json
	awk -v n="$1" -v p="$2" -F'[:,]' '
		/"streams":/ { s = $2 + 0 }
		/"peak_in_use_bytes":/ { u = $2 }
		/"peak_reserved_bytes":/ { r = $2 }
		/"device_(allocs|frees|maps|unmaps)":/ { c += $2 }
		/"predicted_ns":/ { t = $2 }
		END { g = 1024 * 1024 * 1024
			printf "%-18s %-18s %2d %8.3f %8.3f %6.3f %6d %9.2f\n", n, p, s, u / g, r / g,
			       r / u, c, t / 1e6 }'
}

printf '%-18s %-18s %2s %8s %8s %6s %6s %9s\n' trace pools st in_use reserved ratio calls time_ms
for f in "$src"/tests/corpus/torch/*.csv.gz; do
	for p in $pools; do
		"$hipsim" replay "$f" --pools "$p" --json >"$tmp/r.json"
		row "$(basename "$f" .csv.gz)" "$p" <"$tmp/r.json"
	done
done
for w in training service inference loader; do
	for p in $pools; do
		"$hipsim" run --workload "$w" --pools "$p" --json >"$tmp/r.json"
		row "$w (run)" "$p" <"$tmp/r.json"
	done
done
