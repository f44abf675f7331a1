/*
 * read_ctf.c - libhipcore LTTng traces (CTF) through libbabeltrace2.
 *
 * Graph: one source.ctf.fs per directory that holds a `metadata` file (found
 * with nftw: the component does not recurse, and one component takes only
 * traces of one UUID), every output port into one filter.utils.muxer (which
 * grows a new input port each time its last one is connected), the muxer
 * into a simple sink.  The reader pulls: when its queue is empty it runs the
 * graph one step (bt_graph_run_once), in which the sink takes one batch of
 * messages from its iterator and turns the hipcore events into replay
 * events.  So memory is the batch plus the stream map, whatever the trace's
 * length.
 *
 * Event names and payload field names are in the tables of ctf_names.h:
 * the tracing side defines them, and tests/check_trace_schema.c holds those
 * tables to trace/hipcore_tp.h.
 * Fields are looked up by name, once per event class (later events of the
 * class use the member indexes found then); numbers may be signed or
 * unsigned; extra fields are ignored.  Events of other names are skipped.
 *
 * Measured kernel times: hipcore:kernel_time (a HIP device opened with
 * time_kernels) comes at a fence after its launch, too late for a reader
 * that streams.  When a trace's metadata declares it (LTTng declares every
 * event of the provider, so any `hipsim record` trace does), the reader
 * watches the replay pass: as long as every launch so far ran on a stream
 * whose stream_open and device_open are in the trace and name the
 * simulator (which never times kernels), there is nothing to look up.  At
 * the first launch for which that is not known, or a device_open of
 * another backend (or a kernel_time), and before any further event is
 * handed out, a first pass reads the whole trace once keeping only
 * kernel_time (ordinal -> duration_ns); from then on the n-th launch with
 * status 0 gets the duration of ordinal n, in place of the launch event's
 * duration_ns hint.  So a trace recorded on the simulator is read once,
 * and one that times kernels twice, as before.  Ordinals count one
 * device's launches: a trace of several devices or processes that time
 * kernels mixes them (the last one read wins), and in a trace that mixes
 * simulated and timed devices, launches handed out before the first pass
 * keep their hints.
 *
 * Processes: a trace of several processes (LTTng's per-user buffers hold
 * every traced process's events, told apart by the vpid context that
 * `hipsim record` adds; per-process buffers give one trace directory per
 * process, whose environment names its vpid) cannot be replayed as one:
 * each process's library numbers its handles from the same start, so their
 * ids collide.  With a pid chosen (--pid) the events of other processes are
 * skipped before anything else looks at them.  Without one, the first
 * event's process is the one replayed; at the first event of another the
 * reader stops handing out events, reads the rest of the trace only to
 * count the events of each process, and ends with an error that lists them
 * and names --pid.  Events whose process is not known belong to the one.
 *
 * Before libbabeltrace2 sees a trace directory, ctf_files.c checks its
 * files: a metadata file or stream file cut short is an error at open; an
 * empty or missing stream file (whose events libbabeltrace2 would skip
 * silently) is an error at the end, after the events of the others, so the
 * replay is reported as the partial one it is.  The largest packet found
 * bounds the dynamic-array lengths libbabeltrace2 may allocate for
 * (ctf_array_guard.h).  libbabeltrace2's components log nothing unless the
 * read options say verbose: their errors reach the message anyway.
 *
 * hs_ctf_open_source() (tests and fuzzing only) builds the same graph around
 * a source component of the caller's in place of the source.ctf.fs ones;
 * the per-event path (consume, convert_event) is the same code.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tools/hipsim/ctf_names.h"
#include "tools/hipsim/read_ctf.h"
#include "tools/hipsim/read_options.h"

#ifndef HIPCORE_WITH_BABELTRACE2

int hs_ctf_open(const char *path, struct hs_trace **out, char *err, size_t errlen)
{
	(void)out;
	snprintf(err, errlen, "%s: CTF reading is not built in (configure found no babeltrace2)", path);
	return -1;
}

int hs_ctf_open_with(const char *path, const struct hs_read_options *o, struct hs_trace **out, char *err,
		     size_t errlen)
{
	(void)o;
	return hs_ctf_open(path, out, err, errlen);
}

int hs_ctf_open_unchecked(const char *path, const struct hs_read_options *o, struct hs_trace **out, char *err,
			  size_t errlen)
{
	(void)o;
	return hs_ctf_open(path, out, err, errlen);
}

int hs_ctf_open_source(const char *name, hs_ctf_add_source_fn add_source, void *data, int ktime_watch,
		       struct hs_trace **out, char *err, size_t errlen)
{
	(void)add_source, (void)data, (void)ktime_watch;
	return hs_ctf_open(name, out, err, errlen);
}

#else /* HIPCORE_WITH_BABELTRACE2 */

#include <babeltrace2/babeltrace.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "tools/hipsim/ctf_array_guard.h"
#include "tools/hipsim/ctf_files.h"
#include "tools/hipsim/idmap.h"

/* What an event class becomes, resolved once: payload member index per role. */
struct ctf_class {
	int replayed;
	int cache; /* hipcore:cache */
	int ktime; /* hipcore:kernel_time */
	int devopen; /* hipcore:device_open */
	enum hs_rev_kind kind;
	int64_t idx[R_COUNT]; /* -1: absent */
	/* What field_u64() would find at idx[role], known from the payload's
	 * class (a member's fields all have the member's class), so that an
	 * event's numbers are read without asking each field its type. */
	unsigned char ftype[R_COUNT];
	/* The same for the elements of the parallel binding arrays
	 * (R_BIND_BUFFER + k): FT_OTHER when the member is not an array. */
	unsigned char etype[4];
};

enum { FT_OTHER, FT_UNSIGNED, FT_SIGNED, FT_BOOL };

#define CTF_MAX_LISTED 16 /* processes named in the several-processes error */

struct ctf_reader {
	struct hs_trace base;
	char *path;
	bt_graph *graph;
	int ended, failed;

	struct hs_rev *queue; /* ring */
	size_t qhead, qlen, qcap;

	struct hs_idmap streams; /* trace stream id -> dense index */
	uint32_t nstreams;
	struct hs_idmap classes; /* event class address -> index in cls */
	struct ctf_class *cls;
	size_t ncls, capcls;
	uint64_t messages, discarded, ignored;
	/* The last hipcore:cache event not yet claimed by a launch. */
	int cache_pending;
	uint64_t cache_stream, cache_kind, cache_key;

	int device_seen;        /* the first device_open's geometry went out */
	int prescan;            /* the first pass: kernel_time only */
	struct hs_idmap ktimes; /* launch ordinal -> measured duration_ns */
	uint64_t nktimes;       /* entries in ktimes */
	uint64_t launches_ok;   /* launches with status 0 so far */
	/* The metadata declares kernel_time but no first pass has run: it runs
	 * (prescan_wanted) before the next event is handed out once a launch
	 * could have a measured time, i.e. once a device_open names a backend
	 * other than the simulator or a launch's stream is not known to belong
	 * to a simulated device. */
	int ktime_watch, prescan_wanted;
	struct hs_idmap sim_devices; /* device handle -> 1, opened on the simulator */
	struct hs_idmap sim_streams; /* trace stream id -> 1, of such a device */
	char **dirs; /* the trace directories found (for a late first pass) */
	size_t ndirs;
	hs_ctf_add_source_fn add_source; /* hs_ctf_open_source(): the caller's source */
	void *source_data;
	const bt_event_class *last_ec; /* one-entry cache in front of classes */
	const struct ctf_class *last_cls;

	bt_logging_level log_level; /* of libbabeltrace2's components */
	struct hs_ctf_files files;  /* what ctf_files.c found */
	/* Processes (see the top of the file). */
	int have_filter, have_first, listing;
	uint64_t filter_pid, first_pid, first_events;
	struct { uint64_t pid, events; } pids[CTF_MAX_LISTED];
	unsigned npids;
	uint64_t unlisted; /* processes beyond CTF_MAX_LISTED */
	const bt_field_class *ctx_fc; /* the last event context class seen */
	int64_t vpid_idx;	      /* its vpid member, or -1 */
	unsigned char vpid_type;
	const bt_trace *env_trace; /* the last trace whose environment was read */
	int env_has;
	uint64_t env_pid;
};

static void set_error(struct ctf_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The event named is the one that would come next after those handed out
 * and those queued: ctf_next hands the queued ones out before the -1. */
static void set_error(struct ctf_reader *r, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->base.error, sizeof(r->base.error), "%s: event %" PRIu64 ": %s", r->path,
		 r->base.events + r->qlen, msg);
	r->failed = 1;
}

/* The first cause of @e into @buf, then @e is released (NULL: a generic text). */
static void bt_message_of(const bt_error *e, char *buf, size_t len)
{
	uint64_t n;

	if (!e) {
		snprintf(buf, len, "babeltrace2 failed");
		return;
	}
	n = bt_error_get_cause_count(e);
	if (n > 0) /* the plugin's own words; later causes are the graph's */
		snprintf(buf, len, "%s", bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, 0)));
	else
		snprintf(buf, len, "babeltrace2 failed");
	bt_error_release(e);
}

/* The first cause of babeltrace2's current error, then the error is released. */
static void bt_message_of_error(char *buf, size_t len)
{
	bt_message_of(bt_current_thread_take_error(), buf, len);
}

/* --- payload fields ----------------------------------------------------- */

/* How a number is read from a field of class @fc (FT_OTHER: it holds none). */
static unsigned char ftype_of(const bt_field_class *fc)
{
	bt_field_class_type t = bt_field_class_get_type(fc);

	return bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER) ? FT_UNSIGNED
	       : bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER) ? FT_SIGNED
	       : t == BT_FIELD_CLASS_TYPE_BOOL				       ? FT_BOOL
									       : FT_OTHER;
}

/* The number in @f, whose class ftype_of() called @type: 1, or 0 for FT_OTHER. */
static inline int typed_u64(const bt_field *f, unsigned char type, uint64_t *out)
{
	switch (type) {
	case FT_UNSIGNED:
		*out = bt_field_integer_unsigned_get_value(f);
		return 1;
	case FT_SIGNED:
		*out = (uint64_t)bt_field_integer_signed_get_value(f);
		return 1;
	case FT_BOOL:
		*out = bt_field_bool_get_value(f);
		return 1;
	default:
		return 0;
	}
}

/* The number in @f (any integer or bool field); 0 when @f is NULL or holds none. */
static int field_u64(const bt_field *f, uint64_t *out)
{
	return f ? typed_u64(f, ftype_of(bt_field_borrow_class_const(f)), out) : 0;
}

static const bt_field *member(const bt_field *s, const char *name)
{
	if (!s || bt_field_get_class_type(s) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return NULL;
	return bt_field_structure_borrow_member_field_by_name_const(s, name);
}

static int get_u64(const bt_field *payload, const char *const *names, uint64_t *out)
{
	for (; *names; names++)
		if (field_u64(member(payload, *names), out))
			return 1;
	return 0;
}

static int is_array(const bt_field *f)
{
	return f && bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_ARRAY);
}

static const bt_field *by_index(const bt_field *payload, int64_t idx)
{
	return idx < 0 ? NULL : bt_field_structure_borrow_member_field_by_index_const(payload, (uint64_t)idx);
}

/* field_u64() of the member in @role of @payload, through c->ftype. */
static inline int role_u64(const bt_field *payload, const struct ctf_class *c, int role, uint64_t *out)
{
	if (c->ftype[role] == FT_OTHER)
		return 0;
	return typed_u64(bt_field_structure_borrow_member_field_by_index_const(payload, (uint64_t)c->idx[role]),
			 c->ftype[role], out);
}

static int decode_bindings(struct ctf_reader *r, const struct ctf_class *c, const bt_field *payload,
			   struct hs_rev *ev)
{
	const bt_field *arr = by_index(payload, c->idx[R_BINDINGS]), *par[4];
	uint64_t n = 0, len[4];

	ev->n_bindings = 0;
	if (is_array(arr)) {
		n = bt_field_array_get_length(arr);
		if (n > HS_REV_MAX_BINDINGS)
			goto too_many;
		for (uint64_t i = 0; i < n; i++) {
			const bt_field *e = bt_field_array_borrow_element_field_by_index_const(arr, i);
			struct hs_rev_binding *b = &ev->bindings[i];
			uint64_t access = 3;

			b->buffer = b->offset = b->size = 0;
			if (!get_u64(e, f_buffer, &b->buffer))
				field_u64(e, &b->buffer); /* an array of plain ids */
			get_u64(e, f_offset, &b->offset);
			get_u64(e, f_size, &b->size);
			field_u64(member(e, f_bind_struct_access), &access);
			b->access = (uint32_t)access;
		}
		ev->n_bindings = (uint32_t)n;
		return 0;
	}
	for (int k = 0; k < 4; k++) {
		par[k] = by_index(payload, c->idx[R_BIND_BUFFER + k]);
		if (par[k] && !is_array(par[k]))
			par[k] = NULL;
	}
	if (!par[0])
		return 0;
	for (int k = 0; k < 4; k++)
		len[k] = par[k] && c->etype[k] != FT_OTHER ? bt_field_array_get_length(par[k]) : 0;
	n = bt_field_array_get_length(par[0]);
	if (n > HS_REV_MAX_BINDINGS)
		goto too_many;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v[4] = { 0, 0, 0, 3 };

		for (int k = 0; k < 4; k++)
			if (i < len[k])
				typed_u64(bt_field_array_borrow_element_field_by_index_const(par[k], i), c->etype[k],
					  &v[k]);
		ev->bindings[i] = (struct hs_rev_binding){ v[0], v[1], v[2], (uint32_t)v[3] };
	}
	ev->n_bindings = (uint32_t)n;
	return 0;

too_many:
	set_error(r, "launch with %" PRIu64 " bindings (at most %d)", n, HS_REV_MAX_BINDINGS);
	return -1;
}

/* --- the queue ---------------------------------------------------------- */

static struct hs_rev *push(struct ctf_reader *r)
{
	if (r->qlen == r->qcap) {
		size_t cap = r->qcap ? r->qcap * 2 : 64;
		struct hs_rev *q = malloc(cap * sizeof(*q));

		if (!q)
			return NULL;
		for (size_t i = 0; i < r->qlen; i++)
			q[i] = r->queue[(r->qhead + i) % r->qcap];
		free(r->queue);
		r->queue = q;
		r->qcap = cap;
		r->qhead = 0;
	}
	return &r->queue[(r->qhead + r->qlen++) % r->qcap];
}

/* The member of @fc named by the first of @names present, or -1. */
static int64_t member_index(const bt_field_class *fc, const char *const *names)
{
	uint64_t n = bt_field_class_structure_get_member_count(fc);

	for (; *names; names++)
		for (uint64_t i = 0; i < n; i++)
			if (strcmp(bt_field_class_structure_member_get_name(
					   bt_field_class_structure_borrow_member_by_index_const(fc, i)),
				   *names) == 0)
				return (int64_t)i;
	return -1;
}

/* The class's resolved description, made at its first event; NULL: no memory. */
static const struct ctf_class *class_of(struct ctf_reader *r, const bt_event_class *ec)
{
	const bt_field_class *fc;
	struct ctf_class *c;
	const char *name;
	uint64_t v;

	if (ec == r->last_ec)
		return r->last_cls;
	if (hs_idmap_get(&r->classes, (uint64_t)(uintptr_t)ec, &v)) {
		r->last_ec = ec;
		return r->last_cls = &r->cls[v];
	}
	if (r->ncls == r->capcls) {
		size_t cap = r->capcls ? r->capcls * 2 : 16;
		struct ctf_class *n = realloc(r->cls, cap * sizeof(*n));

		if (!n)
			return NULL;
		r->cls = n;
		r->capcls = cap;
	}
	c = &r->cls[r->ncls];
	memset(c, 0, sizeof(*c));
	name = bt_event_class_get_name(ec);
	c->ktime = name && strcmp(name, ktime_event) == 0;
	c->devopen = name && strcmp(name, devopen_event) == 0;
	for (size_t i = 0; name && i < CTF_N_EVENTS; i++)
		if (strcmp(name, ctf_events[i].name) == 0) {
			c->replayed = 1;
			c->kind = ctf_events[i].kind;
		}
	if (name && strcmp(name, CTF_CACHE_EVENT) == 0)
		c->cache = 1;
	fc = bt_event_class_borrow_payload_field_class_const(ec);
	for (int k = 0; k < R_COUNT; k++) {
		const bt_field_class *mfc;

		c->idx[k] = fc && bt_field_class_get_type(fc) == BT_FIELD_CLASS_TYPE_STRUCTURE
				    ? member_index(fc, role_names[k])
				    : -1;
		if (c->idx[k] < 0)
			continue;
		mfc = bt_field_class_structure_member_borrow_field_class_const(
			bt_field_class_structure_borrow_member_by_index_const(fc, (uint64_t)c->idx[k]));
		c->ftype[k] = ftype_of(mfc);
		if (k >= R_BIND_BUFFER && k <= R_BIND_ACCESS &&
		    bt_field_class_type_is(bt_field_class_get_type(mfc), BT_FIELD_CLASS_TYPE_ARRAY))
			c->etype[k - R_BIND_BUFFER] =
				ftype_of(bt_field_class_array_borrow_element_field_class_const(mfc));
	}
	if (hs_idmap_put(&r->classes, (uint64_t)(uintptr_t)ec, r->ncls) != 0)
		return NULL;
	r->last_ec = NULL; /* cls may have moved */
	return &r->cls[r->ncls++];
}

/* The process of event @e: its vpid context member, else its trace's vpid
 * environment entry.  Return: 1 with *@pid, 0 when neither is there. */
static int event_pid(struct ctf_reader *r, const bt_event *e, uint64_t *pid)
{
	const bt_field *cc = bt_event_borrow_common_context_field_const(e);
	const bt_trace *tr;

	if (cc) {
		const bt_field_class *fc = bt_field_borrow_class_const(cc);

		if (fc != r->ctx_fc) {
			r->ctx_fc = fc;
			r->vpid_idx = bt_field_class_get_type(fc) == BT_FIELD_CLASS_TYPE_STRUCTURE
					      ? member_index(fc, f_vpid)
					      : -1;
			r->vpid_type = r->vpid_idx < 0 ? FT_OTHER
						       : ftype_of(bt_field_class_structure_member_borrow_field_class_const(
							       bt_field_class_structure_borrow_member_by_index_const(
								       fc, (uint64_t)r->vpid_idx)));
		}
		if (r->vpid_idx >= 0 &&
		    typed_u64(bt_field_structure_borrow_member_field_by_index_const(cc, (uint64_t)r->vpid_idx),
			      r->vpid_type, pid))
			return 1;
	}
	tr = bt_stream_borrow_trace_const(bt_event_borrow_stream_const(e));
	if (tr != r->env_trace) {
		const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(tr, "vpid");

		r->env_trace = tr;
		r->env_has = v && (bt_value_is_signed_integer(v) || bt_value_is_unsigned_integer(v));
		if (r->env_has)
			r->env_pid = bt_value_is_signed_integer(v) ? (uint64_t)bt_value_integer_signed_get(v)
								   : bt_value_integer_unsigned_get(v);
	}
	*pid = r->env_pid;
	return r->env_has;
}

/* Counts an event of process @pid for the several-processes error. */
static void count_pid(struct ctf_reader *r, uint64_t pid, uint64_t n)
{
	for (unsigned i = 0; i < r->npids; i++)
		if (r->pids[i].pid == pid) {
			r->pids[i].events += n;
			return;
		}
	if (r->npids < CTF_MAX_LISTED) {
		r->pids[r->npids].pid = pid;
		r->pids[r->npids++].events = n;
	} else {
		r->unlisted++; /* once per event beyond: an upper bound, said as such */
	}
}

/* Whether event @e is of the process replayed (see the top of the file).
 * Return: 1 yes, 0 skip it. */
static int of_our_process(struct ctf_reader *r, const bt_event *e)
{
	uint64_t pid;

	if (!event_pid(r, e, &pid))
		return !r->listing;
	if (r->have_filter) {
		if (pid == r->filter_pid) {
			r->first_events++;
			return 1;
		}
		if (!r->prescan)
			count_pid(r, pid, 1); /* named if the one chosen has none */
		return 0;
	}
	if (r->prescan)
		return 1;
	if (!r->have_first) {
		r->have_first = 1;
		r->first_pid = pid;
	}
	if (pid == r->first_pid && !r->listing) {
		r->first_events++;
		return 1;
	}
	if (!r->listing) {
		r->listing = 1;
		count_pid(r, r->first_pid, r->first_events);
	}
	count_pid(r, pid, 1);
	return 0;
}

/* The several-processes error (or, with --pid, the none-of-that-process
 * one), once the whole trace was counted. */
static void processes_error(struct ctf_reader *r)
{
	char list[300] = "";
	size_t n = 0;

	for (unsigned i = 0; i < r->npids && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%spid %" PRIu64 " (%" PRIu64 " events)",
				      i ? ", " : "", r->pids[i].pid, r->pids[i].events);
	if (r->have_filter)
		set_error(r, "no event of process %" PRIu64 " (--pid) in the trace, which holds %s%s",
			  r->filter_pid, list, r->unlisted ? ", and more" : "");
	else
		set_error(r,
			  "the trace holds the events of %u%s processes: %s%s; their handle ids collide, so "
			  "hipsim replays one process at a time: choose one with --pid",
			  r->npids, r->unlisted ? " or more" : "", list, r->unlisted ? ", and more" : "");
}

static int convert_event(struct ctf_reader *r, const bt_message *m)
{
	const bt_event *e = bt_message_event_borrow_event_const(m);
	const bt_field *payload = bt_event_borrow_payload_field_const(e);
	const struct ctf_class *c = class_of(r, bt_event_borrow_class_const(e));
	enum hs_rev_kind kind;
	struct hs_rev ev;
	uint64_t sid = 0, v, status = 0;
	int has_stream;

	if (!c)
		goto oom;
	if (!c->replayed && !c->cache && !c->ktime && !c->devopen) {
		r->ignored++;
		return 0;
	}
	if (!of_our_process(r, e)) {
		r->ignored++;
		return 0;
	}
	if (c->ktime && r->prescan) {
		uint64_t ord, dur;

		if (role_u64(payload, c, R_ORDINAL, &ord) &&
		    role_u64(payload, c, R_DURATION, &dur)) {
			if (hs_idmap_put(&r->ktimes, ord, dur) != 0)
				goto oom;
			r->nktimes++;
		}
		return 0;
	}
	if (r->prescan)
		return 0;
	if (r->ktime_watch && (c->devopen || c->ktime)) {
		uint64_t dev = 0, backend = 0;

		role_u64(payload, c, R_DEVICE, &dev);
		if (c->ktime || !role_u64(payload, c, R_BACKEND, &backend) ||
		    backend != CTF_BACKEND_SIM)
			r->prescan_wanted = 1;
		else if (hs_idmap_put(&r->sim_devices, dev, 1) != 0)
			goto oom;
	}
	if (c->cache) {
		uint64_t kind_v = 0;

		role_u64(payload, c, R_CACHE_KIND, &kind_v);
		if (kind_v != 2) { /* an eviction follows its miss: keep the miss */
			r->cache_pending = 1;
			r->cache_kind = kind_v;
			r->cache_key = 0;
			r->cache_stream = 0;
			role_u64(payload, c, R_CACHE_KEY, &r->cache_key);
			role_u64(payload, c, R_STREAM, &r->cache_stream);
		}
		r->ignored++;
		return 0;
	}
	/* The first device's geometry (fields appended to device_open within
	 * format 1; older traces have none): HS_REV_DEVICE, ahead of its
	 * streams, so that replay can open a device like it. */
	if (c->devopen && !r->device_seen && role_u64(payload, c, R_TOTAL_MEMORY, &v) && v) {
		struct hs_rev *q = push(r);

		if (!q)
			goto oom;
		memset(q, 0, offsetof(struct hs_rev, bindings));
		q->kind = HS_REV_DEVICE;
		q->size = v;
		role_u64(payload, c, R_ALIGNMENT, &q->offset);
		role_u64(payload, c, R_DEVICE, &q->buffer);
		r->device_seen = 1;
		return 0;
	}
	if (!c->replayed) {
		r->ignored++;
		return 0;
	}
	kind = c->kind;
	memset(&ev, 0, offsetof(struct hs_rev, bindings));
	ev.kind = kind;
	if (bt_message_event_borrow_stream_class_default_clock_class_const(m)) {
		int64_t ns;

		if (bt_clock_snapshot_get_ns_from_origin(bt_message_event_borrow_default_clock_snapshot_const(m),
							 &ns) == BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK &&
		    ns > 0)
			ev.time_ns = (uint64_t)ns;
	}
	has_stream = role_u64(payload, c, R_STREAM, &sid);
	role_u64(payload, c, R_BUFFER, &ev.buffer);
	role_u64(payload, c, R_SIZE, &ev.size);
	role_u64(payload, c, R_OFFSET, &ev.offset);
	if (role_u64(payload, c, R_PROPERTY, &v))
		ev.property = (uint32_t)v;
	role_u64(payload, c, R_DURATION, &ev.duration_ns);
	if (role_u64(payload, c, R_INFO, &v))
		ev.info_words = (uint32_t)v;
	role_u64(payload, c, R_GRAPH, &ev.graph);
	/* An alloc whose status is not 0 (HC_OK) failed when recorded. */
	if (kind == HS_REV_ALLOC && role_u64(payload, c, R_STATUS, &status) && status != 0)
		ev.kind = HS_REV_ALLOC_FAILURE;
	if (kind == HS_REV_LAUNCH && decode_bindings(r, c, payload, &ev) != 0)
		return -1;
	if (kind == HS_REV_LAUNCH && r->cache_pending && r->cache_stream == sid) {
		static const uint32_t of_kind[4] = { HS_REV_INFO_HIT, HS_REV_INFO_MISS, 0,
						     HS_REV_INFO_UNCACHED };

		ev.info_cache = r->cache_kind < 4 ? of_kind[r->cache_kind] : HS_REV_INFO_UNKNOWN;
		ev.info_key = r->cache_key;
	}
	if (kind == HS_REV_LAUNCH)
		r->cache_pending = 0;
	/* A launch that ran gets its ordinal in .line (0 for CTF events) until
	 * ctf_next hands it out and looks up its measured time. */
	if (kind == HS_REV_LAUNCH &&
	    (!role_u64(payload, c, R_STATUS, &status) || status == 0)) {
		ev.line = ++r->launches_ok;
		if (r->ktime_watch && !r->prescan_wanted && !hs_idmap_get(&r->sim_streams, sid, &v))
			r->prescan_wanted = 1;
	}
	if (r->ktime_watch && kind == HS_REV_STREAM_CREATE && has_stream &&
	    role_u64(payload, c, R_DEVICE, &v) && hs_idmap_get(&r->sim_devices, v, &v) &&
	    hs_idmap_put(&r->sim_streams, sid, 1) != 0)
		goto oom;
	ev.stream_id = sid;
	if (has_stream) {
		if (!hs_idmap_get(&r->streams, sid, &v)) {
			if (r->nstreams == HS_REV_MAX_STREAMS) {
				set_error(r,
					  "stream %" PRIu64 " is the trace's %uth: hipsim replays at most %u streams "
					  "(libhipcore opens at most %u per device)",
					  sid, HS_REV_MAX_STREAMS + 1, HS_REV_MAX_STREAMS, HS_REV_MAX_STREAMS);
				return -1;
			}
			v = r->nstreams++;
			if (hs_idmap_put(&r->streams, sid, v) != 0)
				goto oom;
			if (kind != HS_REV_STREAM_CREATE) { /* announce it first */
				struct hs_rev *sc = push(r);

				if (!sc)
					goto oom;
				memset(sc, 0, offsetof(struct hs_rev, bindings));
				sc->kind = HS_REV_STREAM_CREATE;
				sc->stream = (uint32_t)v;
				sc->stream_id = sid;
				sc->time_ns = ev.time_ns;
			}
		} else if (kind == HS_REV_STREAM_CREATE) {
			return 0; /* already announced */
		}
		ev.stream = (uint32_t)v;
	}
	{
		struct hs_rev *q = push(r);

		if (!q)
			goto oom;
		memcpy(q, &ev, offsetof(struct hs_rev, bindings) + ev.n_bindings * sizeof(ev.bindings[0]));
	}
	return 0;

oom:
	set_error(r, "out of memory");
	return -1;
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it, void *data)
{
	struct ctf_reader *r = data;
	bt_message_array_const msgs;
	uint64_t count = 0;
	int rc = 0;

	switch (bt_message_iterator_next(it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		hs_note_progress(count);
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < count; i++) {
		const bt_message *m = msgs[i];

		r->messages++;
		switch (bt_message_get_type(m)) {
		case BT_MESSAGE_TYPE_EVENT:
			r->base.source_events++;
			if (rc == 0)
				rc = convert_event(r, m);
			break;
		case BT_MESSAGE_TYPE_DISCARDED_EVENTS: {
			uint64_t n = 1;

			bt_message_discarded_events_get_count(m, &n);
			r->discarded += n;
			break;
		}
		case BT_MESSAGE_TYPE_DISCARDED_PACKETS: {
			uint64_t n = 1;

			bt_message_discarded_packets_get_count(m, &n);
			r->discarded += n; /* packets: at least that many events */
			break;
		}
		default:
			break;
		}
		bt_message_put_ref(m);
	}
	return rc == 0 ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK
		       : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
}

static int prescan_ktimes(struct ctf_reader *r, char *err, size_t errlen);

static int ctf_next(struct hs_trace *t, struct hs_rev *ev)
{
	struct ctf_reader *r = (struct ctf_reader *)t;

	while (r->qlen == 0 || r->prescan_wanted) {
		if (r->prescan_wanted) {
			char err[sizeof(r->base.error)];
			/* The step that queued the launch may have left an
			 * error (see below): set aside while the first pass
			 * calls libbabeltrace2, put back for the queue's end. */
			const bt_error *held = bt_current_thread_take_error();

			r->prescan_wanted = 0;
			r->ktime_watch = 0;
			if (prescan_ktimes(r, err, sizeof(err)) != 0) {
				/* The queued launch cannot have its measured
				 * time: nothing more is handed out. */
				if (held)
					bt_error_release(held);
				r->qlen = 0;
				set_error(r, "%s", err);
				return -1;
			}
			if (held)
				bt_current_thread_move_error(held);
			continue;
		}
		bt_graph_run_once_status st;
		const bt_error *pending;

		if (r->failed)
			return -1;
		/*
		 * A step can end OK, AGAIN or even END with an error still set
		 * on the thread: libbabeltrace2 2.0's CTF source, on a
		 * malformed event payload, hands over the messages it has and
		 * leaves the cause for later.  Any later libbabeltrace2 call
		 * on this thread then breaks its precondition and aborts the
		 * process (bt_graph_run_once() here, bt_plugin_find() when the
		 * next trace is opened); take the error first and report it as
		 * the read failure it is.
		 */
		pending = bt_current_thread_take_error();
		if (pending) {
			char msg[300];

			bt_message_of(pending, msg, sizeof(msg));
			set_error(r, "reading the trace: %s", msg);
			return -1;
		}
		if (r->ended)
			goto end;
		st = bt_graph_run_once(r->graph);
		if (st == BT_GRAPH_RUN_ONCE_STATUS_END) {
			r->ended = 1;
		} else if (st == BT_GRAPH_RUN_ONCE_STATUS_AGAIN) {
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
		} else if (st != BT_GRAPH_RUN_ONCE_STATUS_OK) {
			char msg[300];

			/*
			 * Ours, from consume(): the events of the batch before
			 * the bad one are queued and go out first, so what is
			 * read does not depend on where libbabeltrace2 cut
			 * its batches.
			 */
			if (r->failed) {
				bt_current_thread_clear_error();
				if (r->qlen == 0)
					return -1;
				continue;
			}
			bt_message_of_error(msg, sizeof(msg));
			set_error(r, "reading the trace: %s%s",
				  st == BT_GRAPH_RUN_ONCE_STATUS_MEMORY_ERROR ? "out of memory: " : "", msg);
			return -1;
		}
	}
	{
		const struct hs_rev *q = &r->queue[r->qhead];

		memcpy(ev, q, offsetof(struct hs_rev, bindings) + q->n_bindings * sizeof(q->bindings[0]));
	}
	if (ev->line) { /* a launch that ran: ordinal ev->line */
		uint64_t v;

		if (r->nktimes && hs_idmap_get(&r->ktimes, ev->line, &v))
			ev->duration_ns = v;
		ev->line = 0;
	}
	r->qhead = (r->qhead + 1) % r->qcap;
	r->qlen--;
	ev->index = t->events++;
	return 1;

end:
	if (r->discarded && !t->warning[0])
		snprintf(t->warning, sizeof(t->warning),
			 "%s: the tracer discarded %" PRIu64 " event(s): the replay is partial", r->path,
			 r->discarded);
	if (r->discarded)
		t->partial = true;
	if ((r->listing || (r->have_filter && !r->first_events && r->npids)) && !r->failed) {
		processes_error(r);
		return -1;
	}
	if (r->files.damaged && !r->failed) {
		set_error(r, "%s%s (the replay is partial)", r->files.damage,
			  r->files.damaged > 1 ? ", and more stream files like it" : "");
		t->partial = true;
		return -1;
	}
	if (r->failed)
		return -1;
	return 0;
}

static void ctf_close(struct hs_trace *t)
{
	struct ctf_reader *r = (struct ctf_reader *)t;

	/* Closed before the queue ran dry, an error a step left (see
	 * ctf_next) is still on the thread: it is this trace's, and the
	 * thread's next libbabeltrace2 call would abort on it. */
	bt_current_thread_clear_error();
	bt_graph_put_ref(r->graph);
	free(r->queue);
	hs_idmap_free(&r->streams);
	hs_idmap_free(&r->classes);
	hs_idmap_free(&r->ktimes);
	hs_idmap_free(&r->sim_devices);
	hs_idmap_free(&r->sim_streams);
	for (size_t i = 0; i < r->ndirs; i++)
		free(r->dirs[i]);
	free(r->dirs);
	free(r->cls);
	free(r->path);
	free(r);
}

/* --- finding traces ----------------------------------------------------- */

/* nftw has no user pointer: the walk's results go through these (one walk at a time). */
static char **walk_dirs;
static size_t walk_n, walk_cap;
static int walk_oom;

static int walk_cb(const char *fpath, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	if (type == FTW_F && strcmp(fpath + ftw->base, "metadata") == 0) {
		char *d = strndup(fpath, ftw->base ? (size_t)ftw->base - 1 : 0);

		if (walk_n == walk_cap) {
			size_t cap = walk_cap ? walk_cap * 2 : 8;
			char **n = realloc(walk_dirs, cap * sizeof(*n));

			if (!n) {
				free(d);
				walk_oom = 1;
				return 1;
			}
			walk_dirs = n;
			walk_cap = cap;
		}
		if (!d) {
			walk_oom = 1;
			return 1;
		}
		walk_dirs[walk_n++] = d;
	}
	return 0;
}

static void walk_free(void)
{
	for (size_t i = 0; i < walk_n; i++)
		free(walk_dirs[i]);
	free(walk_dirs);
	walk_dirs = NULL;
	walk_n = walk_cap = 0;
	walk_oom = 0;
}

/* Every output port of @src into the muxer's last (free) input port. */
static int connect_source(bt_graph *graph, const bt_component_source *src, const bt_component_filter *mux)
{
	for (uint64_t p = 0; p < bt_component_source_get_output_port_count(src); p++)
		if (bt_graph_connect_ports(graph, bt_component_source_borrow_output_port_by_index_const(src, p),
					   bt_component_filter_borrow_input_port_by_index_const(
						   mux, bt_component_filter_get_input_port_count(mux) - 1),
					   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
			return -1;
	return 0;
}

static int build_graph(struct ctf_reader *r, char **dirs, size_t ndirs, char *err, size_t errlen)
{
	const bt_plugin *ctf = NULL, *utils = NULL;
	const bt_component_filter *mux = NULL;
	const bt_component_sink *sink = NULL;
	char msg[300];
	int rc = -1;

	if ((ndirs > 0 &&
	     bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &ctf) != BT_PLUGIN_FIND_STATUS_OK) ||
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &utils) !=
		    BT_PLUGIN_FIND_STATUS_OK) {
		snprintf(err, errlen, "%s: babeltrace2 plugins 'ctf' and 'utils' not found", r->path);
		goto out;
	}
	r->graph = bt_graph_create(0);
	if (!r->graph)
		goto bt_fail;
	if (bt_graph_add_filter_component(r->graph, bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer"),
					  "mux", NULL, r->log_level, &mux) != BT_GRAPH_ADD_COMPONENT_STATUS_OK)
		goto bt_fail;
	for (size_t i = 0; i < ndirs; i++) {
		const bt_component_source *src = NULL;
		bt_value *params = bt_value_map_create(), *arr = NULL;
		char name[32];
		int ok;

		snprintf(name, sizeof(name), "src%zu", i);
		ok = params && bt_value_map_insert_empty_array_entry(params, "inputs", &arr) == BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK &&
		     bt_value_array_append_string_element(arr, dirs[i]) == BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK &&
		     bt_graph_add_source_component(r->graph, bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs"),
						   name, params, r->log_level, &src) == BT_GRAPH_ADD_COMPONENT_STATUS_OK;
		bt_value_put_ref(params);
		if (!ok || connect_source(r->graph, src, mux) != 0)
			goto bt_fail;
	}
	if (r->add_source) {
		const bt_component_source *src = NULL;

		if (r->add_source(r->graph, r->source_data, &src) != 0 || !src ||
		    connect_source(r->graph, src, mux) != 0)
			goto bt_fail;
	}
	if (bt_graph_add_simple_sink_component(r->graph, "sink", NULL, consume, NULL, r, &sink) !=
		    BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_connect_ports(r->graph, bt_component_filter_borrow_output_port_by_name_const(mux, "out"),
				   bt_component_sink_borrow_input_port_by_name_const(sink, "in"),
				   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
		goto bt_fail;
	rc = 0;
	goto out;

bt_fail:
	bt_message_of_error(msg, sizeof(msg));
	snprintf(err, errlen, "%s: %s", r->path, msg);
out:
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	return rc;
}

/* Whether any metadata file found by the walk names hipcore:kernel_time
 * (LTTng declares the event classes a session enabled; the text is plain
 * even in packetized metadata). */
static int metadata_declares_ktime(void)
{
	for (size_t i = 0; i < walk_n; i++) {
		char path[4096], *buf;
		FILE *f;
		size_t n;
		int found;

		snprintf(path, sizeof(path), "%s/metadata", walk_dirs[i]);
		f = fopen(path, "rb");
		if (!f)
			continue;
		buf = malloc(1 << 20);
		n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
		fclose(f);
		found = buf && memmem(buf, n, ktime_event + strlen("hipcore:"),
				      strlen(ktime_event) - strlen("hipcore:")) != NULL;
		free(buf);
		if (found)
			return 1;
	}
	return 0;
}

/* The first pass: every kernel_time of the trace into r->ktimes. */
static int prescan_ktimes(struct ctf_reader *r, char *err, size_t errlen)
{
	struct ctf_reader *pre = calloc(1, sizeof(*pre));
	struct hs_rev ev;
	int rc = -1;

	if (!pre) {
		snprintf(err, errlen, "%s: out of memory", r->path);
		return -1;
	}
	pre->path = r->path;
	pre->prescan = 1;
	pre->log_level = r->log_level;
	pre->have_filter = r->have_filter;
	pre->filter_pid = r->filter_pid;
	pre->add_source = r->add_source;
	pre->source_data = r->source_data;
	pre->base.path = r->path;
	hs_idmap_init(&pre->streams);
	hs_idmap_init(&pre->classes);
	hs_idmap_init(&pre->ktimes);
	if (build_graph(pre, r->dirs, r->ndirs, err, errlen) != 0)
		goto out;
	while ((rc = ctf_next(&pre->base, &ev)) > 0)
		;
	if (rc < 0) {
		const char *m = pre->base.error;
		size_t n = strlen(r->path);

		/* "PATH: event 0: CAUSE" (the first pass hands out no event):
		 * the caller puts its own path and event in front. */
		if (strncmp(m, r->path, n) == 0 && strncmp(m + n, ": event 0: ", 11) == 0)
			m += n + 11;
		snprintf(err, errlen, "the first pass (kernel times): %.400s", m); /* set_error keeps 400 */
		goto out;
	}
	hs_idmap_free(&r->ktimes);
	r->ktimes = pre->ktimes; /* moved */
	r->nktimes = pre->nktimes;
	hs_idmap_init(&pre->ktimes);
out:
	bt_graph_put_ref(pre->graph);
	free(pre->queue);
	hs_idmap_free(&pre->streams);
	hs_idmap_free(&pre->classes);
	hs_idmap_free(&pre->ktimes);
	free(pre->cls);
	free(pre);
	return rc;
}

/* A reader with no graph yet, or NULL with @err set. */
static struct ctf_reader *reader_new(const char *path, char *err, size_t errlen)
{
	struct ctf_reader *r = calloc(1, sizeof(*r));

	if (!r || !(r->path = strdup(path))) {
		free(r);
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	r->base.next = ctf_next;
	r->base.close = ctf_close;
	r->base.path = r->path;
	r->base.format = "ctf";
	r->log_level = BT_LOGGING_LEVEL_NONE;
	hs_idmap_init(&r->streams);
	hs_idmap_init(&r->classes);
	hs_idmap_init(&r->ktimes);
	hs_idmap_init(&r->sim_devices);
	hs_idmap_init(&r->sim_streams);
	return r;
}

int hs_ctf_open_source(const char *name, hs_ctf_add_source_fn add_source, void *data, int ktime_watch,
		       struct hs_trace **out, char *err, size_t errlen)
{
	struct ctf_reader *r = reader_new(name, err, errlen);

	if (!r)
		return -1;
	r->add_source = add_source;
	r->source_data = data;
	r->ktime_watch = ktime_watch != 0;
	hs_ctf_array_guard_packet_bytes(0); /* no packets: HS_CTF_ARRAY_MAX alone */
	if (build_graph(r, NULL, 0, err, errlen) != 0) {
		ctf_close(&r->base);
		return -1;
	}
	*out = &r->base;
	return 0;
}

/* hs_ctf_open_with(), with ctf_files.c's checks when @check. */
static int ctf_open(const char *path, const struct hs_read_options *o, int check, struct hs_trace **out,
		    char *err, size_t errlen)
{
	struct ctf_reader *r;
	struct stat st;

	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory (a CTF trace is a directory)", path);
		return -1;
	}
	r = reader_new(path, err, errlen);
	if (!r)
		return -1;
	if (o) {
		r->log_level = o->verbose ? BT_LOGGING_LEVEL_WARNING : BT_LOGGING_LEVEL_NONE;
		r->have_filter = o->have_pid;
		r->filter_pid = o->pid;
	}
	if (nftw(path, walk_cb, 32, FTW_PHYS) != 0 || walk_oom) {
		snprintf(err, errlen, "%s: cannot walk the directory: %s", path, walk_oom ? "out of memory" : strerror(errno));
		goto fail;
	}
	if (walk_n == 0) {
		snprintf(err, errlen, "%s: no CTF trace here (no 'metadata' file below it; a session that recorded "
			 "no event writes none)", path);
		goto fail;
	}
	for (size_t i = 0; check && i < walk_n; i++)
		if (hs_ctf_check_dir(walk_dirs[i], &r->files, err, errlen) != 0)
			goto fail;
	hs_ctf_array_guard_packet_bytes(r->files.max_packet_bytes);
	r->ktime_watch = metadata_declares_ktime();
	/* The reader keeps the list (a first pass may come later). */
	r->dirs = walk_dirs;
	r->ndirs = walk_n;
	walk_dirs = NULL;
	walk_n = walk_cap = 0;
	if (build_graph(r, r->dirs, r->ndirs, err, errlen) != 0)
		goto fail;
	walk_free();
	*out = &r->base;
	return 0;

fail:
	walk_free();
	ctf_close(&r->base);
	return -1;
}

int hs_ctf_open_with(const char *path, const struct hs_read_options *o, struct hs_trace **out, char *err,
		     size_t errlen)
{
	return ctf_open(path, o, 1, out, err, errlen);
}

int hs_ctf_open_unchecked(const char *path, const struct hs_read_options *o, struct hs_trace **out, char *err,
			  size_t errlen)
{
	return ctf_open(path, o, 0, out, err, errlen);
}

int hs_ctf_open(const char *path, struct hs_trace **out, char *err, size_t errlen)
{
	return ctf_open(path, NULL, 1, out, err, errlen);
}

#endif /* HIPCORE_WITH_BABELTRACE2 */
