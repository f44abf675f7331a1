EXTRA_DIST += bench/run-all
