#!/bin/sh
# replay-roundtrip.sh - records `hipsim run --workload W --json` with
# `hipsim record`, replays the trace with `hipsim replay --json` on the same
# policies, and checks that the memory figures (peak in use, peak reserved,
# device allocs and frees, padding peak) and the predicted time are the
# ones the run reported, for several workloads and pool layouts.  The
# comparison is `hipsim compare --keys`, whose exit status says whether the
# keys agree (no jq or python needed).  Also: replaying the same trace twice
# with one seed gives byte-identical SVG and JSON equal apart from the two
# wall-clock keys.
# Skips (77) without lttng-sessiond/lttng or in a build without LTTng or
# without babeltrace2.
set -u
b=${top_builddir:-.}
hipsim="$b/tools/hipsim/hipsim"
module="$b/.libs/libhipcore-lttng.so"
keys=peak_in_use_bytes,peak_reserved_bytes,device_allocs,device_frees,padding_bytes_peak,predicted_ns,host_waits,bytes_h2d

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

grep -q '^#define HIPCORE_WITH_LTTNG 1' "$b/config.h" || skip "built --without-lttng"
grep -q '^#define HIPCORE_WITH_BABELTRACE2 1' "$b/config.h" || skip "built without babeltrace2 (no CTF reader)"
command -v lttng-sessiond >/dev/null 2>&1 || skip "lttng-sessiond not installed"
command -v lttng >/dev/null 2>&1 || skip "lttng not installed"
[ -f "$module" ] || fail "probe module $module not built"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-replay-rt.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

roundtrip() { # name, then `hipsim run` options; the policy options go to replay too
	name=$1
	shift
	pol=
	for a in "$@"; do
		case $a in --pools=*) pol="$pol $a" ;; esac
	done
	"$hipsim" record -o "$tmp/$name" --provider "$module" -- \
		"$hipsim" run "$@" --json >"$tmp/$name.run.json" 2>"$tmp/$name.rec.err" ||
		{ cat "$tmp/$name.rec.err"; fail "$name: hipsim run under record failed"; }
	grep -q " 0 discarded" "$tmp/$name.rec.err" || { cat "$tmp/$name.rec.err"; fail "$name: events discarded"; }
	# shellcheck disable=SC2086
	"$hipsim" replay "$tmp/$name" $pol --json >"$tmp/$name.rep.json" 2>"$tmp/$name.rep.err"
	rc=$?
	[ $rc -eq 0 ] || { cat "$tmp/$name.rep.err"; fail "$name: hipsim replay exited $rc"; }
	"$hipsim" compare --keys "$keys" "$tmp/$name.run.json" "$tmp/$name.rep.json" >"$tmp/$name.cmp" 2>&1 ||
		{ cat "$tmp/$name.cmp"; fail "$name: replayed figures differ from the run's"; }
	echo "ok: $name"
}

roundtrip service --workload service --steps 120
roundtrip training --workload training --steps 12
roundtrip inference-excl --workload inference --steps 60 --pools=exclusive
roundtrip loader-sub --workload loader --steps 40 --pools=subslices

# determinism: same trace and seed twice
for i in 1 2; do
	"$hipsim" replay "$tmp/service" --seed 7 --json --svg "$tmp/d$i.svg" >"$tmp/d$i.json" 2>/dev/null ||
		fail "determinism replay $i failed"
	grep -v '"replay_wall_ns"\|"replay_events_per_s"' "$tmp/d$i.json" >"$tmp/d$i.json.cut"
done
cmp -s "$tmp/d1.svg" "$tmp/d2.svg" || fail "two replays gave different SVG"
cmp -s "$tmp/d1.json.cut" "$tmp/d2.json.cut" || fail "two replays gave different JSON"
# per stream: device in use + reserved, then in use + reserved for each of
# the service workload's 4 streams
n=$(grep -c '<polyline' "$tmp/d1.svg")
[ "$n" -eq 10 ] || fail "SVG has $n polylines, want 10 (2 device + 2 x 4 streams)"
grep -q '>stream 3</text>' "$tmp/d1.svg" || fail "SVG legend lacks stream 3"
echo "ok: determinism"
exit 0
