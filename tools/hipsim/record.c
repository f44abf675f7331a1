/*
 * record.c - `hipsim record`: record one command's hipcore:* events.
 *
 * The recipe is the one checked in reference/lttng-notes.md:
 *
 *  1. Check everything that can fail cheaply first: arguments, the command
 *     (resolved on PATH), the output directory (created if missing, must be
 *     writable and empty), and the lttng and lttng-sessiond programs.
 *  2. Reuse a running session daemon, or start `lttng-sessiond --daemonize
 *     --no-kernel` and remember its pid from the pid file: only a daemon
 *     that hipsim started is stopped at the end (SIGTERM, then SIGKILL
 *     after 10 s), by the last `hipsim record` using it (the daemon lock).
 *  3. Create a uniquely named session (hipsim-<pid>-<n>), a channel of
 *     8 x 4 MiB sub-buffers per CPU so that nothing is discarded in normal
 *     use, enable hipcore:*, add the vpid and vtid contexts, empty the vpid
 *     tracker, and open the handshake socket (record_follow.c).
 *  4. Become the subreaper of what the command starts, fork the command
 *     blocked on a pipe with HIPCORE_LTTNG_TRACK naming the socket, track
 *     its pid, start the session, release it.  The command keeps our
 *     stdin/stdout/stderr and our process group, so a terminal's ^C
 *     reaches it directly.
 *  5. Until the command and every process it started have exited, answer
 *     handshakes: each process that loads the probe module asks to be
 *     tracked before its first event.  Then stop (and in snapshot mode
 *     record a snapshot), destroy the session, count events and discarded
 *     events in DIR and report them on stderr.  Return the command's
 *     status, or HIPSIM_RECORD_EXIT_EMPTY, with the likely cause named,
 *     when it succeeded but nothing was recorded.
 *
 * Following descendants.  LTTng 2.13 records a user-space process while the
 * session's process-attribute tracker holds its vpid (or its vuid or vgid);
 * nothing in it follows a process's children.  The ways considered:
 *  - tracking the user's vuid records every process of that user that
 *    loads the probe module (libhipcore loads the installed one by
 *    default), unrelated services included;
 *  - polling /proc for new descendants and tracking them as they appear
 *    loses whatever a process emits before its turn comes, and a
 *    short-lived one entirely;
 *  - ptrace()ing the command to stop each new process until it is tracked
 *    loses nothing, but a traced command can no longer be debugged or run
 *    under a sanitizer that stops its threads with ptrace (LeakSanitizer),
 *    and every signal and thread creation of the tree passes through us.
 * So the process itself asks: HIPCORE_LTTNG_TRACK, inherited through the
 * environment, makes the probe module (trace/hipcore_track.c) send its vpid
 * when it loads, before libhipcore can emit anything, and wait until hipsim
 * has run `lttng track --vpid` for it.  Only processes that load the module
 * cost a tracker entry; nothing outside the command's tree knows the socket.
 * Being their subreaper (prctl(2)), hipsim waits for the command's
 * background processes too, so one that outlives the command, or starts
 * libhipcore after it has gone, is recorded to its end.  A process that
 * clears its environment (env -i, sudo) is not recorded.
 *
 * The lttng programs are run with posix_spawn() and argument vectors (no
 * shell), in their own process group so that ^C cannot interrupt the
 * cleanup; their stdout goes to /dev/null and their stderr to a temporary
 * file that is shown only when they fail.  Every path after the daemon or
 * the session exists goes through one cleanup (record_cleanup()); SIGINT,
 * SIGTERM and SIGHUP are caught, forwarded to the command while it runs
 * (then to its processes left), and end the setup early otherwise.  The
 * command starts with the default action for those three (so that
 * forwarding works even when a shell started hipsim in the background with
 * SIGINT ignored) and the caller's SIGPIPE.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "tools/hipsim/record.h"
#include "tools/hipsim/record_count.h"
#include "tools/hipsim/record_follow.h"
#include "trace/hipcore_track.h"

extern char **environ;

#define PROG "hipsim record"

struct record {
	const char *outdir_arg;	/* -o as given */
	char outdir[PATH_MAX];	/* absolute */
	bool snapshot;
	const char *provider;	/* --provider: HIPCORE_LTTNG for the command */
	char provider_abs[PATH_MAX];
	char **cmd;		/* CMD ARGS..., NULL-terminated */
	char cmd_path[PATH_MAX];
	char lttng[PATH_MAX];
	char sessiond[PATH_MAX];
	char session[64];
	bool session_created;
	pid_t daemon_pid;	/* > 0: we started it */
	int lockfd;		/* the daemon lock, -1 when unusable */
	int errfd;		/* temp file for the tools' stderr */
	struct sigaction old_pipe; /* SIGPIPE as the caller had it */
	struct record_follow follow; /* the command's processes (record_follow.c) */
	int old_subreaper;	/* PR_GET_CHILD_SUBREAPER before; -1: not changed */
};

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: hipsim record -o DIR [--snapshot] [--provider SO] -- CMD [ARGS...]\n"
		   "  Records the hipcore:* LTTng events of CMD and of every process it starts\n"
		   "  into DIR, until all of them have exited.\n"
		   "  -o, --output DIR  trace directory (created if missing; must be empty)\n"
		   "  --snapshot        flight-recorder session; one snapshot at the end\n"
		   "  --provider SO     probe module for CMD (sets HIPCORE_LTTNG=SO), e.g.\n"
		   "                    a build tree's .libs/libhipcore-lttng.so\n");
}

/* Finds @name on PATH (or takes it as a path when it has a '/'). */
static bool find_program(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	const char *p, *end;

	if (strchr(name, '/')) {
		if (access(name, X_OK) != 0)
			return false;
		snprintf(out, len, "%s", name);
		return true;
	}
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = end + 1) {
		struct stat st;
		size_t n;

		end = strchr(p, ':');
		n = end ? (size_t)(end - p) : strlen(p);
		if (n == 0)
			snprintf(out, len, "./%s", name);
		else if (n + 1 + strlen(name) + 1 <= len)
			snprintf(out, len, "%.*s/%s", (int)n, p, name);
		else
			out[0] = '\0';
		if (out[0] && stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return true;
		if (!end)
			break;
	}
	return false;
}

static int parse_args(struct record *r, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, PROG ": %s needs a directory\n", a);
				return -1;
			}
			r->outdir_arg = argv[++i];
		} else if (strncmp(a, "--output=", 9) == 0) {
			r->outdir_arg = a + 9;
		} else if (strcmp(a, "--provider") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, PROG ": --provider needs a file\n");
				return -1;
			}
			r->provider = argv[++i];
		} else if (strncmp(a, "--provider=", 11) == 0) {
			r->provider = a + 11;
		} else if (strcmp(a, "--snapshot") == 0) {
			r->snapshot = true;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 1;
		} else if (a[0] == '-') {
			fprintf(stderr, PROG ": unknown option '%s'\n", a);
			usage(stderr);
			return -1;
		} else {
			break;
		}
	}
	if (!r->outdir_arg || !r->outdir_arg[0]) {
		fprintf(stderr, PROG ": no output directory (-o DIR)\n");
		usage(stderr);
		return -1;
	}
	if (i >= argc) {
		fprintf(stderr, PROG ": no command given\n");
		usage(stderr);
		return -1;
	}
	r->cmd = &argv[i];
	return 0;
}

static bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (e = readdir(d)))
		empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
	closedir(d);
	return empty;
}

/*
 * Creates the output directory if needed; it must be a writable, empty
 * directory (a trace added to an older one would mix both at replay).
 */
static int prepare_outdir(struct record *r)
{
	struct stat st;

	if (mkdir(r->outdir_arg, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, PROG ": cannot create output directory '%s': %s\n",
			r->outdir_arg, strerror(errno));
		return -1;
	}
	if (stat(r->outdir_arg, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, PROG ": output '%s' is not a directory\n", r->outdir_arg);
		return -1;
	}
	if (access(r->outdir_arg, W_OK | X_OK) != 0) {
		fprintf(stderr, PROG ": output directory '%s' is not writable: %s\n",
			r->outdir_arg, strerror(errno));
		return -1;
	}
	if (!dir_is_empty(r->outdir_arg)) {
		fprintf(stderr, PROG ": output directory '%s' is not empty\n", r->outdir_arg);
		return -1;
	}
	if (!realpath(r->outdir_arg, r->outdir)) {
		fprintf(stderr, PROG ": cannot resolve '%s': %s\n", r->outdir_arg, strerror(errno));
		return -1;
	}
	return 0;
}

/* Shows what a failed tool wrote to stderr, then empties the file. */
static void show_tool_errors(struct record *r)
{
	char buf[512];
	ssize_t n;

	if (r->errfd < 0)
		return;
	if (lseek(r->errfd, 0, SEEK_SET) == 0) {
		while ((n = read(r->errfd, buf, sizeof(buf))) > 0)
			fwrite(buf, 1, (size_t)n, stderr);
	}
	if (ftruncate(r->errfd, 0) == 0)
		(void)lseek(r->errfd, 0, SEEK_SET);
}

/*
 * Runs a tool to completion in its own process group, stdout to /dev/null,
 * stderr to r->errfd.  Returns its exit status, or -1 when it could not run
 * or was killed.
 */
static int run_tool(struct record *r, const char *path, const char *const *argv)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, deflt;
	pid_t pid;
	int err, status;

	if (ftruncate(r->errfd, 0) == 0)
		(void)lseek(r->errfd, 0, SEEK_SET);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, r->errfd, STDERR_FILENO);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&attr, &none);
	sigemptyset(&deflt);
	sigaddset(&deflt, SIGPIPE);
	posix_spawnattr_setsigdefault(&attr, &deflt);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
					       POSIX_SPAWN_SETSIGDEF);
	err = posix_spawn(&pid, path, &fa, &attr, (char *const *)argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		fprintf(stderr, PROG ": cannot run %s: %s\n", path, strerror(err));
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	if (!WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Runs `lttng ARGS...`; on failure shows its stderr under a short label. */
static int lttng(struct record *r, const char *const *argv)
{
	int st = run_tool(r, r->lttng, argv);

	if (st != 0) {
		fprintf(stderr, PROG ": 'lttng %s' failed:\n", argv[1]);
		show_tool_errors(r);
		return -1;
	}
	return 0;
}

static void sessiond_pidfile(char *out, size_t len)
{
	const char *home;

	if (geteuid() == 0) {
		snprintf(out, len, "/var/run/lttng/lttng-sessiond.pid");
		return;
	}
	home = getenv("LTTNG_HOME");
	if (!home || !*home)
		home = getenv("HOME");
	snprintf(out, len, "%s/.lttng/lttng-sessiond.pid", home ? home : "");
}

/* The pid of the running session daemon, or 0. */
static pid_t sessiond_running(void)
{
	char path[PATH_MAX];
	FILE *f;
	long pid = 0;

	sessiond_pidfile(path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	fclose(f);
	if (pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno != EPERM))
		return 0;
	return (pid_t)pid;
}

/*
 * The daemon lock.  One root session daemon serves the whole machine, so
 * concurrent `hipsim record`s share it: each holds a shared flock() on the
 * lock file while it records; the one that starts a daemon does so under
 * the exclusive lock and writes its pid into the file.  At the end each
 * tries to take the lock exclusively without waiting: only the last user
 * gets it, and it stops the daemon named in the file (if that is still the
 * running one).  A daemon that someone else started is never in the file,
 * so it is never stopped.  Without a usable lock file (not owned by us),
 * hipsim falls back to stopping only the daemon it started itself.
 */
static void lock_path(char *out, size_t len)
{
	if (geteuid() == 0 && access("/run/lock", W_OK) == 0)
		snprintf(out, len, "/run/lock/hipsim-record.lock");
	else
		snprintf(out, len, "/tmp/hipsim-record-%ld.lock", (long)geteuid());
}

static int lock_open(void)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	lock_path(path, sizeof(path));
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* flock() that gives up when a signal was caught. */
static int lock_take(int fd, int op)
{
	while (flock(fd, op) != 0) {
		if (errno != EINTR || got_signal)
			return -1;
	}
	return 0;
}

/*
 * Takes the lock exclusively, waiting at most 30 s: a holder that waits on
 * us (a script that keeps it shared around a recording) must not deadlock
 * it.  On timeout the lock is dropped and hipsim works without it.
 */
static int lock_take_ex(struct record *r)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	int i;

	for (i = 0; i < 600; i++) {
		if (flock(r->lockfd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			break;
		if (got_signal)
			return -1;
		nanosleep(&tick, NULL);
	}
	close(r->lockfd);
	r->lockfd = -1;
	return 0;
}

static pid_t lock_read_pid(int fd)
{
	char buf[32] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	return n > 0 ? (pid_t)strtol(buf, NULL, 10) : 0;
}

static void lock_write_pid(int fd, pid_t pid)
{
	char buf[32];
	int n = pid > 0 ? snprintf(buf, sizeof(buf), "%ld\n", (long)pid) : 0;

	if (ftruncate(fd, 0) == 0 && n > 0 && pwrite(fd, buf, (size_t)n, 0) != n)
		(void)ftruncate(fd, 0);
}

static int start_sessiond(struct record *r)
{
	const char *argv[] = { "lttng-sessiond", "--daemonize", "--no-kernel", NULL };
	pid_t running;
	int st, rc = -1;

	/* A running daemon needs only the shared lock (no writer waits on us). */
	r->lockfd = lock_open();
	if (r->lockfd >= 0 && lock_take(r->lockfd, LOCK_SH))
		return -1;
	if (sessiond_running())
		return 0;
	if (r->lockfd >= 0 && lock_take_ex(r))
		return -1;
	running = sessiond_running();
	if (running) {
		rc = 0;
		goto out_share;
	}
	if (r->lockfd >= 0)
		lock_write_pid(r->lockfd, 0); /* a stale pid from a dead daemon */
	st = run_tool(r, r->sessiond, argv);
	if (st != 0) {
		if (sessiond_running()) { /* started by someone else meanwhile */
			rc = 0;
			goto out_share;
		}
		fprintf(stderr, PROG ": lttng-sessiond failed to start:\n");
		show_tool_errors(r);
		goto out_share;
	}
	r->daemon_pid = sessiond_running();
	if (!r->daemon_pid) {
		fprintf(stderr, PROG ": lttng-sessiond started but wrote no pid file\n");
		goto out_share;
	}
	if (r->lockfd >= 0)
		lock_write_pid(r->lockfd, r->daemon_pid);
	fprintf(stderr, PROG ": started lttng-sessiond (pid %ld)\n", (long)r->daemon_pid);
	rc = 0;
out_share:
	if (r->lockfd >= 0 && lock_take(r->lockfd, LOCK_SH))
		rc = -1;
	return rc;
}

static void kill_sessiond(pid_t pid)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	int i;

	if (kill(pid, SIGTERM) != 0)
		return;
	fprintf(stderr, PROG ": stopping lttng-sessiond (pid %ld)\n", (long)pid);
	for (i = 0; i < 200 && kill(pid, 0) == 0; i++)
		nanosleep(&tick, NULL);
	if (kill(pid, 0) == 0) {
		kill(pid, SIGKILL);
		for (i = 0; i < 40 && kill(pid, 0) == 0; i++)
			nanosleep(&tick, NULL);
	}
}

/* Stops the hipsim-started daemon if this is its last user (see above). */
static void stop_sessiond(struct record *r)
{
	pid_t pid;

	if (r->lockfd < 0) {
		if (r->daemon_pid > 0)
			kill_sessiond(r->daemon_pid);
		r->daemon_pid = 0;
		return;
	}
	if (flock(r->lockfd, LOCK_EX | LOCK_NB) == 0) {
		pid = lock_read_pid(r->lockfd);
		if (pid > 0 && pid == sessiond_running())
			kill_sessiond(pid);
		lock_write_pid(r->lockfd, 0);
	}
	close(r->lockfd); /* drops whichever lock it held */
	r->lockfd = -1;
	r->daemon_pid = 0;
}

static int setup_session(struct record *r)
{
	static unsigned serial;
	char output[PATH_MAX + 16];

	snprintf(r->session, sizeof(r->session), "hipsim-%ld-%u", (long)getpid(), serial++);
	snprintf(output, sizeof(output), "--output=%s", r->outdir);
	{
		const char *plain[] = { "lttng", "create", r->session, output, NULL };
		const char *snap[] = { "lttng", "create", r->session, "--snapshot", output, NULL };

		if (lttng(r, r->snapshot ? snap : plain))
			return -1;
	}
	r->session_created = true;
	{
		const char *chan[] = { "lttng", "enable-channel", "-u", "-s", r->session,
			"--subbuf-size=4M", "--num-subbuf=8", "hipsim", NULL };
		const char *ev[] = { "lttng", "enable-event", "-u", "-s", r->session,
			"-c", "hipsim", "hipcore:*", NULL };
		const char *ctx[] = { "lttng", "add-context", "-u", "-s", r->session,
			"-c", "hipsim", "-t", "vpid", "-t", "vtid", NULL };
		const char *untrack[] = { "lttng", "untrack", "-u", "-s", r->session,
			"--vpid", "--all", NULL };

		if (lttng(r, chan) || lttng(r, ev) || lttng(r, ctx) || lttng(r, untrack))
			return -1;
	}
	return 0;
}

/* Adds @vpid to the session's process tracker (record_follow's callback). */
static int track_vpid(void *ctx, pid_t vpid)
{
	struct record *r = ctx;
	char pidopt[32];
	const char *track[] = { "lttng", "track", "-u", "-s", r->session, pidopt, NULL };

	snprintf(pidopt, sizeof(pidopt), "--vpid=%ld", (long)vpid);
	return lttng(r, track);
}

/* Tears down whatever exists; safe to call at any point, more than once. */
static void record_cleanup(struct record *r)
{
	if (r->old_subreaper >= 0) {
		prctl(PR_SET_CHILD_SUBREAPER, (unsigned long)r->old_subreaper, 0, 0, 0);
		r->old_subreaper = -1;
	}
	record_follow_close(&r->follow);
	if (r->session_created) {
		const char *argv[] = { "lttng", "destroy", r->session, NULL };

		lttng(r, argv);
		r->session_created = false;
	}
	stop_sessiond(r);
}

/*
 * Forks the command blocked on a pipe.  Returns its pid and the pipe's
 * write end in *@gate; -1 on failure.
 */
static pid_t fork_blocked(struct record *r, int *gate, const sigset_t *oldmask)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0) {
		fprintf(stderr, PROG ": pipe: %s\n", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		char c;
		ssize_t n;

		/*
		 * Default dispositions for the signals hipsim forwards (even if
		 * a non-interactive shell started hipsim with SIGINT ignored),
		 * the caller's own for SIGPIPE, ignored here meanwhile.
		 */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		sigaction(SIGPIPE, &r->old_pipe, NULL);
		sigprocmask(SIG_SETMASK, oldmask, NULL);
		close(fds[1]);
		do
			n = read(fds[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(HIPSIM_RECORD_EXIT_SETUP); /* setup failed: do not run */
		close(fds[0]);
		if (r->provider && setenv("HIPCORE_LTTNG", r->provider_abs, 1) != 0)
			_exit(HIPSIM_RECORD_EXIT_SETUP);
		if (setenv(HIPCORE_LTTNG_TRACK_ENV, r->follow.path, 1) != 0)
			_exit(HIPSIM_RECORD_EXIT_SETUP);
		execv(r->cmd_path, r->cmd);
		fprintf(stderr, PROG ": cannot execute '%s': %s\n", r->cmd[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(fds[0]);
	*gate = fds[1];
	return pid;
}

/* What the command was given to load, for the empty-recording message. */
static void module_given(const struct record *r, struct record_module *m)
{
	const char *env = getenv("HIPCORE_LTTNG");

	memset(m, 0, sizeof(*m));
	if (r->provider)
		m->given = r->provider_abs;
	else if (env && strchr(env, '/'))
		m->given = env;
	m->tracing_off = !r->provider && env && strcmp(env, "0") == 0;
#ifdef HIPCORE_LTTNG_MODULE
	m->installed = HIPCORE_LTTNG_MODULE;
	m->installed_present = access(HIPCORE_LTTNG_MODULE, R_OK) == 0;
#endif
}

/* Reports the counts.  Return: 1 when the trace holds no event, 0 when it
 * holds some, -1 when it could not be read. */
static int report(struct record *r)
{
	struct hipsim_trace_counts c;
	struct record_module m;
	char why[600];

	if (hipsim_trace_count(r->outdir, &c) != 0) {
		fprintf(stderr, PROG ": trace in %s; events could not be counted\n", r->outdir);
		return -1;
	}
	fprintf(stderr, PROG ": %llu events recorded in %s, %llu discarded\n",
		(unsigned long long)c.events, r->outdir, (unsigned long long)c.discarded);
	if (c.discarded)
		fprintf(stderr, PROG ": warning: %llu events were discarded (buffers full)\n",
			(unsigned long long)c.discarded);
	if (c.events)
		return 0;
	module_given(r, &m);
	record_follow_explain(&r->follow, &m, why, sizeof(why));
	fprintf(stderr, PROG ": nothing recorded: %s\n", why);
	return 1;
}

static int record_run(struct record *r, const sigset_t *oldmask)
{
	char pidopt[32];
	pid_t pid;
	int gate = -1, rc;

	if (start_sessiond(r) || got_signal || setup_session(r) || got_signal ||
	    record_follow_open(&r->follow, track_vpid, r))
		return -1;
	/* Orphans of the command come back to us, to be waited for (after
	 * the daemon started: its own daemonizing must not). */
	if (prctl(PR_GET_CHILD_SUBREAPER, &r->old_subreaper, 0, 0, 0) != 0 ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
		fprintf(stderr, PROG ": cannot become the subreaper of the command: %s\n",
			strerror(errno));
		r->old_subreaper = -1;
		return -1;
	}
	pid = fork_blocked(r, &gate, oldmask);
	if (pid < 0)
		return -1;
	snprintf(pidopt, sizeof(pidopt), "--vpid=%ld", (long)pid);
	{
		const char *track[] = { "lttng", "track", "-u", "-s", r->session, pidopt, NULL };
		const char *start[] = { "lttng", "start", r->session, NULL };

		if (got_signal || lttng(r, track) || got_signal || lttng(r, start) || got_signal) {
			close(gate); /* the child sees EOF and exits without running */
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
			return -1;
		}
	}
	if (write(gate, "g", 1) != 1) {
		close(gate);
		fprintf(stderr, PROG ": cannot release the command: %s\n", strerror(errno));
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return -1;
	}
	close(gate);
	if (record_follow_note(&r->follow, pid) != 0)
		fprintf(stderr, PROG ": out of memory; the command's exec may be tracked twice\n");
	rc = record_follow_wait(&r->follow, pid, &got_signal);
	if (rc < 0)
		rc = HIPSIM_RECORD_EXIT_SETUP;
	prctl(PR_SET_CHILD_SUBREAPER, (unsigned long)r->old_subreaper, 0, 0, 0);
	r->old_subreaper = -1;
	{
		const char *stop[] = { "lttng", "stop", r->session, NULL };
		const char *snap[] = { "lttng", "snapshot", "record", "-s", r->session, NULL };

		if (lttng(r, stop) == 0 && r->snapshot)
			lttng(r, snap);
	}
	return rc;
}

int hipsim_record_main(int argc, char **argv)
{
	struct record r = { .errfd = -1, .lockfd = -1, .follow.listen_fd = -1, .old_subreaper = -1 };
	struct sigaction sa, old_int, old_term, old_hup;
	sigset_t oldmask;
	char errpath[] = "/tmp/hipsim-record-XXXXXX";
	const char *opt;
	int rc;

	rc = parse_args(&r, argc, argv);
	if (rc)
		return rc > 0 ? 0 : HIPSIM_RECORD_EXIT_USAGE;
	if (!find_program(r.cmd[0], r.cmd_path, sizeof(r.cmd_path))) {
		fprintf(stderr, PROG ": command not found: %s\n", r.cmd[0]);
		return HIPSIM_RECORD_EXIT_NOTFOUND;
	}
	if (prepare_outdir(&r))
		return HIPSIM_RECORD_EXIT_SETUP;
	if (!find_program("lttng-sessiond", r.sessiond, sizeof(r.sessiond)) ||
	    !find_program("lttng", r.lttng, sizeof(r.lttng))) {
		fprintf(stderr, PROG ": lttng-sessiond or lttng not found on PATH "
				"(install lttng-tools)\n");
		return HIPSIM_RECORD_EXIT_SETUP;
	}
	if (r.provider && !realpath(r.provider, r.provider_abs)) {
		fprintf(stderr, PROG ": provider module '%s': %s\n", r.provider, strerror(errno));
		return HIPSIM_RECORD_EXIT_SETUP;
	}
	opt = r.provider ? r.provider_abs : getenv("HIPCORE_LTTNG");
#ifdef HIPCORE_LTTNG_MODULE
	if (!opt && access(HIPCORE_LTTNG_MODULE, R_OK) != 0)
		fprintf(stderr, PROG ": warning: %s is not installed and HIPCORE_LTTNG is not set; "
				"use --provider SO\n", HIPCORE_LTTNG_MODULE);
#endif
	if (opt && strcmp(opt, "0") == 0)
		fprintf(stderr, PROG ": warning: HIPCORE_LTTNG=0 keeps libhipcore's tracepoints "
				"off; nothing will be recorded\n");
	r.errfd = mkostemp(errpath, O_CLOEXEC);
	if (r.errfd < 0) {
		fprintf(stderr, PROG ": cannot create a temporary file: %s\n", strerror(errno));
		return HIPSIM_RECORD_EXIT_SETUP;
	}
	unlink(errpath);

	got_signal = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	sa.sa_handler = SIG_IGN; /* a command that died early must not kill us at release */
	sigaction(SIGPIPE, &sa, &r.old_pipe);
	sigprocmask(SIG_SETMASK, NULL, &oldmask);

	rc = record_run(&r, &oldmask);
	record_cleanup(&r);
	if (rc >= 0) {
		/* An empty recording is a failure unless the command failed. */
		if (report(&r) == 1 && rc == 0)
			rc = HIPSIM_RECORD_EXIT_EMPTY;
	} else if (got_signal)
		fprintf(stderr, PROG ": interrupted (signal %d); session removed\n", (int)got_signal);

	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGPIPE, &r.old_pipe, NULL);
	close(r.errfd);
	if (rc < 0)
		return got_signal ? 128 + got_signal : HIPSIM_RECORD_EXIT_SETUP;
	return rc;
}
