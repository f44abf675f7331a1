# tools/: hipsim (tools/hipsim.mk is included once core links).
