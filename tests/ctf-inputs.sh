#!/bin/sh
# ctf-inputs.sh - issue 28's damaged LTTng traces, recorded here: `hipsim
# run --workload training --pools subslices --seed 7` under `hipsim record`,
# then copies with the metadata cut to 5000 and 12000 bytes (libbabeltrace2
# hangs on those), a hipcore:launch binding-array length byte set to 0x08
# (its decoder grew without bound), the events' stream file emptied or
# removed (0 events and exit 0 before); and a directory holding two
# recordings (two processes whose handle ids collide).  Each damaged replay
# must end within seconds with exit 2 and a message naming the cause; a
# partial one says so in its JSON; libbabeltrace2's log shows with
# --verbose only.  Skips (77) without LTTng, lttng-sessiond or babeltrace2.
set -u
b=${top_builddir:-.}
hipsim="$b/tools/hipsim/hipsim"
module="$b/.libs/libhipcore-lttng.so"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

grep -q '^#define HIPCORE_WITH_LTTNG 1' "$b/config.h" || skip "built --without-lttng"
grep -q '^#define HIPCORE_WITH_BABELTRACE2 1' "$b/config.h" || skip "built without babeltrace2 (no CTF reader)"
command -v lttng-sessiond >/dev/null 2>&1 || skip "lttng-sessiond not installed"
command -v lttng >/dev/null 2>&1 || skip "lttng not installed"
command -v babeltrace2 >/dev/null 2>&1 || skip "babeltrace2 not installed"
[ -f "$module" ] || fail "probe module $module not built"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-ctf-inputs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

record() { # record DIR, then `hipsim run` options
	dir=$1
	shift
	"$hipsim" record -o "$dir" --provider "$module" -- "$hipsim" run "$@" >/dev/null 2>"$tmp/rec.err" ||
		{ cat "$tmp/rec.err"; fail "hipsim record of run $* failed"; }
}

# bad NAME WANT [REPLAY ARGS...]: replays $tmp/NAME, which must end with exit
# 2 within 15 s, its stderr holding WANT (a fixed string).
bad() {
	name=$1 want=$2
	shift 2
	start=$(date +%s)
	timeout 120 "$hipsim" replay "$tmp/$name" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	secs=$(($(date +%s) - start))
	[ $rc -ne 124 ] || fail "$name: hipsim replay hung (killed after 120 s)"
	[ $rc -eq 2 ] || { cat "$tmp/$name.err"; fail "$name: exit $rc, want 2"; }
	[ $secs -lt 15 ] || fail "$name: took $secs s"
	grep -qF -- "$want" "$tmp/$name.err" || { cat "$tmp/$name.err"; fail "$name: stderr lacks '$want'"; }
	echo "ok: $name ($secs s): $(head -n 1 "$tmp/$name.err")"
}

# le BYTES VALUE: VALUE's low BYTES bytes, little-endian, as grep -P escapes.
le() {
	v=$2 i=0 out=
	while [ $i -lt "$1" ]; do
		out="$out\\x$(printf '%02x' $((v & 255)))"
		v=$((v >> 8))
		i=$((i + 1))
	done
	printf '%s' "$out"
}

record "$tmp/tr" --workload training --pools subslices --seed 7 --steps 4
sub=$(dirname "$(find "$tmp/tr" -name metadata | head -n 1)")
sub=${sub#"$tmp/tr/"}
"$hipsim" replay "$tmp/tr" --json >"$tmp/tr.json" 2>"$tmp/tr.err" || { cat "$tmp/tr.err"; fail "intact trace: exit $?"; }
grep -q '"partial": false' "$tmp/tr.json" || fail "intact trace: not \"partial\": false"

# 1. the metadata cut inside a packet
for n in 5000 12000; do
	cp -R "$tmp/tr" "$tmp/meta$n"
	truncate -s $n "$tmp/meta$n/$sub/metadata"
	bad meta$n "$sub/metadata: cut short: the packet at byte"
done

# 2. a binding-array length's high byte set to 0x08 (the first launch's)
line=$(babeltrace2 "$tmp/tr" 2>/dev/null | grep -m 1 'hipcore:launch: .*_binding_buffer_length = [1-9]')
[ -n "$line" ] || fail "no launch with bindings in the trace"
n=$(echo "$line" | sed -n 's/.*_binding_buffer_length = \([0-9]*\),.*/\1/p')
b0=$(echo "$line" | sed -n 's/.*binding_buffer = \[ \[0\] = \([0-9]*\).*/\1/p')
pat="$(le 4 "$n")$(le 8 "$b0")"
cp -R "$tmp/tr" "$tmp/flip"
hit=
for f in "$tmp/flip/$sub"/*; do
	[ -f "$f" ] || continue
	off=$(LC_ALL=C grep -obaP "$pat" "$f" | head -n 1 | cut -d: -f1)
	if [ -n "$off" ]; then
		printf '\010' | dd of="$f" bs=1 seek=$((off + 3)) conv=notrunc 2>/dev/null
		hit=$f
		break
	fi
done
[ -n "$hit" ] || fail "launch bindings ($n, $b0) not found in the stream files"
bad flip "a dynamic array of the trace claims $((0x08000000 + n)) elements of at least 64 bits"
# the guard, not the memory limit, stopped it: a 64 MiB limit changes nothing
bad flip "a dynamic array of the trace claims $((0x08000000 + n)) elements" --decode-memory 64M
grep -q 'PLUGIN/' "$tmp/flip.err" && fail "libbabeltrace2's log shown without --verbose"
bad flip "a dynamic array of the trace claims" --verbose
grep -q 'PLUGIN/SRC.CTF.FS' "$tmp/flip.err" || fail "--verbose did not show libbabeltrace2's log"

# 3. the stream file that holds the events emptied, then removed
data=$(ls -S "$tmp/tr/$sub" | grep -v '^metadata$' | grep -v '^index$' | head -n 1)
cp -R "$tmp/tr" "$tmp/empty"
: >"$tmp/empty/$sub/$data"
bad empty "$sub/$data is empty (0 bytes): its events are lost (the replay is partial)" --json
grep -q '"partial": true' "$tmp/empty.out" || fail "empty: not \"partial\": true"
grep -q '"partial_reason": ".*is empty (0 bytes)' "$tmp/empty.out" || fail "empty: no partial_reason"
cp -R "$tmp/tr" "$tmp/missing"
rm "$tmp/missing/$sub/$data"
bad missing "$sub/$data is missing (index/$data.idx lists its packets)"

# 4. two recordings in one directory: two processes, refused with their
# pids; --pid replays one as its own recording does
mkdir "$tmp/two"
record "$tmp/two/a" --workload service --steps 20
record "$tmp/two/b" --workload service --steps 10
bad two "the trace holds the events of 2 processes: pid "
grep -qF -- "choose one with --pid" "$tmp/two.err" || fail "two: --pid not named"
pid=$(sed -n 's/.*processes: pid \([0-9]*\) .*/\1/p' "$tmp/two.err" | head -n 1)
for one in a b; do
	"$hipsim" replay "$tmp/two/$one" --json >"$tmp/$one.json" || fail "replay of $one alone failed"
done
"$hipsim" replay "$tmp/two" --pid "$pid" --json >"$tmp/pid.json" 2>"$tmp/pid.err" ||
	{ cat "$tmp/pid.err"; fail "--pid $pid: exit $?"; }
keys=events,peak_in_use_bytes,peak_reserved_bytes,device_allocs,predicted_ns
if "$hipsim" compare --keys "$keys" "$tmp/a.json" "$tmp/pid.json" >/dev/null 2>&1; then
	one=a
elif "$hipsim" compare --keys "$keys" "$tmp/b.json" "$tmp/pid.json" >/dev/null 2>&1; then
	one=b
else
	fail "--pid $pid replays neither recording's figures"
fi
"$hipsim" compare --keys events "$tmp/a.json" "$tmp/b.json" >/dev/null 2>&1 && fail "the two recordings do not differ"
echo "ok: --pid $pid replays recording $one as it replays alone"
bad two "no event of process 1 (--pid) in the trace, which holds pid " --pid 1
exit 0
