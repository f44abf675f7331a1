/*
 * builtins.h - the built-in kernels, what every backend that runs them
 * agrees on: their names, their parameters, the ranges they need, and
 * their effect on bytes.
 *
 * A backend's module_load with image NULL gives this set.  The simulator
 * applies the effect on host memory in data mode (sim/sim_kernels.c); the
 * HIP backend runs the same kernels as device code (hal/hip/
 * builtin_kernels.cu, embedded as PTX and an AMD code object) and checks
 * the same ranges before it launches them; a test runtime may run the host
 * reference below in place of a GPU (tests/fake_cudart.c).
 *
 * Parameters are device addresses, one per kernel parameter, each with the
 * size of the range bound to it (hc_hal_launch.arg_dptr / arg_bytes):
 *
 *   fill(dst, info)   info holds uint32 words: word 0 is the value, word 1
 *                     (present when info binds >= 8 bytes) the element
 *                     width, 1 or 4 (default 4).  Width 4 writes the word
 *                     over all of dst's bytes, little-endian, a trailing
 *                     partial word taking its low bytes; width 1 writes the
 *                     value's low byte to every byte.  Through hc_launch the
 *                     info words are uint64, so info[0] = value | width << 32.
 *   copy(src, dst)    copies dst's size in bytes from src (memmove: the two
 *                     may overlap); src must bind at least that many.
 *   add(a, b, out)    out[i] = a[i] + b[i] on uint32 elements, wrapping,
 *                     for i < out's size / 4; a and b must bind as many.
 *
 * Parameters beyond a kernel's own (the info pointer hc_launch appends, a
 * fourth binding) are accepted and ignored.
 */
#ifndef HIPCORE_HAL_BUILTINS_H
#define HIPCORE_HAL_BUILTINS_H

#include <stddef.h>
#include <stdint.h>

enum hc_builtin {
	HC_BUILTIN_FILL,
	HC_BUILTIN_COPY,
	HC_BUILTIN_ADD,
	HC_BUILTIN_COUNT
};

/* The most parameters a built-in kernel reads. */
#define HC_BUILTIN_MAX_ARGS 3

struct hc_builtin_info {
	const char *name;
	size_t n_args; /* parameters it reads */
};

extern const struct hc_builtin_info hc_builtins[HC_BUILTIN_COUNT];

/* "fill, copy, add": for messages that list the set. */
#define HC_BUILTIN_NAMES "fill, copy, add"

/*
 * hc_builtin_find - the kernel called @name.
 * Return: its enum hc_builtin value, or -1 when no built-in has that name
 * (or @name is NULL).
 */
int hc_builtin_find(const char *name);

/*
 * hc_builtin_check - whether a launch of @k binds what the kernel needs.
 * @n_args: parameters given; @bytes: the size of each bound range.
 * @why, @len: where the reason goes on failure ("copy: src binds 8 bytes,
 * dst 16"), without a backend prefix.
 * Return: 0 when the launch may run, -1 with @why filled.
 */
int hc_builtin_check(enum hc_builtin k, size_t n_args, const uint64_t *bytes, char *why,
		     size_t len);

/*
 * hc_builtin_traffic - the device memory a launch of @k reads and writes,
 * in bytes: fill dst's size, copy twice dst's, add three times out's whole
 * elements (info words aside).  What the simulator's kernel-time model
 * charges per byte (sim/sim_kernels.c, profile key kernel_per_mib).
 * Return: the bytes, 0 when @bytes is NULL or has fewer than the kernel's
 * parameters.
 */
uint64_t hc_builtin_traffic(enum hc_builtin k, size_t n_args, const uint64_t *bytes);

/*
 * hc_builtin_run - the kernel's effect on host memory, the reference every
 * backend must match.  @p[i] points at the bytes of parameter i, @bytes[i]
 * their size; only the kernel's own parameters are read.  The launch must
 * have passed hc_builtin_check.
 * Return: NULL, or why the kernel could not run (a fill width other than 1
 * or 4), having changed nothing.
 */
const char *hc_builtin_run(enum hc_builtin k, unsigned char *const *p, const uint64_t *bytes);

#endif /* HIPCORE_HAL_BUILTINS_H */
