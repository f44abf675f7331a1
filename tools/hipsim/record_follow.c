/*
 * record_follow.c - `hipsim record` follows every process its command
 * starts (record.c's header says why this way).
 *
 * The handshake socket: a Unix stream socket in a fresh 0700 directory,
 * named to the command through HIPCORE_LTTNG_TRACK (trace/hipcore_track.h).
 * Each process that loads the probe module connects, sends its vpid and
 * waits; hipsim adds the vpid to the session's tracker (once per vpid: an
 * exec keeps the pid) and answers one byte.  Handshakes are answered one at
 * a time, in the order they come.
 *
 * The wait: hipsim is the subreaper of the command's processes, so a
 * process whose parent exits comes back to it; the recording lasts until
 * the command and every process it started have exited, and a descendant
 * that loads libhipcore after the command itself has gone is still
 * recorded.  Signals: INT, TERM, HUP and CHLD are blocked except inside
 * ppoll(), so none is lost between a test and the sleep.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "tools/hipsim/record_follow.h"
#include "trace/hipcore_track.h"

#define PROG "hipsim record"
#define READ_PID_MS 1000 /* a process sends its pid right after connecting */

int record_follow_open(struct record_follow *f, int (*track)(void *ctx, pid_t vpid), void *ctx)
{
	const char *tmp = getenv("TMPDIR");
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	memset(f, 0, sizeof(*f));
	f->listen_fd = -1;
	f->track = track;
	f->ctx = ctx;
	/* sun_path holds 108 bytes: a long TMPDIR falls back to /tmp
	 * (64 + "/hipsim-record-XXXXXX/track" fits). */
	if (!tmp || !*tmp || strlen(tmp) > 64)
		tmp = "/tmp";
	snprintf(f->dir, sizeof(f->dir), "%s/hipsim-record-XXXXXX", tmp);
	if (!mkdtemp(f->dir)) {
		fprintf(stderr, PROG ": cannot create a directory in %s: %s\n", tmp, strerror(errno));
		f->dir[0] = '\0';
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s/track", f->dir);
	memcpy(a.sun_path, f->path, strlen(f->path) + 1);
	/* Non-blocking: a connection gone between ppoll and accept must not
	 * stall the wait. */
	f->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (f->listen_fd < 0 || bind(f->listen_fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    listen(f->listen_fd, 128) != 0) {
		fprintf(stderr, PROG ": cannot listen on %s: %s\n", f->path, strerror(errno));
		record_follow_close(f);
		return -1;
	}
	return 0;
}

void record_follow_close(struct record_follow *f)
{
	if (f->listen_fd >= 0)
		close(f->listen_fd);
	f->listen_fd = -1;
	if (f->dir[0]) {
		unlink(f->path);
		rmdir(f->dir);
		f->dir[0] = '\0';
	}
	free(f->tracked);
	f->tracked = NULL;
	f->ntracked = f->captracked = 0;
}

static struct record_vpid *find(const struct record_follow *f, pid_t vpid)
{
	for (size_t i = 0; i < f->ntracked; i++)
		if (f->tracked[i].vpid == vpid)
			return &f->tracked[i];
	return NULL;
}

static int add(struct record_follow *f, pid_t vpid, bool asked)
{
	if (f->ntracked == f->captracked) {
		size_t cap = f->captracked ? f->captracked * 2 : 16;
		struct record_vpid *n = realloc(f->tracked, cap * sizeof(*n));

		if (!n)
			return -1;
		f->tracked = n;
		f->captracked = cap;
	}
	f->tracked[f->ntracked++] = (struct record_vpid){ vpid, asked };
	return 0;
}

int record_follow_note(struct record_follow *f, pid_t vpid)
{
	return find(f, vpid) ? 0 : add(f, vpid, false);
}

/* The answer to a process that asked with @vpid: tracked already (the
 * command's own pid, or an exec'd image asking again), or tracked now. */
static char track_asker(struct record_follow *f, pid_t vpid)
{
	struct record_vpid *v = find(f, vpid);

	if (v) {
		f->processes += !v->asked;
		v->asked = true;
		return HIPCORE_LTTNG_TRACK_OK;
	}
	f->processes++;
	if (f->track(f->ctx, vpid) != 0 || add(f, vpid, true) != 0) {
		f->failed++;
		return HIPCORE_LTTNG_TRACK_FAILED;
	}
	return HIPCORE_LTTNG_TRACK_OK;
}

/* One handshake: read the vpid, track it, answer. */
static void answer_one(struct record_follow *f)
{
	char buf[32], answer = HIPCORE_LTTNG_TRACK_FAILED, *end;
	struct pollfd p;
	ssize_t n = 0;
	long vpid;
	int fd;

	fd = accept4(f->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	p.fd = fd;
	p.events = POLLIN;
	if (poll(&p, 1, READ_PID_MS) == 1)
		n = read(fd, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = '\0';
		errno = 0;
		vpid = strtol(buf, &end, 10);
		if (!errno && end != buf && *end == '\n' && vpid > 0 && vpid <= INT_MAX)
			answer = track_asker(f, (pid_t)vpid);
	}
	(void)send(fd, &answer, 1, MSG_NOSIGNAL);
	close(fd);
}

/* Sends @sig to every child of this process (orphans of the command that
 * came back to it as their subreaper): /proc/PID/stat's fourth field. */
static void signal_children(int sig)
{
	pid_t self = getpid();
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[64], buf[512], *close_paren, *end;
		long pid = strtol(e->d_name, &end, 10), ppid;
		FILE *f;

		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		buf[0] = '\0';
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
		close_paren = strrchr(buf, ')'); /* the name may hold anything */
		if (close_paren && sscanf(close_paren, ") %*c %ld", &ppid) == 1 && ppid == self)
			kill((pid_t)pid, sig);
	}
	closedir(d);
}

static void on_child(int sig)
{
	(void)sig;
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

int record_follow_wait(struct record_follow *f, pid_t top, volatile sig_atomic_t *got_signal)
{
	struct sigaction sa, old_chld;
	sigset_t block, old, open;
	int rc = -1, forwarded = 0, status;
	bool top_done = false;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, &old_chld);
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	open = old;
	sigdelset(&open, SIGCHLD);
	sigdelset(&open, SIGINT);
	sigdelset(&open, SIGTERM);
	sigdelset(&open, SIGHUP);
	for (;;) {
		struct pollfd p = { f->listen_fd, POLLIN, 0 };
		pid_t w;

		while ((w = waitpid(-1, &status, WNOHANG)) > 0) {
			if (w == top) {
				rc = exit_code(status);
				top_done = true;
			}
		}
		if (w < 0 && errno == ECHILD)
			break; /* the command and all it started are gone */
		if (w < 0 && errno != EINTR) {
			fprintf(stderr, PROG ": waitpid: %s\n", strerror(errno));
			rc = -1;
			break;
		}
		if (*got_signal && *got_signal != forwarded) {
			forwarded = *got_signal;
			if (!top_done)
				kill(top, forwarded);
			else
				signal_children(forwarded);
		}
		if (ppoll(&p, f->listen_fd >= 0 ? 1 : 0, NULL, &open) > 0 && (p.revents & POLLIN))
			answer_one(f);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	sigaction(SIGCHLD, &old_chld, NULL);
	return top_done ? rc : -1;
}

void record_follow_explain(const struct record_follow *f, const struct record_module *m,
			   char *buf, size_t len)
{
	if (m->tracing_off) {
		snprintf(buf, len, "HIPCORE_LTTNG=0 keeps libhipcore's tracepoints off");
	} else if (f->processes == 0 && !m->given && m->installed && !m->installed_present) {
		snprintf(buf, len,
			 "no probe module: %s is not installed and neither --provider nor "
			 "HIPCORE_LTTNG names one (from a build tree, pass --provider "
			 "BUILDDIR/.libs/libhipcore-lttng.so)", m->installed);
	} else if (f->processes == 0) {
		snprintf(buf, len,
			 "no process of the command loaded the probe module %s: the command never "
			 "loaded libhipcore, or the module did not load there (not a "
			 "libhipcore-lttng.so, liblttng-ust missing), or a process dropped "
			 "HIPCORE_LTTNG from its environment",
			 m->given ? m->given : m->installed ? m->installed : "(none built in)");
	} else if (f->failed == f->processes) {
		snprintf(buf, len,
			 "%lu process%s loaded the probe module but could not be tracked "
			 "(lttng's errors above)", f->processes, f->processes == 1 ? "" : "es");
	} else {
		snprintf(buf, len,
			 "%lu process%s loaded the probe module and %s tracked, but made no "
			 "libhipcore call that emits an event", f->processes,
			 f->processes == 1 ? "" : "es", f->processes == 1 ? "was" : "were");
	}
}
