#!/bin/sh
# layering.sh - hal/ and the backends (sim/, hal/hip/ or hal/hip_none.c)
# use nothing of core/: no symbol that an object of core/ defines is
# undefined in an object of hal/ or sim/ (doc/design.md, "Layers").  It reads
# the objects libhipcore-internal.la was built from, with nm; each reference
# found is named with the object that makes it.  A tree with too few objects
# on either side fails rather than passing on nothing.
set -u
b=${top_builddir:-.}
NM=${NM:-nm}
fail() { echo "FAIL: $*"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-layering.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# The library's objects under @1: libtool's PIC ones (.libs/) and, in a
# build with the static library, the others.
objects() { find "$b/$1" -name 'libhipcore_internal_la-*.o' | sort; }

objects core >"$tmp/core.list"
{ objects hal; objects sim; } >"$tmp/lower.list"
ncore=$(wc -l <"$tmp/core.list")
nlower=$(wc -l <"$tmp/lower.list")
[ "$ncore" -ge 20 ] || fail "only $ncore objects of core/ under $b/core: build the library first"
[ "$nlower" -ge 10 ] || fail "only $nlower objects of hal/ and sim/ under $b: build the library first"

# shellcheck disable=SC2046
$NM -g --defined-only $(cat "$tmp/core.list") 2>/dev/null |
	awk 'NF == 3 { print $3 }' | sort -u >"$tmp/core.defined"
grep -qx hc_last_error "$tmp/core.defined" ||
	fail "nm found no hc_last_error among core/'s symbols: nothing to compare against"

: >"$tmp/refs"
while read -r obj; do
	$NM -u "$obj" | awk '{ print $NF }' | sort -u | comm -12 - "$tmp/core.defined" |
		sed "s|^|${obj#"$b"/} uses core/'s |" >>"$tmp/refs"
done <"$tmp/lower.list"
if [ -s "$tmp/refs" ]; then
	cat "$tmp/refs"
	fail "$(wc -l <"$tmp/refs") references from hal/ or sim/ to core/"
fi
echo "ok: $nlower objects of hal/ and sim/ reference none of the $(wc -l <"$tmp/core.defined") symbols $ncore objects of core/ define"
exit 0
