# bench/gpu.mk: runtime-level GPU figures (bench "gpu"), to set beside
# libhipcore's pool numbers.  Prints nothing but a skip line without a GPU.
hc_benches += bench/gpu/bench_hip_gpu
bench_gpu_bench_hip_gpu_SOURCES = bench/gpu/bench_hip_gpu.c
bench_gpu_bench_hip_gpu_LDADD = libhipcore-internal.la
