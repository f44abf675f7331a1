# tools/: hipsim.
include tools/hipsim.mk
include tools/corpus.mk
