/*
 * decode_guard.h - bounds on a decoder running in a child process.
 *
 * libbabeltrace2 can loop forever on a corrupt CTF trace or allocate what a
 * corrupt length field says (issue 28: a truncated metadata packet spins at
 * 100 % CPU, a flipped array length grows the process by 1 GB/s), and it is
 * not ours to fix.  read_isolated.c runs it in a child; this file bounds
 * that child three ways, each of which ends it with a message naming the
 * bound:
 *
 *  - CPU time: RLIMIT_CPU in the child (SIGXCPU at the limit, SIGKILL two
 *    seconds later).
 *  - Memory: RLIMIT_DATA in the child, set to what it inherited plus the
 *    limit (the heap and private writable mappings; not the stream files
 *    libbabeltrace2 maps read-only, which RLIMIT_AS would count), and the
 *    parent's check of the child's resident anonymous memory (RssAnon)
 *    above what it had at its first check, every 100 ms while it waits.
 *    The rlimit stops one huge allocation before it happens; the check is
 *    what works where the rlimit cannot (address and thread sanitizers
 *    reserve terabytes of shadow memory, so they get no RLIMIT_DATA).
 *  - Progress: the parent, while it waits for the child's records, kills
 *    the child when neither a record nor the child's progress counter
 *    (hs_read_progress, shared memory, bumped by the reader per batch of
 *    decoded messages) has moved for the stall limit.
 *
 * The child's stderr goes into a pipe the parent drains while it waits: to
 * its own stderr with --verbose, else into a small ring whose last line is
 * quoted when the child dies ("failed to allocate ...", a sanitizer's
 * summary), so libbabeltrace2's log stays out of the way.
 */
#ifndef HIPSIM_DECODE_GUARD_H
#define HIPSIM_DECODE_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "tools/hipsim/read_options.h"

/* Why the parent stopped the child (GUARD_NONE: it did not). */
enum hs_guard_verdict { GUARD_NONE, GUARD_STALL, GUARD_MEMORY };

struct hs_guard {
	struct hs_decode_limits lim;
	pid_t pid;
	int err_fd; /* the child's stderr; -1 once it closed */
	bool verbose;
	const uint64_t *progress; /* shared with the child (hs_guard_progress_map) */
	uint64_t seen;		  /* *progress when last read */
	uint64_t next_mem_check_ns;
	uint64_t anon_base; /* the child's RssAnon at the first check, bytes */
	bool have_base;
	enum hs_guard_verdict verdict;
	uint64_t anon_seen; /* at a GUARD_MEMORY verdict */
	char tail[1024];    /* the last bytes of the child's stderr */
	size_t tail_len;
};

/**
 * hs_guard_progress_map() - a counter shared with a child to be forked.
 * Return: the counter (zero), or NULL when shared memory cannot be had (the
 * stall check then goes by the child's records alone).
 */
uint64_t *hs_guard_progress_map(void);
void hs_guard_progress_unmap(uint64_t *p);

/**
 * hs_guard_child_setup() - in the child, before the reader opens: the
 * rlimits, no core files, stderr into @err_fd, the progress counter.
 * Context: the child of a fork, one thread.
 */
void hs_guard_child_setup(const struct hs_decode_limits *lim, int err_fd, uint64_t *progress);

/* In the parent after the fork: starts watching child @pid. */
void hs_guard_start(struct hs_guard *g, pid_t pid, int err_fd, const uint64_t *progress,
		    const struct hs_decode_limits *lim, bool verbose);

/**
 * hs_guard_wait() - waits until @fd can be read (data or end of file),
 * draining the child's stderr and checking its bounds meanwhile.
 * Return: 0 when @fd is ready, -1 when a bound was passed: the child has
 * been sent SIGKILL and g->verdict says why.
 */
int hs_guard_wait(struct hs_guard *g, int fd);

/**
 * hs_guard_explain() - why a child that ended early ended, as a clause.
 * @status, @ru: from wait4() on the child.
 * @msg: receives e.g. "used its CPU-time limit of 60 s (--decode-cpu)" or
 *       "was killed by signal 11 (Segmentation fault)", with the last line
 *       the child wrote to stderr when there is one.
 * Context: after the child was reaped; drains what stderr still holds.
 */
void hs_guard_explain(struct hs_guard *g, int status, const struct rusage *ru, char *msg, size_t len);

/* A note for a reader error that says "out of memory" while a memory
 * limit applies ("" otherwise), to append to it. */
const char *hs_guard_memory_note(const struct hs_guard *g, const char *error, char *buf, size_t len);

/* Reads what is left in the stderr pipe (shown with --verbose), then closes
 * it.  Context: after the child is reaped. */
void hs_guard_stop(struct hs_guard *g);

#endif /* HIPSIM_DECODE_GUARD_H */
