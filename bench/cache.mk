# bench/cache.mk: metadata cache hit cost (bench "cache", metric "hit_ns").
hc_benches += bench/bench_cache
bench_bench_cache_SOURCES = bench/bench_cache.c
bench_bench_cache_CFLAGS = $(AM_CFLAGS) -O2
bench_bench_cache_LDADD = libhipcore-internal.la
