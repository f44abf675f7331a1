/*
 * via_trace.h - `hipsim validate --via-trace`: record a run with LTTng,
 * replay the trace on the simulator, and the two reports' figures
 * (via_trace.c).
 */
#ifndef HIPSIM_VIA_TRACE_H
#define HIPSIM_VIA_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/hipsim/variant.h"
#include "tools/hipsim/workloads.h"

struct hs_vt_args {
	const char *measured; /* the backend the recorded run uses: "hip" or "sim" */
	const char *profile;  /* the replay's profile, NULL: the built-in one */
	const char *provider; /* record --provider SO, NULL: the installed module */
	const char *keep_dir; /* keep the traces and reports here, NULL: a temporary dir */
	unsigned timeout_s;   /* each of record and replay at most this long */
	/* The pool layout and policy of both the recorded run and the replay
	 * (their --pools, --flush-count, --flush-bytes, --stage-max); NULL:
	 * the defaults. */
	const struct hs_variant *variant;
};

/* What one hipsim JSON report says. */
struct hs_vt_figures {
	uint64_t device_ns; /* device_time_ns: measured or predicted */
	uint64_t peak_in_use, peak_reserved, device_allocs, bytes_copied;
	uint64_t launches, events, failures;
};

struct hs_vt_result {
	struct hs_vt_figures recorded; /* the run under hipsim record, kernels timed */
	struct hs_vt_figures replayed; /* its trace on the simulator */
	char why[1024];                /* on failure */
};

/**
 * hs_via_trace() - record @workload's run and replay its trace.
 * @a: how.
 * @workload: the built-in workload's name.
 * @wp: its steps, streams and seed (the replay's seed too).
 * @out: the two reports' figures; @out->why on failure.
 *
 * Runs this binary (/proc/self/exe) twice: `record -o DIR -- ... run
 * --backend MEASURED --json` with HIPCORE_TIME_KERNELS=1, then `replay DIR
 * --profile P --seed S --json`, both with @a->variant's options, each
 * bounded by @a->timeout_s.  A run or
 * replay whose events failed (exit 1) still gives its figures (failures
 * counts them).
 *
 * Context: process-level: spawns and waits for children.
 * Return: 0, or -1 with @out->why.
 */
int hs_via_trace(const struct hs_vt_args *a, const char *workload,
		 const struct workload_params *wp, struct hs_vt_result *out);

#endif /* HIPSIM_VIA_TRACE_H */
