#!/bin/sh
# layering.sh - each layer uses nothing of the layers above it
# (doc/design.md, "Layers"), checked on the objects libhipcore-internal.la
# was built from, with nm:
#  - hal/ and the backends (sim/, hal/hip/ or hal/hip_none.c) reference no
#    symbol that an object of core/ defines;
#  - util/ references none that core/, hal/, sim/ or trace/ define.
# Each reference found is named with the object that makes it.  A tree with
# too few objects on either side fails rather than passing on nothing.
set -u
b=${top_builddir:-.}
NM=${NM:-nm}
fail() { echo "FAIL: $*"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-layering.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# The library's objects under the directories @*: libtool's PIC ones
# (.libs/) and, in a build with the static library, the others.
objects() { for d in "$@"; do [ -d "$b/$d" ] && find "$b/$d" -name 'libhipcore_internal_la-*.o'; done | sort; }

bad=0
# check LOWER-DIRS UPPER-DIRS MIN-LOWER MIN-UPPER
check() {
	objects $1 >"$tmp/lower.list"
	objects $2 >"$tmp/upper.list"
	nlower=$(wc -l <"$tmp/lower.list")
	nupper=$(wc -l <"$tmp/upper.list")
	[ "$nlower" -ge "$3" ] || fail "only $nlower objects under $1 in $b: build the library first"
	[ "$nupper" -ge "$4" ] || fail "only $nupper objects under $2 in $b: build the library first"
	# shellcheck disable=SC2046
	$NM -g --defined-only $(cat "$tmp/upper.list") 2>/dev/null |
		awk 'NF == 3 { print $3 }' | sort -u >"$tmp/upper.defined"
	[ -s "$tmp/upper.defined" ] || fail "nm found no symbol defined under $2"
	: >"$tmp/refs"
	while read -r obj; do
		$NM -u "$obj" | awk '{ print $NF }' | sort -u | comm -12 - "$tmp/upper.defined" |
			sed "s|^|${obj#"$b"/} uses |" >>"$tmp/refs"
	done <"$tmp/lower.list"
	if [ -s "$tmp/refs" ]; then
		cat "$tmp/refs"
		echo "FAIL: $(wc -l <"$tmp/refs") references from $1 to $2"
		bad=1
	else
		echo "ok: $nlower objects of $1 reference none of the $(wc -l <"$tmp/upper.defined")" \
			"symbols $nupper objects of $2 define"
	fi
}

check "hal sim" "core" 10 20
grep -qx hc_last_error "$tmp/upper.defined" ||
	fail "nm found no hc_last_error among core/'s symbols: nothing to compare against"
check "util" "core hal sim trace" 1 30
exit $bad
