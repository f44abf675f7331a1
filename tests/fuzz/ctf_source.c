/*
 * ctf_source.c - a babeltrace2 source component whose trace IR and event
 * messages are made from bytes (the format: tests/fuzz/fuzz_ctf_decode.c).
 * For fuzz_ctf_decode and check_readers, through hs_ctf_open_source().
 */
#include "config.h"

#include "tests/fuzz/ctf_source.h"

#ifdef HIPCORE_WITH_BABELTRACE2

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <babeltrace2/babeltrace.h>

#define MAX_EVENTS 2000
#define MAX_DEPTH 4
#define MAX_NODES 64      /* field classes per event class */
#define MAX_COST 4096     /* fields per event */
#define MAX_TOTAL 200000  /* fields per input (per pass) */

static const char *const event_names[] = {
	"hipcore:stream_open",	 "hipcore:alloc",	  "hipcore:free",	  "hipcore:write",
	"hipcore:read",		 "hipcore:launch",	  "hipcore:sync",	  "hipcore:graph_prepare",
	"hipcore:graph_begin",	 "hipcore:graph_end",	  "hipcore:graph_replay", "hipcore:graph_destroy",
	"hipcore:alloc_failure", "hipcore:cache",	  "hipcore:kernel_time",  "hipcore:device_open",
	"hipcore:launch",	 "hipcore:launch",	  "hipcore:unknown",	  "hipcore:",
	"launch",		 "lttng_ust_statedump:start", "hipcore:launch ",	  "",
	NULL, /* no name set */
};
#define N_EVENT_NAMES (sizeof(event_names) / sizeof(event_names[0]))

static const char *const member_names[] = {
	"stream_id",	  "stream",	    "buffer_id",      "buffer",		"size",	       "bytes",
	"offset",	  "property",	    "duration_ns",    "duration",	"info_words",  "info_size",
	"graph_id",	  "graph",	    "status",	      "ordinal",	"device",      "backend",
	"bindings",	  "binding_buffer", "binding_offset", "binding_size",	"binding_access", "kind",
	"key",		  "access",	    "bindings",	      "stream_id",	"x",	       "_stream_id",
	"",		  "stream_id2",
};
#define N_MEMBER_NAMES (sizeof(member_names) / sizeof(member_names[0]))

static const uint64_t freqs[] = { 1000000000, 1000, 1, 3, UINT64_C(1) << 32, UINT64_MAX - 1 };

/* --- reading the input --------------------------------------------------- */

struct cursor {
	const uint8_t *p;
	size_t n;
};

static uint8_t u8(struct cursor *c)
{
	if (c->n == 0)
		return 0;
	c->n--;
	return *c->p++;
}

static uint64_t var(struct cursor *c)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		uint8_t b = u8(c);

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int64_t svar(struct cursor *c)
{
	uint64_t v = var(c);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* --- the source: trace IR from the input ---------------------------------- */

struct iter {
	struct cursor c;
	bt_self_message_iterator *self;
	bt_trace_class *tc;
	bt_stream_class *sc;
	bt_trace *trace;
	bt_stream *streams[2];
	bt_event_class *ec[8];
	uint32_t ncls, nstreams;
	int clock, discarded;
	uint64_t now;		/* the last clock snapshot (they never go back) */
	enum { BEGIN, EVENTS, END, DONE } phase;
	uint32_t at;		/* streams begun or ended so far */
	uint32_t events, agains;
	uint64_t total;		/* fields set so far */
	int pending;		/* 1: AGAIN, 2: ERROR, returned by the next call */
};

/* Fields one instance of @fc has when its dynamic arrays are empty. */
static uint64_t cost(const bt_field_class *fc)
{
	bt_field_class_type t = bt_field_class_get_type(fc);

	if (t == BT_FIELD_CLASS_TYPE_STRUCTURE) {
		uint64_t n = 1;

		for (uint64_t i = 0; i < bt_field_class_structure_get_member_count(fc); i++)
			n += cost(bt_field_class_structure_member_borrow_field_class_const(
				bt_field_class_structure_borrow_member_by_index_const(fc, i)));
		return n;
	}
	if (t == BT_FIELD_CLASS_TYPE_STATIC_ARRAY)
		return 1 + bt_field_class_array_static_get_length(fc) *
				   cost(bt_field_class_array_borrow_element_field_class_const(fc));
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_OPTION))
		return 1 + cost(bt_field_class_option_borrow_field_class_const(fc));
	return 1;
}

static bt_field_class *make_struct(struct iter *it, int depth, int *nodes);

/* One field class from the input; NULL: out of memory. */
static bt_field_class *make_type(struct iter *it, int depth, int *nodes)
{
	struct cursor *c = &it->c;
	bt_field_class *fc = NULL, *el;
	int t;

	if (depth >= MAX_DEPTH || ++*nodes > MAX_NODES)
		return bt_field_class_integer_unsigned_create(it->tc);
	t = u8(c) % 16;
	switch (t) {
	case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7: {
		uint64_t bits = 1 + u8(c) % 64;

		fc = t < 4   ? bt_field_class_integer_unsigned_create(it->tc)
		     : t < 6 ? bt_field_class_integer_signed_create(it->tc)
		     : t == 6 ? bt_field_class_enumeration_unsigned_create(it->tc)
			      : bt_field_class_enumeration_signed_create(it->tc);
		if (fc)
			bt_field_class_integer_set_field_value_range(fc, bits);
		return fc;
	}
	case 8:
		return bt_field_class_bool_create(it->tc);
	case 9:
		return bt_field_class_string_create(it->tc);
	case 10:
		return u8(c) & 1 ? bt_field_class_real_single_precision_create(it->tc)
				 : bt_field_class_real_double_precision_create(it->tc);
	case 11: {
		uint64_t len = u8(c), each;

		el = make_type(it, depth + 1, nodes);
		if (!el)
			return NULL;
		each = cost(el);
		if (len * each > MAX_COST / 2)
			len = MAX_COST / 2 / each;
		fc = bt_field_class_array_static_create(it->tc, el, len);
		bt_field_class_put_ref(el);
		return fc;
	}
	case 12:
		el = make_type(it, depth + 1, nodes);
		if (!el)
			return NULL;
		fc = bt_field_class_array_dynamic_create(it->tc, el, NULL);
		bt_field_class_put_ref(el);
		return fc;
	case 13: case 14:
		return make_struct(it, depth + 1, nodes);
	default:
		el = make_type(it, depth + 1, nodes);
		if (!el)
			return NULL;
		fc = bt_field_class_option_without_selector_create(it->tc, el);
		bt_field_class_put_ref(el);
		return fc;
	}
}

static bt_field_class *make_struct(struct iter *it, int depth, int *nodes)
{
	bt_field_class *s = bt_field_class_structure_create(it->tc);
	int n = u8(&it->c) % 9;

	for (int i = 0; s && i < n; i++) {
		const char *name = member_names[u8(&it->c) % N_MEMBER_NAMES];
		bt_field_class *m = make_type(it, depth, nodes);
		int ok = 1;

		if (!m) {
			bt_field_class_put_ref(s);
			return NULL;
		}
		/* Unique names (a precondition); the whole event under MAX_COST. */
		if (!bt_field_class_structure_borrow_member_by_name(s, name) && cost(s) + cost(m) <= MAX_COST / 2)
			ok = bt_field_class_structure_append_member(s, name, m) ==
			     BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK;
		bt_field_class_put_ref(m);
		if (!ok) {
			bt_field_class_put_ref(s);
			return NULL;
		}
	}
	return s;
}

/* Sets @f and every field in it from the input; -1: out of memory. */
static int fill(struct iter *it, bt_field *f, uint64_t *budget)
{
	struct cursor *c = &it->c;
	const bt_field_class *fc = bt_field_borrow_class_const(f);
	bt_field_class_type t = bt_field_get_class_type(f);

	it->total++;
	if (*budget > 0)
		--*budget;
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
		uint64_t bits = bt_field_class_integer_get_field_value_range(fc), v = var(c);

		if (bits < 64)
			v &= (UINT64_C(1) << bits) - 1;
		bt_field_integer_unsigned_set_value(f, v);
	} else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
		uint64_t bits = bt_field_class_integer_get_field_value_range(fc);
		int64_t v = svar(c);

		if (bits < 64) /* sign-extend the low bits */
			v = (int64_t)((uint64_t)v << (64 - bits)) >> (64 - bits);
		bt_field_integer_signed_set_value(f, v);
	} else if (t == BT_FIELD_CLASS_TYPE_BOOL) {
		bt_field_bool_set_value(f, u8(c) & 1);
	} else if (t == BT_FIELD_CLASS_TYPE_STRING) {
		char s[32];
		size_t n = u8(c) % 24, i;

		for (i = 0; i < n && c->n > 0 && *c->p; i++)
			s[i] = (char)u8(c);
		s[i] = '\0';
		if (bt_field_string_set_value(f, s) != BT_FIELD_STRING_SET_VALUE_STATUS_OK)
			return -1;
	} else if (t == BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL ||
		   t == BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL) {
		uint64_t bits = 0;
		uint32_t low;
		double d;
		float x;

		for (int i = 0; i < 8; i++)
			bits |= (uint64_t)u8(c) << (8 * i);
		low = (uint32_t)bits;
		memcpy(&d, &bits, sizeof(d));
		memcpy(&x, &low, sizeof(x)); /* single: the low 4 bytes, any bits */
		if (t == BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL)
			bt_field_real_single_precision_set_value(f, x);
		else
			bt_field_real_double_precision_set_value(f, d);
	} else if (t == BT_FIELD_CLASS_TYPE_STRUCTURE) {
		for (uint64_t i = 0; i < bt_field_class_structure_get_member_count(fc); i++)
			if (fill(it, bt_field_structure_borrow_member_field_by_index(f, i), budget) != 0)
				return -1;
	} else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY)) {
		uint64_t len;

		if (t == BT_FIELD_CLASS_TYPE_STATIC_ARRAY) {
			len = bt_field_class_array_static_get_length(fc);
		} else {
			uint64_t each = cost(bt_field_class_array_borrow_element_field_class_const(fc));

			len = var(c) % 1024;
			if (len * each > *budget)
				len = *budget / each;
			if (bt_field_array_dynamic_set_length(f, len) != BT_FIELD_DYNAMIC_ARRAY_SET_LENGTH_STATUS_OK)
				return -1;
		}
		for (uint64_t i = 0; i < len; i++)
			if (fill(it, bt_field_array_borrow_element_field_by_index(f, i), budget) != 0)
				return -1;
	} else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_OPTION)) {
		int has = u8(c) & 1;

		bt_field_option_set_has_field(f, has);
		if (has && fill(it, bt_field_option_borrow_field(f), budget) != 0)
			return -1;
	}
	return 0;
}

static void iter_free(struct iter *it)
{
	if (!it)
		return;
	for (uint32_t i = 0; i < it->nstreams; i++)
		bt_stream_put_ref(it->streams[i]);
	for (uint32_t i = 0; i < it->ncls; i++)
		bt_event_class_put_ref(it->ec[i]);
	bt_trace_put_ref(it->trace);
	bt_stream_class_put_ref(it->sc);
	bt_trace_class_put_ref(it->tc);
	free(it);
}

/* The trace IR of the input's header; -1: out of memory. */
static int build_ir(struct iter *it, bt_self_component *comp)
{
	struct cursor *c = &it->c;
	uint8_t flags = u8(c);
	uint32_t n;

	it->clock = flags & 1;
	it->discarded = (flags >> 3) & 1;
	it->nstreams = 1 + ((flags >> 4) & 1);
	it->tc = bt_trace_class_create(comp);
	it->sc = it->tc ? bt_stream_class_create(it->tc) : NULL;
	if (!it->sc)
		return -1;
	if (it->clock) {
		bt_clock_class *cc = bt_clock_class_create(comp);
		uint64_t freq = freqs[u8(c) % (sizeof(freqs) / sizeof(freqs[0]))];
		int64_t secs = svar(c);
		uint64_t cycles = var(c) % freq;
		int ok;

		if (!cc)
			return -1;
		bt_clock_class_set_frequency(cc, freq);
		bt_clock_class_set_offset(cc, secs, cycles);
		bt_clock_class_set_origin_is_unix_epoch(cc, (flags >> 1) & 1);
		ok = bt_stream_class_set_default_clock_class(it->sc, cc) == BT_STREAM_CLASS_SET_DEFAULT_CLOCK_CLASS_STATUS_OK;
		bt_clock_class_put_ref(cc);
		if (!ok)
			return -1;
	}
	bt_stream_class_set_supports_discarded_events(it->sc, it->discarded, BT_FALSE);
	n = 1 + u8(c) % 8;
	for (; it->ncls < n; it->ncls++) {
		const char *name = event_names[u8(c) % N_EVENT_NAMES];
		bt_event_class *ec = bt_event_class_create(it->sc);
		int nodes = 0;

		if (!ec)
			return -1;
		it->ec[it->ncls] = ec;
		if (name && bt_event_class_set_name(ec, name) != BT_EVENT_CLASS_SET_NAME_STATUS_OK)
			return -1;
		if (u8(c) != 0) {
			bt_field_class *p = make_struct(it, 0, &nodes);
			int ok;

			if (!p)
				return -1;
			ok = bt_event_class_set_payload_field_class(ec, p) == BT_EVENT_CLASS_SET_FIELD_CLASS_STATUS_OK;
			bt_field_class_put_ref(p);
			if (!ok)
				return -1;
		}
	}
	it->trace = bt_trace_create(it->tc);
	if (!it->trace)
		return -1;
	for (uint32_t i = 0; i < it->nstreams; i++) {
		it->streams[i] = bt_stream_create(it->sc, it->trace);
		if (!it->streams[i]) {
			it->nstreams = i;
			return -1;
		}
	}
	return 0;
}

static bt_message_iterator_class_initialize_method_status
iter_init(bt_self_message_iterator *self, bt_self_message_iterator_configuration *conf,
	  bt_self_component_port_output *port)
{
	bt_self_component *comp = bt_self_message_iterator_borrow_component(self);
	const struct fz_ctf_input *in = bt_self_component_get_data(comp);
	struct iter *it = calloc(1, sizeof(*it));

	(void)conf;
	(void)port;
	if (!it)
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	it->self = self;
	it->c = (struct cursor){ in->data, in->size };
	if (build_ir(it, comp) != 0) {
		iter_free(it);
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	}
	bt_self_message_iterator_set_data(self, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void iter_fini(bt_self_message_iterator *self)
{
	iter_free(bt_self_message_iterator_get_data(self));
}

/* The next message of the input, or NULL with it->phase DONE or it->pending set. */
static const bt_message *next_message(struct iter *it, int *oom)
{
	struct cursor *c = &it->c;

	for (;;) {
		bt_message *m;
		uint8_t op;

		if (it->phase == BEGIN) {
			if (it->at < it->nstreams)
				return bt_message_stream_beginning_create(it->self, it->streams[it->at++]);
			it->phase = EVENTS;
		}
		if (it->phase == EVENTS && (c->n == 0 || it->events >= MAX_EVENTS || it->total >= MAX_TOTAL)) {
			it->phase = END;
			it->at = 0;
		}
		if (it->phase == END) {
			if (it->at < it->nstreams)
				return bt_message_stream_end_create(it->self, it->streams[it->at++]);
			it->phase = DONE;
		}
		if (it->phase == DONE)
			return NULL;
		it->events++;
		op = u8(c);
		if (op == 0xff) {
			it->pending = 2;
			return NULL;
		}
		if (op == 0xfd) {
			if (it->agains++ < 2) {
				it->pending = 1;
				return NULL;
			}
			continue;
		}
		if (op == 0xfe) {
			uint32_t s = u8(c) % it->nstreams;
			uint64_t n = 1 + var(c) % 1000000;

			if (!it->discarded)
				continue;
			m = bt_message_discarded_events_create(it->self, it->streams[s]);
			if (m)
				bt_message_discarded_events_set_count(m, n);
			*oom = !m;
			return m;
		}
		{
			bt_event_class *ec = it->ec[op % it->ncls];
			uint32_t s = it->nstreams > 1 ? u8(c) % it->nstreams : 0;
			uint64_t budget = MAX_COST;
			bt_field *payload;

			if (it->clock) {
				uint64_t d = var(c);

				it->now = d > UINT64_MAX - it->now ? UINT64_MAX : it->now + d;
				m = bt_message_event_create_with_default_clock_snapshot(it->self, ec, it->streams[s],
											 it->now);
			} else {
				m = bt_message_event_create(it->self, ec, it->streams[s]);
			}
			if (!m) {
				*oom = 1;
				return NULL;
			}
			payload = bt_event_borrow_payload_field(bt_message_event_borrow_event(m));
			if (payload && fill(it, payload, &budget) != 0) {
				bt_message_put_ref(m);
				*oom = 1;
				return NULL;
			}
			return m;
		}
	}
}

static bt_message_iterator_class_next_method_status iter_next(bt_self_message_iterator *self,
							       bt_message_array_const msgs, uint64_t capacity,
							       uint64_t *count)
{
	struct iter *it = bt_self_message_iterator_get_data(self);
	uint64_t n = 0;
	int oom = 0;

	while (n < capacity && !it->pending && !oom) {
		const bt_message *m = next_message(it, &oom);

		if (!m)
			break;
		msgs[n++] = m;
	}
	if (oom) {
		for (uint64_t i = 0; i < n; i++)
			bt_message_put_ref(msgs[i]);
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
	}
	*count = n;
	if (n > 0)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	if (it->pending == 1) {
		it->pending = 0;
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
	}
	if (it->pending == 2) {
		/* Stays failed: a later call fails again. */
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self, "fuzz source: failing at event %u",
									   it->events);
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
}

static bt_component_class_initialize_method_status comp_init(bt_self_component_source *self,
							      bt_self_component_source_configuration *conf,
							      const bt_value *params, void *data)
{
	(void)conf;
	(void)params;
	bt_self_component_set_data(bt_self_component_source_as_self_component(self), data);
	if (bt_self_component_source_add_output_port(self, "out", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

int fz_ctf_add_source(struct bt_graph *graph, void *data, const struct bt_component_source **src)
{
	bt_message_iterator_class *ic = bt_message_iterator_class_create(iter_next);
	bt_component_class_source *cc = ic ? bt_component_class_source_create("fuzz", ic) : NULL;
	int ok = cc &&
		 bt_message_iterator_class_set_initialize_method(ic, iter_init) ==
			 BT_MESSAGE_ITERATOR_CLASS_SET_METHOD_STATUS_OK &&
		 bt_message_iterator_class_set_finalize_method(ic, iter_fini) ==
			 BT_MESSAGE_ITERATOR_CLASS_SET_METHOD_STATUS_OK &&
		 bt_component_class_source_set_initialize_method(cc, comp_init) ==
			 BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK &&
		 bt_graph_add_source_component_with_initialize_method_data(
			 graph, cc, "fuzz", NULL, data,
			 BT_LOGGING_LEVEL_NONE, src) == BT_GRAPH_ADD_COMPONENT_STATUS_OK;

	bt_component_class_source_put_ref(cc);
	bt_message_iterator_class_put_ref(ic);
	return ok ? 0 : -1;
}

#endif /* HIPCORE_WITH_BABELTRACE2 */
