/*
 * hal.c - the table of backends, by name (SQLite's VFS list).
 *
 * Each backend exports one function returning its ops table; this is the
 * only place that knows them all.  "auto" is resolved by core/device.c,
 * which tries "hip" and falls back to "sim".
 */
#include <string.h>

#include "hal/hal.h"

struct hal_entry {
	const char *name;
	const struct hc_hal_ops *(*ops)(void);
};

static const struct hal_entry backends[] = {
	{ "sim", hc_sim_ops },
	{ "hip", hc_hip_ops },
};

const struct hc_hal_ops *hc_hal_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strcmp(backends[i].name, name) == 0)
			return backends[i].ops();
	return NULL;
}
