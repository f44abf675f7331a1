# hal/: the HAL contract, the fault shim, and the HIP backend (runtime bound
# with dlopen at run time; HIP headers only for types and enums).  A build
# configured --without-hip has hal/hip_none.c in its place, which needs no
# HIP header and opens no device.  hal/hal.c is the backend registry.
libhipcore_internal_la_SOURCES += \
	hal/hal.h \
	hal/hal.c \
	hal/hal_error.c \
	hal/fault.h \
	hal/fault.c \
	hal/builtins.h \
	hal/builtins.c \
	hal/optime.c
if HIPCORE_HIP
libhipcore_internal_la_SOURCES += \
	hal/hip/hip_rt.h \
	hal/hip/hip_errors.c \
	hal/hip/hip_loader.c \
	hal/hip/hip_ops.c \
	hal/hip/hip_pinned.c \
	hal/hip/hip_vmm.h \
	hal/hip/hip_vmm.c \
	hal/hip/hip_ktime.h \
	hal/hip/hip_ktime.c \
	hal/hip/hip_builtins.h \
	hal/hip/hip_builtins.c
nodist_libhipcore_internal_la_SOURCES = hal/hip/builtin_images.c
libhipcore_internal_la_CPPFLAGS += -D__HIP_PLATFORM_AMD__
else
libhipcore_internal_la_SOURCES += hal/hip_none.c
endif

# The built-in kernels' device code (hal/hip/hip_builtins.h).  The PTX and
# the AMD bundle are checked in and distributed; each is remade from
# builtin_kernels.cu where its compiler is (nvcc; clang with the amdgcn
# target), else kept (scripts/gen-builtin-kernels says so; `make check`
# fails on one made from another source).  builtin_images.c embeds both.
hc_builtin_gen = $(SHELL) $(srcdir)/scripts/gen-builtin-kernels
hc_builtin_files = hal/hip/builtin_kernels.cu hal/hip/builtin_kernels.ptx \
	hal/hip/builtin_kernels.amdgcn hal/hip/builtin_kernels.amdgcn.txt
EXTRA_DIST += $(hc_builtin_files) scripts/gen-builtin-kernels
$(srcdir)/hal/hip/builtin_kernels.ptx: $(srcdir)/hal/hip/builtin_kernels.cu
	$(AM_V_GEN)$(hc_builtin_gen) --ptx $(srcdir)
$(srcdir)/hal/hip/builtin_kernels.amdgcn: $(srcdir)/hal/hip/builtin_kernels.cu
	$(AM_V_GEN)$(hc_builtin_gen) --amdgcn $(srcdir)
hal/hip/builtin_images.c: $(srcdir)/hal/hip/builtin_kernels.ptx \
		$(srcdir)/hal/hip/builtin_kernels.amdgcn $(srcdir)/scripts/gen-builtin-kernels
	@$(MKDIR_P) hal/hip
	$(AM_V_GEN)$(hc_builtin_gen) --embed $(srcdir) $@
CLEANFILES += hal/hip/builtin_images.c
# `make builtin-kernels`: remake both where the compilers are.
builtin-kernels:
	$(hc_builtin_gen) --ptx $(srcdir)
	$(hc_builtin_gen) --amdgcn $(srcdir)
.PHONY: builtin-kernels
