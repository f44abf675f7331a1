hc_benches += bench/bench_api
bench_bench_api_SOURCES = bench/bench_api.c
bench_bench_api_CPPFLAGS = $(AM_CPPFLAGS) $(LTTNG_UST_CFLAGS)
bench_bench_api_CFLAGS = $(AM_CFLAGS) -O2
bench_bench_api_LDADD = libhipcore-internal.la
