EXTRA_DIST += bench/run-all
include bench/gpu.mk
