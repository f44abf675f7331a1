# tests/interfaces.mk: the library's boundaries.
# layering.sh: hal/ and the backends link nothing of core/, checked on the
# built objects.  check_hal_error: the HAL's own error detail and how core
# turns it into hc_last_error.  exports.sh: libhipcore.so exports the public
# header's functions (HIPCORE_1) and private.h's (HIPCORE_PRIVATE_1), no
# more, as libhipcore.map says; the plug-in exports torch.h's.
TESTS += tests/layering.sh tests/exports.sh
EXTRA_DIST += tests/layering.sh tests/exports.sh
AM_TESTS_ENVIRONMENT += NM='$(NM)'; export NM;
if HAVE_CHECK
check_PROGRAMS += tests/check_hal_error
TESTS += tests/check_hal_error
tests_check_hal_error_SOURCES = tests/check_hal_error.c $(TEST_RUNNER)
tests_check_hal_error_CFLAGS = $(TEST_CFLAGS)
tests_check_hal_error_LDADD = $(TEST_LDADD)
endif
# check_options: util/env.h's table of HIPCORE_* variables against the
# sources (every name a row, getenv only in util/env.c) and the documents.
if HAVE_CHECK
check_PROGRAMS += tests/check_options
TESTS += tests/check_options
tests_check_options_SOURCES = tests/check_options.c $(TEST_RUNNER)
tests_check_options_CFLAGS = $(TEST_CFLAGS)
tests_check_options_LDADD = $(TEST_LDADD)
endif
# check_stats_version: hc_device_stats filled as far as the caller's
# struct_size reaches; the first version's callers, later callers, refusals.
if HAVE_CHECK
check_PROGRAMS += tests/check_stats_version
TESTS += tests/check_stats_version
tests_check_stats_version_SOURCES = tests/check_stats_version.c $(TEST_RUNNER)
tests_check_stats_version_CFLAGS = $(TEST_CFLAGS)
tests_check_stats_version_LDADD = $(TEST_LDADD)
endif
