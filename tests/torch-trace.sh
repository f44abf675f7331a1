#!/bin/sh
# torch-trace.sh - the PyTorch plug-in recorded and replayed: tests/torch_driver
# drives libhipcore-torch.so on the simulator as PyTorch would, `hipsim record`
# records it, `hipsim replay` replays the trace, and the replay's peak
# reserved bytes and device allocations must equal the plug-in's live figures
# (peak in use too for a history without held blocks).  One thread, then four
# threads on four streams.  Skips (77) without lttng-sessiond/babeltrace2 or in
# a --without-lttng build.
set -u
b=${top_builddir:-.}
hipsim="$b/tools/hipsim/hipsim"
module="$b/.libs/libhipcore-lttng.so"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

grep -q '^#define HIPCORE_WITH_LTTNG 1' "$b/config.h" || skip "built --without-lttng"
command -v lttng-sessiond >/dev/null 2>&1 || skip "lttng-sessiond not installed"
command -v babeltrace2 >/dev/null 2>&1 || skip "babeltrace2 not installed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-torch.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

field() { # field NAME FILE: the integer value of "NAME": N
	sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p" "$2" | head -n 1
}

check() { # check NAME ARGS...: record the driver with ARGS, replay, compare
	name=$1; shift
	HIPCORE_TORCH_BACKEND=sim "$hipsim" record -o "$tmp/$name" --provider "$module" -- \
		"$b/tests/torch_driver" "$@" >"$tmp/$name.live" 2>"$tmp/$name.err" ||
		{ cat "$tmp/$name.err"; fail "$name: hipsim record exited $?"; }
	grep -q ', 0 discarded' "$tmp/$name.err" || { cat "$tmp/$name.err"; fail "$name: events were discarded"; }
	"$hipsim" replay "$tmp/$name" --json >"$tmp/$name.replay" 2>"$tmp/$name.rerr" ||
		{ cat "$tmp/$name.rerr"; fail "$name: hipsim replay exited $?"; }
	keys="peak_reserved_bytes device_allocs"
	case " $* " in *" plain "*) keys="peak_in_use_bytes $keys" ;; esac
	for k in $keys; do
		live=$(field "$k" "$tmp/$name.live")
		replay=$(field "$k" "$tmp/$name.replay")
		[ -n "$live" ] && [ "$live" -gt 0 ] || fail "$name: no live $k: $(cat "$tmp/$name.live")"
		[ "$live" = "$replay" ] || fail "$name: $k live $live, replayed $replay"
		echo "ok: $name $k $live"
	done
}

check one 1 30
check one-plain 1 30 plain
check four 4 30
check four-plain 4 30 plain
echo "PASS"
