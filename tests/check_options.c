/*
 * check_options.c - the one table of environment variables (util/env.h)
 * against the code and the documents:
 *  - the table: names unique and HIPCORE_*, every field filled, each row's
 *    reader file exists and reads that row (its HC_ENV_ id; a Python
 *    reader, the name), a flag's default text is its default;
 *  - hc_env_flag's rule for every flag (the value opposite to the default,
 *    spelled "0" or "1", changes it; nothing else does), hc_env_get, and
 *    HIPCORE_OP_TIMES through hc_device_open;
 *  - the sources: every HIPCORE_ name used as an environment variable in
 *    C, C++, Python, shell or makefile source of the tree is a row, and no
 *    file of the library, the plug-in or the probe module (core, hal, sim,
 *    trace, torch, util) calls getenv except util/env.c;
 *  - the documents: doc/design.md's list of the library's environment has
 *    exactly the table's rows, each naming its reader; each variable is in
 *    its user document; and every HIPCORE_ name the documents mention is a
 *    row or a version node of libhipcore.map.
 * Each mismatch is named with its file.  top_srcdir comes from the
 * environment (tests/local.mk).
 */
#include <check.h>

#include "tests/runner.h"
#include <ctype.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipcore/hipcore.h"
#include "util/env.h"

static const char *const ids[HC_ENV_COUNT] = {
#define HC_ENV_ID_(id, ...) [id] = #id,
	HC_ENV_LIST(HC_ENV_ID_)
#undef HC_ENV_ID_
};

static const char *srcdir(void)
{
	const char *s = getenv("top_srcdir");

	return s && *s ? s : ".";
}

/* The whole file, NUL-terminated; NULL when it cannot be read. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && n < (64L << 20) &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else if (buf) {
			buf[n] = '\0';
		}
	}
	fclose(f);
	return buf;
}

static char *slurp_src(const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", srcdir(), rel);
	return slurp(path);
}

static int row_of(const char *name, size_t len)
{
	const struct hc_env_desc *t = hc_env_table();

	for (int i = 0; i < HC_ENV_COUNT; i++)
		if (strlen(t[i].name) == len && strncmp(t[i].name, name, len) == 0)
			return i;
	return -1;
}

static bool ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* libhipcore.map's version nodes: HIPCORE_ names that are no variable. */
static bool version_node(const char *name, size_t len)
{
	static const char *const nodes[] = { "HIPCORE_1", "HIPCORE_PRIVATE_1" };

	for (size_t k = 0; k < sizeof(nodes) / sizeof(nodes[0]); k++)
		if (strlen(nodes[k]) == len && strncmp(nodes[k], name, len) == 0)
			return true;
	return false;
}

static size_t ident_len(const char *p)
{
	size_t n = 0;

	while (ident(p[n]))
		n++;
	return n;
}

START_TEST(table_is_well_formed)
{
	const struct hc_env_desc *t = hc_env_table();

	for (int i = 0; i < HC_ENV_COUNT; i++) {
		char *text;

		ck_assert_msg(t[i].name && strncmp(t[i].name, "HIPCORE_", 8) == 0, "row %d: %s", i,
			      t[i].name);
		/* The id is the name's tail: HC_ENV_X for HIPCORE_X. */
		ck_assert_str_eq(ids[i] + strlen("HC_ENV_"), t[i].name + strlen("HIPCORE_"));
		for (int j = 0; j < i; j++)
			ck_assert_msg(strcmp(t[i].name, t[j].name) != 0, "%s twice", t[i].name);
		ck_assert_msg(t[i].default_text && *t[i].default_text, "%s: no default", t[i].name);
		ck_assert_msg(t[i].effect && *t[i].effect, "%s: no effect", t[i].name);
		ck_assert_msg(t[i].user_doc && *t[i].user_doc, "%s: no user document", t[i].name);
		ck_assert_msg(t[i].kind == HC_ENV_FLAG || t[i].kind == HC_ENV_PATH ||
				      t[i].kind == HC_ENV_WORD,
			      "%s: kind %d", t[i].name, (int)t[i].kind);
		if (t[i].kind == HC_ENV_FLAG)
			ck_assert_str_eq(t[i].default_text, t[i].flag_default ? "1" : "0");
		text = slurp_src(t[i].reader);
		ck_assert_msg(text, "%s: reader %s/%s cannot be read", t[i].name, srcdir(), t[i].reader);
		if (strstr(t[i].reader, ".py"))
			ck_assert_msg(strstr(text, t[i].name), "%s: %s does not name it", t[i].name,
				      t[i].reader);
		else
			ck_assert_msg(strstr(text, ids[i]), "%s: %s does not read %s", t[i].name,
				      t[i].reader, ids[i]);
		free(text);
	}
}
END_TEST

START_TEST(flags_follow_the_rule)
{
	static const struct {
		const char *value; /* NULL: unset */
		int want;          /* the flag it spells, -1: none */
	} cases[] = { { NULL, -1 }, { "", -1 }, { "0", 0 }, { "1", 1 }, { "yes", -1 },
		      { "01", -1 }, { " 1", -1 }, { "true", -1 } };
	const struct hc_env_desc *t = hc_env_table();
	int flags = 0;

	for (int i = 0; i < HC_ENV_COUNT; i++) {
		if (t[i].kind != HC_ENV_FLAG) {
			setenv(t[i].name, "1", 1);
			ck_assert_msg(!hc_env_flag((enum hc_env_var)i), "%s is no flag", t[i].name);
			ck_assert_str_eq(hc_env_get((enum hc_env_var)i), "1");
			unsetenv(t[i].name);
			ck_assert_ptr_null(hc_env_get((enum hc_env_var)i));
			continue;
		}
		flags++;
		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			bool want = t[i].flag_default;

			/* Only the value opposite to the default changes it. */
			if (cases[c].want == 0 && t[i].flag_default)
				want = false;
			if (cases[c].want == 1 && !t[i].flag_default)
				want = true;
			if (cases[c].value)
				setenv(t[i].name, cases[c].value, 1);
			else
				unsetenv(t[i].name);
			ck_assert_msg(hc_env_flag((enum hc_env_var)i) == want, "%s=%s: %d, not %d",
				      t[i].name, cases[c].value ? cases[c].value : "(unset)",
				      hc_env_flag((enum hc_env_var)i), want);
		}
		unsetenv(t[i].name);
	}
	ck_assert_int_ge(flags, 6);
	ck_assert_ptr_null(hc_env_get(HC_ENV_COUNT));
	ck_assert(!hc_env_flag(HC_ENV_COUNT));
}
END_TEST

/* A reader that goes through the table: HIPCORE_OP_TIMES turns the timing
 * shim on for a device opened without op_times, and only "1" does. */
START_TEST(op_times_read_through_the_table)
{
	static const struct {
		const char *value;
		hc_status want;
	} cases[] = { { NULL, HC_ERR_STATE }, { "1", HC_OK }, { "0", HC_ERR_STATE }, { "yes", HC_ERR_STATE } };

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		hc_device d;
		size_t n = 0;

		if (cases[c].value)
			setenv("HIPCORE_OP_TIMES", cases[c].value, 1);
		else
			unsetenv("HIPCORE_OP_TIMES");
		ck_assert_int_eq(hc_device_open("sim", NULL, &d), HC_OK);
		ck_assert_int_eq(hc_device_op_times(d, NULL, 0, &n), cases[c].want);
		if (cases[c].want == HC_OK)
			ck_assert_uint_gt(n, 10);
		ck_assert_int_eq(hc_device_close(d), HC_OK);
	}
	unsetenv("HIPCORE_OP_TIMES");
}
END_TEST

/* --- the sources ------------------------------------------------------ */

struct scan {
	char unknown[4096]; /* "file: NAME" lines of names that are no row */
	char getenv_calls[4096];
	int files, uses;
};
static struct scan *scan_state;

static void note(char *buf, size_t cap, const char *file, const char *what, size_t len)
{
	size_t n = strlen(buf);

	if (n + 1 < cap)
		snprintf(buf + n, cap - n, "\n  %s: %.*s", file, (int)len, what);
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Shell-like files: scripts, makefile fragments, and the files of
 * scripts/ and .ci/ (no suffix). */
static bool shell_like(const char *path)
{
	return has_suffix(path, ".sh") || has_suffix(path, ".mk") || has_suffix(path, ".am") ||
	       strstr(path, "/scripts/") || strstr(path, "/.ci/");
}

/* Blanks out @text's C comments (outside string and character literals), so
 * that prose about getenv is not taken for a call. */
static void blank_c_comments(char *text)
{
	char quote = 0;

	for (char *p = text; *p; p++) {
		if (quote) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == quote)
				quote = 0;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (p[0] == '/' && p[1] == '*') {
			char *end = strstr(p + 2, "*/");
			char *stop = end ? end + 2 : p + strlen(p);

			for (; p < stop; p++)
				if (*p != '\n')
					*p = ' ';
			p--;
		} else if (p[0] == '/' && p[1] == '/') {
			for (; *p && *p != '\n'; p++)
				*p = ' ';
			if (!*p)
				p--;
		}
	}
}

static bool in_library(const char *rel)
{
	static const char *const dirs[] = { "core/", "hal/", "sim/", "trace/", "torch/", "util/" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (strncmp(rel, dirs[i], strlen(dirs[i])) == 0)
			return true;
	return false;
}

/* Every HIPCORE_ name in @text used as an environment variable: a string
 * literal that is the name or starts with the name and '=', and in
 * shell-like files the name followed by '=' at a word's start, or after '$'
 * or '${'.  The bare prefix and the version nodes are no variable. */
static void scan_text(const char *rel, char *text, bool shell)
{
	for (const char *p = strstr(text, "HIPCORE_"); p; p = strstr(p + 1, "HIPCORE_")) {
		size_t len = ident_len(p);
		char before = p > text ? p[-1] : ' ';
		char after = p[len];
		bool env = false;

		if (before == '"' && (after == '"' || after == '='))
			env = true;
		if (shell && (before == '$' || (before == '{' && p - text >= 2 && p[-2] == '$')))
			env = true;
		if (shell && !ident(before) && before != '-' && after == '=')
			env = true;
		if (!env || len <= strlen("HIPCORE_") || version_node(p, len))
			continue;
		scan_state->uses++;
		if (row_of(p, len) < 0)
			note(scan_state->unknown, sizeof(scan_state->unknown), rel, p, len);
	}
	if (!in_library(rel) || strcmp(rel, "util/env.c") == 0 || shell)
		return;
	blank_c_comments(text);
	for (const char *p = strstr(text, "getenv("); p; p = strstr(p + 1, "getenv("))
		note(scan_state->getenv_calls, sizeof(scan_state->getenv_calls), rel, p, 7);
}

static int visit(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	const char *rel = path + strlen(srcdir()) + 1;
	static const char *const sufs[] = { ".c", ".h", ".cc", ".py", ".sh", ".mk", ".am" };
	bool want = false;
	char *text;

	(void)sb;
	(void)ftw;
	if (type != FTW_F)
		return 0;
	for (size_t i = 0; i < sizeof(sufs) / sizeof(sufs[0]); i++)
		want = want || has_suffix(path, sufs[i]);
	if (!strchr(rel, '.') && (strncmp(rel, "scripts/", 8) == 0 || strncmp(rel, ".ci/", 4) == 0))
		want = true;
	if (!want)
		return 0;
	text = slurp(path);
	if (!text)
		return 0;
	scan_state->files++;
	scan_text(rel, text, shell_like(path));
	free(text);
	return 0;
}

START_TEST(sources_use_only_table_names)
{
	static const char *const dirs[] = { "core",  "hal",   "sim",   "trace",    "torch",
					    "util",  "tools", "tests", "bench",    "examples",
					    "scripts", ".ci" };
	struct scan *s = calloc(1, sizeof(*s));
	char path[4096];

	ck_assert_ptr_nonnull(s);
	scan_state = s;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", srcdir(), dirs[i]);
		nftw(path, visit, 16, FTW_PHYS);
	}
	snprintf(path, sizeof(path), "%s/Makefile.am", srcdir());
	visit(path, NULL, FTW_F, NULL);
	ck_assert_msg(s->files > 100, "only %d source files read under %s", s->files, srcdir());
	ck_assert_msg(s->uses >= HC_ENV_COUNT, "only %d uses of HIPCORE_ variables found", s->uses);
	ck_assert_msg(!s->unknown[0], "HIPCORE_ variables that util/env.h's table lacks:%s",
		      s->unknown);
	ck_assert_msg(!s->getenv_calls[0],
		      "getenv outside util/env.c in the library, plug-in or probe module:%s",
		      s->getenv_calls);
	free(s);
}
END_TEST

/* --- the documents ---------------------------------------------------- */

/* doc/design.md's rows "| `HIPCORE_X...` | `reader` | ..." of section 8. */
START_TEST(design_doc_lists_the_table)
{
	const struct hc_env_desc *t = hc_env_table();
	char *doc = slurp_src("doc/design.md");
	char *sec, *end;
	bool seen[HC_ENV_COUNT] = { false };
	int rows = 0;

	ck_assert_ptr_nonnull(doc);
	sec = strstr(doc, "\n## 8. Options");
	ck_assert_msg(sec, "doc/design.md has no section '## 8. Options'");
	end = strstr(sec + 1, "\n## ");
	if (end)
		*end = '\0';
	for (char *p = strstr(sec, "\n| `HIPCORE_"); p; p = strstr(p + 1, "\n| `HIPCORE_")) {
		const char *name = p + 4;
		size_t len = ident_len(name);
		char *eol = strchr(p + 1, '\n');
		int r = row_of(name, len);
		char reader[256];

		if (eol)
			*eol = '\0';
		ck_assert_msg(r >= 0, "doc/design.md lists %.*s, which util/env.h's table lacks",
			      (int)len, name);
		ck_assert_msg(!seen[r], "doc/design.md lists %s twice", t[r].name);
		seen[r] = true;
		rows++;
		snprintf(reader, sizeof(reader), "`%s`", t[r].reader);
		ck_assert_msg(strstr(p, reader), "doc/design.md's row of %s does not name its reader %s",
			      t[r].name, reader);
		if (eol)
			*eol = '\n';
	}
	for (int i = 0; i < HC_ENV_COUNT; i++)
		ck_assert_msg(seen[i], "doc/design.md's options section does not list %s", t[i].name);
	ck_assert_int_eq(rows, HC_ENV_COUNT);
	free(doc);
}
END_TEST

START_TEST(user_docs_name_only_table_variables)
{
	static const char *const docs[] = { "README.md", "BENCHMARKS.md", "doc/design.md",
					    "doc/hipsim.1", "doc/torch.md", "doc/trace-events.md",
					    "doc/sim-profile.md", "doc/memory-efficiency.md",
					    "doc/reliability.md", "doc/benchmarks-log.md",
					    "tests/README.md" };
	const struct hc_env_desc *t = hc_env_table();

	for (int i = 0; i < HC_ENV_COUNT; i++) {
		char *doc = slurp_src(t[i].user_doc);

		ck_assert_msg(doc, "%s: user document %s cannot be read", t[i].name, t[i].user_doc);
		ck_assert_msg(strstr(doc, t[i].name), "%s is not in its user document %s", t[i].name,
			      t[i].user_doc);
		free(doc);
	}
	for (size_t d = 0; d < sizeof(docs) / sizeof(docs[0]); d++) {
		char *doc = slurp_src(docs[d]);

		ck_assert_msg(doc, "%s cannot be read", docs[d]);
		for (const char *p = strstr(doc, "HIPCORE_"); p; p = strstr(p + 1, "HIPCORE_")) {
			size_t len = ident_len(p);

			if ((p > doc && ident(p[-1])) || len <= strlen("HIPCORE_"))
				continue;
			ck_assert_msg(version_node(p, len) || row_of(p, len) >= 0,
				      "%s names %.*s, which util/env.h's table lacks", docs[d], (int)len, p);
		}
		free(doc);
	}
}
END_TEST

static Suite *options_suite(void)
{
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("env");

	tcase_add_test(tc, table_is_well_formed);
	tcase_add_test(tc, flags_follow_the_rule);
	tcase_add_test(tc, op_times_read_through_the_table);
	tcase_add_test(tc, sources_use_only_table_names);
	tcase_add_test(tc, design_doc_lists_the_table);
	tcase_add_test(tc, user_docs_name_only_table_variables);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(options_suite);
