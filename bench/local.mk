EXTRA_DIST += bench/run-all
include bench/cache.mk
