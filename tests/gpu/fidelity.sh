#!/bin/sh
# fidelity.sh - simulator fidelity on the GPU machine, from a carried build.
#
#   tests/gpu/fidelity.sh [BUILD_DIR]      (default _build/d; outputs in $OUT, else ./fidelity-out)
#
# 1. hipsim calibrate --backend hip, twice (profile1, profile2), to show
#    repeatability: every workload's predicted total time (no-op kernels, as
#    validate runs them) under profile2 must be within 3 % of profile1's;
#    repeatability.txt lists them, profile-diff.txt every key that differs.
# 2. hipsim validate --profile profile1 --workload all: validate.txt (tables)
#    and validate.json.
# Exit status: 0 all good; 1 repeatability >= 3 %, a validate difference or
# a failure; 2 no hipsim; 77 no GPU.
# Env: STEPS (validate steps, default 200), QUICK=1 (calibrate --quick),
# PASSES=N (calibrate --passes N; default calibrate's),
# BACKEND=sim (a dry run of this script without a GPU: calibrates and
# "measures" on the simulator).
set -u
build=${1:-_build/d}
out=${OUT:-./fidelity-out}
steps=${STEPS:-200}
hipsim="$build/tools/hipsim/hipsim"
quick=
backend=${BACKEND:-hip}
[ "${QUICK:-0}" = 1 ] && quick=--quick
[ -n "${PASSES:-}" ] && quick="$quick --passes $PASSES"
[ -x "$hipsim" ] || { echo "fidelity.sh: no hipsim at $hipsim (build first)"; exit 2; }
mkdir -p "$out" || exit 2
status=0

for i in 1 2; do
	"$hipsim" calibrate --backend "$backend" $quick -o "$out/profile$i" 2>"$out/calibrate$i.err"
	rc=$?
	cat "$out/calibrate$i.err"
	if [ $rc -eq 2 ] && grep -q 'no usable hip device' "$out/calibrate$i.err"; then
		echo "fidelity.sh: skipped: no GPU"
		exit 77
	fi
	[ $rc -eq 0 ] || { echo "fidelity.sh: calibrate #$i failed (exit $rc)"; exit 1; }
done

# key by key: value lines of both profiles, side by side, relative change
awk -F' = ' '
	/^#/ || NF < 2 { next }
	FNR == NR { a[$1] = $2; next }
	{ split(a[$1], x, " "); split($2, y, " ");
	  d = (x[1] + 0 > 0) ? 100 * (y[1] - x[1]) / x[1] : 0;
	  printf "%-24s %22s %22s %+8.2f %%\n", $1, a[$1], $2, d }' \
	"$out/profile1" "$out/profile2" >"$out/profile-diff.txt"
echo "== profile1 vs profile2, key by key"
cat "$out/profile-diff.txt"

# predictions under each profile (the simulator only; "measured" is the
# built-in profile and is ignored here)
for i in 1 2; do
	"$hipsim" validate --measure-on sim --profile "$out/profile$i" --steps "$steps" \
		--json >"$out/predicted$i.json" || true
done
extract() { # workload total_ns pairs of the "predicted" objects
	awk '/"workload":/ { gsub(/[",]/, "", $2); w = $2 }
	     /"predicted":/ { p = 1 }
	     p && /"total_ns":/ { gsub(/,/, "", $2); print w, $2; p = 0 }' "$1"
}
extract "$out/predicted1.json" >"$out/p1.txt"
extract "$out/predicted2.json" >"$out/p2.txt"
echo "== repeatability: predicted total time, profile1 vs profile2 (limit 3 %)"
join "$out/p1.txt" "$out/p2.txt" | awk '
	{ d = ($2 > 0) ? 100 * ($3 - $2) / $2 : 0; if (d < 0) d = -d;
	  printf "%-10s %14.3f ms %14.3f ms %6.2f %%%s\n", $1, $2 / 1e6, $3 / 1e6, d,
		 d < 3 ? "" : "  OVER 3 %"; if (d >= 3) bad = 1; n++ }
	END { if (n == 0) { print "no predictions"; exit 1 } exit bad }' \
	| tee "$out/repeatability.txt"
[ "$(grep -c . "$out/repeatability.txt")" -ge 4 ] || status=1
grep -q 'OVER 3 %\|no predictions' "$out/repeatability.txt" && status=1

echo "== validate (profile1, $steps steps)"
"$hipsim" validate --measure-on "$backend" --profile "$out/profile1" --workload all \
	--steps "$steps" >"$out/validate.txt"
rc=$?
cat "$out/validate.txt"
[ $rc -eq 0 ] || status=1
"$hipsim" validate --measure-on "$backend" --profile "$out/profile1" --workload all \
	--steps "$steps" --json >"$out/validate.json" || status=1
echo "fidelity.sh: outputs in $out; exit $status"
exit $status
