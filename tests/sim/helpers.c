/*
 * helpers.c - what several suites of tests/check_sim use (sim_suites.h):
 * temporary profile files, host copies, and a device with a stream and the
 * built-in kernels' module.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/sim/sim_suites.h"

/* Writes @text to a fresh temporary file; the caller unlinks @path. */
void write_temp(const char *text, char path[64])
{
	int fd;

	snprintf(path, 64, "/tmp/check_sim_XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

void host_copy(hc_hal_dev *dev, uint64_t bytes)
{
	struct hc_hal_host_copy h = { bytes, false, NULL, NULL, false };

	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_HOST_COPY, &h), HC_OK);
}


void kfix_open(struct kfix *k, bool data_mode)
{
	k->dev = open_dev(data_mode, 0, 0, NULL);
	ck_assert_int_eq(ops->stream_create(k->dev, &k->s), HC_OK);
	ck_assert_int_eq(ops->module_load(k->dev, NULL, 0, &k->mod), HC_OK);
}

hc_hal_dptr dev_with(struct kfix *k, const void *bytes, uint64_t n)
{
	hc_hal_dptr d;

	ck_assert_int_eq(ops->mem_alloc(k->dev, n, &d), HC_OK);
	if (bytes)
		ck_assert_int_eq(ops->copy_h2d(k->dev, k->s, d, bytes, n, false), HC_OK);
	return d;
}

void read_back(struct kfix *k, void *dst, hc_hal_dptr src, uint64_t n)
{
	ck_assert_int_eq(ops->copy_d2h(k->dev, k->s, dst, src, n, false), HC_OK);
	ck_assert_int_eq(ops->stream_sync(k->dev, k->s), HC_OK);
}

hc_status run_kernel(struct kfix *k, const char *name, size_t n,
			    const hc_hal_dptr *dptr, const uint64_t *bytes)
{
	hc_hal_function *fn;
	struct hc_hal_launch l = { .grid = { 1, 1, 1 }, .block = { 64, 1, 1 },
				   .n_args = n, .arg_dptr = dptr, .arg_bytes = bytes };

	ck_assert_int_eq(ops->function_get(k->dev, k->mod, name, &fn), HC_OK);
	return ops->launch(k->dev, k->s, fn, &l);
}
