# tests/hip.mk: the HIP backend and the fault shim without a GPU (check), and
# against a real device (check-gpu, GPU machine only).

if HAVE_CHECK
if HIPCORE_HIP
check_PROGRAMS += tests/check_hip
TESTS += tests/check_hip
tests_check_hip_SOURCES = $(TEST_RUNNER) tests/hip/check_hip.c tests/hip/hip_suites.h \
	tests/hip/fake_runtime.c tests/hip/loader.c tests/hip/errors.c tests/hip/ops.c \
	tests/hip/builtins.c tests/hip/vmm.c tests/hip/amd.c
tests_check_hip_CFLAGS = $(TEST_CFLAGS)
tests_check_hip_CPPFLAGS = $(AM_CPPFLAGS) $(HIP_CPPFLAGS) -D__HIP_PLATFORM_AMD__
tests_check_hip_LDADD = $(TEST_LDADD)
endif
check_PROGRAMS += tests/check_hal_shims
TESTS += tests/check_hal_shims
tests_check_hal_shims_SOURCES = tests/check_hal_shims.c $(TEST_RUNNER)
tests_check_hal_shims_CFLAGS = $(TEST_CFLAGS)
tests_check_hal_shims_LDADD = $(TEST_LDADD)
endif

# A fake CUDA runtime (cuda* and cu*), and one missing cudaGraphLaunch.
# fake_hip exports the same under HIP names, for the AMD path.
check_LTLIBRARIES = tests/fake_cudart.la tests/fake_cudart_partial.la tests/fake_hip.la
tests_fake_cudart_la_SOURCES = tests/fake_cudart.c hal/builtins.c
tests_fake_cudart_la_CFLAGS = $(AM_CFLAGS)
tests_fake_cudart_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
tests_fake_cudart_partial_la_SOURCES = tests/fake_cudart.c hal/builtins.c
tests_fake_cudart_partial_la_CFLAGS = $(AM_CFLAGS) -DFAKE_PARTIAL
tests_fake_cudart_partial_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
tests_fake_hip_la_SOURCES = tests/fake_cudart.c hal/builtins.c
tests_fake_hip_la_CFLAGS = $(AM_CFLAGS) -DFAKE_HIP
tests_fake_hip_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere

EXTRA_DIST += tests/gpu/kernels.cu

# The built-in kernels' checked-in PTX and AMD bundle match their source.
TESTS += tests/builtin-kernels.sh
EXTRA_DIST += tests/builtin-kernels.sh tests/hipsim-data.sh
# The four workloads on backend hip over the fake runtime, and their bytes
# against the simulator's in data mode.
if HIPCORE_HIP
TESTS += tests/hipsim-data.sh
endif

# check-gpu: the HIP backend against the real device, through hc_hip_ops()
# (check_hip_gpu) and through the public API (check_api_gpu, issue 6).
# Skips (77) without a runtime or device.  NVCC compiles the test kernel to
# PTX when present; else the test uses tests/gpu/kernels.ptx if shipped.
NVCC ?= nvcc
if HIPCORE_HIP
noinst_PROGRAMS += tests/gpu/check_hip_gpu
tests_gpu_check_hip_gpu_SOURCES = tests/gpu/check_hip_gpu.c
tests_gpu_check_hip_gpu_LDADD = libhipcore-internal.la
# The suite of issue 6 through the public API on backend "hip".
noinst_PROGRAMS += tests/gpu/check_api_gpu
tests_gpu_check_api_gpu_SOURCES = tests/gpu/check_api_gpu.c
tests_gpu_check_api_gpu_LDADD = libhipcore-internal.la
tests_gpu_check_api_gpu_LDFLAGS = -no-install
tests_gpu_check_hip_gpu_LDFLAGS = -no-install
tests/gpu/kernels.ptx: $(srcdir)/tests/gpu/kernels.cu
	@$(MKDIR_P) tests/gpu
	$(AM_V_GEN)$(NVCC) -ptx -arch=compute_80 -o $@ $(srcdir)/tests/gpu/kernels.cu
CLEANFILES += tests/gpu/kernels.ptx
check-gpu: tests/gpu/check_hip_gpu tests/gpu/check_api_gpu
	@if command -v $(NVCC) >/dev/null 2>&1; then $(MAKE) $(AM_MAKEFLAGS) tests/gpu/kernels.ptx; fi
	@fail=0; for t in check_hip_gpu check_api_gpu; do \
		rc=0; HC_GPU_PTX=tests/gpu/kernels.ptx $(LIBTOOL) --mode=execute tests/gpu/$$t \
			|| rc=$$?; \
		if test $$rc -eq 77; then echo "check-gpu: $$t skipped"; \
		elif test $$rc -ne 0; then echo "check-gpu: $$t FAILED ($$rc)"; fail=1; fi; \
	done; exit $$fail
# check-gpu-dry: check_api_gpu without a GPU, a dry run of the suite's
# expectations before device time: every case on the simulator in data
# mode, then the round trips and the garbage image on backend "hip" over
# the fake runtime of tests/fake_cudart.c.
check-gpu-dry: tests/gpu/check_api_gpu tests/fake_cudart.la
	HC_API_GPU_BACKEND=sim $(LIBTOOL) --mode=execute tests/gpu/check_api_gpu
	HC_API_GPU_CASES="trips garbage" HIPCORE_HIP_LIBRARY=$(abs_builddir)/tests/.libs/fake_cudart.so \
		$(LIBTOOL) --mode=execute tests/gpu/check_api_gpu
# gpu-carry: the GPU programs, kernels.cu and the libraries they need into
# $(top_srcdir)/_carry/gpu for tests/gpu/run-on-device.sh on the GPU machine.
EXTRA_DIST += tests/gpu/make-carry.sh tests/gpu/run-on-device.sh tests/gpu/hip-workloads.sh \
	tests/gpu/sim-on-device.sh
gpu-carry: tests/gpu/check_hip_gpu tests/gpu/check_api_gpu bench/gpu/bench_hip_gpu \
		bench/gpu/bench_api_gpu bench/gpu/bench_write_gpu bench/gpu/bench_vmm_gpu \
		bench/probes/hostcopy
	cd $(top_srcdir) && tests/gpu/make-carry.sh $(abs_builddir)
else
check-gpu check-gpu-dry gpu-carry:
	@echo "$@: this build was configured --without-hip: no HIP backend to check"
endif
.PHONY: check-gpu check-gpu-dry gpu-carry
