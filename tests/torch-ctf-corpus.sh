#!/bin/sh
# torch-ctf-corpus.sh - the real client's recordings replay to the live
# run's figures.  tests/corpus/ctf/ holds LTTng recordings of PyTorch
# training and serving on libhipcore on a GPU (live.tsv says how they were
# made); each is unpacked, replayed with `hipsim replay --json` on the
# simulator, and its peak in use, peak reserved and device allocations
# must equal the live run's, with no failure, no unknown free, not partial,
# and the event count in live.tsv.  Skips (77) without the CTF reader.
set -u
b=${top_builddir:-.}
s=${srcdir:-.}
hipsim="$b/tools/hipsim/hipsim"
dir="$s/tests/corpus/ctf"

grep -q '^#define HIPCORE_WITH_BABELTRACE2 1' "$b/config.h" ||
	{ echo "SKIP: built without babeltrace2 (no CTF reader)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-torch-ctf.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

field() { # field FILE KEY: a top-level JSON value of the report
	sed -n "s/^  \"$2\": \([^,]*\),*\$/\1/p" "$1" | head -1
}

status=0 n=0
while IFS='	' read -r archive in_use reserved allocs events; do
	case $archive in '#'* | '') continue ;; esac
	n=$((n + 1))
	mkdir "$tmp/$n"
	tar xzf "$dir/$archive" -C "$tmp/$n" || { echo "FAIL: $archive: cannot unpack"; status=1; continue; }
	trace=$(find "$tmp/$n" -mindepth 1 -maxdepth 1 -type d | head -1)
	timeout 120 "$hipsim" replay "$trace" --json >"$tmp/$n.json" 2>"$tmp/$n.err"
	rc=$?
	[ $rc -eq 0 ] || { cat "$tmp/$n.err"; echo "FAIL: $archive: replay exited $rc"; status=1; continue; }
	for kv in peak_in_use_bytes=$in_use peak_reserved_bytes=$reserved device_allocs=$allocs \
		events=$events failures=0 unknown_frees=0 partial=false; do
		k=${kv%%=*} want=${kv#*=}
		got=$(field "$tmp/$n.json" "$k")
		if [ "$got" != "$want" ]; then
			echo "FAIL: $archive: $k replayed $got, live $want"
			status=1
		fi
	done
	[ $status -eq 0 ] && echo "ok: $archive: peak in use $in_use, peak reserved $reserved, $allocs device allocations"
done <"$dir/live.tsv"
[ $n -ge 2 ] || { echo "FAIL: $n recordings in $dir/live.tsv"; exit 1; }
exit $status
