#!/bin/sh
# hipsim-outputs.sh - hipsim's outputs from the command line (issue 28):
# standard output that cannot be written is an error (exit 2 with a
# message, as GNU tools' close_stdout); an installed profile is found by
# its name; the SVG plot, rendered by rsvg-convert, fits its canvas (no
# label or legend past the edges), draws the device's peak at the height
# the peak marker says, shows the device line under a single stream, and
# stays small for a replay of a million events.
# The rendering part skips (77) without rsvg-convert or tests/png_probe
# (libpng); the rest always runs.
set -u
b=${top_builddir:-.}
s=${top_srcdir:-.}
hipsim="$b/tools/hipsim/hipsim"
probe="$b/tests/png_probe"
rsvg=${RSVG_CONVERT:-rsvg-convert}
fail() { echo "FAIL: $*"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-outputs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# --- standard output ----------------------------------------------------------
expect_stdout_error() { # expect_stdout_error REASON WHAT: $tmp/err names it
	reason=$1
	shift
	grep -q "^hipsim: write error on standard output: $reason\$" "$tmp/err" ||
		fail "$*: no message about standard output: $(cat "$tmp/err")"
}
"$hipsim" run --steps 5 >/dev/full 2>"$tmp/err"
[ $? -eq 2 ] || fail "run >/dev/full: not exit 2"
expect_stdout_error "No space left on device" run
"$hipsim" --help >/dev/full 2>"$tmp/err"
[ $? -eq 2 ] || fail "--help >/dev/full: not exit 2"
expect_stdout_error "No space left on device" --help
"$hipsim" run --steps 5 >&- 2>"$tmp/err"
[ $? -eq 2 ] || fail "run with standard output closed: not exit 2"
expect_stdout_error "Bad file descriptor" "run >&-"
# nothing written, nothing lost: a closed standard output is no error then
"$hipsim" run --steps 0 >&- 2>"$tmp/err"
[ $? -eq 2 ] || fail "run --steps 0: not exit 2"
grep -q 'standard output' "$tmp/err" && fail "usage error blamed on standard output"
"$hipsim" run --steps 5 --json >"$tmp/r.json" 2>"$tmp/err" || fail "run --json to a file: exit $?"
grep -q '"options"' "$tmp/r.json" || fail "the report records no options"

# --- installed profiles by name ---------------------------------------------------
HIPSIM_PROFILE_DIR="$s/profiles" "$hipsim" run --profile h100-calibrated --steps 3 >"$tmp/p.txt" 2>"$tmp/err" ||
	fail "--profile h100-calibrated from HIPSIM_PROFILE_DIR: $(cat "$tmp/err")"
grep -q 'H100' "$tmp/p.txt" || fail "--profile h100-calibrated: not the H100 device: $(cat "$tmp/p.txt")"
grep -q "profile $s/profiles/h100-calibrated.profile" "$tmp/p.txt" ||
	fail "the report does not name the profile file: $(cat "$tmp/p.txt")"
HIPSIM_PROFILE_DIR="$s/profiles" "$hipsim" run --profile h200.profile --steps 3 >/dev/null 2>"$tmp/err" ||
	fail "--profile h200.profile: $(cat "$tmp/err")"
HIPSIM_PROFILE_DIR="$s/profiles" "$hipsim" run --profile no-such-gpu --steps 3 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "--profile no-such-gpu: not exit 2"
grep -q "no-such-gpu" "$tmp/err" || fail "--profile no-such-gpu: name not in the message"

# --- the plot, rendered -------------------------------------------------------------
command -v "$rsvg" >/dev/null 2>&1 || { echo "SKIP: no rsvg-convert (librsvg2-bin)"; exit 77; }
[ -x "$probe" ] || { echo "SKIP: no tests/png_probe (libpng-dev)"; exit 77; }
# the plot area: x 100..870, y 64..496 (tools/hipsim/svg.c)
inside="103 67 867 493"

render() { # render NAME: NAME.svg to NAME.png, checked for size and margins
	"$rsvg" "$tmp/$1.svg" -o "$tmp/$1.png" 2>"$tmp/rsvg.err" || fail "$1: rsvg-convert: $(cat "$tmp/rsvg.err")"
	[ "$("$probe" "$tmp/$1.png" size)" = "1080 560" ] || fail "$1: not 1080 x 560"
	m=$("$probe" "$tmp/$1.png" margin 3)
	[ "$m" = blank ] || fail "$1: something drawn at the canvas' edge ($m): a label or the legend runs off"
}

# a y coordinate in the SVG as a pixel row
row() { printf '%.0f\n' "$1"; }

"$hipsim" run --workload service --svg "$tmp/svc.svg" >/dev/null 2>"$tmp/err" || fail "run --svg: $(cat "$tmp/err")"
render svc
peak=$(sed -n 's/.*id="peak-reserved"[^>]* y1="\([0-9.]*\)".*/\1/p' "$tmp/svc.svg")
[ -n "$peak" ] || fail "svc: no peak marker"
top=$("$probe" "$tmp/svc.png" top 777777 $inside)
want=$(row "$peak")
[ "$top" -ge $((want - 3)) ] && [ "$top" -le "$want" ] ||
	fail "svc: device reserved drawn up to row $top, its peak is at row $want"
# the legend's labels are in the canvas, and say what the lines are
grep -q '>stream 3</text>' "$tmp/svc.svg" || fail "svc: legend lacks stream 3"
grep -q '>device reserved</text>' "$tmp/svc.svg" || fail "svc: legend lacks the device line"

# one stream: the device's line still shows beside the stream's
"$hipsim" run --workload service --streams 1 --steps 60 --svg "$tmp/one.svg" >/dev/null 2>"$tmp/err" ||
	fail "run --streams 1 --svg: $(cat "$tmp/err")"
render one
[ "$("$probe" "$tmp/one.png" top 000000 $inside)" -ge 0 ] || fail "one stream hides the device in-use line"
[ "$("$probe" "$tmp/one.png" top 777777 $inside)" -ge 0 ] || fail "one stream hides the device reserved line"

# a million events: the plot's size does not follow the trace's
awk 'BEGIN {
	print "Thread,Time,Action,Pointer,Size,Stream"
	srand(3); live = 0
	for (i = 0; i < 1000000; i++) {
		if (live > 0 && (live > 500 || rand() < 0.5)) {
			live--; printf "1,%d,free,0x%x,,s%d\n", i * 1000, 4096 + live * 256, live % 2
		} else {
			printf "1,%d,allocate,0x%x,%d,s%d\n", i * 1000, 4096 + live * 256, 4096 * (1 + int(rand() * 512)), live % 2
			live++
		}
	}
}' >"$tmp/big.csv"
"$hipsim" replay "$tmp/big.csv" --svg "$tmp/big.svg" --json >"$tmp/big.json" 2>"$tmp/err" ||
	fail "replay of a million events: exit $?: $(cat "$tmp/err")"
# a million trace events and the two streams' opens
grep -q '"events": 1000002,' "$tmp/big.json" || fail "big: not a million events"
size=$(wc -c <"$tmp/big.svg")
# 6 lines (the device's two, two per stream) of at most 5 points per bucket
# (2048 buckets, tools/hipsim/plot.h), about 14 bytes a point
[ "$size" -le $((6 * 5 * 2048 * 14 + 20000)) ] || fail "big: $size bytes of SVG"
render big
peak=$(sed -n 's/.*id="peak-reserved"[^>]* y1="\([0-9.]*\)".*/\1/p' "$tmp/big.svg")
top=$("$probe" "$tmp/big.png" top 777777 $inside)
want=$(row "$peak")
[ "$top" -ge $((want - 3)) ] && [ "$top" -le "$want" ] ||
	fail "big: device reserved drawn up to row $top, its peak is at row $want"
# a run's device policy: set, recorded in both reports, and acted on
"$hipsim" run --workload inference --steps 30 --flush-count 16 >"$tmp/p16.txt" || fail "run --flush-count 16"
"$hipsim" run --workload inference --steps 30 --flush-count 64 --json >"$tmp/p64.json" ||
	fail "run --flush-count 64"
grep -q 'flush-count 16, flush-bytes default, stage-max default, steps 30' "$tmp/p16.txt" ||
	fail "run --flush-count: not in the options line: $(grep options "$tmp/p16.txt")"
grep -q '"flush_count": 64,' "$tmp/p64.json" || fail "run --flush-count: not in the JSON options"
f16=$(sed -n 's/.*drop-queue flushes \.* \([0-9]*\)$/\1/p' "$tmp/p16.txt")
f64=$(sed -n 's/.*"dq_flushes": \([0-9]*\),/\1/p' "$tmp/p64.json")
[ -n "$f16" ] && [ -n "$f64" ] && [ "$f16" -gt "$f64" ] ||
	fail "run --flush-count: 16 flushes ${f16:-?} times, 64 ${f64:-?}"
"$hipsim" run --flush-count x >/dev/null 2>&1
[ $? -eq 2 ] || fail "run --flush-count x: not exit 2"
echo "ok: outputs ($size bytes of SVG for a million events)"
exit 0
