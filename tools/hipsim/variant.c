/*
 * variant.c - --pools, --flush-count, --flush-bytes and --stage-max, parsed
 * once for every subcommand that runs a built-in workload (variant.h).
 *
 * A value is checked when the option is read, so a bad one is a usage
 * error (exit 2) before any device opens; the policy itself is set after
 * hs_driver_open(), once the layout is installed.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "tools/hipsim/options.h"
#include "tools/hipsim/variant.h"

int hs_variant_option(struct hs_variant *v, const char *cmd, int code, const char *arg)
{
	char err[600];

	switch (code) {
	case HS_OPT_POOLS:
		if (hs_pools_option(arg, &v->layout, v->pool_specs, err, sizeof(err)) != 0) {
			fprintf(stderr, "hipsim %s: --pools: %s\n", cmd, err);
			return -1;
		}
		v->pools = arg;
		return 1;
	case HS_OPT_FLUSH_COUNT:
		return hs_opt_number(cmd, "--flush-count", arg, 0, UINT64_MAX,
				     &v->policy.dq_max_count) ? -1 : 1;
	case HS_OPT_FLUSH_BYTES:
		return hs_opt_number(cmd, "--flush-bytes", arg, 0, UINT64_MAX,
				     &v->policy.dq_max_bytes) ? -1 : 1;
	case HS_OPT_STAGE_MAX:
		return hs_opt_number(cmd, "--stage-max", arg, 0, UINT64_MAX,
				     &v->policy.stage_max_bytes) ? -1 : 1;
	default:
		return 0;
	}
}

void hs_variant_apply(const struct hs_variant *v, struct hs_options *opt)
{
	opt->layout = v->layout;
	opt->pools = v->pools;
	opt->policy = v->policy;
}

int hs_variant_set_policy(struct hs_driver *d, const char *cmd)
{
	const hc_policy *p = &d->opt.policy;
	hc_error_info e;
	hc_status rc;

	if (!p->dq_max_count && !p->dq_max_bytes && !p->stage_max_bytes)
		return 0;
	rc = hc_device_set_policy(d->dev, p);
	if (rc == HC_OK)
		return 0;
	hc_last_error(&e);
	fprintf(stderr, "hipsim %s: cannot set the policy: %s: %s\n", cmd, hc_status_str(rc),
		e.message);
	return -1;
}

/* @v as a word: "default" for 0, the library's own value. */
static const char *policy_word(char *buf, size_t len, uint64_t v)
{
	if (!v)
		return "default";
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

void hs_variant_str(const struct hs_variant *v, char *buf, size_t len)
{
	char n[3][24];

	snprintf(buf, len, "pools %s, flush-count %s, flush-bytes %s, stage-max %s",
		 v->pools ? v->pools : "default",
		 policy_word(n[0], sizeof(n[0]), v->policy.dq_max_count),
		 policy_word(n[1], sizeof(n[1]), v->policy.dq_max_bytes),
		 policy_word(n[2], sizeof(n[2]), v->policy.stage_max_bytes));
}
