/*
 * fake_runtime.c - the fake CUDA runtime of tests/fake_cudart.c as the
 * suites of tests/check_hip drive it (hip_suites.h): its paths, the
 * controls it exports (opened once for the run by fake_load, the runner's
 * before hook), a device on it opened by name, and the fixture of the
 * suites whose cases run on one.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/hip/hip_suites.h"

char fake_path[1024], partial_path[1024], hip_path[1024];
void *fake; /* our own handle on the fake: keeps its state across reloads */

int (*fake_set_error)(const char *, int, int);
unsigned long (*fake_calls)(const char *);
long (*fake_live)(void);
void (*fake_set_devices)(int);
void (*fake_reset)(void);
void (*fake_set_attr)(int, int);
unsigned long (*fake_lookups)(const char *);
unsigned long (*fake_builtin_runs)(void);
void (*fake_set_vmm)(uint64_t, uint64_t);
void (*fake_set_version)(int);

static void paths_init(void)
{
	const char *b = getenv("top_builddir");

	snprintf(fake_path, sizeof(fake_path), "%s/tests/.libs/fake_cudart.so", b ? b : ".");
	snprintf(partial_path, sizeof(partial_path), "%s/tests/.libs/fake_cudart_partial.so",
		 b ? b : ".");
	snprintf(hip_path, sizeof(hip_path), "%s/tests/.libs/fake_hip.so", b ? b : ".");
}

const hc_error_info *last(void)
{
	static hc_error_info e;

	hc_last_error(&e);
	return &e;
}

hc_status open_with(const char *lib, int ordinal, hc_hal_dev **dev)
{
	struct hc_hal_open_args a = { .ordinal = ordinal };

	hc_hip_runtime_reset();
	if (lib)
		setenv("HIPCORE_HIP_LIBRARY", lib, 1);
	else
		unsetenv("HIPCORE_HIP_LIBRARY");
	return hc_hip_ops()->device_open(&a, dev);
}

const struct hc_hal_ops *H;
hc_hal_dev *D;

void fake_open(void)
{
	fake_reset();
	H = hc_hip_ops();
	ck_assert_int_eq(open_with(fake_path, 0, &D), HC_OK);
}

void fake_close(void)
{
	if (D)
		H->device_close(D);
	D = NULL;
	ck_assert_int_eq(fake_live(), 0);
	hc_hip_runtime_reset();
}

/* Opens the fake runtime once for the whole run and finds its controls. */
int fake_load(int argc, char **argv)
{
	paths_init();
	fake = dlopen(fake_path, RTLD_NOW | RTLD_LOCAL);
	if (!fake) {
		fprintf(stderr, "check_hip: cannot open the fake runtime: %s\n", dlerror());
		return EXIT_FAILURE;
	}
	*(void **)&fake_set_error = dlsym(fake, "fake_set_error");
	*(void **)&fake_calls = dlsym(fake, "fake_calls");
	*(void **)&fake_live = dlsym(fake, "fake_live");
	*(void **)&fake_set_devices = dlsym(fake, "fake_set_devices");
	*(void **)&fake_reset = dlsym(fake, "fake_reset");
	*(void **)&fake_set_attr = dlsym(fake, "fake_set_attr");
	*(void **)&fake_lookups = dlsym(fake, "fake_lookups");
	*(void **)&fake_builtin_runs = dlsym(fake, "fake_builtin_runs");
	*(void **)&fake_set_vmm = dlsym(fake, "fake_set_vmm");
	*(void **)&fake_set_version = dlsym(fake, "fake_set_version");
	if (!fake_set_attr || !fake_set_error || !fake_calls || !fake_live || !fake_set_devices ||
	    !fake_reset || !fake_lookups || !fake_builtin_runs || !fake_set_vmm || !fake_set_version) {
		fprintf(stderr, "check_hip: the fake runtime lacks its controls\n");
		dlclose(fake);
		return EXIT_FAILURE;
	}
	return 0;
}

void fake_unload(void)
{
	hc_hip_runtime_reset();
	dlclose(fake);
}

