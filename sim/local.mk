# sim/: the deterministic simulator backend (doc/sim-profile.md).
libhipcore_internal_la_SOURCES += \
	sim/sim.h \
	sim/sim_internal.h \
	sim/sim_device.c \
	sim/sim_profile.c \
	sim/sim_memory.c \
	sim/sim_ranges.h \
	sim/sim_ranges.c \
	sim/sim_stream.c \
	sim/sim_copy.c \
	sim/sim_kernels.c \
	sim/sim_graph.c \
	sim/sim_fault.c \
	sim/sim_cold.c \
	sim/sim_vmm.c
EXTRA_DIST += doc/sim-profile.md
