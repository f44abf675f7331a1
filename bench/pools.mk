# bench/bench_pool: memory manager reserve+release pairs against glibc malloc+free.
hc_benches += bench/bench_pool
bench_bench_pool_SOURCES = bench/bench_pool.c
bench_bench_pool_CFLAGS = $(AM_CFLAGS) -O2
bench_bench_pool_LDADD = libhipcore-internal.la
