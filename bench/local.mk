EXTRA_DIST += bench/run-all
include bench/pools.mk
