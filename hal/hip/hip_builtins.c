/*
 * hip_builtins.c - which embedded image a runtime loads as the built-in
 * kernels, and how a launch of one is packed (hip_builtins.h).
 *
 * The kernels read their parameters' sizes as well as their addresses (a
 * kernel sees only what it is passed, and fill, copy and add are defined
 * on the sizes of the ranges bound to them), so a built-in launch passes
 * six 64-bit values instead of the caller's one pointer per parameter.
 * The ranges are checked here as the simulator checks them in data mode,
 * so a launch the simulator refuses is refused on a GPU too, before
 * anything runs.
 */
#include <string.h>

#include "hal/hip/hip_builtins.h"

void hip_builtin_image(enum hip_flavor flavor, const void **image, size_t *size,
		       const char **what)
{
	if (flavor == HIP_FLAVOR_AMD) {
		*image = hip_builtin_amdgcn;
		*size = hip_builtin_amdgcn_size;
		*what = hip_builtin_amdgcn_targets;
	} else {
		*image = hip_builtin_ptx;
		*size = hip_builtin_ptx_size;
		*what = "the built-in kernels (PTX for compute_80 and later)";
	}
}

int hip_builtin_pack(enum hc_builtin k, size_t n_args, const uint64_t *dptr,
		     const uint64_t *bytes, struct hip_builtin_params *out, char *why, size_t len)
{
	size_t n = hc_builtins[k].n_args;

	if (hc_builtin_check(k, dptr ? n_args : 0, bytes, why, len) != 0)
		return -1;
	memset(out->word, 0, sizeof(out->word));
	for (size_t i = 0; i < n; i++) {
		out->word[i] = dptr[i];
		out->word[HC_BUILTIN_MAX_ARGS + i] = bytes[i];
	}
	for (size_t i = 0; i < 2 * HC_BUILTIN_MAX_ARGS; i++)
		out->ptr[i] = &out->word[i];
	return 0;
}
