# bench/trace.mk: tracepoint cost (bench_trace.c).  The recording case runs
# hipsim record's code on itself, so it needs lttng-sessiond at run time.
hc_benches += bench/bench_trace
bench_bench_trace_SOURCES = bench/bench_trace.c
bench_bench_trace_CPPFLAGS = $(AM_CPPFLAGS) $(LTTNG_UST_CFLAGS) \
	-DHC_BENCH_MODULE='"$(abs_top_builddir)/.libs/libhipcore-lttng.so"' \
	-DHC_BENCH_WITH_RECORD
bench_bench_trace_CFLAGS = $(AM_CFLAGS) -O2
bench_bench_trace_LDADD = libhipcore-internal.la tools/hipsim/libhipsim-record.la
