# tests/sim.mk: the simulator backend's suites (tests/sim/*.c, one program
# tests/check_sim; tests/check_sim_ranges.c for its address-space range
# sets; tests/check_vmm.c for its virtual memory).
if HAVE_CHECK
check_PROGRAMS += tests/check_sim
TESTS += tests/check_sim
tests_check_sim_SOURCES = $(TEST_RUNNER) $(SIM_HAL_FIXTURE) tests/sim/check_sim.c \
	tests/sim/sim_suites.h tests/sim/helpers.c tests/sim/profile.c tests/sim/timing.c \
	tests/sim/memory.c tests/sim/data.c tests/sim/capture.c tests/sim/fault.c \
	tests/sim/threads.c tests/sim/bad_input.c
tests_check_sim_CFLAGS = $(TEST_CFLAGS)
tests_check_sim_CPPFLAGS = $(AM_CPPFLAGS) -DHC_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_check_sim_LDADD = $(TEST_LDADD)
# hal/builtins.c alone: the built-in kernels every backend runs.
check_PROGRAMS += tests/check_builtins
TESTS += tests/check_builtins
tests_check_builtins_SOURCES = tests/check_builtins.c $(TEST_RUNNER)
tests_check_builtins_CFLAGS = $(TEST_CFLAGS)
tests_check_builtins_LDADD = $(TEST_LDADD)
check_PROGRAMS += tests/check_sim_ranges
TESTS += tests/check_sim_ranges
tests_check_sim_ranges_SOURCES = tests/check_sim_ranges.c $(TEST_RUNNER)
tests_check_sim_ranges_CFLAGS = $(TEST_CFLAGS)
tests_check_sim_ranges_LDADD = $(TEST_LDADD)
endif
# Virtual memory on the simulator (tests/check_vmm.c).
if HAVE_CHECK
check_PROGRAMS += tests/check_vmm
TESTS += tests/check_vmm
tests_check_vmm_SOURCES = tests/check_vmm.c $(TEST_RUNNER) $(SIM_HAL_FIXTURE)
tests_check_vmm_CFLAGS = $(TEST_CFLAGS)
tests_check_vmm_LDADD = $(TEST_LDADD)
endif
