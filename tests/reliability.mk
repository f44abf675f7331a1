# tests/reliability.mk: reliability (issue 10).  The fault-injection sweep
# over in-test workloads, the misuse matrix of the public API, and the
# fuzzing harness (built separately by tests/fuzz/build.sh with clang, run by
# tests/fuzz/run.sh and .ci/run; not part of `make check`).
if HAVE_CHECK
check_PROGRAMS += tests/check_fault_sweep
TESTS += tests/check_fault_sweep
tests_check_fault_sweep_SOURCES = tests/check_fault_sweep.c $(TEST_RUNNER)
tests_check_fault_sweep_CFLAGS = $(TEST_CFLAGS)
tests_check_fault_sweep_LDADD = $(TEST_LDADD)
endif
EXTRA_DIST += tests/data/ctf-bad-payload.bin tests/data/ctf-error-at-end.bin \
	tests/data/ctf-decoder-crash.bin \
	tests/helgrind.supp tests/reliability.supp doc/reliability.md \
	tests/fuzz/build.sh tests/fuzz/run.sh tests/fuzz/lsan.supp \
	tests/fuzz/fuzz_api.c tests/fuzz/fuzz_ctf.c tests/fuzz/fuzz_layout.c tests/fuzz/fuzz_layout_file.c \
	tests/fuzz/fuzz_profile.c tests/fuzz/fuzz_rmm.c tests/fuzz/fuzz_ctf_decode.c \
	tests/fuzz/ctf_source.h tests/fuzz/ctf_source.c \
	tests/fuzz/ctf_decode_seeds.py tests/fuzz/fuzz_replay.c tests/fuzz/replay_seeds.sh
if HAVE_CHECK
check_PROGRAMS += tests/check_misuse
TESTS += tests/check_misuse
tests_check_misuse_SOURCES = tests/check_misuse.c $(TEST_RUNNER)
tests_check_misuse_CFLAGS = $(TEST_CFLAGS)
tests_check_misuse_LDADD = $(TEST_LDADD)
endif
