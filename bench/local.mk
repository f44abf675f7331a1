EXTRA_DIST += bench/run-all
include bench/trace.mk
include bench/pools.mk
