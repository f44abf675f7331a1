/*
 * options.h - values of hipsim's command-line options that several
 * subcommands share: numbers and sizes with limits, profile names.
 *
 * Each helper prints its own message on failure, naming the subcommand,
 * the option and the limit that was broken, so that every subcommand
 * says the same thing the same way.
 */
#ifndef HIPSIM_OPTIONS_H
#define HIPSIM_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

/* Simulated device memory that --capacity accepts: at most 1 PiB, the
 * bound of a profile's total_memory (sim/sim_profile.c); at least 4 B, as
 * a stream's pools size their pages from a quarter of the device's memory
 * (core/stream.c), which must not be 0 for a stream to open. */
#define HS_CAPACITY_MIN 4ull
#define HS_CAPACITY_MAX (1ull << 50)

/**
 * hs_opt_number() - the value of a numeric option, within limits.
 * @cmd: the subcommand, for the message ("run").
 * @opt: the option as the user spells it ("--streams").
 * @arg: its value: decimal or 0x hex, with an optional K, M or G suffix
 *       (powers of 1024).
 * @min: the smallest value accepted.
 * @max: the largest value accepted.
 * @out: receives the value on success.
 *
 * On failure prints "hipsim CMD: OPT: ..." to stderr, saying whether @arg
 * is not a number or which limit it breaks (with the limit's value).
 *
 * Context: any thread.
 * Return: 0, or -1 after the message.
 */
int hs_opt_number(const char *cmd, const char *opt, const char *arg, uint64_t min, uint64_t max,
		  uint64_t *out);

/* hs_opt_number() for --capacity, from HS_CAPACITY_MIN to HS_CAPACITY_MAX
 * bytes, the minimum explained in its message. */
int hs_opt_capacity(const char *cmd, const char *arg, uint64_t *out);

/**
 * hs_profile_find() - the file a --profile value names.
 * @arg: a path, or the name of an installed profile ("h200" or
 *       "h200.profile"): looked up in $HIPSIM_PROFILE_DIR when set, else
 *       in the directory `make install` put profiles/ in.
 * @buf: storage for a looked-up path.
 * @len: its size.
 *
 * A value that names an existing file, or that holds a '/', is taken as a
 * path as it is (its errors are the profile loader's to report).
 *
 * Context: any thread.
 * Return: the path to open: @arg itself, or @buf.
 */
const char *hs_profile_find(const char *arg, char *buf, size_t len);

#endif /* HIPSIM_OPTIONS_H */
