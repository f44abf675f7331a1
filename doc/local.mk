# doc/: see Makefile.am
dist_man_MANS = doc/hipsim.1
# The design a newcomer reads first (installed with the other documents).
dist_doc_DATA += doc/design.md
# The benchmark diary BENCHMARKS.md's tables came from (not installed).
EXTRA_DIST += doc/benchmarks-log.md
# How the tests are organised, run and added.
EXTRA_DIST += tests/README.md
