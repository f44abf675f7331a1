# doc/: see Makefile.am
dist_man_MANS = doc/hipsim.1
# The benchmark diary BENCHMARKS.md's tables came from (not installed).
EXTRA_DIST += doc/benchmarks-log.md
