# bench/bench_pool: memory manager reserve+release pairs against glibc malloc+free.
hc_benches += bench/bench_pool
bench_bench_pool_SOURCES = bench/bench_pool.c
bench_bench_pool_CFLAGS = $(AM_CFLAGS) -O2
bench_bench_pool_LDADD = libhipcore-internal.la
# Not a timing benchmark (not in hc_benches): bench/callgrind-xp-cleanup counts
# an expandable pool's cleanup instructions against its reserved range.
hc_bench_tools += bench/xp_cleanup_loop
bench_xp_cleanup_loop_SOURCES = bench/xp_cleanup_loop.c
bench_xp_cleanup_loop_CFLAGS = $(AM_CFLAGS) -O2
bench_xp_cleanup_loop_LDADD = libhipcore-internal.la
