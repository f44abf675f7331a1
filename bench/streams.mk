# bench/streams.mk: hc_write throughput (bench "write" on the simulator,
# bench "write_gpu" on a GPU through backend hip; the latter skips without one).
hc_benches += bench/bench_write bench/gpu/bench_write_gpu
bench_bench_write_SOURCES = bench/bench_write.c
bench_bench_write_CFLAGS = $(AM_CFLAGS) -O2
bench_bench_write_LDADD = libhipcore-internal.la
bench_gpu_bench_write_gpu_SOURCES = bench/gpu/bench_write_gpu.c
bench_gpu_bench_write_gpu_CFLAGS = $(AM_CFLAGS) -O2
bench_gpu_bench_write_gpu_LDADD = libhipcore-internal.la
