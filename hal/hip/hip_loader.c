/*
 * hip_loader.c - find a HIP runtime with dlopen and bind hip_syms[].
 *
 * libhipcore never links a GPU runtime: one build serves AMD hosts, NVIDIA
 * hosts and hosts with no GPU at all.  The search:
 *   1. HIPCORE_HIP_LIBRARY (read with secure_getenv: a setuid program
 *      ignores it), alone.  Its flavour is told by its symbols: hip* is AMD,
 *      cuda* NVIDIA; on NVIDIA the driver (cu*) entries are taken from the
 *      same library when it has them, else from libcuda.so.1.
 *   2. A runtime the process already loaded (libamdhip64.so* or
 *      libcudart.so*, found with dl_iterate_phdr): a library linked into a
 *      program that drives the GPU itself must share that program's runtime
 *      and context.  PyTorch, for one, loads its own libcudart.so.13 from
 *      its wheel, which a search by soname would not find, or would find
 *      as a second copy with contexts and streams of its own.
 *   3. AMD: libamdhip64.so.6, libamdhip64.so.5 - used only when
 *      hipGetDeviceCount reports a device (ROCm installs on NVIDIA hosts).
 *   4. NVIDIA: libcudart.so.13, libcudart.so.12, with libcuda.so.1 for the
 *      driver calls (the runtime API cannot load PTX).
 * A failure says every file tried and what dlerror said; a library missing
 * a required symbol is named with the symbol.
 *
 * The runtime is loaded once per process and stays loaded: unloading a GPU
 * runtime while its atexit handlers are registered is not safe.  Only
 * hc_hip_runtime_reset (tests, no device open) unloads it.
 *
 * hip_syms[] follows SQLite's aSyscall[]: {name, current, fallback}; calls
 * go through "current", which a test may replace (hc_hip_sym_override).
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal/hip/hip_rt.h"
#include "util/env.h"

struct hip_sym hip_syms[HIP_SYM_COUNT] = {
#define HIP_SYM_INIT_(id, h, c, lib, opt, ret, params) { h, c, lib, opt, NULL, NULL, 0 },
	HIP_SYM_LIST(HIP_SYM_INIT_)
#undef HIP_SYM_INIT_
};

/* The table and the enum come from one list; a hand edit that breaks that
 * is caught here. */
_Static_assert(sizeof(hip_syms) / sizeof(hip_syms[0]) == HIP_SYM_COUNT,
	       "hip_syms[] must have one entry per HIP_SYM_LIST item");
_Static_assert(HIP_SYM_COUNT == 50, "update this count when HIP_SYM_LIST changes");

static pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hip_runtime rt;   /* guarded by rt_lock */
static int rt_loaded;           /* guarded by rt_lock */
static int rt_holders;          /* devices open on it; guarded by rt_lock */

/* A growing "tried: ..." message. */
struct tried {
	char text[1024];
	size_t len;
};

static void tried_add(struct tried *t, const char *fmt, const char *a, const char *b)
{
	int n;

	if (t->len >= sizeof(t->text) - 1)
		return;
	n = snprintf(t->text + t->len, sizeof(t->text) - t->len, fmt, a, b);
	if (n > 0)
		t->len += (size_t)n < sizeof(t->text) - t->len ? (size_t)n
							     : sizeof(t->text) - t->len - 1;
}

static void syms_clear(void)
{
	for (int i = 0; i < HIP_SYM_COUNT; i++) {
		hip_syms[i].fallback = NULL;
		if (!hip_syms[i].overridden)
			hip_syms[i].current = NULL;
	}
}

/*
 * syms_bind - fill the table for @flavor from @rtlib and @drvlib.
 * Return: NULL, or the first required name missing.
 */
static const char *syms_bind(enum hip_flavor flavor, void *rtlib, void *drvlib)
{
	for (int i = 0; i < HIP_SYM_COUNT; i++) {
		struct hip_sym *s = &hip_syms[i];
		const char *name = flavor == HIP_FLAVOR_AMD ? s->hip_name : s->cuda_name;
		void *lib = (flavor == HIP_FLAVOR_NVIDIA && s->lib == HIP_LIB_DRV) ? drvlib : rtlib;
		void *fn;

		if (!name)
			continue;
		fn = dlsym(lib, name);
		if (!fn && !s->optional)
			return name;
		s->fallback = fn;
		if (!s->overridden)
			s->current = fn;
	}
	return NULL;
}

/*
 * A library that was opened but failed the probe stays loaded, one
 * reference per distinct library: its constructors have run and allocated
 * (ROCm's do, on a host without a GPU too), unloading gives none of that
 * back and is not safe for every runtime, and a later hc_device_open()
 * then finds it loaded instead of running them again.  Guarded by rt_lock.
 */
static void *probed[8];

static void keep_probed(void *lib)
{
	for (size_t i = 0; i < sizeof(probed) / sizeof(probed[0]); i++) {
		if (probed[i] == lib)
			break; /* already held: drop this open's reference */
		if (!probed[i]) {
			probed[i] = lib;
			return;
		}
	}
	dlclose(lib);
}

/* Asks the freshly bound runtime how many devices it sees. */
static int count_devices(enum hip_space space, int *count, struct tried *t, const char *path)
{
	int err;
	char buf[64];

	*count = 0;
	err = HIP_CALL(GetDeviceCount)(count);
	if (err == 0 && *count > 0)
		return 0;
	if (err == 0)
		snprintf(buf, sizeof(buf), "no device (0 devices)");
	else {
		const struct hip_err_entry *e = hip_err_lookup(space, err);
		snprintf(buf, sizeof(buf), "no device (%s, %d)", e ? e->name : "error", err);
	}
	tried_add(t, "%s: %s; ", path, buf);
	return -1;
}

/* Tries one AMD library.  0 when it is usable. */
static int try_amd(const char *path, void *lib, struct tried *t)
{
	const char *missing = syms_bind(HIP_FLAVOR_AMD, lib, lib);

	if (missing) {
		tried_add(t, "%s: missing symbol %s; ", path, missing);
		return -1;
	}
	if (count_devices(HIP_SPACE_HIP, &rt.device_count, t, path) != 0)
		return -1;
	rt.flavor = HIP_FLAVOR_AMD;
	rt.lib_rt = lib;
	rt.lib_drv = NULL;
	return 0;
}

/* Tries one CUDA runtime; the driver comes from @lib itself when it
 * exports cuInit, else from libcuda.so.1.  0 when usable. */
static int try_nvidia(const char *path, void *lib, struct tried *t)
{
	void *drv = NULL;
	const char *missing;

	if (dlsym(lib, "cuInit")) {
		drv = lib;
	} else {
		drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
		if (!drv) {
			const char *why = dlerror();
			tried_add(t, "%s: needs the driver: %s; ", path, why ? why : "libcuda.so.1 not found");
			return -1;
		}
	}
	missing = syms_bind(HIP_FLAVOR_NVIDIA, lib, drv);
	if (missing) {
		tried_add(t, "%s: missing symbol %s; ", drv == lib || strncmp(missing, "cu", 2) ||
				       !strncmp(missing, "cuda", 4) ? path : "libcuda.so.1",
			  missing);
		goto err_close_drv;
	}
	if (count_devices(HIP_SPACE_CUDART, &rt.device_count, t, path) != 0)
		goto err_close_drv;
	rt.flavor = HIP_FLAVOR_NVIDIA;
	rt.lib_rt = lib;
	rt.lib_drv = drv == lib ? NULL : drv;
	return 0;

err_close_drv:
	if (drv != lib)
		keep_probed(drv);
	return -1;
}

/* Opens @path and tries it as @flavor (NONE: tell by its symbols). */
static int try_path(const char *path, enum hip_flavor flavor, struct tried *t)
{
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	int rc;

	if (!lib) {
		const char *why = dlerror();
		tried_add(t, "%s: %s; ", path, why ? why : "cannot be opened");
		return -1;
	}
	if (flavor == HIP_FLAVOR_NONE) {
		if (dlsym(lib, "hipGetDeviceCount"))
			flavor = HIP_FLAVOR_AMD;
		else if (dlsym(lib, "cudaGetDeviceCount"))
			flavor = HIP_FLAVOR_NVIDIA;
		else {
			tried_add(t, "%s: missing symbol %s; ", path,
				  "hipGetDeviceCount (and cudaGetDeviceCount)");
			keep_probed(lib);
			return -1;
		}
	}
	rc = flavor == HIP_FLAVOR_AMD ? try_amd(path, lib, t) : try_nvidia(path, lib, t);
	if (rc != 0) {
		syms_clear();
		keep_probed(lib);
		return -1;
	}
	snprintf(rt.path, sizeof(rt.path), "%s", path);
	return 0;
}

/* Runtimes already mapped into the process, by file name prefix, in the
 * order the dynamic linker lists them. */
#define LOADED_MAX 4

struct loaded_runtimes {
	struct {
		char path[256];
		enum hip_flavor flavor;
	} lib[LOADED_MAX];
	size_t n;
};

static int find_loaded_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	static const struct {
		const char *prefix;
		enum hip_flavor flavor;
	} kinds[] = { { "libamdhip64.so", HIP_FLAVOR_AMD }, { "libcudart.so", HIP_FLAVOR_NVIDIA } };
	struct loaded_runtimes *found = data;
	size_t len;
	const char *base;

	if (!info->dlpi_name || info->dlpi_name[0] != '/' || found->n == LOADED_MAX)
		return 0;
	base = strrchr(info->dlpi_name, '/') + 1;
	len = strlen(info->dlpi_name);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		/* A path we cannot keep is left to the search by soname. */
		if (strncmp(base, kinds[i].prefix, strlen(kinds[i].prefix)) != 0 ||
		    len >= sizeof(found->lib[0].path))
			continue;
		memcpy(found->lib[found->n].path, info->dlpi_name, len + 1);
		found->lib[found->n++].flavor = kinds[i].flavor;
		break;
	}
	return 0;
}

static const char *const amd_names[] = { "libamdhip64.so.6", "libamdhip64.so.5" };
static const char *const nvidia_names[] = { "libcudart.so.13", "libcudart.so.12" };

static hc_status runtime_load(void)
{
	struct tried t = { .len = 0 };
	struct loaded_runtimes loaded;
	const char *env = hc_env_get(HC_ENV_HIP_LIBRARY);

	t.text[0] = '\0';
	if (env && env[0]) {
		if (try_path(env, HIP_FLAVOR_NONE, &t) == 0)
			return HC_OK;
		goto err_none;
	}
	loaded.n = 0;
	dl_iterate_phdr(find_loaded_cb, &loaded);
	for (size_t i = 0; i < loaded.n; i++)
		if (try_path(loaded.lib[i].path, loaded.lib[i].flavor, &t) == 0)
			return HC_OK;
	for (size_t i = 0; i < sizeof(amd_names) / sizeof(amd_names[0]); i++)
		if (try_path(amd_names[i], HIP_FLAVOR_AMD, &t) == 0)
			return HC_OK;
	for (size_t i = 0; i < sizeof(nvidia_names) / sizeof(nvidia_names[0]); i++)
		if (try_path(nvidia_names[i], HIP_FLAVOR_NVIDIA, &t) == 0)
			return HC_OK;

err_none:
	if (t.len >= 2)
		t.text[t.len - 2] = '\0'; /* drop the last "; " */
	return hc_hal_error(HC_ERR_NO_RUNTIME, 0, NULL, "hip: no usable HIP runtime: tried %s",
			    t.text);
}

hc_status hip_runtime_get(const struct hip_runtime **out)
{
	hc_status st = HC_OK;

	pthread_mutex_lock(&rt_lock);
	if (!rt_loaded) {
		memset(&rt, 0, sizeof(rt));
		st = runtime_load();
		rt_loaded = st == HC_OK;
	}
	pthread_mutex_unlock(&rt_lock);
	if (st == HC_OK)
		*out = &rt;
	return st;
}

void hip_runtime_hold(void)
{
	pthread_mutex_lock(&rt_lock);
	rt_holders++;
	pthread_mutex_unlock(&rt_lock);
}

void hip_runtime_release(void)
{
	pthread_mutex_lock(&rt_lock);
	rt_holders--;
	pthread_mutex_unlock(&rt_lock);
}

int hc_hip_runtime_reset(void)
{
	int done = 0;

	pthread_mutex_lock(&rt_lock);
	if (rt_loaded && rt_holders == 0) {
		syms_clear();
		if (rt.lib_drv)
			dlclose(rt.lib_drv);
		dlclose(rt.lib_rt);
		memset(&rt, 0, sizeof(rt));
		rt_loaded = 0;
		done = 1;
	}
	pthread_mutex_unlock(&rt_lock);
	return done;
}

int hc_hip_sym_override(const char *name, void *fn)
{
	for (int i = 0; i < HIP_SYM_COUNT; i++) {
		struct hip_sym *s = &hip_syms[i];

		if (!name || !((s->hip_name && !strcmp(s->hip_name, name)) ||
			       (s->cuda_name && !strcmp(s->cuda_name, name))))
			continue;
		s->overridden = fn != NULL;
		s->current = fn ? fn : s->fallback;
		return 0;
	}
	return -1;
}
