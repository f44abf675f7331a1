/*
 * kernel.c - kernels loaded on a device.
 *
 * A kernel is a backend module plus one function in it.  Kernels live until
 * their device closes (loaded modules stay resident, as upstream's do), in a
 * device-level table guarded by the device lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/object.h"
#include "trace/hipcore_trace.h"

hc_status hc_kern_get(struct hc_dev *dev, hc_kernel k, struct hc_kern **out)
{
	struct hc_handle_parts p = hc_handle_unpack(k.id);

	if (k.id == 0 || p.kind != HC_KIND_KERNEL || p.dev != dev->slot ||
	    p.index >= dev->nkernels || !dev->kernels[p.index].live ||
	    dev->kernels[p.index].gen != p.gen)
		return hc_fail(HC_ERR_STALE, "kernel handle %#llx is unknown on this device",
			       (unsigned long long)k.id);
	*out = &dev->kernels[p.index];
	return HC_OK;
}

hc_status hc_kernel_load(hc_device d, const void *image, size_t image_size, const char *name,
			 hc_kernel *out)
{
	uint64_t t0 = HC_TRACE_T0(kernel_load);
	hc_hal_module *module = NULL;
	hc_hal_function *fn = NULL;
	struct hc_kern *k;
	struct hc_dev *dev;
	hc_status rc;

	if (!out)
		return hc_fail(HC_ERR_INVALID, "hc_kernel_load: out is NULL");
	out->id = 0;
	if (!name || !*name)
		return hc_fail(HC_ERR_INVALID, "hc_kernel_load: no kernel name");
	if (strlen(name) >= sizeof(k->name))
		return hc_fail(HC_ERR_INVALID, "hc_kernel_load: kernel name longer than %zu bytes",
			       sizeof(k->name) - 1);
	if (image && image_size == 0)
		return hc_fail(HC_ERR_INVALID, "hc_kernel_load: image of size 0");
	rc = hc_dev_get(d, &dev);
	if (rc != HC_OK)
		return rc;
	pthread_mutex_lock(&dev->lock);
	if (dev->nkernels == dev->capkernels) {
		uint32_t cap = dev->capkernels ? dev->capkernels * 2 : 16;
		struct hc_kern *nk = realloc(dev->kernels, cap * sizeof(*nk));
		if (!nk) {
			rc = hc_fail(HC_ERR_OOM, "hc_kernel_load: out of host memory");
			goto out_unlock;
		}
		dev->kernels = nk;
		dev->capkernels = cap;
	}
	rc = dev->ops->module_load(dev->hal, image, image_size, &module);
	if (rc != HC_OK)
		goto out_unlock;
	rc = dev->ops->function_get(dev->hal, module, name, &fn);
	if (rc != HC_OK) {
		dev->ops->module_unload(dev->hal, module);
		goto out_unlock;
	}
	k = &dev->kernels[dev->nkernels];
	memset(k, 0, sizeof(*k));
	k->module = module;
	k->fn = fn;
	k->gen = 1;
	k->live = true;
	snprintf(k->name, sizeof(k->name), "%s", name);
	out->id = hc_handle_pack(HC_KIND_KERNEL, dev->slot, 0, k->gen, dev->nkernels);
	dev->nkernels++;
out_unlock:
	pthread_mutex_unlock(&dev->lock);
	HC_TRACE(kernel_load, d.id, out->id, (int32_t)rc, hc_trace_since_ns(t0));
	return rc;
}

void hc_kernels_unload_all(struct hc_dev *dev)
{
	for (uint32_t i = 0; i < dev->nkernels; i++)
		if (dev->kernels[i].live)
			dev->ops->module_unload(dev->hal, dev->kernels[i].module);
	free(dev->kernels);
	dev->kernels = NULL;
	dev->nkernels = dev->capkernels = 0;
}
