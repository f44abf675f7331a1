/*
 * check_record.c - `hipsim record` argument parsing and the error paths
 * that must end before any daemon or session exists: exit codes and the
 * messages on stderr.  No test here starts lttng-sessiond (the missing-
 * lttng case runs with a PATH that holds only the command).  Following the
 * command's processes (record_follow.c) is tested with its tracker call
 * replaced: the handshake answers, waiting for an orphan that asks after the
 * command exited, and the causes named for an empty recording.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/hipsim/record.h"
#include "tools/hipsim/record_follow.h"
#include "trace/hipcore_track.h"
#include "tests/runner.h"

static char tmpdir[] = "/tmp/check-record-XXXXXX";
static char errbuf[4096];

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
	const char *argv[] = { "rm", "-rf", tmpdir, NULL };
	pid_t pid = fork();

	if (pid == 0) {
		execv("/bin/rm", (char *const *)argv);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	strcpy(tmpdir, "/tmp/check-record-XXXXXX");
}

/* Runs hipsim_record_main on a NULL-terminated vector, stderr captured. */
static int run(const char **argv)
{
	char path[256];
	int argc = 0, saved, fd, rc;
	ssize_t n;

	while (argv[argc])
		argc++;
	snprintf(path, sizeof(path), "%s/stderr", tmpdir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	rc = hipsim_record_main(argc, (char **)argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, errbuf, sizeof(errbuf) - 1);
	errbuf[n > 0 ? n : 0] = '\0';
	close(fd);
	return rc;
}

#define ck_assert_err_has(s) \
	ck_assert_msg(strstr(errbuf, (s)) != NULL, "stderr lacks '%s': %s", (s), errbuf)

START_TEST(no_command)
{
	char out[300];
	const char *a1[] = { "record", "-o", out, NULL };
	const char *a2[] = { "record", "-o", out, "--", NULL };

	snprintf(out, sizeof(out), "%s/t", tmpdir);
	ck_assert_int_eq(run(a1), HIPSIM_RECORD_EXIT_USAGE);
	ck_assert_err_has("no command given");
	ck_assert_err_has("usage: hipsim record");
	ck_assert_int_eq(run(a2), HIPSIM_RECORD_EXIT_USAGE);
	ck_assert_err_has("no command given");
	ck_assert_int_ne(access(out, F_OK), 0); /* nothing created */
}
END_TEST

START_TEST(no_output)
{
	const char *a1[] = { "record", "--", "true", NULL };
	const char *a2[] = { "record", "-o", NULL };
	const char *a3[] = { "record", "--output=", "--", "true", NULL };

	ck_assert_int_eq(run(a1), HIPSIM_RECORD_EXIT_USAGE);
	ck_assert_err_has("no output directory");
	ck_assert_int_eq(run(a2), HIPSIM_RECORD_EXIT_USAGE);
	ck_assert_err_has("-o needs a directory");
	ck_assert_int_eq(run(a3), HIPSIM_RECORD_EXIT_USAGE);
	ck_assert_err_has("no output directory");
}
END_TEST

START_TEST(bad_option)
{
	const char *a[] = { "record", "--frobnicate", "-o", "/tmp", "--", "true", NULL };

	ck_assert_int_eq(run(a), HIPSIM_RECORD_EXIT_USAGE);
	ck_assert_err_has("unknown option '--frobnicate'");
}
END_TEST

START_TEST(bad_provider)
{
	char out[300];
	const char *a1[] = { "record", "-o", out, "--provider", "/nonexistent/p.so", "--",
			     "true", NULL };
	const char *a2[] = { "record", "-o", out, "--provider", NULL };

	snprintf(out, sizeof(out), "%s/t", tmpdir);
	ck_assert_int_eq(run(a1), HIPSIM_RECORD_EXIT_SETUP);
	ck_assert_err_has("provider module '/nonexistent/p.so'");
	ck_assert_int_eq(run(a2), HIPSIM_RECORD_EXIT_USAGE);
	ck_assert_err_has("--provider needs a file");
}
END_TEST

START_TEST(help)
{
	const char *a[] = { "record", "--help", NULL };

	ck_assert_int_eq(run(a), 0);
}
END_TEST

START_TEST(unwritable_dir)
{
	char file[300], under[320];
	const char *a1[] = { "record", "-o", under, "--", "true", NULL };
	const char *a2[] = { "record", "-o", file, "--", "true", NULL };
	int fd;

	/* A regular file as the parent: even root cannot create it. */
	snprintf(file, sizeof(file), "%s/plain", tmpdir);
	fd = open(file, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(under, sizeof(under), "%s/sub", file);
	ck_assert_int_eq(run(a1), HIPSIM_RECORD_EXIT_SETUP);
	ck_assert_err_has("cannot create output directory");
	ck_assert_err_has(under);
	ck_assert_int_eq(run(a2), HIPSIM_RECORD_EXIT_SETUP);
	ck_assert_err_has("is not a directory");
}
END_TEST

START_TEST(nonempty_dir)
{
	char file[300];
	const char *a[] = { "record", "-o", tmpdir, "--", "true", NULL };
	int fd;

	snprintf(file, sizeof(file), "%s/old-trace", tmpdir);
	fd = open(file, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(run(a), HIPSIM_RECORD_EXIT_SETUP);
	ck_assert_err_has("is not empty");
}
END_TEST

START_TEST(unwritable_dir_readonly_fs)
{
	const char *a[] = { "record", "-o", "/proc/hipsim-record-test", "--", "true", NULL };

	ck_assert_int_eq(run(a), HIPSIM_RECORD_EXIT_SETUP);
	ck_assert_err_has("cannot create output directory '/proc/hipsim-record-test'");
}
END_TEST

START_TEST(command_not_found)
{
	char out[300];
	const char *a1[] = { "record", "-o", out, "--", "hipsim-no-such-command-xyz", NULL };
	const char *a2[] = { "record", "-o", out, "--", "/nonexistent/bin/cmd", "arg", NULL };

	snprintf(out, sizeof(out), "%s/t", tmpdir);
	ck_assert_int_eq(run(a1), HIPSIM_RECORD_EXIT_NOTFOUND);
	ck_assert_err_has("command not found: hipsim-no-such-command-xyz");
	ck_assert_int_eq(run(a2), HIPSIM_RECORD_EXIT_NOTFOUND);
	ck_assert_err_has("command not found: /nonexistent/bin/cmd");
	ck_assert_int_ne(access(out, F_OK), 0); /* checked before creating DIR */
}
END_TEST

START_TEST(lttng_missing)
{
	char bin[300], link[320], out[300];
	const char *a[] = { "record", "-o", out, "--", "true", NULL };

	snprintf(bin, sizeof(bin), "%s/bin", tmpdir);
	snprintf(link, sizeof(link), "%s/true", bin);
	snprintf(out, sizeof(out), "%s/t", tmpdir);
	ck_assert_int_eq(mkdir(bin, 0700), 0);
	ck_assert_int_eq(symlink("/bin/true", link), 0);
	ck_assert_int_eq(setenv("PATH", bin, 1), 0);
	ck_assert_int_eq(run(a), HIPSIM_RECORD_EXIT_SETUP);
	ck_assert_err_has("lttng-sessiond or lttng not found");
}
END_TEST

/* The tracker, replaced: remembers the vpids, refuses 999999. */
static pid_t fake_tracked[8];
static int fake_ntracked;

static int fake_track(void *ctx, pid_t vpid)
{
	(void)ctx;
	if (vpid == 999999 || fake_ntracked == 8)
		return -1;
	fake_tracked[fake_ntracked++] = vpid;
	return 0;
}

/* What trace/hipcore_track.c does, with @msg for the pid line.
 * Return: the answer byte, or 0 when none came. */
static char handshake(const char *path, const char *msg)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct pollfd p;
	char answer = 0;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0)
		return 0;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    write(fd, msg, strlen(msg)) == (ssize_t)strlen(msg)) {
		p.fd = fd;
		p.events = POLLIN;
		if (poll(&p, 1, 10000) != 1 || read(fd, &answer, 1) != 1)
			answer = 0;
	}
	close(fd);
	return answer;
}

/*
 * The command exits at once, leaving a child that sleeps, then asks with
 * its pid, asks again (an exec keeps the pid), sends garbage, asks for a pid
 * the tracker refuses, and exits 0 only if every answer was the right one.
 * The wait must outlast the command, answer each, and return the
 * command's status.
 */
START_TEST(follow_orphan)
{
	static volatile sig_atomic_t no_signal;
	struct record_follow f;
	int old = 0, rc;
	pid_t top;

	fake_ntracked = 0;
	ck_assert_int_eq(record_follow_open(&f, fake_track, NULL), 0);
	ck_assert_int_eq(prctl(PR_GET_CHILD_SUBREAPER, &old, 0, 0, 0), 0);
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	top = fork();
	ck_assert_int_ge(top, 0);
	if (top == 0) {
		pid_t child = fork();

		if (child == 0) {
			char msg[32];
			int ok;

			usleep(300 * 1000); /* the command has exited by now */
			snprintf(msg, sizeof(msg), "%ld\n", (long)getpid());
			ok = handshake(f.path, msg) == HIPCORE_LTTNG_TRACK_OK &&
			     handshake(f.path, msg) == HIPCORE_LTTNG_TRACK_OK &&
			     handshake(f.path, "garbage\n") == HIPCORE_LTTNG_TRACK_FAILED &&
			     handshake(f.path, "999999\n") == HIPCORE_LTTNG_TRACK_FAILED;
			_exit(ok ? 0 : 1);
		}
		_exit(child > 0 ? 7 : 100);
	}
	rc = record_follow_wait(&f, top, &no_signal);
	prctl(PR_SET_CHILD_SUBREAPER, (unsigned long)old, 0, 0, 0);
	ck_assert_int_eq(rc, 7);
	/* the orphan asked twice with its pid: tracked once, counted once */
	ck_assert_int_eq(fake_ntracked, 1);
	ck_assert_int_ne(fake_tracked[0], top);
	ck_assert_uint_eq(f.processes, 2); /* its pid, and 999999 */
	ck_assert_uint_eq(f.failed, 1);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1); /* nothing left to wait for */
	record_follow_close(&f);
	ck_assert_int_ne(access(f.path, F_OK), 0);
}
END_TEST

/* A pid noted before the command runs (its own) is not tracked again. */
START_TEST(follow_noted)
{
	static volatile sig_atomic_t no_signal;
	struct record_follow f;
	char msg[32];
	pid_t top;
	int fds[2];
	char go;

	fake_ntracked = 0;
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(record_follow_open(&f, fake_track, NULL), 0);
	top = fork();
	ck_assert_int_ge(top, 0);
	if (top == 0) {
		close(fds[1]);
		if (read(fds[0], &go, 1) != 1)
			_exit(100);
		snprintf(msg, sizeof(msg), "%ld\n", (long)getpid());
		_exit(handshake(f.path, msg) == HIPCORE_LTTNG_TRACK_OK ? 0 : 1);
	}
	close(fds[0]);
	ck_assert_int_eq(record_follow_note(&f, top), 0);
	ck_assert_int_eq(write(fds[1], "g", 1), 1);
	close(fds[1]);
	ck_assert_int_eq(record_follow_wait(&f, top, &no_signal), 0);
	ck_assert_int_eq(fake_ntracked, 0);
	ck_assert_uint_eq(f.processes, 1);
	ck_assert_uint_eq(f.failed, 0);
	record_follow_close(&f);
}
END_TEST

#define ck_assert_has(buf, s) ck_assert_msg(strstr((buf), (s)) != NULL, "'%s' lacks '%s'", (buf), (s))

START_TEST(explain_empty)
{
	struct record_follow f = { .listen_fd = -1 };
	struct record_module m = { .installed = "/usr/lib/hipcore/libhipcore-lttng.so" };
	char buf[600];

	/* no module anywhere: the build tree's --provider is named */
	record_follow_explain(&f, &m, buf, sizeof(buf));
	ck_assert_has(buf, "no probe module: /usr/lib/hipcore/libhipcore-lttng.so is not installed");
	ck_assert_has(buf, "pass --provider BUILDDIR/.libs/libhipcore-lttng.so");
	/* a module, but no process loaded it */
	m.installed_present = true;
	record_follow_explain(&f, &m, buf, sizeof(buf));
	ck_assert_has(buf, "no process of the command loaded the probe module "
			   "/usr/lib/hipcore/libhipcore-lttng.so: the command never loaded libhipcore");
	m.installed_present = false;
	m.given = "/build/.libs/libhipcore-lttng.so";
	record_follow_explain(&f, &m, buf, sizeof(buf));
	ck_assert_has(buf, "no process of the command loaded the probe module "
			   "/build/.libs/libhipcore-lttng.so");
	/* processes that loaded it */
	f.processes = 2;
	record_follow_explain(&f, &m, buf, sizeof(buf));
	ck_assert_has(buf, "2 processes loaded the probe module and were tracked, but made no "
			   "libhipcore call");
	f.failed = 2;
	record_follow_explain(&f, &m, buf, sizeof(buf));
	ck_assert_has(buf, "2 processes loaded the probe module but could not be tracked");
	/* tracing off wins */
	m.tracing_off = true;
	record_follow_explain(&f, &m, buf, sizeof(buf));
	ck_assert_has(buf, "HIPCORE_LTTNG=0");
}
END_TEST

static Suite *make_record_suite(void)
{
	Suite *s = suite_create("record");
	TCase *tc = tcase_create("args");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, no_command);
	tcase_add_test(tc, no_output);
	tcase_add_test(tc, bad_option);
	tcase_add_test(tc, help);
	tcase_add_test(tc, bad_provider);
	tcase_add_test(tc, unwritable_dir);
	tcase_add_test(tc, unwritable_dir_readonly_fs);
	tcase_add_test(tc, nonempty_dir);
	tcase_add_test(tc, command_not_found);
	tcase_add_test(tc, lttng_missing);
	suite_add_tcase(s, tc);
	tc = tcase_create("follow");
	tcase_add_test(tc, follow_orphan);
	tcase_add_test(tc, follow_noted);
	tcase_add_test(tc, explain_empty);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(make_record_suite);
