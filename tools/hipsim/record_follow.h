/*
 * record_follow.h - how `hipsim record` follows its command's descendants
 * (record_follow.c; the reasons are in record.c's header).
 */
#ifndef HIPSIM_RECORD_FOLLOW_H
#define HIPSIM_RECORD_FOLLOW_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct record_follow {
	int listen_fd;		/* the handshake socket, -1 when none */
	char dir[96];		/* its private directory, "" when none */
	char path[108];		/* HIPCORE_LTTNG_TRACK's value (a sun_path) */
	struct record_vpid {
		pid_t vpid;	/* in the session's tracker */
		bool asked;	/* it loaded the probe module (handshake) */
	} *tracked;
	size_t ntracked, captracked;
	unsigned long processes; /* distinct vpids that asked (loaded the probe module) */
	unsigned long failed;	 /* of those, the ones that could not be tracked */
	/* Adds @vpid to the session's tracker; 0 when done. */
	int (*track)(void *ctx, pid_t vpid);
	void *ctx;
};

/**
 * record_follow_open() - create the handshake socket in a private
 * directory under $TMPDIR (or /tmp).
 * Return: 0, or -1 with a message on stderr.
 */
int record_follow_open(struct record_follow *f, int (*track)(void *ctx, pid_t vpid), void *ctx);

/* Removes the socket and its directory, frees the tracked list; safe on a
 * zeroed (listen_fd -1) struct and more than once. */
void record_follow_close(struct record_follow *f);

/* Notes @vpid as tracked already (the command's own pid, tracked before it
 * runs).  Return: 0, -1 when out of memory. */
int record_follow_note(struct record_follow *f, pid_t vpid);

/*
 * record_follow_wait() - waits for the command @top and for every process
 * it started, answering handshakes meanwhile.  The caller made itself
 * their subreaper (PR_SET_CHILD_SUBREAPER) before forking @top.  A signal
 * that *@got_signal reports is forwarded once: to @top while it runs, then
 * to every child left (orphans of the command).
 * Return: @top's exit status (128 + signal when it was killed), or -1 when
 * waiting failed.
 */
int record_follow_wait(struct record_follow *f, pid_t top, volatile sig_atomic_t *got_signal);

/* What the command was given, for record_follow_explain(). */
struct record_module {
	const char *given;	/* --provider's or HIPCORE_LTTNG's path, NULL: none */
	const char *installed;	/* the installed module's path, NULL: not built in */
	bool installed_present;
	bool tracing_off;	/* HIPCORE_LTTNG=0 */
};

/*
 * record_follow_explain() - why a recording holds no event, as one sentence
 * in @buf (the likely cause first): tracing turned off; no probe module to
 * load (none installed, none given: --provider from a build tree); no
 * process that loaded one (the command never loaded libhipcore); processes
 * that could not be tracked; or processes tracked that made no traced call.
 */
void record_follow_explain(const struct record_follow *f, const struct record_module *m,
			   char *buf, size_t len);

#endif /* HIPSIM_RECORD_FOLLOW_H */
