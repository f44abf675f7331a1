hc_benches += bench/bench_api
bench_bench_api_SOURCES = bench/bench_api.c
bench_bench_api_CPPFLAGS = $(AM_CPPFLAGS) $(LTTNG_UST_CFLAGS)
bench_bench_api_CFLAGS = $(AM_CFLAGS) -O2
bench_bench_api_LDADD = libhipcore-internal.la

# Not a timing benchmark (not in hc_benches): bench/callgrind-pair counts its
# instructions per pair.
hc_bench_tools += bench/pair_loop
bench_pair_loop_SOURCES = bench/pair_loop.c
bench_pair_loop_CFLAGS = $(AM_CFLAGS) -O2
bench_pair_loop_LDADD = libhipcore-internal.la
