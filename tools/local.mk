# tools/: hipsim.
include tools/hipsim.mk
