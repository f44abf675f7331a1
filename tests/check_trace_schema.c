/*
 * check_trace_schema.c - the trace schema is written in four places, and
 * they agree: the provider (trace/hipcore_tp.h), the `fn` ids
 * (trace/hipcore_trace_ids.h), the CTF reader's names
 * (tools/hipsim/ctf_names.h) and the contract (doc/trace-events.md).
 *
 * The provider is read by the compiler: its header is included twice more
 * with the LTTng macros defined here to build a table of events, each with
 * its fields' names, C types and kinds (integer, hex integer, sequence).
 * The document is read at run time: its tables whose first column is
 * `event` give each event's fields in order, with the type when it states
 * one (u8, u16, u32, i32, bool, hex, u64[], u8[]); a field without one has
 * the type its conventions table gives the name, else uint64.
 * The library's sources under core/ and hal/ are scanned for their
 * HC_TRACE/HC_TRACE_DO and HC_TRACE_CALL sites.
 *
 * Each test collects every mismatch, one per line naming both sides, and
 * fails with the list.  Needs no LTTng: it runs in every build.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/hipsim/ctf_names.h"
#include "trace/hipcore_trace_ids.h"
#include "tests/runner.h"

#ifndef HC_ABS_TOP_SRCDIR
#error "HC_ABS_TOP_SRCDIR must name the source tree"
#endif

/* --- the provider, through the compiler ---------------------------------- */

enum tp_kind { TP_INT, TP_HEX, TP_SEQ };

struct tp_field {
	const char *name, *ctype;
	enum tp_kind kind;
};

struct tp_event {
	const char *name;
	const struct tp_field *fields;
	size_t n;
};

#define HIPCORE_TP_NO_LTTNG
#define LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ
#define LTTNG_UST_TP_ARGS(...)
#define LTTNG_UST_TP_FIELDS(...) __VA_ARGS__
#define lttng_ust_field_integer(t, n, e) { #n, #t, TP_INT },
#define lttng_ust_field_integer_hex(t, n, e) { #n, #t, TP_HEX },
#define lttng_ust_field_sequence(t, n, e, lt, le) { #n, #t, TP_SEQ },
#define TP_N(a) (sizeof(a) / sizeof((a)[0]))

/* First pass: one array of fields per event and per class. */
#define LTTNG_UST_TRACEPOINT_EVENT(p, name, args, fields) \
	static const struct tp_field tpf_##name[] = { fields };
#define LTTNG_UST_TRACEPOINT_EVENT_CLASS(p, cls, args, fields) \
	static const struct tp_field tpf_##cls[] = { fields };
#define LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(p, cls, p2, name, args)
#include "trace/hipcore_tp.h"
#undef LTTNG_UST_TRACEPOINT_EVENT
#undef LTTNG_UST_TRACEPOINT_EVENT_CLASS
#undef LTTNG_UST_TRACEPOINT_EVENT_INSTANCE

/* Second pass: the events. */
#define LTTNG_UST_TRACEPOINT_EVENT(p, name, args, fields) { #name, tpf_##name, TP_N(tpf_##name) },
#define LTTNG_UST_TRACEPOINT_EVENT_CLASS(p, cls, args, fields)
#define LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(p, cls, p2, name, args) { #name, tpf_##cls, TP_N(tpf_##cls) },
static const struct tp_event provider[] = {
#include "trace/hipcore_tp.h"
};
#define N_PROVIDER TP_N(provider)

static const struct tp_event *provider_event(const char *name)
{
	for (size_t i = 0; i < N_PROVIDER; i++)
		if (strcmp(provider[i].name, name) == 0)
			return &provider[i];
	return NULL;
}

/* The provider's type in the document's words: u64, i32, hex, u8[]... */
static void tp_type(const struct tp_field *f, char *out, size_t len)
{
	const char *t = f->ctype;
	char base[8];

	if (f->kind == TP_HEX) {
		snprintf(out, len, "hex");
		return;
	}
	if (strncmp(t, "uint", 4) == 0)
		snprintf(base, sizeof(base), "u%.*s", (int)strcspn(t + 4, "_"), t + 4);
	else if (strncmp(t, "int", 3) == 0)
		snprintf(base, sizeof(base), "i%.*s", (int)strcspn(t + 3, "_"), t + 3);
	else
		snprintf(base, sizeof(base), "?");
	snprintf(out, len, "%s%s", base, f->kind == TP_SEQ ? "[]" : "");
}

/* --- mismatches ----------------------------------------------------------- */

static char report[16384];
static size_t report_len;
static unsigned mismatches;

static void mismatch(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void mismatch(const char *fmt, ...)
{
	va_list ap;

	mismatches++;
	if (report_len + 2 >= sizeof(report))
		return;
	report[report_len++] = '\n';
	va_start(ap, fmt);
	vsnprintf(report + report_len, sizeof(report) - report_len, fmt, ap);
	va_end(ap);
	report_len += strlen(report + report_len);
}

static void reset(void)
{
	report_len = 0;
	report[0] = '\0';
	mismatches = 0;
}

#define ASSERT_NO_MISMATCH() ck_assert_msg(mismatches == 0, "%u mismatches:%s", mismatches, report)

/* --- files ---------------------------------------------------------------- */

/* The whole of @rel under the source tree, NUL-terminated; fails the test if absent. */
static char *slurp(const char *rel)
{
	char path[1024];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", HC_ABS_TOP_SRCDIR, rel);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_ge(n, 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* --- the document --------------------------------------------------------- */

#define MAX_ROWS 128
#define MAX_FIELDS 24
#define NAME_LEN 64

struct doc_field {
	char name[NAME_LEN], type[16];
};

struct doc_event {
	char name[NAME_LEN];
	struct doc_field fields[MAX_FIELDS];
	size_t n;
	char third[512]; /* "emitted by" or "meaning", for the checks below */
	int emitted_by;	 /* the third column is "emitted by" */
	int line;
};

struct doc_fn {
	char function[NAME_LEN];
	long id;
	int emitted;
	int line;
};

static struct doc_event doc_events[MAX_ROWS];
static size_t n_doc_events;
static struct doc_fn doc_fns[MAX_ROWS];
static size_t n_doc_fns;
static char doc_untraced[MAX_ROWS][NAME_LEN]; /* the "emit nothing and have no id" list */
static size_t n_doc_untraced;
/* The conventions table: a field's type when its row states none. */
static struct doc_field doc_defaults[MAX_ROWS];
static size_t n_doc_defaults;

/* The @k-th cell (0-based) of table row @row into @out, trimmed; 0 if absent. */
static int cell(const char *row, int k, char *out, size_t len)
{
	const char *p = row, *end;
	size_t n;

	if (*p != '|')
		return 0;
	for (int i = 0; i < k; i++) /* p: the bar before cell k */
		if (!(p = strchr(p + 1, '|')))
			return 0;
	p++;
	end = strchr(p, '|');
	if (!end)
		return 0;
	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	n = (size_t)(end - p) < len - 1 ? (size_t)(end - p) : len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return 1;
}

/* The first `name` in @s (backticks removed) into @out; NULL or past it. */
static const char *backticked(const char *s, char *out, size_t len)
{
	const char *a = strchr(s, '`'), *b;
	size_t n;

	if (!a || !(b = strchr(a + 1, '`')))
		return NULL;
	n = (size_t)(b - a - 1) < len - 1 ? (size_t)(b - a - 1) : len - 1;
	memcpy(out, a + 1, n);
	out[n] = '\0';
	return b + 1;
}

/* The fields cell of an event row: "`a`, `b` u8 (note, with commas), `c` hex". */
static void parse_fields(struct doc_event *e, const char *cellv)
{
	char flat[2048];
	size_t o = 0;
	int depth = 0;

	/* Parenthesised notes go, so that their commas do not split fields. */
	for (const char *p = cellv; *p && o + 1 < sizeof(flat); p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth -= depth > 0;
		else if (!depth)
			flat[o++] = *p;
	}
	flat[o] = '\0';
	for (char *save = NULL, *tok = strtok_r(flat, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct doc_field *f;
		const char *rest;
		char word[16] = "";

		if (e->n == MAX_FIELDS) {
			mismatch("doc/trace-events.md:%d: `%s` has more than %d fields", e->line, e->name,
				 MAX_FIELDS);
			return;
		}
		f = &e->fields[e->n];
		rest = backticked(tok, f->name, sizeof(f->name));
		if (!rest) {
			mismatch("doc/trace-events.md:%d: `%s`: a field without a `name`: \"%s\"", e->line,
				 e->name, tok);
			continue;
		}
		sscanf(rest, " %15s", word);
		snprintf(f->type, sizeof(f->type), "%s", word[0] ? word : "u64");
		for (size_t k = 0; !word[0] && k < n_doc_defaults; k++)
			if (strcmp(doc_defaults[k].name, f->name) == 0)
				snprintf(f->type, sizeof(f->type), "%s", doc_defaults[k].type);
		if (strcmp(f->type, "bool") == 0) /* booleans are uint8 */
			snprintf(f->type, sizeof(f->type), "u8");
		e->n++;
	}
}

/* Reads doc/trace-events.md's event tables, `fn` tables and untraced list. */
static void read_doc(void)
{
	enum { NONE, CONVENTIONS, EVENTS, FN_EMITTED, FN_QUIET } table = NONE;
	char *doc = slurp("doc/trace-events.md"), *next;
	int line = 0, in_untraced = 0;

	int emitted_by = 0;

	n_doc_events = n_doc_fns = n_doc_untraced = n_doc_defaults = 0;
	for (char *l = doc; l; l = next) {
		char c0[NAME_LEN + 8], c1[2048], c2[512];

		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		line++;
		if (strncmp(l, "Public calls that emit nothing", 30) == 0)
			in_untraced = 1;
		if (in_untraced) {
			const char *p = l;
			char name[NAME_LEN];

			if (!*l || *l == '#' || *l == '|')
				in_untraced = 0;
			while (in_untraced && (p = backticked(p, name, sizeof(name))))
				if (strncmp(name, "hc_", 3) == 0 && strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") ==
									    strlen(name) &&
				    n_doc_untraced < MAX_ROWS)
					snprintf(doc_untraced[n_doc_untraced++], NAME_LEN, "%s", name);
			if (strstr(l, "torch.h"))
				in_untraced = 0; /* the paragraph's last sentence names no call */
			continue;
		}
		if (*l != '|') {
			table = NONE;
			continue;
		}
		if (!cell(l, 0, c0, sizeof(c0)) || !cell(l, 1, c1, sizeof(c1)))
			continue;
		if (strcmp(c0, "event") == 0) {
			table = EVENTS;
			emitted_by = cell(l, 2, c2, sizeof(c2)) && strcmp(c2, "emitted by") == 0;
			continue;
		}
		if (strcmp(c0, "field kind") == 0) {
			table = CONVENTIONS;
			continue;
		}
		if (strcmp(c0, "id") == 0) {
			table = strcmp(c1, "function") == 0 && cell(l, 2, c2, sizeof(c2)) && strcmp(c2, "`stream`") == 0
					? FN_EMITTED
					: FN_QUIET;
			continue;
		}
		if (strncmp(c0, "---", 3) == 0 || table == NONE)
			continue;
		if (table == CONVENTIONS) { /* "| `a`, `b` | uint64, hex |": hex, u64, i32... */
			const char *p = c0;
			char name[NAME_LEN], type[16];
			unsigned bits = 0;

			if (strstr(c1, "hex"))
				snprintf(type, sizeof(type), "hex");
			else if (sscanf(c1, "uint%u", &bits) == 1)
				snprintf(type, sizeof(type), "u%u", bits);
			else if (sscanf(c1, "int%u", &bits) == 1)
				snprintf(type, sizeof(type), "i%u", bits);
			else
				continue;
			while ((p = backticked(p, name, sizeof(name))) && n_doc_defaults < MAX_ROWS) {
				snprintf(doc_defaults[n_doc_defaults].name, NAME_LEN, "%s", name);
				snprintf(doc_defaults[n_doc_defaults++].type, 16, "%s", type);
			}
			continue;
		}
		if (table == EVENTS && n_doc_events < MAX_ROWS) {
			struct doc_event *e = &doc_events[n_doc_events++];

			memset(e, 0, sizeof(*e));
			e->line = line;
			if (!backticked(c0, e->name, sizeof(e->name)))
				mismatch("doc/trace-events.md:%d: event row without an `event` name", line);
			parse_fields(e, c1);
			cell(l, 2, e->third, sizeof(e->third));
			e->emitted_by = emitted_by;
			continue;
		}
		/* fn rows: "| id | `function` |" once (emitted) or twice (not emitted). */
		for (int k = 0; k < (table == FN_EMITTED ? 2 : 4); k += 2) {
			char id[16], fn[NAME_LEN + 8];
			struct doc_fn *f;

			if (!cell(l, k, id, sizeof(id)) || !cell(l, k + 1, fn, sizeof(fn)) || !id[0])
				continue;
			if (n_doc_fns == MAX_ROWS)
				break;
			f = &doc_fns[n_doc_fns++];
			f->id = strtol(id, NULL, 10);
			f->emitted = table == FN_EMITTED;
			f->line = line;
			if (!backticked(fn, f->function, sizeof(f->function)))
				mismatch("doc/trace-events.md:%d: fn id %s without a `function`", line, id);
		}
	}
	free(doc);
}

static const struct doc_event *doc_event(const char *name)
{
	for (size_t i = 0; i < n_doc_events; i++)
		if (strcmp(doc_events[i].name, name) == 0)
			return &doc_events[i];
	return NULL;
}

/* --- the sources ---------------------------------------------------------- */

struct site {
	char name[NAME_LEN];
	char file[256];
};

static struct site trace_sites[512], call_sites[64];
static size_t n_trace_sites, n_call_sites;

/* The sites of @macro "(" in @text into @out: the identifier after it. */
static void sites_of(const char *text, const char *file, const char *macro, struct site *out, size_t *n,
		     size_t cap)
{
	size_t ml = strlen(macro);

	for (const char *p = strstr(text, macro); p; p = strstr(p + ml, macro)) {
		size_t k = 0;
		const char *q = p + ml;

		if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue; /* part of a longer name */
		if (*q != '(')
			continue;
		q++;
		while (*q == ' ')
			q++;
		if (*n == cap)
			return;
		while ((isalnum((unsigned char)q[k]) || q[k] == '_') && k < NAME_LEN - 1)
			k++;
		memcpy(out[*n].name, q, k);
		out[*n].name[k] = '\0';
		snprintf(out[*n].file, sizeof(out[*n].file), "%s", file);
		(*n)++;
	}
}

static void scan_dir(const char *rel)
{
	char path[1024];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/%s", HC_ABS_TOP_SRCDIR, rel);
	d = opendir(path);
	ck_assert_msg(d != NULL, "cannot open %s", path);
	while ((de = readdir(d))) {
		char sub[512];
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", rel, de->d_name);
		if (len > 2 && strcmp(de->d_name + len - 2, ".c") == 0) {
			char *text = slurp(sub);

			sites_of(text, sub, "HC_TRACE", trace_sites, &n_trace_sites, TP_N(trace_sites));
			sites_of(text, sub, "HC_TRACE_DO", trace_sites, &n_trace_sites, TP_N(trace_sites));
			sites_of(text, sub, "HC_TRACE_CALL", call_sites, &n_call_sites, TP_N(call_sites));
			free(text);
		} else if (!strchr(de->d_name, '.')) {
			DIR *probe;

			snprintf(path, sizeof(path), "%s/%s", HC_ABS_TOP_SRCDIR, sub);
			probe = opendir(path);
			if (probe) {
				closedir(probe);
				scan_dir(sub);
			}
		}
	}
	closedir(d);
}

static void scan_sources(void)
{
	n_trace_sites = n_call_sites = 0;
	scan_dir("core");
	scan_dir("hal");
}

/* The public functions: each `HC_API ... hc_name(` of the public header. */
static size_t public_functions(char names[][NAME_LEN], size_t cap)
{
	char *h = slurp("include/hipcore/hipcore.h");
	size_t n = 0;

	for (const char *p = strstr(h, "\nHC_API "); p && n < cap; p = strstr(p + 1, "\nHC_API ")) {
		const char *paren = strchr(p, '('), *q = paren;

		if (!paren)
			break;
		while (q > p && (isalnum((unsigned char)q[-1]) || q[-1] == '_'))
			q--;
		snprintf(names[n], NAME_LEN, "%.*s", (int)(paren - q), q);
		n++;
	}
	free(h);
	return n;
}

/* --- the tests ------------------------------------------------------------ */

/* Every provider event is in the document with the same fields in order and
 * the same types, and the document names no event the provider lacks. */
START_TEST(provider_matches_doc)
{
	reset();
	read_doc();
	ck_assert_uint_gt(n_doc_events, 20); /* the tables were found */
	for (size_t i = 0; i < N_PROVIDER; i++) {
		const struct tp_event *p = &provider[i];
		const struct doc_event *d = doc_event(p->name);

		if (!d) {
			mismatch("event `%s`: in trace/hipcore_tp.h, not in doc/trace-events.md", p->name);
			continue;
		}
		if (d->n != p->n)
			mismatch("event `%s`: %zu fields in trace/hipcore_tp.h, %zu in doc/trace-events.md:%d",
				 p->name, p->n, d->n, d->line);
		for (size_t k = 0; k < p->n && k < d->n; k++) {
			char t[16];

			tp_type(&p->fields[k], t, sizeof(t));
			if (strcmp(p->fields[k].name, d->fields[k].name) != 0)
				mismatch("event `%s` field %zu: `%s` in trace/hipcore_tp.h, `%s` in "
					 "doc/trace-events.md:%d",
					 p->name, k + 1, p->fields[k].name, d->fields[k].name, d->line);
			else if (strcmp(t, d->fields[k].type) != 0)
				mismatch("event `%s` field `%s`: %s in trace/hipcore_tp.h, %s in "
					 "doc/trace-events.md:%d",
					 p->name, p->fields[k].name, t, d->fields[k].type, d->line);
		}
	}
	for (size_t i = 0; i < n_doc_events; i++)
		if (!provider_event(doc_events[i].name))
			mismatch("event `%s`: in doc/trace-events.md:%d, not in trace/hipcore_tp.h",
				 doc_events[i].name, doc_events[i].line);
	ASSERT_NO_MISMATCH();
}
END_TEST

/* A provider field named @name, of the kind the reader wants, in any event. */
static int provider_has_field(const char *name, enum ctf_role_kind want, char *seen, size_t len)
{
	int found = 0;

	seen[0] = '\0';
	for (size_t i = 0; i < N_PROVIDER; i++)
		for (size_t k = 0; k < provider[i].n; k++) {
			const struct tp_field *f = &provider[i].fields[k];

			if (strcmp(f->name, name) != 0)
				continue;
			if ((want == CTF_SEQUENCE) == (f->kind == TP_SEQ))
				found = 1;
			else
				snprintf(seen, len, "%s in `%s`", f->kind == TP_SEQ ? "a sequence" : "a number",
					 provider[i].name);
		}
	return found;
}

/* Every event the CTF reader looks for is the provider's, and the first
 * name of each of its field lists is a provider field of the kind read. */
START_TEST(reader_matches_provider)
{
	const char *const others[] = { CTF_CACHE_EVENT, ktime_event, devopen_event };

	reset();
	for (size_t i = 0; i < CTF_N_EVENTS + TP_N(others); i++) {
		const char *full = i < CTF_N_EVENTS ? ctf_events[i].name : others[i - CTF_N_EVENTS];

		if (strncmp(full, "hipcore:", 8) != 0 || !provider_event(full + 8))
			mismatch("tools/hipsim/ctf_names.h reads event \"%s\", which trace/hipcore_tp.h does "
				 "not define",
				 full);
	}
	for (int r = 0; r < R_COUNT; r++) {
		const char *name = role_names[r][0];
		char seen[NAME_LEN * 2];
		int found = provider_has_field(name, role_kind[r], seen, sizeof(seen));

		if (role_kind[r] == CTF_NOT_PROVIDED) {
			if (found || seen[0])
				mismatch("tools/hipsim/ctf_names.h: field \"%s\" is marked not provided, but "
					 "trace/hipcore_tp.h has it",
					 name);
		} else if (!found) {
			mismatch("tools/hipsim/ctf_names.h reads field \"%s\" as %s; trace/hipcore_tp.h has %s",
				 name, role_kind[r] == CTF_SEQUENCE ? "a sequence" : "a number",
				 seen[0] ? seen : "no such field");
		}
	}
	if (CTF_BACKEND_SIM != HC_TRACE_BACKEND_SIM)
		mismatch("tools/hipsim/ctf_names.h: CTF_BACKEND_SIM %d, HC_TRACE_BACKEND_SIM %d",
			 CTF_BACKEND_SIM, HC_TRACE_BACKEND_SIM);
	ASSERT_NO_MISMATCH();
}
END_TEST

static const struct {
	const char *name;
	long id;
} fn_list[] = {
#define FN_ROW_(name, id) { "hc_" #name, id },
	HC_TRACE_FN_LIST(FN_ROW_)
#undef FN_ROW_
};

static const struct doc_fn *doc_fn_of(const char *function)
{
	for (size_t i = 0; i < n_doc_fns; i++)
		if (strcmp(doc_fns[i].function, function) == 0)
			return &doc_fns[i];
	return NULL;
}

/* Every HC_TRACE_FN id is in the document's fn tables under its function,
 * and those tables hold no other. */
START_TEST(fn_ids_match_doc)
{
	reset();
	read_doc();
	ck_assert_uint_gt(n_doc_fns, 0);
	for (size_t i = 0; i < TP_N(fn_list); i++) {
		const struct doc_fn *d = doc_fn_of(fn_list[i].name);

		if (!d)
			mismatch("fn id %ld (%s): in HC_TRACE_FN_LIST, not in doc/trace-events.md",
				 fn_list[i].id, fn_list[i].name);
		else if (d->id != fn_list[i].id)
			mismatch("%s: fn id %ld in HC_TRACE_FN_LIST, %ld in doc/trace-events.md:%d",
				 fn_list[i].name, fn_list[i].id, d->id, d->line);
	}
	for (size_t i = 0; i < n_doc_fns; i++) {
		size_t k = 0;

		while (k < TP_N(fn_list) && strcmp(fn_list[k].name, doc_fns[i].function) != 0)
			k++;
		if (k == TP_N(fn_list))
			mismatch("fn id %ld (%s): in doc/trace-events.md:%d, not in HC_TRACE_FN_LIST",
				 doc_fns[i].id, doc_fns[i].function, doc_fns[i].line);
		for (size_t j = 0; j < i; j++)
			if (strcmp(doc_fns[j].function, doc_fns[i].function) == 0)
				mismatch("%s: twice in doc/trace-events.md's fn tables", doc_fns[i].function);
	}
	ASSERT_NO_MISMATCH();
}
END_TEST

/* The library emits `call` for exactly the ids the document lists as
 * emitted, each from the function named; every other provider event has a
 * call site unless the document says it is not emitted. */
START_TEST(emitted_calls_match_doc)
{
	reset();
	read_doc();
	scan_sources();
	ck_assert_uint_gt(n_trace_sites, 20); /* the sources were found */
	for (size_t i = 0; i < n_call_sites; i++) {
		char function[NAME_LEN + 3], def[NAME_LEN + 16];
		const struct doc_fn *d;
		char *text;

		snprintf(function, sizeof(function), "hc_%s", call_sites[i].name);
		d = doc_fn_of(function);
		if (!d || !d->emitted)
			mismatch("%s: HC_TRACE_CALL(%s) emits `call`, but doc/trace-events.md %s",
				 call_sites[i].file, call_sites[i].name,
				 d ? "lists it as not emitted" : "does not list it");
		snprintf(def, sizeof(def), "hc_status %s(", function);
		text = slurp(call_sites[i].file);
		if (!strstr(text, def))
			mismatch("%s: HC_TRACE_CALL(%s) outside %s, which that file does not define",
				 call_sites[i].file, call_sites[i].name, function);
		free(text);
	}
	for (size_t i = 0; i < n_doc_fns; i++) {
		size_t k = 0;

		if (!doc_fns[i].emitted)
			continue;
		while (k < n_call_sites && strcmp(doc_fns[i].function + 3, call_sites[k].name) != 0)
			k++;
		if (k == n_call_sites)
			mismatch("%s: doc/trace-events.md:%d says it emits `call`, but core/ and hal/ have no "
				 "HC_TRACE_CALL(%s)",
				 doc_fns[i].function, doc_fns[i].line, doc_fns[i].function + 3);
	}
	for (size_t i = 0; i < N_PROVIDER; i++) {
		const struct doc_event *d = doc_event(provider[i].name);
		int quiet = d && strncmp(d->third, "not emitted", 11) == 0, sites = 0;

		if (strcmp(provider[i].name, "call") == 0)
			continue; /* HC_TRACE_CALL, above */
		for (size_t k = 0; k < n_trace_sites; k++)
			sites += strcmp(trace_sites[k].name, provider[i].name) == 0;
		if (!sites && !quiet)
			mismatch("event `%s`: no HC_TRACE site in core/ or hal/, and doc/trace-events.md does "
				 "not say \"not emitted\"",
				 provider[i].name);
		if (sites && quiet)
			mismatch("event `%s`: doc/trace-events.md:%d says \"not emitted\", but core/ or hal/ "
				 "emit it",
				 provider[i].name, d->line);
	}
	ASSERT_NO_MISMATCH();
}
END_TEST

/* Each public function is in exactly one place of the document: the
 * "emitted by" column of an event, the fn tables, or the untraced list. */
START_TEST(every_public_call_placed_in_doc)
{
	static char names[128][NAME_LEN];
	size_t n;

	reset();
	read_doc();
	n = public_functions(names, TP_N(names));
	ck_assert_uint_gt(n, 30);
	for (size_t i = 0; i < n; i++) {
		unsigned places = 0;
		for (size_t k = 0; k < n_doc_events; k++) {
			char first[NAME_LEN];

			if (doc_events[k].emitted_by && backticked(doc_events[k].third, first, sizeof(first)) &&
			    strcmp(first, names[i]) == 0)
				places++;
		}
		places += doc_fn_of(names[i]) != NULL;
		for (size_t k = 0; k < n_doc_untraced; k++)
			places += strcmp(doc_untraced[k], names[i]) == 0;
		if (places != 1)
			mismatch("%s (include/hipcore/hipcore.h): %s in doc/trace-events.md", names[i],
				 places ? "in more than one place" : "neither an event, a fn id nor untraced");
	}
	for (size_t k = 0; k < n_doc_untraced; k++) {
		size_t i = 0;

		while (i < n && strcmp(names[i], doc_untraced[k]) != 0)
			i++;
		if (i == n)
			mismatch("doc/trace-events.md names %s as untraced; include/hipcore/hipcore.h has no such "
				 "function",
				 doc_untraced[k]);
	}
	ASSERT_NO_MISMATCH();
}
END_TEST

static Suite *trace_schema_suite(void)
{
	Suite *s = suite_create("trace_schema");
	TCase *tc = tcase_create("schema");

	tcase_add_test(tc, provider_matches_doc);
	tcase_add_test(tc, reader_matches_provider);
	tcase_add_test(tc, fn_ids_match_doc);
	tcase_add_test(tc, emitted_calls_match_doc);
	tcase_add_test(tc, every_public_call_placed_in_doc);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(trace_schema_suite);
