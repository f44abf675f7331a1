# hal/: the HAL contract, the fault shim, and the HIP backend (runtime bound
# with dlopen at run time; HIP headers only for types and enums).
# hal/hal.c is the backend registry.
libhipcore_internal_la_SOURCES += \
	hal/hal.h \
	hal/hal.c \
	hal/fault.h \
	hal/fault.c \
	hal/optime.c \
	hal/hip/hip_rt.h \
	hal/hip/hip_errors.c \
	hal/hip/hip_loader.c \
	hal/hip/hip_ops.c \
	hal/hip/hip_pinned.c \
	hal/hip/hip_vmm.h \
	hal/hip/hip_vmm.c \
	hal/hip/hip_ktime.h \
	hal/hip/hip_ktime.c
libhipcore_internal_la_CPPFLAGS += -D__HIP_PLATFORM_AMD__
