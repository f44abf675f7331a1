# bench/gpu.mk: runtime-level GPU figures (bench "gpu"), to set beside
# libhipcore's pool numbers.  Prints nothing but a skip line without a GPU.
if HIPCORE_HIP
hc_benches += bench/gpu/bench_hip_gpu
bench_gpu_bench_hip_gpu_SOURCES = bench/gpu/bench_hip_gpu.c
bench_gpu_bench_hip_gpu_LDADD = libhipcore-internal.la

# libhipcore's pools through the public API on backend "hip", beside
# cudaMallocAsync, cudaMalloc and cudaHostAlloc (bench "gpu_pool").
hc_benches += bench/gpu/bench_api_gpu
bench_gpu_bench_api_gpu_SOURCES = bench/gpu/bench_api_gpu.c
bench_gpu_bench_api_gpu_CPPFLAGS = $(AM_CPPFLAGS) $(LTTNG_UST_CFLAGS)
bench_gpu_bench_api_gpu_CFLAGS = $(AM_CFLAGS) -O2
bench_gpu_bench_api_gpu_LDADD = libhipcore-internal.la
bench_gpu_bench_api_gpu_LDFLAGS = -no-install
bench_gpu_bench_hip_gpu_LDFLAGS = -no-install
endif
# bench/streams.mk declares bench_write_gpu; linked here without a libtool
# wrapper too, so that tests/gpu/make-carry.sh can ship the real binary.
bench_gpu_bench_write_gpu_LDFLAGS = -no-install
# A probe, not a benchmark (not in hc_benches): the split host copy per
# call in a workload's conditions; carried by gpu-carry, run on the GPU
# machine with tests/gpu/run-on-device.sh _carry/gpu hostcopy.
hc_bench_tools += bench/probes/hostcopy
bench_probes_hostcopy_SOURCES = bench/probes/hostcopy.c
bench_probes_hostcopy_LDADD = libhipcore.la
bench_probes_hostcopy_LDFLAGS = -no-install
# Another probe: the backend's calls in a workload's conditions against
# calibrate's way of timing them (tests/gpu/run-on-device.sh _carry/gpu callmix).
hc_bench_tools += bench/probes/callmix
bench_probes_callmix_SOURCES = bench/probes/callmix.c
bench_probes_callmix_LDADD = libhipcore-internal.la
bench_probes_callmix_LDFLAGS = -no-install
# Virtual memory (hal.h's pmem_map / pmem_unmap) against cudaMalloc /
# cudaFree of the same sizes, in one run (bench "gpu_vmm").
hc_benches += bench/gpu/bench_vmm_gpu
bench_gpu_bench_vmm_gpu_SOURCES = bench/gpu/bench_vmm_gpu.c
bench_gpu_bench_vmm_gpu_LDADD = libhipcore-internal.la
bench_gpu_bench_vmm_gpu_LDFLAGS = -no-install
