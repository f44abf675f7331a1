#!/bin/sh
# sim-on-device.sh - the simulator's fidelity checks ON the GPU machine, as
# a user runs hipsim there: the hipsim that bench/torch/make-carry.sh
# installed for /opt/hipcore (carry _carry/torch), run from the repository
# root there:
#
#   tests/gpu/sim-on-device.sh [STAGE...]   (default: fidelity expandable whatif)
#
# Stages, each bounded by `timeout`, outputs under $OUT (the device tool's):
#   fidelity    tests/gpu/fidelity.sh $RUNS times in a row (default 3), in
#               $OUT/fidelity-1 ...; a line per run in $OUT/summary
#   expandable  tests/gpu/hip-workloads.sh with POOLS=expandable: the GPU's
#               memory figures for the virtual-memory pool against the
#               simulator's, under the first fidelity run's profile (else
#               the shipped h100-calibrated), in $OUT/expandable
#   workloads   the same with the default pools, in $OUT/workloads
#   shared      the same with POOLS=expandable-shared (the streams lend
#               idle mappings, so the GPU's figures can differ from the
#               simulator's where a fence has not passed), in $OUT/shared
#   whatif      tests/gpu/whatif.sh with that profile, in $OUT/whatif
#   calibrate   one `hipsim calibrate --backend hip` into $OUT/profile,
#               the profile of the stages after it (for whatif without
#               fidelity's two calibrations and validates)
# Every stage's directory and log come back in all.tar.gz, beside summary.
# Env: RUNS, STEPS (fidelity's and whatif's validate steps, default 200),
# CARRY (default _carry/torch), STAGE_TIMEOUT (seconds, default 240).
# Exit status: 0 every stage passed, 1 otherwise, 2 no carry.
set -u
here=$(cd "$(dirname "$0")" && pwd)
carry=${CARRY:-_carry/torch}
out=${OUT:-$(mktemp -d /tmp/hc-sim.XXXXXX)}
runs=${RUNS:-3}
limit=${STAGE_TIMEOUT:-240}
stages=${*:-fidelity expandable whatif}

# shellcheck source=bench/torch/install-carry.sh
. "$here/../../bench/torch/install-carry.sh" # /opt/hipcore, /opt/carry; sets C and L
ld=$L:/opt/hipcore/lib
for d in /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/lib64; do
	test -d "$d" && ld="$ld:$d"
done
export LD_LIBRARY_PATH="$ld${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HIPCORE_LTTNG=0
# fidelity.sh and whatif.sh take a build directory: give them one
build=$out/.build
mkdir -p "$build/tools/hipsim" && ln -sf /opt/hipcore/bin/hipsim "$build/tools/hipsim/hipsim"
mkdir -p "$out"
status=0
note() { echo "$*" | tee -a "$out/summary"; }
profile=/opt/hipcore/share/hipcore/profiles/h100-calibrated.profile

for stage in $stages; do
	# the card's name and UUID: which host a figure came from
	note "== $(date -u +%T) $stage on $(nvidia-smi --query-gpu=name,uuid --format=csv,noheader 2>/dev/null | head -1)"
	case $stage in
	fidelity)
		i=1
		while [ "$i" -le "$runs" ]; do
			OUT=$out/fidelity-$i timeout "$limit" sh "$here/fidelity.sh" "$build" >"$out/fidelity-$i.log" 2>&1
			rc=$?
			note "fidelity run $i: exit $rc"
			sed -n '/== repeatability/,/== validate/p' "$out/fidelity-$i.log" | tee -a "$out/summary"
			grep -i 'total\|time error\|differ' "$out/fidelity-$i/validate.txt" 2>/dev/null | tee -a "$out/summary"
			[ $rc -eq 0 ] || status=1
			i=$((i + 1))
		done
		test -s "$out/fidelity-1/profile1" && profile=$out/fidelity-1/profile1 ;;
	calibrate)
		timeout "$limit" /opt/hipcore/bin/hipsim calibrate --backend "${BACKEND:-hip}" -o "$out/profile" \
			>"$out/calibrate.log" 2>&1
		rc=$?
		note "calibrate: exit $rc"
		if [ $rc -eq 0 ]; then profile=$out/profile; else status=1; fi ;;
	expandable | workloads | shared)
		case $stage in
		expandable) pools=expandable ;;
		shared) pools=expandable-shared ;;
		*) pools= ;;
		esac
		OUT=$out/$stage POOLS=$pools PROFILE=$profile STEPS=${STEPS:-200} \
			timeout "$limit" sh "$here/hip-workloads.sh" /opt/hipcore/bin/hipsim >"$out/$stage.log" 2>&1
		rc=$?
		cat "$out/$stage.log" >>"$out/summary"
		note "$stage: exit $rc"
		[ $rc -eq 0 ] || status=1 ;;
	whatif)
		OUT=$out/whatif STEPS=${STEPS:-200} timeout "$limit" sh "$here/whatif.sh" "$build" "$profile" \
			>"$out/whatif.log" 2>&1
		rc=$?
		cat "$out/whatif.log" >>"$out/summary"
		note "whatif: exit $rc"
		[ $rc -eq 0 ] || status=1 ;;
	*) note "sim-on-device: unknown stage $stage"; status=1 ;;
	esac
done
rm -rf "$build"
note "sim-on-device: exit $status"
# Two files back, summary and all.tar.gz (every stage's directory and log):
# the device tool returns at most eight files, and a call of several
# stages had lost its summary and what-if table to that limit.
(
	cd "$out" || exit
	set --
	for f in fidelity-* calibrate.log profile expandable* workloads* shared* whatif*; do
		if [ -e "$f" ]; then set -- "$@" "$f"; fi
	done
	if [ $# -gt 0 ] && tar czf all.tar.gz "$@"; then rm -rf "$@"; fi
)
exit $status
