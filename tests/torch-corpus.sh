#!/bin/sh
# torch-corpus.sh - the real PyTorch caching-allocator histories under
# tests/corpus/torch (recorded on an H200 by tools/corpus/record_torch.py)
# replayed with hipsim's default layout.  Fails when, for any trace:
#  - peak live differs from tests/data/torch-corpus.tsv (replay changed);
#  - the default's peak reserved is above the committed figure (a
#    regression) or above PyTorch's own peak reserved on the same run (the
#    target: reserve no more than PyTorch's caching allocator).
set -u
b=${top_builddir:-.}
s=${top_srcdir:-.}
hipsim="$b/tools/hipsim/hipsim"
table="$s/tests/data/torch-corpus.tsv"
[ -x "$hipsim" ] || { echo "FAIL: $hipsim not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-torch.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
rows=0
while IFS='	' read -r name live talloc treserved reserved allocs; do
	case "$name" in '#'* | '') continue ;; esac
	gzip -dc "$s/tests/corpus/torch/$name.csv.gz" >"$tmp/t.csv" || { echo "FAIL: $name: cannot read"; status=1; continue; }
	"$hipsim" replay "$tmp/t.csv" --json >"$tmp/r.json" 2>"$tmp/err" || {
		echo "FAIL: $name: replay exited $?"; cat "$tmp/err"; status=1; continue; }
	l=$(sed -n 's/.*"peak_in_use_bytes": *\([0-9]*\).*/\1/p' "$tmp/r.json")
	r=$(sed -n 's/.*"peak_reserved_bytes": *\([0-9]*\).*/\1/p' "$tmp/r.json")
	ratio=$(awk -v r="$r" -v l="$l" 'BEGIN { printf "%.3f", r / l }')
	tratio=$(awk -v r="$treserved" -v l="$l" 'BEGIN { printf "%.3f", r / l }')
	echo "$name: peak live $l, reserved $r ($ratio x live), PyTorch reserved $treserved ($tratio x)"
	[ "$l" = "$live" ] || { echo "FAIL: $name: peak live $l, table says $live"; status=1; }
	[ "$r" -le "$reserved" ] || { echo "FAIL: $name: reserved $r above the table's $reserved"; status=1; }
	[ "$r" -le "$treserved" ] || { echo "FAIL: $name: reserved $r above PyTorch's $treserved"; status=1; }
	rows=$((rows + 1))
done <"$table"
[ "$rows" -eq 7 ] || { echo "FAIL: $rows traces checked, expected 7"; status=1; }
[ $status -eq 0 ] && echo PASS
exit $status
