#!/bin/sh
# run-gpu.sh - libhipcore as PyTorch's allocator against PyTorch's own, ON
# the GPU machine, from what bench/torch/make-carry.sh gathered (run from the
# repository root there):
#
#   bench/torch/run-gpu.sh STAGE...      (stages: probe train serve micro trace)
#
# Environment: CARRY (default _carry/torch), ROUNDS (train rounds, default
# 1; native and hipcore alternate, the first of each pair alternating by
# round), STEPS (training steps, default 50), MODELS (default "gpt2 bert
# resnet vit"), OUT (results directory; the device tool's $OUT).  Each
# result is a JSON line in $OUT/results.jsonl, each program's output in
# $OUT/log.txt; bench/torch/summarize.py turns them into BENCHMARKS.md's
# table.  Every program runs under a timeout; a failure is logged and the
# next one runs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
carry=${CARRY:-_carry/torch}
out=${OUT:-$(mktemp -d /tmp/hc-torch.XXXXXX)}
rounds=${ROUNDS:-1}
steps=${STEPS:-50}
models=${MODELS:-gpt2 bert resnet vit}
py=${PYTHON:-/opt/torch/.venv/bin/python3}
mkdir -p "$out"
res=$out/results.jsonl
log=$out/log.txt

# shellcheck source=bench/torch/install-carry.sh
. "$here/install-carry.sh" # /opt/hipcore, /opt/carry; sets C and L
export PYTHONPATH=/opt/hipcore/lib/hipcore:$here
export HIPCORE_LTTNG=0 # no probe module in timed runs: `trace` records on its own
export CUBLAS_WORKSPACE_CONFIG=:4096:8

run() { # run SECONDS CMD...: logged, bounded, never fatal
	t=$1; shift
	echo "== $(date -u +%T) $*" >>"$log"
	timeout "$t" "$@" >>"$log" 2>&1 || echo "== exit $? : $*" >>"$log"
}

for stage in "$@"; do
	case $stage in
	probe) run 300 "$py" "$here/probe.py" --out "$res" ;;
	train)
		r=1
		while [ $r -le "$rounds" ]; do
			for m in $models; do
				if [ $((r % 2)) -eq 1 ]; then pair="native hipcore"; else pair="hipcore native"; fi
				for alloc in $pair; do
					run 240 "$py" "$here/train.py" --allocator $alloc --model $m --steps "$steps" --out "$res"
				done
			done
			r=$((r + 1))
		done ;;
	serve)
		for alloc in native hipcore; do run 240 "$py" "$here/serve.py" --allocator $alloc --out "$res"; done ;;
	micro)
		for alloc in native hipcore; do run 240 "$py" "$here/micro.py" --allocator $alloc --out "$res"; done ;;
	trace)
		# hipsim record starts no daemon it cannot: start one the way this
		# machine needs (doc: reference notes on the GPU machine).
		export PATH=$C/usr/bin:$PATH LTTNG_SESSION_CONFIG_XSD_PATH=$C/usr/share/xml/lttng \
			BABELTRACE_PLUGIN_PATH=$L/babeltrace2/plugins \
			LIBBABELTRACE2_PLUGIN_PROVIDER_DIR=$L/babeltrace2/plugin-providers
		LD_LIBRARY_PATH=$L lttng-sessiond --daemonize --no-kernel \
			--consumerd64-path=$L/lttng/libexec/lttng-consumerd >>"$log" 2>&1
		for w in train serve; do
			if [ $w = train ]; then args="$here/train.py --allocator hipcore --model gpt2 --steps 20"
			else args="$here/serve.py --allocator hipcore"; fi
			rm -rf "$out/trace-$w"
			# shellcheck disable=SC2086
			LD_LIBRARY_PATH=$L:/opt/hipcore/lib run 300 /opt/hipcore/bin/hipsim record \
				-o "$out/trace-$w" --provider /opt/hipcore/lib/hipcore/libhipcore-lttng.so -- \
				"$py" $args --out "$out/live-$w.jsonl"
			echo "== $(date -u +%T) hipsim replay $out/trace-$w --json" >>"$log"
			LD_LIBRARY_PATH=$L:/opt/hipcore/lib timeout 300 /opt/hipcore/bin/hipsim replay \
				"$out/trace-$w" --json >"$out/replay-$w.json" 2>>"$log"
			"$py" - "$out/live-$w.jsonl" "$out/replay-$w.json" "$w" >>"$res" <<'PY'
import json, sys
live = json.loads(open(sys.argv[1]).read().splitlines()[-1])
try:
    rep = json.load(open(sys.argv[2]))
except Exception as e:
    rep = {"error": repr(e)}
keys = ("peak_in_use_bytes", "peak_reserved_bytes", "device_allocs")
print(json.dumps({"kind": "trace", "workload": sys.argv[3], "live": {k: live.get(k) for k in keys},
                  "replay": {k: rep.get(k) for k in keys}, "events": rep.get("events"),
                  "identical": all(live.get(k) == rep.get(k) for k in keys)}))
PY
		done
		kill "$(cat /var/run/lttng/lttng-sessiond.pid 2>/dev/null)" 2>/dev/null
		# one file back instead of a tree the device tool would not return
		(cd "$out" && tar czf traces.tar.gz trace-train trace-serve live-*.jsonl replay-*.json 2>/dev/null &&
			rm -rf trace-train trace-serve live-*.jsonl replay-*.json)
		;;
	*) echo "run-gpu: unknown stage $stage" >&2 ;;
	esac
done
"$py" "$here/summarize.py" "$res" | tee "$out/summary.md"
