# tools/memcorpus: synthetic allocation traces and the PyTorch allocator model
# (used by tests/check-memory-efficiency.sh and BENCHMARKS.md).
noinst_PROGRAMS += tools/memcorpus
tools_memcorpus_SOURCES = tools/memcorpus.c

TESTS += tests/memory-efficiency.sh
EXTRA_DIST += tests/memory-efficiency.sh tests/data/memory-efficiency.tsv
EXTRA_DIST += doc/memory-efficiency.md
