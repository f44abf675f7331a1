# tests/sim.mk: the simulator backend's suites (tests/check_sim.c, and
# tests/check_sim_ranges.c for its address-space range sets).
if HAVE_CHECK
check_PROGRAMS += tests/check_sim
TESTS += tests/check_sim
tests_check_sim_SOURCES = tests/check_sim.c $(TEST_RUNNER)
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
