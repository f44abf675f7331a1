/*
 * compare.c - `hipsim compare A.json B.json`: two reports side by side.
 *
 * Both files are hipsim JSON reports (or any JSON objects).  Nested objects
 * are flattened to dotted keys.  First the options that produced the two
 * reports ("options.*" keys) where they differ, then the two times as
 * what they are (a GPU's measurement, the simulator's prediction, and the
 * prediction's error when one of each), then every key present in
 * both, in A's order, with both values; numbers also get B - A and B / A
 * ("-" when A is 0).  Keys present in only one file are listed after the
 * table.
 *
 * `--keys K1,K2,...` prints only those keys and makes the exit status say
 * whether they agree: 0 all equal in both, 1 some differ or are missing
 * (for scripts, e.g. the replay round trip), 2 bad input.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/hipsim/hipsim.h"

/* Flattens @v under @prefix into @flat (key -> value, borrowed references). */
static void flatten(json_t *flat, const char *prefix, json_t *v)
{
	const char *k;
	json_t *x;
	char key[512];

	if (!json_is_object(v)) {
		json_object_set(flat, prefix, v);
		return;
	}
	json_object_foreach(v, k, x) {
		snprintf(key, sizeof(key), "%s%s%s", prefix, *prefix ? "." : "", k);
		flatten(flat, key, x);
	}
}

static json_t *load(const char *path)
{
	json_error_t e;
	json_t *root = json_load_file(path, 0, &e), *flat;

	if (!root) {
		fprintf(stderr, "hipsim compare: %s:%d: %s\n", path, e.line, e.text);
		return NULL;
	}
	if (!json_is_object(root)) {
		fprintf(stderr, "hipsim compare: %s: not a JSON object\n", path);
		json_decref(root);
		return NULL;
	}
	flat = json_object();
	if (flat)
		flatten(flat, "", root);
	json_decref(root);
	return flat;
}

static void print_value(char *buf, size_t len, json_t *v)
{
	if (json_is_integer(v))
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%.6g", json_real_value(v));
	else if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_null(v))
		snprintf(buf, len, "null");
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
	else {
		char *s = json_dumps(v, JSON_COMPACT);

		snprintf(buf, len, "%s", s ? s : "?");
		free(s);
	}
}

/* Whether @k is one of the comma-separated @keys (NULL: every key is). */
static int selected(const char *keys, const char *k)
{
	size_t n = strlen(k);

	if (!keys)
		return 1;
	for (const char *p = keys; *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && strncmp(p, k, n) == 0)
			return 1;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

/* Every key of @keys is in both and equal.  Return: 1 yes, 0 no. */
static int keys_agree(const char *keys, json_t *a, json_t *b)
{
	char k[128];
	int ok = 1;

	for (const char *p = keys; *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		json_t *x, *y;

		snprintf(k, sizeof(k), "%.*s", (int)(len < sizeof(k) ? len : sizeof(k) - 1), p);
		x = json_object_get(a, k);
		y = json_object_get(b, k);
		if (!x || !y || !json_equal(x, y)) {
			fprintf(stderr, "hipsim compare: %s differs%s\n", k,
				!x || !y ? " (missing)" : "");
			ok = 0;
		}
		if (!e)
			break;
		p = e + 1;
	}
	return ok;
}

/*
 * Before the table: which of the options that produced the reports differ
 * (hipsim's reports record them under "options"), so that two what-ifs are
 * told apart at a glance.  Return: how many differ.
 */
static int options_summary(json_t *a, json_t *b)
{
	const char *k;
	json_t *x, *y;
	char va[64], vb[64];
	int differ = 0, recorded = 0;

	json_object_foreach(a, k, x) {
		if (strncmp(k, "options.", 8) != 0)
			continue;
		recorded = 1;
		y = json_object_get(b, k);
		if (y && json_equal(x, y))
			continue;
		if (!differ++)
			printf("options that differ:\n");
		print_value(va, sizeof(va), x);
		if (y)
			print_value(vb, sizeof(vb), y);
		printf("  %-26s %20s %20s\n", k + 8, va, y ? vb : "(not set)");
	}
	json_object_foreach(b, k, y) {
		if (strncmp(k, "options.", 8) != 0)
			continue;
		recorded = 1;
		if (json_object_get(a, k))
			continue;
		if (!differ++)
			printf("options that differ:\n");
		print_value(vb, sizeof(vb), y);
		printf("  %-26s %20s %20s\n", k + 8, "(not set)", vb);
	}
	if (!recorded)
		printf("options: not recorded in either report\n");
	else if (!differ)
		printf("options: the same in both reports\n");
	printf("\n");
	return differ;
}

/*
 * Before the table: the two runs' times as what they are.  A report says
 * whether its device_time_ns is a measurement (a GPU backend) or a
 * prediction (the simulator); a GPU run set against its simulated replay
 * reads as the prediction's error against the measurement.  Nothing for
 * reports that do not say (older ones).
 */
static void time_summary(json_t *a, json_t *b)
{
	json_t *ka = json_object_get(a, "time_kind"), *kb = json_object_get(b, "time_kind");
	json_t *ta = json_object_get(a, "device_time_ns"), *tb = json_object_get(b, "device_time_ns");
	const char *ba = json_string_value(json_object_get(a, "backend"));
	const char *bb = json_string_value(json_object_get(b, "backend"));
	double va, vb;

	if (!json_is_string(ka) || !json_is_string(kb) || !json_is_integer(ta) || !json_is_integer(tb))
		return;
	va = (double)json_integer_value(ta);
	vb = (double)json_integer_value(tb);
	if (strcmp(json_string_value(ka), json_string_value(kb)) != 0) {
		bool a_measured = strcmp(json_string_value(ka), "measured") == 0;
		double m = a_measured ? va : vb, p = a_measured ? vb : va;

		printf("time: measured %.3f ms (%s, %s), predicted %.3f ms (%s, %s): ", m / 1e6,
		       a_measured ? "A" : "B", (a_measured ? ba : bb) ? (a_measured ? ba : bb) : "?",
		       p / 1e6, a_measured ? "B" : "A",
		       (a_measured ? bb : ba) ? (a_measured ? bb : ba) : "?");
		if (m > 0)
			printf("prediction error %+.1f %%\n\n", 100.0 * (p - m) / m);
		else
			printf("prediction error undefined (nothing measured)\n\n");
		return;
	}
	printf("time: both %s: A %.3f ms, B %.3f ms", json_string_value(ka), va / 1e6, vb / 1e6);
	if (va > 0)
		printf(" (B/A %.4f)", vb / va);
	printf("\n\n");
}

/* The table (and --keys status) of reports @pa and @pb. */
static int compare_files(const char *pa, const char *pb, const char *keys)
{
	json_t *a, *b, *x, *y;
	const char *k;
	char va[64], vb[64];
	int only = 0, status = HIPSIM_EXIT_OK;

	a = load(pa);
	if (!a)
		return HIPSIM_EXIT_USAGE;
	b = load(pb);
	if (!b) {
		json_decref(a);
		return HIPSIM_EXIT_USAGE;
	}
	if (keys && !keys_agree(keys, a, b))
		status = HIPSIM_EXIT_FAILED;
	if (!keys) {
		options_summary(a, b);
		time_summary(a, b);
	}
	printf("%-28s %20s %20s %16s %10s\n", "key", "A", "B", "B-A", "B/A");
	json_object_foreach(a, k, x) {
		y = json_object_get(b, k);
		if (!y || !selected(keys, k))
			continue;
		print_value(va, sizeof(va), x);
		print_value(vb, sizeof(vb), y);
		if (json_is_number(x) && json_is_number(y)) {
			double da = json_number_value(x), db = json_number_value(y);
			char diff[32], ratio[32];

			if (json_is_integer(x) && json_is_integer(y))
				snprintf(diff, sizeof(diff), "%" JSON_INTEGER_FORMAT,
					 json_integer_value(y) - json_integer_value(x));
			else
				snprintf(diff, sizeof(diff), "%.6g", db - da);
			if (da != 0)
				snprintf(ratio, sizeof(ratio), "%.4f", db / da);
			else
				snprintf(ratio, sizeof(ratio), "-");
			printf("%-28s %20s %20s %16s %10s\n", k, va, vb, diff, ratio);
		} else {
			printf("%-28s %20s %20s %16s %10s\n", k, va, vb, strcmp(va, vb) ? "differs" : "=", "-");
		}
	}
	json_object_foreach(a, k, x) if (!json_object_get(b, k) && selected(keys, k)) {
		if (!only++)
			printf("\n");
		printf("only in A: %s\n", k);
	}
	json_object_foreach(b, k, y) if (!json_object_get(a, k) && selected(keys, k)) {
		if (!only++)
			printf("\n");
		printf("only in B: %s\n", k);
	}
	json_decref(a);
	json_decref(b);
	return status;
}

/*
 * --what-if: `hipsim replay TRACE WORDS... --json` once per policy set, each
 * in a child process writing to a file of a temporary directory, then the
 * two reports compared.  Return: the exit status.
 */
static int what_if(const char *trace, const char *const set[2], const char *keys)
{
	char dir[] = "/tmp/hipsim-whatif.XXXXXX", path[2][64], words[2][1024];
	int status = HIPSIM_EXIT_USAGE, made = 0;

	if (!mkdtemp(dir)) {
		perror("hipsim compare: mkdtemp");
		return HIPSIM_EXIT_USAGE;
	}
	for (int k = 0; k < 2; k++) {
		char *argv[40], *save = NULL, *w;
		int argc = 0, fd, ws;
		pid_t pid;

		snprintf(path[k], sizeof(path[k]), "%s/%c.json", dir, 'a' + k);
		snprintf(words[k], sizeof(words[k]), "%s", set[k]);
		argv[argc++] = "replay";
		argv[argc++] = (char *)trace;
		for (w = strtok_r(words[k], " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
			if (argc == 36) {
				fprintf(stderr, "hipsim compare: too many options in '%s'\n", set[k]);
				goto out;
			}
			argv[argc++] = w;
		}
		argv[argc++] = "--json";
		argv[argc] = NULL;
		fd = open(path[k], O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0) {
			perror(path[k]);
			goto out;
		}
		made = k + 1;
		fflush(stdout);
		fflush(stderr);
		pid = fork();
		if (pid == 0) {
			int rc;

			dup2(fd, STDOUT_FILENO);
			close(fd);
			rc = hipsim_replay_main(argc, argv);
			fflush(stdout);
			_exit(rc);
		}
		close(fd);
		if (pid < 0 || waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws)) {
			fprintf(stderr, "hipsim compare: the replay with '%s' did not finish\n", set[k]);
			goto out;
		}
		if (WEXITSTATUS(ws) == HIPSIM_EXIT_USAGE) {
			fprintf(stderr, "hipsim compare: the replay with '%s' failed (see above)\n", set[k]);
			goto out;
		}
		if (WEXITSTATUS(ws) == HIPSIM_EXIT_FAILED)
			fprintf(stderr, "hipsim compare: some events failed with '%s'\n", set[k]);
	}
	printf("A: %s\nB: %s\n", set[0], set[1]);
	status = compare_files(path[0], path[1], keys);
out:
	for (int k = 0; k < made; k++)
		unlink(path[k]);
	rmdir(dir);
	return status;
}

int hipsim_compare_main(int argc, char **argv)
{
	const char *keys = NULL;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("usage: hipsim compare [--keys K1,K2,...] A.json B.json\n"
		       "       hipsim compare [--keys K1,K2,...] --what-if TRACE 'OPTIONS A' 'OPTIONS B'\n"
		       "Prints every key of two JSON reports side by side, with B - A and B / A.\n"
		       "--keys: only those keys; exit 1 when one differs or is missing.\n"
		       "--what-if: replays TRACE with each set of replay options (e.g. '--pools\n"
		       "subslices' and '--pools exclusive --flush-count 8') and compares the reports.\n");
		return HIPSIM_EXIT_OK;
	}
	if (argc >= 3 && strcmp(argv[1], "--keys") == 0) {
		keys = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc == 5 && strcmp(argv[1], "--what-if") == 0) {
		const char *set[2] = { argv[3], argv[4] };

		return what_if(argv[2], set, keys);
	}
	if (argc != 3) {
		fprintf(stderr, "usage: hipsim compare [--keys K1,K2,...] A.json B.json\n"
				"       hipsim compare [--keys K1,K2,...] --what-if TRACE 'OPTIONS A' 'OPTIONS B'\n");
		return HIPSIM_EXIT_USAGE;
	}
	return compare_files(argv[1], argv[2], keys);
}
