# tests/interfaces.mk: the library's boundaries.
# layering.sh: hal/ and the backends link nothing of core/, checked on the
# built objects.  check_hal_error: the HAL's own error detail and how core
# turns it into hc_last_error.
TESTS += tests/layering.sh
EXTRA_DIST += tests/layering.sh
AM_TESTS_ENVIRONMENT += NM='$(NM)'; export NM;
if HAVE_CHECK
check_PROGRAMS += tests/check_hal_error
TESTS += tests/check_hal_error
tests_check_hal_error_SOURCES = tests/check_hal_error.c
tests_check_hal_error_CFLAGS = $(TEST_CFLAGS)
tests_check_hal_error_LDADD = $(TEST_LDADD)
endif
