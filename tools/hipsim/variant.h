/*
 * variant.h - the configuration a built-in workload runs under: its pool
 * layout (--pools) and the device policy (--flush-count, --flush-bytes,
 * --stage-max).
 *
 * `hipsim run` and `hipsim validate` accept these four options the same
 * way, so they are parsed once, here, into one struct: validate runs the
 * measured and the predicted side under the same variant, and what-if
 * comparisons (tests/gpu/whatif.sh) set variants side by side.
 */
#ifndef HIPSIM_VARIANT_H
#define HIPSIM_VARIANT_H

#include <stddef.h>

#include "hipcore/hipcore.h"
#include "tools/hipsim/driver.h"
#include "tools/hipsim/layout_file.h"

struct hs_variant {
	const char *pools; /* the --pools value; NULL: the default layout */
	hc_pool_layout layout;
	hc_pool_spec pool_specs[HS_LAYOUT_MAX_POOLS]; /* a layout file's; layout.pools points here */
	hc_policy policy; /* 0 fields keep the library's defaults */
};

/* Option codes of HS_VARIANT_LONGOPTS (above any character and the
 * HS_OPT_* codes of read_options.h). */
enum {
	HS_OPT_POOLS = 0x1100,
	HS_OPT_FLUSH_COUNT,
	HS_OPT_FLUSH_BYTES,
	HS_OPT_STAGE_MAX,
};

/* Entries for a getopt_long() table; hs_variant_option() handles them. */
#define HS_VARIANT_LONGOPTS                                              \
	{ "pools", required_argument, 0, HS_OPT_POOLS },                 \
	{ "flush-count", required_argument, 0, HS_OPT_FLUSH_COUNT },     \
	{ "flush-bytes", required_argument, 0, HS_OPT_FLUSH_BYTES },     \
	{ "stage-max", required_argument, 0, HS_OPT_STAGE_MAX }

/* Their lines of a usage text. */
#define HS_VARIANT_USAGE                                                                         \
	"  --pools NAME|FILE default (= workload), workload, expandable, expandable-shared,\n"   \
	"                    subslices, exclusive, or a layout file\n"                          \
	"  --flush-count N   drop-queue entries that trigger a flush (the device policy)\n"      \
	"  --flush-bytes N   drop-queue bytes that trigger a flush\n"                            \
	"  --stage-max BYTES largest write staged through pinned memory\n"

/**
 * hs_variant_option() - applies option @code (HS_OPT_POOLS...) to @v.
 * @v: the variant, zeroed before the first option.
 * @cmd: the subcommand, for messages ("validate").
 * @code: the getopt_long() code.
 * @arg: the option's value; kept (as @v->pools) for --pools.
 *
 * On a bad value prints "hipsim CMD: ..." naming the option to stderr.
 *
 * Context: any thread.
 * Return: 1 when applied, 0 when @code is not one of them, -1 after the
 * message.
 */
int hs_variant_option(struct hs_variant *v, const char *cmd, int code, const char *arg);

/* Copies @v's layout, --pools value and policy into @opt, for
 * hs_driver_open() and the report (@v must outlive @opt's use). */
void hs_variant_apply(const struct hs_variant *v, struct hs_options *opt);

/**
 * hs_variant_set_policy() - sets the opened driver's policy (d->opt.policy)
 * on its device, when any field is set.
 * @d: opened by hs_driver_open(), before the workload runs.
 * @cmd: the subcommand, for the message.
 *
 * After the layout, as replay sets it; 0 fields keep the library's defaults.
 *
 * Context: as hc_device_set_policy().
 * Return: 0, or -1 with a message on stderr.
 */
int hs_variant_set_policy(struct hs_driver *d, const char *cmd);

/* "pools P, flush-count N, flush-bytes N, stage-max N" ("default" for the
 * library's values), into @buf of @len. */
void hs_variant_str(const struct hs_variant *v, char *buf, size_t len);

#endif /* HIPSIM_VARIANT_H */
