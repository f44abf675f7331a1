/*
 * plan.c - `hipsim plan TRACE`: the pool layout with the lowest peak
 * reserved memory whose predicted time stays within a slack of the
 * default's, printed as a layout file after the frontier it was picked from.
 *
 * Upstream's measured plan is a cycle: run once, read each pool's peak page
 * count, cap the pools there.  Here that cycle is one step of a search: the
 * trace is replayed (dry, on the simulator) with the default layout, to
 * measure peak live memory and the time to stay near, then once per
 * candidate layout.  Bytes alone are the wrong objective: exact-size direct
 * pools with a one-byte watermark reach peak live on every history, at ten
 * times the device allocations and up to ten times the predicted time.  So
 * each replay records three figures (peak reserved, the simulator's
 * predicted time, device calls: allocations, frees, maps and unmaps), and
 * the winner is the lowest peak reserved among the candidates whose
 * predicted time is at most (1 + slack) x the default's; ties go to fewer
 * device calls, then to less time, then to the earlier candidate, so the
 * answer is deterministic and never one another candidate beats on all
 * three figures.  The default itself is a candidate, so there is always a
 * winner when the default replays without failures.
 *
 * Candidates, in order:
 *  - the presets: default (Workload), SubSlices, Expandable;
 *  - the Workload shape with its two free parameters searched: no
 *    small-tensor pool or a sliced pool of page P (1, 2, 4 or 8 MiB) taking
 *    requests up to P/2, then a direct pool whose watermark is one byte (a
 *    miss first returns every cached free allocation) or 1/4, 1/2, 3/4 or
 *    all of the measured peak live memory, rounded down to a MiB;
 *  - the same small-tensor pools before an expandable pool that unmaps on
 *    cleanup only or whose watermark is its own peak in use (the preset is
 *    the first with 2 MiB pages, so that one is not replayed twice).
 * Every figure printed is a replay on the simulator, not an estimate.
 *
 * Output (stdout), '#' comment lines, then the plan's pools in the
 * layout-file format (layout_print.c):
 *   - the trace, peak live, the slack and the time limit it gives;
 *   - the frontier: each candidate no other one matches or beats on all
 *     three figures, by peak reserved, the plan and the default marked
 *     (the default listed even when it is not on the frontier);
 *   - one line each for the default, SubSlices and the plan;
 *   - the plan's pools, or, when the plan is a preset a layout file cannot
 *     spell (Workload's direct pool splits its allocations; SubSlices is
 *     sized from the device), a comment naming the --pools word for it.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tools/hipsim/driver.h"
#include "tools/hipsim/hipsim.h"
#include "tools/hipsim/options.h"
#include "tools/hipsim/replay.h"
#include "tools/hipsim/replay_event.h"

#define MIB ((uint64_t)1024 * 1024)
#define PLAN_MAX_POOLS 3
#define PLAN_SLACK_DEFAULT 2 /* percent */
#define PLAN_SLACK_MAX 1000
#define PLAN_MAX_CANDS 40

struct plan_result {
	uint64_t peak_reserved, peak_in_use, predicted_ns, device_calls, failures;
};

/* One candidate: the layout replayed, the pools a layout file spells it
 * with (n_pools 0 when it has none), and what the replay measured. */
struct plan_cand {
	char label[96];
	const char *preset_word; /* --pools word of a preset, else NULL */
	hc_layout_preset preset;
	hc_pool_spec pools[PLAN_MAX_POOLS];
	size_t n_pools;
	struct plan_result res;
	bool kept; /* on the frontier */
};

/* Where every replay of one plan runs: the trace, and the simulated device. */
struct plan_input {
	const char *path, *format;
	const char *profile; /* NULL: the built-in one */
	uint64_t capacity;
};

/* Replays @in's trace once with @layout; 0 on success, -1 with a message. */
static int plan_replay(const struct plan_input *in, const hc_pool_layout *layout,
		       struct plan_result *out)
{
	struct hs_options opt = { .backend = "sim", .profile = in->profile,
				  .capacity = in->capacity };
	const char *path = in->path;
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
	if (hs_trace_open(path, in->format, &t, err, sizeof(err)) != 0) {
		fprintf(stderr, "hipsim plan: %s\n", err);
		goto out_free;
	}
	if (hs_replay_open(r, &opt, path) != 0)
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
	out->predicted_ns = rep.device_ns;
	out->device_calls = rep.stats.device_allocs + rep.stats.device_frees +
			    rep.stats.device_maps + rep.stats.device_unmaps;
	out->failures = rep.failures;
	hs_replay_close(r);
out_trace:
	hs_trace_close(t);
out_free:
	free(ev);
	free(r);
	return rc;
}

/* Replays candidate @c, its result into @c->res; 0, or -1 with a message. */
static int replay_cand(const struct plan_input *in, struct plan_cand *c)
{
	hc_pool_layout lay = { .preset = c->preset };

	if (c->preset == HC_LAYOUT_EXPLICIT) {
		lay.pools = c->pools;
		lay.n_pools = c->n_pools;
	}
	return plan_replay(in, &lay, &c->res);
}

/* A MiB count, or bytes when not a whole number of MiB, for labels. */
static void label_size(char *buf, size_t n, uint64_t v)
{
	if (v && v % MIB == 0)
		snprintf(buf, n, "%" PRIu64 "M", v / MIB);
	else
		snprintf(buf, n, "%" PRIu64, v);
}

/* Fills @c as [exclusive 0] + [sliced @small_page | none] + @last. */
static void cand_explicit(struct plan_cand *c, uint64_t small_page, hc_pool_kind last,
			  uint64_t reclaim)
{
	char page[24], at[24];
	size_t n = 0;

	memset(c, 0, sizeof(*c));
	c->preset = HC_LAYOUT_EXPLICIT;
	c->pools[n++].kind = HC_POOL_EXCLUSIVE; /* size 0, as every preset */
	if (small_page) {
		c->pools[n].kind = HC_POOL_SLICED;
		c->pools[n].page_size = small_page;
		c->pools[n++].max_slice_size = small_page / 2;
	}
	c->pools[n].kind = last;
	c->pools[n++].reclaim_at = reclaim;
	c->n_pools = n;
	label_size(page, sizeof(page), small_page);
	if (reclaim == HC_RECLAIM_AT_PEAK)
		snprintf(at, sizeof(at), "peak");
	else
		label_size(at, sizeof(at), reclaim);
	snprintf(c->label, sizeof(c->label), "%s%s + %s reclaim_at=%s", small_page ? "sliced " : "",
		 small_page ? page : "no sliced", last == HC_POOL_DIRECT ? "direct" : "expandable", at);
}

static void cand_preset(struct plan_cand *c, hc_layout_preset preset, const char *word,
			const char *label)
{
	memset(c, 0, sizeof(*c));
	c->preset = preset;
	c->preset_word = word;
	snprintf(c->label, sizeof(c->label), "%s", label);
}

/*
 * The candidate list (the file's header gives it in prose), the default
 * first; the direct watermarks are fractions of @peak_live.  Return: how
 * many, at most @max.
 */
static size_t plan_candidates(struct plan_cand *c, size_t max, uint64_t peak_live)
{
	static const uint64_t pages[] = { 0, 1 * MIB, 2 * MIB, 4 * MIB, 8 * MIB };
	size_t n = 0, i, q;

	_Static_assert(PLAN_MAX_CANDS >= 3 + 5 * 5 + 5 * 2 - 1, "room for every candidate");
	if (max < PLAN_MAX_CANDS)
		return 0;
	cand_preset(&c[n++], HC_LAYOUT_DEFAULT, "default", "default (workload)");
	cand_preset(&c[n++], HC_LAYOUT_SUBSLICES, "subslices", "subslices");
	/* The preset's pools, spelt out: a layout file can say it. */
	cand_explicit(&c[n], 2 * MIB, HC_POOL_EXPANDABLE, 0);
	c[n].preset = HC_LAYOUT_EXPANDABLE;
	c[n].preset_word = "expandable";
	snprintf(c[n++].label, sizeof(c[0].label), "expandable");
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		for (q = 0; q <= 4; q++) {
			uint64_t reclaim = q ? peak_live / 4 * q / MIB * MIB : 1;

			cand_explicit(&c[n++], pages[i], HC_POOL_DIRECT, reclaim ? reclaim : 1);
		}
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		if (pages[i] != 2 * MIB)
			cand_explicit(&c[n++], pages[i], HC_POOL_EXPANDABLE, 0);
		cand_explicit(&c[n++], pages[i], HC_POOL_EXPANDABLE, HC_RECLAIM_AT_PEAK);
	}
	return n;
}

/* True when @b is at least as good as @a on all three figures and better
 * on one, or equal on all three and earlier (so duplicates show once). */
static bool dominates(const struct plan_result *b, const struct plan_result *a, bool b_earlier)
{
	bool le = b->peak_reserved <= a->peak_reserved && b->predicted_ns <= a->predicted_ns &&
		  b->device_calls <= a->device_calls;
	bool eq = b->peak_reserved == a->peak_reserved && b->predicted_ns == a->predicted_ns &&
		  b->device_calls == a->device_calls;

	return le && (!eq || b_earlier);
}

/* @b beats @a as the plan: less reserved, then fewer calls, then less time. */
static bool better(const struct plan_result *b, const struct plan_result *a)
{
	if (b->peak_reserved != a->peak_reserved)
		return b->peak_reserved < a->peak_reserved;
	if (b->device_calls != a->device_calls)
		return b->device_calls < a->device_calls;
	return b->predicted_ns < a->predicted_ns;
}

/* floor(@ns x (100 + @pct) / 100), without overflow for any time a replay
 * can predict (saturating past UINT64_MAX). */
static uint64_t time_limit(uint64_t ns, uint64_t pct)
{
	uint64_t whole = ns / 100, part = ns % 100 * pct / 100;

	if (whole && pct > (UINT64_MAX - ns - part) / whole)
		return UINT64_MAX;
	return ns + whole * pct + part;
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

static void print_row(const struct plan_cand *c, const struct plan_result *def, const char *mark)
{
	printf("#   %14" PRIu64 " B %7.4f x  %14.6f ms %7.3f x  %8" PRIu64 "  %s%s\n",
	       c->res.peak_reserved, ratio(c->res.peak_reserved, def->peak_in_use),
	       (double)c->res.predicted_ns / 1e6, ratio(c->res.predicted_ns, def->predicted_ns),
	       c->res.device_calls, c->label, mark);
}

static void print_summary(const char *what, const struct plan_result *r,
			  const struct plan_result *def)
{
	printf("# %-20s %" PRIu64 " B peak reserved (%.4f x live), %.6f ms predicted (%.4f x "
	       "default), %" PRIu64 " device calls\n",
	       what, r->peak_reserved, ratio(r->peak_reserved, def->peak_in_use),
	       (double)r->predicted_ns / 1e6, ratio(r->predicted_ns, def->predicted_ns),
	       r->device_calls);
}

/* Marks the candidates on the frontier: replayed without failures, and
 * no other one at least as good on all three figures (see dominates). */
static void mark_frontier(struct plan_cand *c, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		c[i].kept = !c[i].res.failures;
		for (j = 0; j < n && c[i].kept; j++)
			if (j != i && !c[j].res.failures && dominates(&c[j].res, &c[i].res, j < i))
				c[i].kept = false;
	}
}

/* The frontier, by peak reserved then time, the plan @win and the default
 * (@c[0]) marked; the default after it when it is not on it. */
static void print_frontier(const struct plan_cand *c, size_t n, const struct plan_cand *win)
{
	const struct plan_cand *order[PLAN_MAX_CANDS];
	size_t i, j, k = 0;

	for (i = 0; i < n && k < PLAN_MAX_CANDS; i++) {
		if (!c[i].kept)
			continue;
		for (j = k; j > 0 && (c[i].res.peak_reserved < order[j - 1]->res.peak_reserved ||
				      (c[i].res.peak_reserved == order[j - 1]->res.peak_reserved &&
				       c[i].res.predicted_ns < order[j - 1]->res.predicted_ns));
		     j--)
			order[j] = order[j - 1];
		order[j] = &c[i];
		k++;
	}
	printf("# frontier (%zu of %zu candidates): peak reserved (x live), predicted time "
	       "(x default), device calls (allocs + frees + maps + unmaps), layout\n", k, n);
	for (i = 0; i < k; i++)
		print_row(order[i], &c[0].res,
			  order[i] == win && order[i] == &c[0] ? "  <- plan, default"
			  : order[i] == win		       ? "  <- plan"
			  : order[i] == &c[0]		       ? "  <- default"
							       : "");
	if (!c[0].kept && !c[0].res.failures)
		print_row(&c[0], &c[0].res, "  <- default (not on the frontier)");
}

static void plan_usage(FILE *out)
{
	fprintf(out,
		"usage: hipsim plan TRACE [OPTIONS]\n"
		"Searches pool layouts for the lowest peak reserved memory on TRACE (replayed\n"
		"on the simulator) among those whose predicted time is within a slack of the\n"
		"default layout's; prints the frontier of candidates (peak reserved, predicted\n"
		"time, device calls) and the winner as a layout file.\n\n"
		"  --format F         auto (default), rmm, ctf\n"
		"  --capacity BYTES   simulated device memory (K/M/G suffixes)\n"
		"  --profile P        the simulated device's profile (a file, or an installed\n"
		"                     one's name): time is weighed with its costs\n"
		"  --time-slack PCT   predicted time allowed above the default's, in percent:\n"
		"                     0 to %d (default %d)\n"
		"Exit status: 0 ok, 1 a replay failed, 2 bad input or usage.\n",
		PLAN_SLACK_MAX, PLAN_SLACK_DEFAULT);
}

int hipsim_plan_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, 0, 'f' },
		{ "capacity", required_argument, 0, 'c' },
		{ "profile", required_argument, 0, 'p' },
		{ "time-slack", required_argument, 0, 's' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const hc_pool_layout def_layout = { .preset = HC_LAYOUT_DEFAULT };
	struct plan_cand *cand = NULL, *win = NULL;
	struct plan_result def;
	struct plan_input in = { .format = "auto" };
	char profile_path[4096];
	uint64_t slack = PLAN_SLACK_DEFAULT, limit;
	int c, rc = HIPSIM_EXIT_USAGE;
	size_t n, i;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': in.format = optarg; break;
		case 'p': in.profile = hs_profile_find(optarg, profile_path, sizeof(profile_path)); break;
		case 'c':
			if (hs_opt_capacity("plan", optarg, &in.capacity))
				return HIPSIM_EXIT_USAGE;
			break;
		case 's':
			if (hs_opt_number("plan", "--time-slack", optarg, 0, PLAN_SLACK_MAX, &slack))
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
	in.path = argv[optind];
	cand = calloc(PLAN_MAX_CANDS, sizeof(*cand));
	if (!cand) {
		fprintf(stderr, "hipsim plan: out of memory\n");
		return HIPSIM_EXIT_USAGE;
	}
	/* The default first: its peak live sizes the direct watermarks. */
	if (plan_replay(&in, &def_layout, &def) != 0)
		goto out;
	n = plan_candidates(cand, PLAN_MAX_CANDS, def.peak_in_use);
	cand[0].res = def; /* the list starts with the default */
	for (i = 1; i < n; i++)
		if (replay_cand(&in, &cand[i]) != 0)
			goto out;
	limit = time_limit(cand[0].res.predicted_ns, slack);
	for (i = 0; i < n; i++)
		if (!cand[i].res.failures && cand[i].res.predicted_ns <= limit &&
		    (!win || better(&cand[i].res, &win->res)))
			win = &cand[i];
	mark_frontier(cand, n);

	printf("# hipsim plan %s%s%s\n", in.path, in.profile ? ", profile " : "", in.profile ? in.profile : "");
	printf("# peak live            %" PRIu64 " B\n", cand[0].res.peak_in_use);
	printf("# time slack           %" PRIu64 " %% over the default's %.6f ms: at most %.6f ms\n",
	       slack, (double)cand[0].res.predicted_ns / 1e6, (double)limit / 1e6);
	print_frontier(cand, n, win);
	print_summary("default (workload)", &cand[0].res, &cand[0].res);
	print_summary("subslices", &cand[1].res, &cand[0].res);
	rc = cand[0].res.failures || cand[1].res.failures ? HIPSIM_EXIT_FAILED : HIPSIM_EXIT_OK;
	if (!win) {
		printf("# no candidate within the slack replayed without failures; keep the default\n");
		rc = HIPSIM_EXIT_FAILED;
		goto out;
	}
	print_summary("plan", &win->res, &cand[0].res);
	printf("# plan layout          %s\n", win->label);
	if (win->n_pools) {
		hs_layout_print(stdout, win->pools, win->n_pools);
	} else {
		printf("# a layout file cannot spell this preset: use --pools %s\n",
		       win->preset_word);
	}
out:
	free(cand);
	return rc;
}
