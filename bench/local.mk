EXTRA_DIST += bench/run-all
include bench/replay.mk
