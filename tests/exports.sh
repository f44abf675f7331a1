#!/bin/sh
# exports.sh - libhipcore.so exports the public API and the private
# interface, each under its version, and nothing else:
#  - HIPCORE_1: exactly the functions include/hipcore/hipcore.h declares
#    with HC_API;
#  - HIPCORE_PRIVATE_1: exactly those include/hipcore/private.h declares
#    with HC_PRIVATE_API;
#  - the version script libhipcore.map lists exactly these two sets, so it
#    cannot name a symbol the headers dropped.
# The plug-in libhipcore-torch.so exports exactly torch.h's
# HIPCORE_TORCH_API functions.  Each difference is named, both ways.
# Skips (77) in a build without shared libraries.
set -u
b=${top_builddir:-.}
s=${top_srcdir:-.}
NM=${NM:-nm}
lib=$b/.libs/libhipcore.so
plugin=$b/.libs/libhipcore-torch.so
[ -f "$lib" ] || { echo "SKIP: no $lib (--disable-shared)"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-exports.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
bad=0
say() { echo "FAIL: $*"; bad=1; }

# The functions a header declares with @2: the name before the first '('
# on a line that starts with the macro.
declared() { sed -n "s/^$2[^(]*[ *]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p" "$1" | sort -u; }
# The names the version script lists under node @1.
in_node() {
	awk -v node="$1" '
		$1 == node && $2 == "{" { on = 1; next }
		on && $1 ~ /^}/ { on = 0 }
		on && $1 ~ /^[A-Za-z_][A-Za-z0-9_]*;$/ { sub(/;$/, "", $1); print $1 }
	' "$s/libhipcore.map" | sort -u
}
# Defined dynamic symbols of @1 as name@version (name alone when
# unversioned), without the version nodes' own absolute symbols.
exported() {
	$NM -D --defined-only --with-symbol-versions "$1" |
		awk 'NF >= 3 && $2 != "A" { sub(/@@?/, "@", $3); print $3 }' | sort -u
}
# Lines of @1 not in @2, each prefixed with @3.
missing() { comm -23 "$1" "$2" | sed "s|^|$3|"; }

declared "$s/include/hipcore/hipcore.h" HC_API >"$tmp/public"
declared "$s/include/hipcore/private.h" HC_PRIVATE_API >"$tmp/private"
[ "$(wc -l <"$tmp/public")" -ge 30 ] || say "only $(wc -l <"$tmp/public") HC_API declarations read from hipcore.h"
[ -s "$tmp/private" ] || say "no HC_PRIVATE_API declaration read from private.h"
comm -12 "$tmp/public" "$tmp/private" | sed 's/^/declared public and private: /' >"$tmp/both"
[ -s "$tmp/both" ] && say "$(cat "$tmp/both")"

# The version script against the headers.
in_node HIPCORE_1 >"$tmp/map.public"
in_node HIPCORE_PRIVATE_1 >"$tmp/map.private"
missing "$tmp/public" "$tmp/map.public" "hipcore.h declares, HIPCORE_1 of libhipcore.map lacks: " >"$tmp/d"
missing "$tmp/map.public" "$tmp/public" "HIPCORE_1 of libhipcore.map lists, hipcore.h does not declare: " >>"$tmp/d"
missing "$tmp/private" "$tmp/map.private" "private.h declares, HIPCORE_PRIVATE_1 lacks: " >>"$tmp/d"
missing "$tmp/map.private" "$tmp/private" "HIPCORE_PRIVATE_1 lists, private.h does not declare: " >>"$tmp/d"

# The library against the headers, versions included.
{ sed 's/$/@HIPCORE_1/' "$tmp/public"; sed 's/$/@HIPCORE_PRIVATE_1/' "$tmp/private"; } |
	sort -u >"$tmp/want"
exported "$lib" >"$tmp/got"
[ -s "$tmp/got" ] || say "$NM -D read no symbol from $lib"
missing "$tmp/want" "$tmp/got" "libhipcore.so does not export (with this version): " >>"$tmp/d"
missing "$tmp/got" "$tmp/want" "libhipcore.so exports beyond the headers: " >>"$tmp/d"

# The plug-in against torch.h.
if [ -f "$plugin" ]; then
	declared "$s/include/hipcore/torch.h" HIPCORE_TORCH_API >"$tmp/torch"
	exported "$plugin" >"$tmp/torch.got"
	[ -s "$tmp/torch" ] || say "no HIPCORE_TORCH_API declaration read from torch.h"
	missing "$tmp/torch" "$tmp/torch.got" "libhipcore-torch.so does not export: " >>"$tmp/d"
	missing "$tmp/torch.got" "$tmp/torch" "libhipcore-torch.so exports beyond torch.h: " >>"$tmp/d"
fi

if [ -s "$tmp/d" ]; then
	sed 's/^/FAIL: /' "$tmp/d"
	bad=1
fi
[ "$bad" = 0 ] || exit 1
echo "ok: libhipcore.so exports $(wc -l <"$tmp/public") functions under HIPCORE_1 and" \
	"$(wc -l <"$tmp/private") under HIPCORE_PRIVATE_1, as the headers and libhipcore.map say"
exit 0
