/*
 * run.c - `hipsim run`: a built-in workload through the public API.
 *
 * Workloads are deterministic programs of API calls (a splitmix64 stream
 * seeded by --seed picks sizes), so two runs with the same options print
 * the same report, apart from the wall-clock lines.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/hipsim/driver.h"
#include "tools/hipsim/hipsim.h"
#include "tools/hipsim/options.h"
#include "tools/hipsim/output.h"
#include "tools/hipsim/variant.h"
#include "tools/hipsim/workloads.h"

static void run_usage(FILE *out)
{
	fprintf(out,
		"usage: hipsim run [OPTIONS]\n"
		"Runs a built-in workload through libhipcore and reports memory, copies and time.\n\n"
		"  --workload NAME   service (default), training, inference, loader\n"
		"  --steps N         workload steps (default 200)\n"
		"  --streams N       streams to spread work over (default 4, at most %d)\n"
		"  --backend NAME    sim (default), hip, auto\n"
		"  --profile FILE    simulator device profile, or an installed one's name (default:\n"
		"                    built-in H200)\n"
		"  --capacity BYTES  simulated device memory\n"
		"  --seed N          seed of the workload's sizes and the simulator's jitter (default 1)\n"
		"  --data            check the bytes: every read back is folded into the report's\n"
		"                    checksum (and the loader reads back what it wrote); on the\n"
		"                    simulator, data mode: real bytes behind device memory\n"
		HS_VARIANT_USAGE
		"  --model-kernels   launch the kernels without the workload's duration hints: the\n"
		"                    simulator times them with its profile's kernel model\n"
		"                    (kernel_default, kernel_per_mib), as hipsim validate does\n"
		"  --json            print the report as JSON\n"
		"  --svg FILE        plot memory in use and reserved over virtual time\n",
		HS_MAX_STREAMS);
}

int hipsim_run_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "workload", required_argument, 0, 'w' }, { "steps", required_argument, 0, 'n' },
		{ "streams", required_argument, 0, 's' },  { "backend", required_argument, 0, 'b' },
		{ "profile", required_argument, 0, 'p' },  { "capacity", required_argument, 0, 'c' },
		{ "seed", required_argument, 0, 'S' },     { "json", no_argument, 0, 'j' },
		{ "svg", required_argument, 0, 'g' },      { "data", no_argument, 0, 'D' },
		{ "model-kernels", no_argument, 0, 'M' },  { "help", no_argument, 0, 'h' },
		HS_VARIANT_LONGOPTS,                       { 0, 0, 0, 0 },
	};
	struct hs_options opt = { .backend = "sim" };
	struct workload_params wp = { .steps = 200, .streams = 4, .seed = 1 };
	const char *workload = "service";
	const struct workload *w;
	struct hs_driver d;
	struct hs_report r;
	struct hs_output svg;
	struct hs_variant var = { 0 };
	uint64_t v;
	char profile_path[4096];
	int c, rc, status;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'w': workload = optarg; break;
		case 'n':
			if (hs_opt_number("run", "--steps", optarg, 1, HS_MAX_STEPS, &wp.steps))
				return HIPSIM_EXIT_USAGE;
			break;
		case 's':
			if (hs_opt_number("run", "--streams", optarg, 1, HS_MAX_STREAMS, &v))
				return HIPSIM_EXIT_USAGE;
			wp.streams = (uint32_t)v;
			break;
		case 'b': opt.backend = optarg; break;
		case 'p': opt.profile = hs_profile_find(optarg, profile_path, sizeof(profile_path)); break;
		case 'c':
			if (hs_opt_capacity("run", optarg, &opt.capacity))
				return HIPSIM_EXIT_USAGE;
			break;
		case 'S':
			if (hs_opt_number("run", "--seed", optarg, 0, UINT64_MAX, &wp.seed))
				return HIPSIM_EXIT_USAGE;
			break;
		case 'j': opt.json = true; break;
		case 'D': opt.data_mode = true; break;
		case 'M': opt.model_kernels = true; break;
		case 'g': opt.svg = optarg; break;
		case 'h': run_usage(stdout); return HIPSIM_EXIT_OK;
		default:
			if ((rc = hs_variant_option(&var, "run", c, optarg)) > 0)
				break;
			if (rc == 0)
				run_usage(stderr);
			return HIPSIM_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hipsim run: unexpected argument '%s'\n", argv[optind]);
		return HIPSIM_EXIT_USAGE;
	}
	w = workload_find(workload);
	if (!w) {
		fprintf(stderr, "hipsim run: unknown workload '%s' (try --help)\n", workload);
		return HIPSIM_EXIT_USAGE;
	}
	/* the plot's file before the run: a bad path fails now, not after it */
	if (opt.svg && hs_output_open(&svg, "run", "--svg", opt.svg, false, false) != 0)
		return HIPSIM_EXIT_USAGE;
	hs_variant_apply(&var, &opt);
	opt.steps = wp.steps;
	opt.streams = wp.streams;
	opt.seed = wp.seed; /* the workload's and the simulator's, as validate does */
	workload_prepare(wp.seed);
	if (hs_driver_open(&d, &opt) != 0) {
		if (opt.svg)
			hs_output_abort(&svg);
		return HIPSIM_EXIT_USAGE;
	}
	if (hs_variant_set_policy(&d, "run") != 0) {
		hs_driver_close(&d);
		if (opt.svg)
			hs_output_abort(&svg);
		return HIPSIM_EXIT_USAGE;
	}
	w->run(&d, &wp);
	hs_driver_report(&d, w->name, &r);
	hs_driver_finish(&d, &r);
	status = r.failures ? HIPSIM_EXIT_FAILED : HIPSIM_EXIT_OK;
	if (opt.svg) {
		bool drawn = hs_report_svg(svg.f, &d, &r) == 0;

		if (hs_output_close(&svg) != 0 || !drawn)
			status = HIPSIM_EXIT_USAGE;
	}
	hs_driver_close(&d);
	if (opt.json)
		hs_report_json(stdout, &r);
	else
		hs_report_text(stdout, &r);
	return status;
}
