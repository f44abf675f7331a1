#!/bin/sh
# memory-efficiency.sh - reserved/peak-live on the synthetic corpus, checked
# against the committed table tests/data/memory-efficiency.tsv.
#
# Every trace of `memcorpus list` is generated (deterministically, at test
# time), run through memcorpus's PyTorch caching-allocator model, replayed
# with hipsim's default layout and with SubSlices, and planned with
# `hipsim plan`.  Fails when:
#  - peak live or the modelled PyTorch peak reserved differ from the table
#    (the generator or the model changed: regenerate the table on purpose);
#  - the default's peak reserved is above the table's (a regression) or
#    above the modelled PyTorch figure (the target);
#  - the plan's peak reserved is above 1.02 x peak live (the target).
# `memory-efficiency.sh --table` prints the TSV for the current build and
# `--markdown` the BENCHMARKS.md table, instead of checking.
set -u
b=${top_builddir:-.}
s=${top_srcdir:-.}
gen="$b/tools/memcorpus"
hipsim="$b/tools/hipsim/hipsim"
table="$s/tests/data/memory-efficiency.tsv"
mode=${1:-check}

fail() { echo "FAIL: $*"; status=1; }

[ -x "$gen" ] || { echo "FAIL: $gen not built"; exit 1; }
[ -x "$hipsim" ] || { echo "FAIL: $hipsim not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-memeff.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

reserved() { # TRACE LAYOUT -> peak reserved bytes of a replay (and $tmp/r.json)
	"$hipsim" replay "$1" --pools "$2" --json >"$tmp/r.json" || return 1
	tr ',' '\n' <"$tmp/r.json" | sed -n 's/.*"peak_reserved_bytes": *\([0-9]*\).*/\1/p'
}
allocs() { tr ',' '\n' <"$tmp/r.json" | sed -n 's/.*"device_allocs": *\([0-9]*\).*/\1/p'; }

status=0
rows=0

# The PyTorch model on a hand-worked trace: 100 B takes a 2 MiB small
# segment; 1 MiB + 1 a 20 MiB large one (split); 5 MiB and then 12 MiB + 1
# fit its remainder (best fit, split: 2 MiB - 1 KiB left); stream 1 never
# reuses stream 0's blocks (2 + 20 MiB more); 19 MiB finds no free block of
# stream 0 that is big enough (6 MiB + 512 after a merge, 2 MiB - 1 KiB) and
# takes a 20 MiB segment, whole (the 1 MiB remainder is not > 1 MiB); once
# the 12 MiB block is freed the first segment merges back into one 20 MiB
# block, which another 19 MiB request takes without a new segment.
if [ "$mode" = check ]; then
	M=1048576
	cat >"$tmp/hand.csv" <<EOF
Thread,Time,Action,Pointer,Size,Stream
1,1,allocate,0x1000,100,0
1,2,allocate,0x2000,$((M + 1)),0
1,3,allocate,0x3000,$((5 * M)),0
1,4,allocate,0x4000,$((12 * M + 1)),0
1,5,allocate,0x5000,100,1
1,6,free,0x2000,$((M + 1)),0
1,7,allocate,0x6000,$((M + 1)),1
1,8,free,0x3000,$((5 * M)),0
1,9,allocate,0x7000,$((19 * M)),0
1,10,free,0x4000,$((12 * M + 1)),0
1,11,allocate,0x8000,$((19 * M)),0
EOF
	"$gen" torch "$tmp/hand.csv" >"$tmp/hand.txt" || fail "model: hand trace failed"
	printf 'peak_live %s\ntorch_peak_reserved %s\ntorch_segments 5\n' \
		$((39 * M + 201)) $((64 * M)) >"$tmp/hand.want"
	cmp -s "$tmp/hand.txt" "$tmp/hand.want" ||
		fail "model: hand trace gives $(tr '\n' ' ' <"$tmp/hand.txt")"

	# hipsim plan: usage errors exit 2; on the hand trace the output is
	# comments and layout lines only, and the plan reserves peak live.
	"$hipsim" plan >/dev/null 2>&1; [ $? = 2 ] || fail "plan without a trace: not exit 2"
	"$hipsim" plan "$tmp/none.csv" >/dev/null 2>&1; [ $? = 2 ] || fail "plan of a missing file: not exit 2"
	"$hipsim" plan --capacity 12Q "$tmp/hand.csv" >/dev/null 2>&1; [ $? = 2 ] ||
		fail "plan --capacity 12Q: not exit 2"
	"$hipsim" plan "$tmp/hand.csv" >"$tmp/hplan.txt" || fail "plan of the hand trace failed"
	grep -v '^#' "$tmp/hplan.txt" | grep -Ev '^(exclusive max_alloc=[0-9]+[KMG]? dealloc_period=[0-9]+|sliced page=[0-9]+[KMG]? max_slice=[0-9]+[KMG]?( cap=[0-9]+[KMG]?)?|direct reclaim_at=[0-9]+[KMG]?)$' &&
		fail "plan printed a line that is not a layout line"
	grep -q '^direct reclaim_at=' "$tmp/hplan.txt" || fail "plan has no direct pool"
	"$gen" gen no-such-trace >"$tmp/none.out" 2>/dev/null; [ $? = 2 ] && [ ! -s "$tmp/none.out" ] ||
		fail "memcorpus gen of an unknown trace: not exit 2 with no output"
	grep -q '^# plan .*(1\.0000 x live)' "$tmp/hplan.txt" ||
		fail "plan of the hand trace is not 1.0000 x live: $(grep '^# plan' "$tmp/hplan.txt")"
fi
[ "$mode" = --table ] && printf '# trace\tpeak_live\ttorch\tdefault\tsubslices\tplan\n'
[ "$mode" = --markdown ] && {
	echo '| trace | peak live | PyTorch model | libhipcore default | subslices | plan | device allocations: PyTorch model / default / subslices |'
	echo '|---|---:|---:|---:|---:|---:|---:|'
}
for t in $("$gen" list); do
	csv="$tmp/$t.csv"
	"$gen" gen "$t" >"$csv" || { fail "$t: generator failed"; continue; }
	"$gen" torch "$csv" >"$tmp/torch.txt" || { fail "$t: model failed"; continue; }
	live=$(sed -n 's/^peak_live //p' "$tmp/torch.txt")
	torch=$(sed -n 's/^torch_peak_reserved //p' "$tmp/torch.txt")
	segs=$(sed -n 's/^torch_segments //p' "$tmp/torch.txt")
	def=$(reserved "$csv" default) || { fail "$t: default replay failed"; continue; }
	defa=$(allocs)
	sub=$(reserved "$csv" subslices) || { fail "$t: subslices replay failed"; continue; }
	suba=$(allocs)
	"$hipsim" plan "$csv" >"$tmp/plan.txt" || { fail "$t: plan failed"; continue; }
	plan=$(sed -n 's/^# plan  *\([0-9]*\) B.*/\1/p' "$tmp/plan.txt")
	rows=$((rows + 1))
	case $mode in
	--table)
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$live" "$torch" "$def" "$sub" "$plan"
		continue ;;
	--markdown)
		awk -v t="$t" -v l="$live" -v a="$torch" -v d="$def" -v s="$sub" -v p="$plan" \
			-v n="$segs / $defa / $suba" \
			'BEGIN { printf "| %s | %.1f MiB | %.3f | %.4f | %.3f | %.4f | %s |\n", t, l / 1048576, a / l, d / l, s / l, p / l, n }'
		continue ;;
	esac
	row=$(awk -v t="$t" '$1 == t' "$table")
	[ -n "$row" ] || { fail "$t: no row in $table"; continue; }
	set -- $row
	[ "$live" = "$2" ] || fail "$t: peak live $live, table says $2"
	[ "$torch" = "$3" ] || fail "$t: PyTorch model $torch, table says $3"
	[ "$def" -le "$4" ] || fail "$t: default reserves $def, more than the table's $4 (regression)"
	[ "$def" -le "$torch" ] || fail "$t: default reserves $def, more than PyTorch's modelled $torch"
	[ "$plan" -le "$6" ] || fail "$t: plan reserves $plan, more than the table's $6 (regression)"
	awk -v p="$plan" -v l="$live" 'BEGIN { exit !(p <= 1.02 * l) }' ||
		fail "$t: plan reserves $plan, more than 1.02 x peak live $live"
	echo "ok: $t live=$live torch=$torch default=$def plan=$plan"
done
[ "$rows" -gt 0 ] || fail "no corpus trace ran"
exit $status
