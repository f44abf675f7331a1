/*
 * decode_guard.c - bounds on a decoder child (decode_guard.h).
 *
 * The parent's side is a poll() loop over the data pipe and the child's
 * stderr with a short timeout, so that the bounds are checked whether or not
 * anything arrives: the progress counter every wakeup, the child's memory
 * every GUARD_MEM_EVERY_NS.  Nothing here runs while the parent is busy
 * elsewhere (replaying): a child blocked on a full pipe is not stalled, and
 * a stall is measured from the start of a wait.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/hipsim/decode_guard.h"
#include "tools/hipsim/replay_event.h"

#define GUARD_TICK_MS 100
#define GUARD_MEM_EVERY_NS (100ull * 1000000ull)
#define GUARD_CPU_GRACE_S 2 /* SIGXCPU, then SIGKILL this much later */

/* Sanitizers that reserve shadow memory cannot live under RLIMIT_DATA. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GUARD_SHADOW_MEMORY 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define GUARD_SHADOW_MEMORY 1
#endif
#endif

uint64_t *hs_read_progress;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t *hs_guard_progress_map(void)
{
	void *p = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void hs_guard_progress_unmap(uint64_t *p)
{
	if (p)
		munmap(p, sizeof(uint64_t));
}

/* A "Key:   N kB" line of /proc/PID/status, in bytes.  Return: false when
 * absent.  Plain read(2): the child calls it between fork and the reader. */
static bool status_kb(pid_t pid, const char *key, uint64_t *bytes)
{
	char path[64], buf[4096];
	size_t klen = strlen(key);
	ssize_t n;
	int fd;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			*bytes = strtoull(line + klen + 1, NULL, 10) * 1024u;
			return true;
		}
	return false;
}

void hs_guard_child_setup(const struct hs_decode_limits *lim, int err_fd, uint64_t *progress)
{
	struct rlimit rl = { 0, 0 };

	setrlimit(RLIMIT_CORE, &rl);
	if (lim->cpu_s && lim->cpu_s < (1ull << 40)) { /* (more: no limit) */
		rl.rlim_cur = lim->cpu_s;
		rl.rlim_max = lim->cpu_s + GUARD_CPU_GRACE_S;
		setrlimit(RLIMIT_CPU, &rl);
	}
#ifndef GUARD_SHADOW_MEMORY
	{
		uint64_t data;

		if (lim->memory && status_kb(0, "VmData", &data) && data + lim->memory > data) {
			rl.rlim_cur = rl.rlim_max = data + lim->memory;
			setrlimit(RLIMIT_DATA, &rl);
		}
	}
#endif
	if (err_fd >= 0 && err_fd != STDERR_FILENO) {
		dup2(err_fd, STDERR_FILENO);
		close(err_fd);
	}
	hs_read_progress = progress;
}

void hs_guard_start(struct hs_guard *g, pid_t pid, int err_fd, const uint64_t *progress,
		    const struct hs_decode_limits *lim, bool verbose)
{
	memset(g, 0, sizeof(*g));
	g->lim = *lim;
	g->pid = pid;
	g->err_fd = err_fd;
	g->verbose = verbose;
	g->progress = progress;
	if (err_fd >= 0)
		fcntl(err_fd, F_SETFL, fcntl(err_fd, F_GETFL) | O_NONBLOCK);
}

/* Keeps the last sizeof(g->tail) bytes the child wrote to stderr. */
static void tail_add(struct hs_guard *g, const char *p, size_t n)
{
	size_t cap = sizeof(g->tail);

	if (n >= cap) {
		memcpy(g->tail, p + n - cap, cap);
		g->tail_len = cap;
		return;
	}
	if (g->tail_len + n > cap) {
		size_t drop = g->tail_len + n - cap;

		memmove(g->tail, g->tail + drop, g->tail_len - drop);
		g->tail_len -= drop;
	}
	memcpy(g->tail + g->tail_len, p, n);
	g->tail_len += n;
}

/* Reads what the child's stderr holds now (non-blocking). */
static void drain_stderr(struct hs_guard *g)
{
	char buf[4096];

	while (g->err_fd >= 0) {
		ssize_t n = read(g->err_fd, buf, sizeof(buf));

		if (n > 0) {
			if (g->verbose)
				(void)!write(STDERR_FILENO, buf, (size_t)n);
			tail_add(g, buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0) { /* the child closed it (ended) */
			close(g->err_fd);
			g->err_fd = -1;
		}
		break;
	}
}

static void stop_child(struct hs_guard *g, enum hs_guard_verdict why)
{
	g->verdict = why;
	if (g->pid > 0)
		kill(g->pid, SIGKILL);
}

/* The memory check: true when the child is past its limit (and stopped). */
static bool over_memory(struct hs_guard *g, uint64_t now)
{
	uint64_t anon;

	if (!g->lim.memory || now < g->next_mem_check_ns)
		return false;
	g->next_mem_check_ns = now + GUARD_MEM_EVERY_NS;
	if (!status_kb(g->pid, "RssAnon", &anon))
		return false;
	if (!g->have_base) {
		/* What it shares with the parent since the fork is not its own. */
		g->anon_base = anon;
		g->have_base = true;
		return false;
	}
	if (anon <= g->anon_base || anon - g->anon_base <= g->lim.memory)
		return false;
	g->anon_seen = anon - g->anon_base;
	stop_child(g, GUARD_MEMORY);
	return true;
}

int hs_guard_wait(struct hs_guard *g, int fd)
{
	uint64_t start = mono_ns(), quiet_since = start;

	if (g->verdict != GUARD_NONE)
		return -1;
	for (;;) {
		struct pollfd p[2] = { { fd, POLLIN, 0 }, { g->err_fd, POLLIN, 0 } };
		uint64_t now;
		int n;

		n = poll(p, g->err_fd >= 0 ? 2 : 1, GUARD_TICK_MS);
		if (n < 0 && errno != EINTR)
			return 0; /* let the read say what is wrong */
		now = mono_ns();
		if (n > 0 && p[1].revents)
			drain_stderr(g);
		if (over_memory(g, now))
			return -1;
		if (n > 0 && p[0].revents)
			return 0;
		if (g->progress) {
			uint64_t v = __atomic_load_n(g->progress, __ATOMIC_RELAXED);

			if (v != g->seen) {
				g->seen = v;
				quiet_since = now;
			}
		}
		if (g->lim.stall_s && now - quiet_since >= g->lim.stall_s * 1000000000ull) {
			stop_child(g, GUARD_STALL);
			return -1;
		}
	}
}

static bool mentions_memory(const char *s)
{
	return strstr(s, "failed to allocate") || strstr(s, "out of memory") || strstr(s, "Out of memory") ||
	       strstr(s, "Cannot allocate memory") || strstr(s, "MEMORY_ERROR");
}

static void size_str(char *buf, size_t len, uint64_t b)
{
	if (b >= (1ull << 30) && b % (1ull << 30) == 0)
		snprintf(buf, len, "%" PRIu64 " GiB", b >> 30);
	else if (b >= (1ull << 20))
		snprintf(buf, len, "%.0f MiB", (double)b / (1 << 20));
	else
		snprintf(buf, len, "%" PRIu64 " bytes", b);
}

/* What the child last said on stderr, cut to @len: a sanitizer's SUMMARY
 * line when there is one (the lines after it are framing), else the last
 * non-blank line. */
static void last_line(const struct hs_guard *g, char *buf, size_t len)
{
	size_t end = g->tail_len, start;
	const char *sum = NULL;

	for (const char *p = g->tail; (p = memmem(p, g->tail_len - (size_t)(p - g->tail), "SUMMARY: ", 9));
	     p++)
		if (p == g->tail || p[-1] == '\n')
			sum = p;
	if (sum) {
		const char *nl = memchr(sum, '\n', g->tail_len - (size_t)(sum - g->tail));

		start = (size_t)(sum - g->tail);
		end = nl ? (size_t)(nl - g->tail) : g->tail_len;
	} else {
		while (end > 0 && (g->tail[end - 1] == '\n' || g->tail[end - 1] == '\r' || g->tail[end - 1] == ' '))
			end--;
		start = end;
		while (start > 0 && g->tail[start - 1] != '\n')
			start--;
	}
	snprintf(buf, len, "%.*s", (int)(end - start), g->tail + start);
}

void hs_guard_explain(struct hs_guard *g, int status, const struct rusage *ru, char *msg, size_t len)
{
	char lim[32], said[240], tail[300] = "";
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	uint64_t cpu = (uint64_t)ru->ru_utime.tv_sec + (uint64_t)ru->ru_stime.tv_sec;

	drain_stderr(g);
	last_line(g, said, sizeof(said));
	if (said[0])
		snprintf(tail, sizeof(tail), "; its last message: \"%s\"", said);
	size_str(lim, sizeof(lim), g->lim.memory);
	if (g->verdict == GUARD_STALL)
		snprintf(msg, len,
			 "made no progress for %" PRIu64 " s (--decode-stall) and was stopped: the trace is "
			 "probably corrupt (libbabeltrace2 can loop forever on one)",
			 g->lim.stall_s);
	else if (g->verdict == GUARD_MEMORY)
		snprintf(msg, len,
			 "went over its memory limit of %s (--decode-memory) and was stopped: the trace is "
			 "probably corrupt (a length field that claims more than the trace holds)",
			 lim);
	else if (sig == SIGXCPU || (sig == SIGKILL && g->lim.cpu_s && cpu >= g->lim.cpu_s))
		snprintf(msg, len,
			 "used its CPU-time limit of %" PRIu64 " s (--decode-cpu) and was stopped: the trace "
			 "is corrupt, or larger than the limit allows",
			 g->lim.cpu_s);
	else if (g->lim.memory && (sig || !WIFEXITED(status) || WEXITSTATUS(status)) && mentions_memory(said))
		snprintf(msg, len, "ran out of memory under its limit of %s (--decode-memory)%s", lim, tail);
	else if (sig)
		snprintf(msg, len, "was killed by signal %d (%s): the trace is corrupt or one the decoder "
			 "cannot read%s", sig, strsignal(sig), tail);
	else
		snprintf(msg, len, "stopped before the end of the trace (exit status %d)%s",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1, tail);
}

const char *hs_guard_memory_note(const struct hs_guard *g, const char *error, char *buf, size_t len)
{
	char lim[32];

	if (!g->lim.memory || !mentions_memory(error))
		return "";
	size_str(lim, sizeof(lim), g->lim.memory);
	snprintf(buf, len, " (the decoder's memory limit is %s: --decode-memory)", lim);
	return buf;
}

void hs_guard_stop(struct hs_guard *g)
{
	/* What the child wrote last may still sit in the pipe (its log comes
	 * before the error record the reader stopped on): read it, so that
	 * --verbose shows it.  The child is reaped by now; a descendant still
	 * holding the pipe only makes the read return EAGAIN. */
	drain_stderr(g);
	if (g->err_fd >= 0)
		close(g->err_fd);
	g->err_fd = -1;
}
