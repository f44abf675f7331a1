# tests/calibrate.mk: hipsim calibrate/validate without a GPU
# (tests/check_calibrate.c links calibrate.c from its source; calibrate.sh
# drives the hipsim binary).
if HAVE_CHECK
check_PROGRAMS += tests/check_calibrate
TESTS += tests/check_calibrate
tests_check_calibrate_SOURCES = tests/check_calibrate.c $(TEST_RUNNER) tools/hipsim/calibrate.h \
	tools/hipsim/calibrate.c tools/hipsim/options.c tools/hipsim/output.c
tests_check_calibrate_CFLAGS = $(TEST_CFLAGS)
tests_check_calibrate_LDADD = $(TEST_LDADD) -lm
endif
TESTS += tests/calibrate.sh
EXTRA_DIST += tests/calibrate.sh tests/gpu/fidelity.sh tests/gpu/whatif.sh
# read_ctf.c's kernel-time fixture (its test is in tests/readers/ctf.c)
EXTRA_DIST += tests/data/ctf-ktime/ust/uid/0/64-bit/metadata \
	tests/data/ctf-ktime/ust/uid/0/64-bit/hipsim_0 \
	tests/data/ctf-ktime/ust/uid/0/64-bit/hipsim_1 \
	tests/data/ctf-ktime/ust/uid/0/64-bit/index/hipsim_0.idx \
	tests/data/ctf-ktime/ust/uid/0/64-bit/index/hipsim_1.idx \
	tests/data/ctf-ktime-src/README tests/data/ctf-ktime-src/app.c \
	tests/data/ctf-ktime-src/hc_tp.h
