EXTRA_DIST += bench/timing.h bench/run-all bench/callgrind-pair bench/callgrind-xp-cleanup bench/lttng-overhead.sh bench/replay-corpus.sh bench/xp-share.sh bench/replay-mixed-ab.sh bench/probes/run-cpu.sh bench/probes/hostreg.c bench/probes/atomics.c bench/probes/streams.c \
	bench/probes/context.c bench/probes/lock.c bench/probes/probe.h
include bench/trace.mk
include bench/pools.mk
include bench/cache.mk
include bench/gpu.mk
include bench/replay.mk
include bench/api.mk
include bench/streams.mk
# The PyTorch client (GPU machine only: bench/torch/run-gpu.sh).
EXTRA_DIST += bench/torch/install-carry.sh bench/torch/models.py bench/torch/common.py bench/torch/train.py \
	bench/torch/serve.py bench/torch/micro.py bench/torch/probe.py bench/torch/summarize.py \
	bench/torch/make-carry.sh bench/torch/run-gpu.sh
