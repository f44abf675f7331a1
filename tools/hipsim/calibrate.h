/*
 * calibrate.h - `hipsim calibrate` as a function, for validate and tests.
 */
#ifndef HIPSIM_CALIBRATE_H
#define HIPSIM_CALIBRATE_H

#include <stdbool.h>
#include <stdio.h>

#include "hipcore/hipcore.h"
#include "sim/sim.h"

/* PTX of no-op kernels "empty", "fill", "copy", "add" (sm_90), with its
 * terminating NUL counted in the size. */
extern const char hs_noop_ptx[];
extern const size_t hs_noop_ptx_size;

/* Passes by default: one takes ~2.5 s on the H200 machine, whose host
 * switches between fast and slow for seconds at a time, key by key (six
 * one-pass calibrations three seconds apart: launch_lib 272-518 ns,
 * event_record 399-2024 ns, each outlier in a different pass). */
#define HS_CALIBRATE_PASSES 5

struct hs_calibrate_args {
	const char *backend;     /* "hip" or "sim" */
	int ordinal;             /* which GPU */
	const char *sim_profile; /* sim only: the profile it runs with (NULL built-in) */
	bool quick;              /* copies up to 16 MiB, 5 repeats */
	unsigned repeats;        /* 0: 11 (5 with quick) */
	unsigned passes;         /* whole passes, median per key; 0: HS_CALIBRATE_PASSES (1 with quick) */
	bool progress;           /* print phases on stderr */
	bool progress_tty;       /* ... rewriting one line */
};

/*
 * hs_calibrate - measure @args->backend and fit a profile into @out.
 * Return: HC_OK; HC_ERR_NO_RUNTIME / HC_ERR_DEVICE when the device does not
 * open; another status when a measurement failed.  On failure @msg says
 * what failed; on success it is "" or a warning (the empty kernel did not
 * load: launch and graph figures are the built-in ones).  @out is written
 * only on success.
 */
hc_status hs_calibrate(const struct hs_calibrate_args *args, struct hc_sim_profile *out,
		       char *msg, size_t msglen);

/*
 * hs_profile_median - @n profiles (@n >= 1) into one whose every numeric
 * key (sim's key table) is the median of theirs (the mean of the middle
 * two for an even @n); the name and integration come from @p[0].
 * Return: 0, -1 when out of memory (@out untouched).
 */
int hs_profile_median(const struct hc_sim_profile *p, unsigned n, struct hc_sim_profile *out);

/* Writes @p in the profile text format, @header's lines as comments.
 * Return: 0, -1 on a write error. */
int hs_profile_write(FILE *f, const struct hc_sim_profile *p, const char *header);

#endif /* HIPSIM_CALIBRATE_H */
