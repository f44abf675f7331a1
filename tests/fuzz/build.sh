#!/bin/sh
# tests/fuzz/build.sh [BUILD-DIR] - build the libFuzzer targets.
#
# A separate clang configure of the whole tree (in BUILD-DIR, default
# _build/fuzz) with -fsanitize=fuzzer-no-link,address,undefined, so the
# normal build is untouched; then each tests/fuzz/fuzz_*.c is linked with
# -fsanitize=fuzzer against that build's libhipcore-internal.a (and, for the
# reader targets, hipsim's reader sources compiled with the same flags;
# fuzz_ctf_decode also gets its babeltrace2 source, tests/fuzz/ctf_source.c;
# fuzz_replay the replay engine, driver and reports too;
# fuzz_layout_file hipsim's layout-file parser).
# Binaries land in BUILD-DIR/fuzz/.  Run one with
#   BUILD-DIR/fuzz/fuzz_rmm -max_total_time=30 tests/fuzz/corpus/rmm
# (tests/fuzz/run.sh does that for every target).
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-$src/_build/fuzz}
CC=${CC:-clang}
jobs=${JOBS:-2}
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cflags="-O1 -g $san -fsanitize=fuzzer-no-link"

[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi >/dev/null 2>&1)
mkdir -p "$b"
b=$(cd "$b" && pwd) # -I$b below is used from inside it
cd "$b"
if [ ! -f Makefile ]; then
	"$src/configure" -q --without-lttng --disable-shared CC="$CC" CFLAGS="$cflags" >/dev/null
fi
make -j"$jobs" libhipcore-internal.la >/dev/null

bt2_cflags=$(pkg-config --cflags babeltrace2 2>/dev/null || true)
bt2_libs=$(pkg-config --libs babeltrace2 2>/dev/null || true)
hs_cflags=$(pkg-config --cflags jansson zlib)
hs_libs=$(pkg-config --libs jansson zlib)
inc="-I$src -I$src/include -I$b -D_GNU_SOURCE"
h=$src/tools/hipsim
readers="$h/read_rmm.c $h/read_ctf.c $h/read_trace.c $h/read_isolated.c $h/idmap.c $h/read_options.c \
	$h/decode_guard.c $h/ctf_files.c $h/ctf_array_guard.c"
engine="$h/replay.c $h/driver.c $h/report.c $h/layout_file.c $h/options.c $h/output.c $h/plot.c $h/svg.c $h/variant.c"
mkdir -p fuzz
for f in "$src"/tests/fuzz/fuzz_*.c; do
	t=$(basename "$f" .c)
	extra=""
	case "$t" in fuzz_rmm|fuzz_ctf) extra="$readers $bt2_cflags -DHC_SRCDIR=\"$src\"" ;;
	fuzz_ctf_decode) extra="$readers $src/tests/fuzz/ctf_source.c $bt2_cflags" ;;
	fuzz_replay) extra="$readers $engine $bt2_cflags -DHC_SRCDIR=\"$src\"" ;;
	fuzz_layout_file) extra="$src/tools/hipsim/layout_file.c" ;; esac
	# shellcheck disable=SC2086
	$CC -std=c11 -O1 -g $san -fsanitize=fuzzer $inc $hs_cflags $extra "$f" \
		.libs/libhipcore-internal.a $bt2_libs $hs_libs -lpthread -ldl -lm -o "fuzz/$t"
done
echo "fuzz targets in $b/fuzz"
