# tests/trace.mk: LTTng round trip (trace_emit recorded by hipsim record)
# and the argument/error paths of hipsim record.  trace-roundtrip.sh skips
# (77) without lttng-sessiond or when built --without-lttng.
check_PROGRAMS += tests/trace_emit tests/record_driver
tests_trace_emit_SOURCES = tests/trace_emit.c
tests_trace_emit_CPPFLAGS = $(AM_CPPFLAGS) $(LTTNG_UST_CFLAGS)
tests_trace_emit_LDADD = libhipcore-internal.la
tests_record_driver_SOURCES = tests/record_driver.c
tests_record_driver_LDADD = tools/hipsim/libhipsim-record.la

TESTS += tests/trace-roundtrip.sh
EXTRA_DIST += tests/trace-roundtrip.sh tests/check_trace.c
# hipsim record following a wrapper's processes, and empty recordings.
TESTS += tests/record-descendants.sh
EXTRA_DIST += tests/record-descendants.sh

if HAVE_CHECK
check_PROGRAMS += tests/check_record
TESTS += tests/check_record
tests_check_record_SOURCES = tests/check_record.c $(TEST_RUNNER)
tests_check_record_CFLAGS = $(TEST_CFLAGS)
tests_check_record_LDADD = tools/hipsim/libhipsim-record.la $(CHECK_LIBS)
endif

if HAVE_CHECK
if HIPCORE_LTTNG
check_PROGRAMS += tests/check_trace
TESTS += tests/check_trace
tests_check_trace_SOURCES = tests/check_trace.c $(TEST_RUNNER)
tests_check_trace_CPPFLAGS = $(AM_CPPFLAGS) $(LTTNG_UST_CFLAGS) $(hc_lttng_module_define)
tests_check_trace_CFLAGS = $(TEST_CFLAGS)
tests_check_trace_LDADD = $(TEST_LDADD)
endif
endif

# The trace schema's four writings agree (provider, fn ids, the CTF
# reader's names, doc/trace-events.md); needs no LTTng.
EXTRA_DIST += tests/check_trace_schema.c
if HAVE_CHECK
check_PROGRAMS += tests/check_trace_schema
TESTS += tests/check_trace_schema
tests_check_trace_schema_SOURCES = tests/check_trace_schema.c $(TEST_RUNNER)
tests_check_trace_schema_CFLAGS = $(TEST_CFLAGS) -DHC_ABS_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_check_trace_schema_LDADD = $(CHECK_LIBS)
endif
