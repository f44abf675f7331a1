/*
 * sim_kernels.c - modules, functions and the built-in kernels.
 *
 * The simulator loads no code: module_load(image NULL) gives the built-in
 * kernel set, a non-NULL image is HC_ERR_UNSUPPORTED.  A kernel occupies its
 * stream for launch_overhead_ns + (duration_hint_ns, or when the hint is 0
 * kernel_default_ns + kernel_ns_per_mib per MiB the kernel reads and
 * writes), starting no sooner than launch_latency_ns after the
 * call (a GPU pipelines launches: back to back, kernels follow each other
 * at the occupancy; alone, one also waits the latency); the call costs the
 * host launch_call_ns.
 *
 * The built-in kernels (fill, copy, add), their parameters and effects are
 * hal/builtins.h's, shared with the HIP backend, which runs them on a GPU.
 *
 * In data mode every launch needs arg_dptr and arg_bytes, at least the
 * kernel's parameter count of them (extra trailing parameters, such as the
 * info pointer hc_launch appends, are accepted and ignored), each range in
 * one allocation (HC_ERR_INVALID otherwise).  Without data mode kernels only cost time.  The
 * effects are applied when the launch is queued (see sim_copy.c); a launch
 * failed by injection has no effect and is reported by a later fence, its
 * message naming the kernel and the launch ordinal.  A captured kernel holds
 * a reference on its module: module_unload while a graph (or a capture in
 * progress) still names it makes the module unusable for new lookups and
 * launches and frees it with the last such graph.
 */
#include <stdlib.h>
#include <string.h>

#include "hal/builtins.h"
#include "sim/sim_internal.h"

_Static_assert((int)SIM_K_FILL == (int)HC_BUILTIN_FILL && (int)SIM_K_COPY == (int)HC_BUILTIN_COPY &&
		       (int)SIM_K_ADD == (int)HC_BUILTIN_ADD &&
		       (int)SIM_N_KERNELS == (int)HC_BUILTIN_COUNT,
	       "the simulator's kernels are hal/builtins.h's, in its order");

hc_status sim_module_load(hc_hal_dev *dev, const void *image, size_t size, hc_hal_module **out)
{
	hc_hal_module *m;

	if (!out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim module_load: out is NULL");
	if (image)
		return hc_hal_error(HC_ERR_UNSUPPORTED, 0, NULL,
				    "sim module_load: the simulator runs only its built-in kernels "
				    "(" HC_BUILTIN_NAMES "); pass image NULL");
	m = calloc(1, sizeof(*m));
	if (!m)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "sim module_load: no host memory");
	m->dev = dev;
	for (int k = 0; k < SIM_N_KERNELS; k++)
		m->fns[k] = (struct hc_hal_function){ m, (enum sim_kernel)k, hc_builtins[k].name };
	LIST_INSERT_HEAD(&dev->modules, m, link);
	*out = m;
	return HC_OK;
}

static void sim_module_free(hc_hal_module *m)
{
	LIST_REMOVE(m, link);
	free(m);
}

void sim_module_put(hc_hal_module *m)
{
	if (--m->refs == 0 && m->unloaded)
		sim_module_free(m);
}

void sim_module_unload(hc_hal_dev *dev, hc_hal_module *m)
{
	if (!m || m->dev != dev || m->unloaded)
		return;
	m->unloaded = true;
	if (m->refs == 0)
		sim_module_free(m);
}

hc_status sim_function_get(hc_hal_dev *dev, hc_hal_module *m, const char *name,
			   hc_hal_function **out)
{
	int k;

	if (!m || !name || !out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim function_get: %s is NULL",
				    !m ? "module" : !name ? "name" : "out");
	if (m->dev != dev)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim function_get: module belongs to another device");
	if (m->unloaded)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim function_get: module was unloaded");
	k = hc_builtin_find(name);
	if (k >= 0) {
		*out = &m->fns[k];
		return HC_OK;
	}
	return hc_hal_error(HC_ERR_INVALID, 0, "hipErrorNotFound",
			    "sim function_get: no kernel '%s' (built-ins: " HC_BUILTIN_NAMES ")", name);
}

/* Checks the kernel's parameter ranges; HC_OK when there are none to check
 * outside data mode. */
static hc_status sim_check_args(hc_hal_dev *dev, const hc_hal_function *fn, size_t n_args,
				const hc_hal_dptr *dptr, const uint64_t *bytes)
{
	char why[160];
	hc_status st;

	if (!dptr || !bytes) {
		if (dev->data_mode)
			return hc_hal_error(HC_ERR_INVALID, 0, NULL,
					    "sim launch: kernel '%s' needs arg_dptr and arg_bytes "
					    "in data mode", fn->name);
		return HC_OK;
	}
	if (!dev->data_mode)
		return HC_OK; /* kernels only cost time: nothing to interpret */
	if (n_args < hc_builtins[fn->which].n_args)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim launch: kernel '%s' takes %zu parameters, got %zu", fn->name,
				    hc_builtins[fn->which].n_args, n_args);
	for (size_t i = 0; i < n_args; i++) {
		st = sim_dev_range(dev, dptr[i], bytes[i], "kernel parameter", NULL);
		if (st)
			return st;
	}
	if (hc_builtin_check((enum hc_builtin)fn->which, n_args, bytes, why, sizeof(why)) != 0)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim launch: %s", why);
	return HC_OK;
}

/* Applies a kernel's effect; a message when it cannot (range gone, bad info). */
static const char *sim_apply_kernel(hc_hal_dev *dev, const struct sim_op *op)
{
	unsigned char *p[HC_BUILTIN_MAX_ARGS] = { NULL, NULL, NULL };

	for (size_t i = 0; i < op->n_args; i++)
		if (sim_dev_range(dev, op->arg_dptr[i], op->arg_bytes[i], "kernel parameter",
				  i < HC_BUILTIN_MAX_ARGS ? &p[i] : NULL))
			return "a parameter's device range was freed before it ran";
	return hc_builtin_run((enum hc_builtin)op->fn->which, p, op->arg_bytes);
}

/* A kernel's device time without a hint: kernel_default, and per MiB of
 * the memory a built-in kernel reads and writes, kernel_per_mib (its
 * bound ranges are known outside data mode too). */
static uint64_t sim_kernel_model(const hc_hal_dev *dev, const struct sim_op *op)
{
	uint64_t mib_ns = dev->prof.kernel_ns_per_mib, traffic;
	double extra;

	if (!mib_ns)
		return dev->prof.kernel_default_ns;
	traffic = hc_builtin_traffic((enum hc_builtin)op->fn->which, op->n_args, op->arg_bytes);
	/* in double, saturating: ranges of 2^64 bytes at an hour per MiB
	 * would not fit a nanosecond count */
	extra = (double)traffic / (1024.0 * 1024.0) * (double)mib_ns + 0.5;
	if (extra >= 1.8e19 - (double)dev->prof.kernel_default_ns)
		return UINT64_MAX;
	return dev->prof.kernel_default_ns + (uint64_t)extra;
}

void sim_run_kernel(hc_hal_dev *dev, hc_hal_stream *s, const struct sim_op *op)
{
	uint64_t ordinal = ++dev->nlaunch, dur;
	const char *why = NULL;

	dev->stats.launches++;
	dur = op->duration_hint_ns ? op->duration_hint_ns : sim_kernel_model(dev, op);
	dur = dur > UINT64_MAX - dev->prof.launch_overhead_ns ? UINT64_MAX
							       : dur + dev->prof.launch_overhead_ns;
	sim_schedule_after(dev, s, NULL, dev->prof.launch_latency_ns, dur);
	if (sim_fault_step(dev, HC_FAULT_LAUNCH, ordinal))
		why = "failed (injected)";
	else if (dev->data_mode && op->arg_dptr)
		why = sim_apply_kernel(dev, op);
	if (!why)
		return;
	sim_stream_fail(dev, s, "kernel '%s' launch #%llu: %s", op->fn->name,
			(unsigned long long)ordinal, why);
}

hc_status sim_launch(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_function *fn,
		     const struct hc_hal_launch *l)
{
	struct sim_op op = { .kind = SIM_OP_KERNEL };
	hc_status st = sim_check_stream(dev, s, "launch");

	if (st)
		return st;
	if (!fn || !l)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim launch: %s is NULL",
				    !fn ? "function" : "launch");
	if (fn->mod->dev != dev)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim launch: function belongs to another device");
	if (fn->mod->unloaded)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim launch: kernel '%s' belongs to an unloaded module", fn->name);
	st = sim_check_args(dev, fn, l->n_args, l->arg_dptr, l->arg_bytes);
	if (st)
		return st;
	op.fn = fn;
	op.duration_hint_ns = l->duration_hint_ns;
	if (l->arg_dptr && l->arg_bytes) {
		op.n_args = l->n_args;
		op.arg_dptr = (hc_hal_dptr *)l->arg_dptr;
		op.arg_bytes = (uint64_t *)l->arg_bytes;
	}
	if (!s->capturing) {
		sim_host_cost(dev, sim_call_cost(dev, SIM_CALL_LAUNCH, dev->prof.launch_call_ns));
		s->op_seq++;
		sim_run_kernel(dev, s, &op);
		return HC_OK;
	}
	/* The graph keeps its own copies of the parameters. */
	sim_host_cost(dev, dev->prof.capture_node_ns);
	if (op.n_args) {
		op.arg_dptr = malloc(op.n_args * sizeof(*op.arg_dptr));
		op.arg_bytes = malloc(op.n_args * sizeof(*op.arg_bytes));
		if (!op.arg_dptr || !op.arg_bytes) {
			op.fn = NULL; /* no reference taken yet */
			sim_op_clear(&op);
			return hc_hal_error(HC_ERR_OOM, 0, NULL, "sim launch: no host memory to capture");
		}
		memcpy(op.arg_dptr, l->arg_dptr, op.n_args * sizeof(*op.arg_dptr));
		memcpy(op.arg_bytes, l->arg_bytes, op.n_args * sizeof(*op.arg_bytes));
	} else {
		op.arg_dptr = NULL;
		op.arg_bytes = NULL;
	}
	fn->mod->refs++; /* dropped by sim_op_clear, also if the add fails */
	return sim_capture_add(dev, s, &op);
}

/* At device close, after graphs and captures are gone. */
void sim_modules_release(hc_hal_dev *dev)
{
	while (!LIST_EMPTY(&dev->modules))
		sim_module_free(LIST_FIRST(&dev->modules));
}
