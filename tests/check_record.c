/*
 * check_record.c - `hipsim record` argument parsing and the error paths
 * that must end before any daemon or session exists: exit codes and the
 * messages on stderr.  No test here starts lttng-sessiond (the missing-
 * lttng case runs with a PATH that holds only the command).
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/hipsim/record.h"

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
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(make_record_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
