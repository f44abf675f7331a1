/*
 * hip_builtins.h - the built-in kernels on the HIP backend: the device code
 * embedded in libhipcore and the launch convention of its kernels.
 *
 * hal/hip/builtin_kernels.cu is the source; scripts/gen-builtin-kernels
 * made the checked-in PTX (NVIDIA) and AMD offload bundle from it and
 * writes them into the generated builtin_images.c at build time.
 * module_load with image NULL loads the image of the runtime's flavor.
 * What the kernels do is hal/builtins.h's, the simulator's semantics.
 */
#ifndef HIPCORE_HAL_HIP_BUILTINS_H
#define HIPCORE_HAL_HIP_BUILTINS_H

#include <stddef.h>
#include <stdint.h>

#include "hal/builtins.h"
#include "hal/hip/hip_rt.h"

/* builtin_images.c (generated): the PTX, NUL-terminated and counted with
 * its NUL, and the AMD bundle, with the targets it holds. */
extern const unsigned char hip_builtin_ptx[];
extern const size_t hip_builtin_ptx_size;
extern const unsigned char hip_builtin_amdgcn[];
extern const size_t hip_builtin_amdgcn_size;
extern const char hip_builtin_amdgcn_targets[];

/* The six kernel parameters of a built-in launch: the device addresses of
 * the kernel's first three parameters, then their sizes; 0 where unused. */
struct hip_builtin_params {
	uint64_t word[2 * HC_BUILTIN_MAX_ARGS];
	void *ptr[2 * HC_BUILTIN_MAX_ARGS]; /* &word[i]: cuLaunchKernel's kernelParams */
};

/*
 * hip_builtin_image - the embedded image for @flavor.
 * @what: receives a description for messages ("the built-in kernels (PTX
 * for compute_80)").
 */
void hip_builtin_image(enum hip_flavor flavor, const void **image, size_t *size,
		       const char **what);

/*
 * hip_builtin_pack - the parameters of a launch of built-in @k.
 * @n_args, @dptr, @bytes: the launch's parameters (hc_hal_launch.arg_dptr,
 * arg_bytes), which must be there.
 * @why, @len: the reason on failure, as hc_builtin_check gives it.
 * Return: 0, or -1 when the launch does not bind what the kernel needs
 * (nothing to launch).
 */
int hip_builtin_pack(enum hc_builtin k, size_t n_args, const uint64_t *dptr,
		     const uint64_t *bytes, struct hip_builtin_params *out, char *why, size_t len);

#endif /* HIPCORE_HAL_HIP_BUILTINS_H */
