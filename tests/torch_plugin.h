/*
 * torch_plugin.h - load libhipcore-torch.so the way PyTorch does (dlopen by
 * path, functions by name), for tests/check_torch.c and tests/torch_driver.c.
 */
#ifndef HIPCORE_TESTS_TORCH_PLUGIN_H
#define HIPCORE_TESTS_TORCH_PLUGIN_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "hipcore/torch.h"

struct torch_plugin {
	void *so;
	void *(*alloc)(ssize_t size, int device, void *stream);
	void (*free)(void *ptr, size_t size, int device, void *stream);
	int (*record_stream)(void *ptr, void *stream);
	int (*empty_cache)(void);
	int (*set_memory_fraction)(double fraction, int device);
	int (*stats)(int device, struct hipcore_torch_stats *out);
	int (*reset_peaks)(int device);
	int (*device)(int device, uint64_t *hc_device_id);
	int (*last_error)(char *buf, size_t len);
	int (*shutdown)(void);
};

/* The plug-in of the build tree ($top_builddir/.libs), or $HIPCORE_TORCH_LIBRARY.
 * Return: 0, or -1 with the reason on stderr. */
static inline int torch_plugin_load(struct torch_plugin *p)
{
	const char *env = getenv("HIPCORE_TORCH_LIBRARY");
	const char *top = getenv("top_builddir");
	char path[4096];

	if (env && env[0])
		snprintf(path, sizeof(path), "%s", env);
	else
		snprintf(path, sizeof(path), "%s/.libs/libhipcore-torch.so", top ? top : ".");
	p->so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!p->so) {
		fprintf(stderr, "torch_plugin_load: %s\n", dlerror());
		return -1;
	}
#define TP_SYM(field, name)                                                        \
	do {                                                                       \
		*(void **)&p->field = dlsym(p->so, name);                          \
		if (!p->field) {                                                   \
			fprintf(stderr, "torch_plugin_load: %s lacks %s\n", path, name); \
			return -1;                                                 \
		}                                                                  \
	} while (0)
	TP_SYM(alloc, "hipcore_torch_alloc");
	TP_SYM(free, "hipcore_torch_free");
	TP_SYM(record_stream, "hipcore_torch_record_stream");
	TP_SYM(empty_cache, "hipcore_torch_empty_cache");
	TP_SYM(set_memory_fraction, "hipcore_torch_set_memory_fraction");
	TP_SYM(stats, "hipcore_torch_stats");
	TP_SYM(reset_peaks, "hipcore_torch_reset_peaks");
	TP_SYM(device, "hipcore_torch_device");
	TP_SYM(last_error, "hipcore_torch_last_error");
	TP_SYM(shutdown, "hipcore_torch_shutdown");
#undef TP_SYM
	return 0;
}

#endif /* HIPCORE_TESTS_TORCH_PLUGIN_H */
