/*
 * plan.c - `hipsim plan TRACE`: the pool layout that minimises peak reserved
 * memory on a trace, printed as a layout file.
 *
 * Upstream's measured plan is a cycle: run once, read each pool's peak page
 * count, cap the pools there.  Here that cycle is one step of a search: the
 * trace is replayed (dry, on the simulator) once with the default layout to
 * measure its peak live memory, then once per candidate layout, and the
 * candidate with the lowest peak reserved memory wins; ties go to the one
 * with fewer device allocations (fewer storage calls), then to the earlier
 * candidate, so the answer is deterministic.
 *
 * Candidates are the Workload shape with its two free parameters searched:
 *  - the small-tensor pool: none, or a sliced pool of page P (1, 2, 4 or
 *    8 MiB) taking requests up to P/2;
 *  - the direct pool's reclaim watermark: one byte (a miss first returns
 *    every cached free allocation) or a fraction (1/4, 1/2, 3/4, 1) of the
 *    measured peak live memory, rounded down to a MiB, (cached allocations stay until the pool would
 *    pass it: fewer storage calls for the same or a slightly higher peak).
 * Every candidate is also replayed, so the printed figure is a measurement
 * on the simulator, not an estimate.
 *
 * Output (stdout): '#' comment lines with the trace, the peak live memory
 * and the peak reserved of the default, SubSlices and the plan, then the
 * plan's pools, one per line, in the layout-file format:
 *   exclusive max_alloc=0 dealloc_period=0
 *   sliced page=2M max_slice=1M
 *   direct reclaim_at=1
 * Sizes print with a K/M/G suffix when they are exact multiples.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/hipsim/driver.h"
#include "tools/hipsim/hipsim.h"
#include "tools/hipsim/options.h"
#include "tools/hipsim/replay.h"
#include "tools/hipsim/replay_event.h"

#define MIB (1024ull * 1024ull)
#define PLAN_MAX_POOLS 3

struct plan_result {
	uint64_t peak_reserved, peak_in_use, device_allocs, failures;
};

/* Replays @path once with @layout; 0 on success, -1 with a message. */
static int plan_replay(const char *path, const char *format, uint64_t capacity,
		       const hc_pool_layout *layout, struct plan_result *out)
{
	struct hs_options opt = { .backend = "sim", .capacity = capacity };
	struct hs_replay *r = malloc(sizeof(*r));
	struct hs_rev *ev = malloc(sizeof(*ev));
	struct hs_trace *t = NULL;
	struct hs_report rep;
	char err[700];
	int rc = -1, n;

	if (!r || !ev) {
		fprintf(stderr, "hipsim plan: out of memory\n");
		goto out_free;
	}
	opt.layout = *layout;
	if (hs_trace_open(path, format, &t, err, sizeof(err)) != 0) {
		fprintf(stderr, "hipsim plan: %s\n", err);
		goto out_free;
	}
	if (hs_replay_open(r, &opt, NULL, path) != 0)
		goto out_trace;
	while ((n = hs_trace_next(t, ev)) == 1)
		hs_replay_event(r, ev);
	hs_driver_report(&r->d, path, &rep);
	if (n < 0)
		fprintf(stderr, "hipsim plan: %s\n", hs_trace_error(t));
	else
		rc = 0;
	out->peak_reserved = rep.peak_reserved_bytes;
	out->peak_in_use = rep.peak_in_use_bytes;
	out->device_allocs = rep.stats.device_allocs;
	out->failures = rep.failures;
	hs_replay_close(r);
out_trace:
	hs_trace_close(t);
out_free:
	free(ev);
	free(r);
	return rc;
}

/* Candidate @small_page (0 = no sliced pool), @reclaim into @pools. */
static size_t plan_candidate(hc_pool_spec *pools, uint64_t small_page, uint64_t reclaim)
{
	size_t n = 0;

	memset(pools, 0, PLAN_MAX_POOLS * sizeof(*pools));
	pools[n++].kind = HC_POOL_EXCLUSIVE; /* size 0, as every preset */
	if (small_page) {
		pools[n].kind = HC_POOL_SLICED;
		pools[n].page_size = small_page;
		pools[n++].max_slice_size = small_page / 2;
	}
	pools[n].kind = HC_POOL_DIRECT;
	pools[n++].reclaim_at = reclaim;
	return n;
}

static void plan_usage(FILE *out)
{
	fprintf(out,
		"usage: hipsim plan TRACE [OPTIONS]\n"
		"Searches pool layouts for the lowest peak reserved memory on TRACE (replayed\n"
		"on the simulator) and prints the winner as a layout file.\n\n"
		"  --format F         auto (default), rmm, ctf\n"
		"  --capacity BYTES   simulated device memory (K/M/G suffixes)\n"
		"Exit status: 0 ok, 1 a replay failed, 2 bad input or usage.\n");
}

int hipsim_plan_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, 0, 'f' },
		{ "capacity", required_argument, 0, 'c' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	static const uint64_t pages[] = { 0, 1 * MIB, 2 * MIB, 4 * MIB, 8 * MIB };
	static const unsigned quarters[] = { 0, 1, 2, 3, 4 };
	hc_pool_spec cand[PLAN_MAX_POOLS], best[PLAN_MAX_POOLS];
	hc_pool_layout lay = { .preset = HC_LAYOUT_DEFAULT };
	struct plan_result def, sub, res, win = { 0 };
	const char *format = "auto", *path;
	uint64_t capacity = 0;
	size_t nbest = 0, n, i, j;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': format = optarg; break;
		case 'c':
			if (hs_opt_capacity("plan", optarg, &capacity))
				return HIPSIM_EXIT_USAGE;
			break;
		case 'h': plan_usage(stdout); return HIPSIM_EXIT_OK;
		default: plan_usage(stderr); return HIPSIM_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "hipsim plan: %s\n", optind == argc ? "a TRACE is needed" : "one TRACE only");
		plan_usage(stderr);
		return HIPSIM_EXIT_USAGE;
	}
	path = argv[optind];
	if (plan_replay(path, format, capacity, &lay, &def) != 0)
		return HIPSIM_EXIT_USAGE;
	lay.preset = HC_LAYOUT_SUBSLICES;
	if (plan_replay(path, format, capacity, &lay, &sub) != 0)
		return HIPSIM_EXIT_USAGE;
	lay.preset = HC_LAYOUT_EXPLICIT;
	lay.pools = cand;
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		for (j = 0; j < sizeof(quarters) / sizeof(quarters[0]); j++) {
			uint64_t reclaim = quarters[j] ? def.peak_in_use / 4 * quarters[j] / MIB * MIB : 1;

			if (reclaim == 0)
				reclaim = 1;
			n = plan_candidate(cand, pages[i], reclaim);
			lay.n_pools = n;
			if (plan_replay(path, format, capacity, &lay, &res) != 0)
				return HIPSIM_EXIT_USAGE;
			if (res.failures)
				continue;
			if (nbest && (res.peak_reserved > win.peak_reserved ||
				      (res.peak_reserved == win.peak_reserved &&
				       res.device_allocs >= win.device_allocs)))
				continue;
			win = res;
			memcpy(best, cand, n * sizeof(*cand));
			nbest = n;
		}
	printf("# hipsim plan %s\n", path);
	printf("# peak live            %" PRIu64 " B\n", def.peak_in_use);
	printf("# default (workload)   %" PRIu64 " B peak reserved (%.4f x live)\n",
	       def.peak_reserved, def.peak_in_use ? (double)def.peak_reserved / (double)def.peak_in_use : 0.0);
	printf("# subslices            %" PRIu64 " B peak reserved (%.4f x live)\n",
	       sub.peak_reserved, sub.peak_in_use ? (double)sub.peak_reserved / (double)sub.peak_in_use : 0.0);
	if (!nbest) {
		printf("# no candidate replayed without failures; keep the default\n");
		return HIPSIM_EXIT_FAILED;
	}
	printf("# plan                 %" PRIu64 " B peak reserved (%.4f x live), %" PRIu64
	       " device allocations\n",
	       win.peak_reserved,
	       win.peak_in_use ? (double)win.peak_reserved / (double)win.peak_in_use : 0.0,
	       win.device_allocs);
	hs_layout_print(stdout, best, nbest);
	return def.failures || sub.failures ? HIPSIM_EXIT_FAILED : HIPSIM_EXIT_OK;
}
