#!/bin/sh
# static-link.sh - examples/service.c links against the static libhipcore.a
# with no other libraries than the private ones hipcore.pc names
# (Libs.private, what `pkg-config --static --libs hipcore` adds), and runs.
# Skips (77) in a build without the static library (--disable-static).
set -u
b=${top_builddir:-.}
s=${top_srcdir:-.}
fail() { echo "FAIL: $*"; exit 1; }

[ -f "$b/.libs/libhipcore.a" ] || { echo "SKIP: no static library (--disable-static)"; exit 77; }
libs=$(sed -n 's/^Libs.private: *//p' "$b/hipcore.pc")
[ -n "$libs" ] || fail "hipcore.pc has no Libs.private"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-static.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086
${CC:-cc} -std=c11 ${CFLAGS:-} -I"$s/include" -o "$tmp/service" "$s/examples/service.c" \
	"$b/.libs/libhipcore.a" ${LDFLAGS:-} $libs >"$tmp/ld.log" 2>&1 ||
	fail "static link with Libs.private ($libs): $(tail -n 5 "$tmp/ld.log")"
"$tmp/service" >"$tmp/out" 2>&1 || fail "the statically linked service: exit $?: $(cat "$tmp/out")"
grep -q '^service: 64 requests served, 0 wrong$' "$tmp/out" || fail "service: $(cat "$tmp/out")"
echo "ok: static link with $libs"
exit 0
