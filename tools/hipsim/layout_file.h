/*
 * layout_file.h - hipsim's explicit pool layout files (--pools FILE).
 *
 * A layout file is text, one pool per line in routing order:
 *
 *	# comment (a '#' starts one anywhere on a line)
 *	sliced page=32M max_slice=8M cap=1G dealloc_period=64
 *	exclusive max_alloc=256M
 *	direct reclaim_at=4G
 *
 * The first word is the kind; then KEY=VALUE words, each at most once,
 * naming hc_pool_spec fields that apply to the kind:
 *
 *	exclusive  max_alloc, dealloc_period
 *	direct     reclaim_at
 *	sliced     page (required, > 0), max_slice (<= page), cap (0 or from
 *	           one page to 65535 pages), dealloc_period
 *	expandable cap (its address range; 0 or absent: the device's memory)
 *
 * There is no persistent kind: every stream has its persistent pool
 * already (hc_memory_persistent_begin), and a layout cannot hold one.
 * Values are decimal or 0x hex with an optional K, M, G or T suffix
 * (powers of 1024).  Blank lines are skipped.  The parser refuses, with
 * the file and line, what hc_install_memory_pools() would refuse, so that
 * a bad file fails before the replay, not as one failing event per stream.
 */
#ifndef HIPSIM_LAYOUT_FILE_H
#define HIPSIM_LAYOUT_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "hipcore/hipcore.h"

/* Pools a layout file may name. */
#define HS_LAYOUT_MAX_POOLS 64

/**
 * hs_layout_parse() - read a layout file's pools.
 * @f: the open file.
 * @name: its name, for messages.
 * @pools: receives HS_LAYOUT_MAX_POOLS specs at most.
 * @n: receives how many.
 * @err: receives "NAME:LINE: reason" on failure.
 *
 * Context: any thread.
 * Return: 0, or -1 with @err set (unknown kind or key, a key that does not
 * apply to the kind or is given twice, a bad number, a sliced pool the
 * library would refuse, a line too long, too many pools, no pool at all).
 */
int hs_layout_parse(FILE *f, const char *name, hc_pool_spec *pools, size_t *n, char *err,
		    size_t errlen);

/**
 * hs_pools_option() - the value of --pools: a preset name (default,
 * subslices, exclusive) or a layout file.
 * @arg: the option's value.
 * @layout: receives the layout; for a file its pools point into @pools.
 * @pools: storage for HS_LAYOUT_MAX_POOLS specs, kept as long as @layout.
 *
 * Context: any thread.
 * Return: 0, or -1 with @err set (unknown name and no such file, or a bad file).
 */
int hs_pools_option(const char *arg, hc_pool_layout *layout, hc_pool_spec *pools, char *err,
		    size_t errlen);

#endif /* HIPSIM_LAYOUT_FILE_H */
