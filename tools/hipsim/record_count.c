/*
 * record_count.c - counts events and discarded events of a CTF trace.
 *
 * libbabeltrace2 graph, as checked in reference/lttng-notes.md §4: one
 * source.ctf.fs per directory that holds a `metadata` file (the component
 * does not recurse, and traces with different UUIDs need one component
 * each), every output port into one filter.utils.muxer, and a simple sink
 * that counts event messages and adds up discarded-events messages.  No
 * trace directory at all means no event was recorded: counts of 0.
 */
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "tools/hipsim/record_count.h"

#ifdef HIPCORE_WITH_BABELTRACE2
#include <babeltrace2/babeltrace.h>

#define MAX_TRACES 64

static char *trace_dirs[MAX_TRACES];
static unsigned n_trace_dirs;
static bool too_many;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;

	if (type == FTW_F && strcmp(base, "metadata") == 0) {
		if (n_trace_dirs >= MAX_TRACES) {
			too_many = true;
			return 1;
		}
		trace_dirs[n_trace_dirs] = strndup(path, (size_t)ftw->base ? (size_t)ftw->base - 1 : 0);
		if (!trace_dirs[n_trace_dirs])
			return 1;
		n_trace_dirs++;
	}
	return 0;
}

struct sink_state {
	bt_message_iterator *it;
	struct hipsim_trace_counts *counts;
};

static bt_graph_simple_sink_component_initialize_func_status
sink_init(bt_message_iterator *it, void *data)
{
	((struct sink_state *)data)->it = it;
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_INITIALIZE_FUNC_STATUS_OK;
}

static bt_graph_simple_sink_component_consume_func_status
sink_consume(bt_message_iterator *it, void *data)
{
	struct sink_state *s = data;
	bt_message_array_const msgs;
	uint64_t count, i;

	switch (bt_message_iterator_next(it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (i = 0; i < count; i++) {
		const bt_message *m = msgs[i];
		uint64_t n;

		switch (bt_message_get_type(m)) {
		case BT_MESSAGE_TYPE_EVENT:
			s->counts->events++;
			break;
		case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
			if (bt_message_discarded_events_get_count(m, &n) ==
			    BT_PROPERTY_AVAILABILITY_AVAILABLE)
				s->counts->discarded += n;
			break;
		default:
			break;
		}
		bt_message_put_ref(m);
	}
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

static int count_graph(struct hipsim_trace_counts *out)
{
	const bt_plugin *ctf = NULL, *utils = NULL;
	const bt_component_source *src;
	const bt_component_filter *mux;
	const bt_component_sink *sink;
	struct sink_state state = { .counts = out };
	bt_graph *graph = NULL;
	bt_graph_run_status run;
	unsigned t;
	uint64_t p;
	int rc = -1;

	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &ctf) !=
		    BT_PLUGIN_FIND_STATUS_OK ||
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &utils) !=
		    BT_PLUGIN_FIND_STATUS_OK) {
		fprintf(stderr, "hipsim: babeltrace2 plugins ctf/utils not found\n");
		goto out_put_plugins;
	}
	graph = bt_graph_create(0);
	if (!graph)
		goto out_put_plugins;
	if (bt_graph_add_filter_component(graph,
		    bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer"), "mux",
		    NULL, BT_LOGGING_LEVEL_WARNING, &mux) != BT_GRAPH_ADD_COMPONENT_STATUS_OK)
		goto out_put_graph;
	for (t = 0; t < n_trace_dirs; t++) {
		bt_value *params = bt_value_map_create(), *arr = NULL;
		char name[32];
		int st;

		if (!params)
			goto out_put_graph;
		snprintf(name, sizeof(name), "src%u", t);
		st = bt_value_map_insert_empty_array_entry(params, "inputs", &arr) ||
		     bt_value_array_append_string_element(arr, trace_dirs[t]);
		if (!st)
			st = bt_graph_add_source_component(graph,
				bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs"),
				name, params, BT_LOGGING_LEVEL_WARNING, &src);
		bt_value_put_ref(params);
		if (st)
			goto out_put_graph;
		for (p = 0; p < bt_component_source_get_output_port_count(src); p++) {
			uint64_t last = bt_component_filter_get_input_port_count(mux) - 1;

			if (bt_graph_connect_ports(graph,
				    bt_component_source_borrow_output_port_by_index_const(src, p),
				    bt_component_filter_borrow_input_port_by_index_const(mux, last),
				    NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
				goto out_put_graph;
		}
	}
	if (bt_graph_add_simple_sink_component(graph, "sink", sink_init, sink_consume, NULL,
		    &state, &sink) != BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_connect_ports(graph,
		    bt_component_filter_borrow_output_port_by_name_const(mux, "out"),
		    bt_component_sink_borrow_input_port_by_name_const(sink, "in"),
		    NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
		goto out_put_graph;
	while ((run = bt_graph_run(graph)) == BT_GRAPH_RUN_STATUS_AGAIN) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	if (run == BT_GRAPH_RUN_STATUS_OK)
		rc = 0;
	else
		fprintf(stderr, "hipsim: reading the trace failed\n");
out_put_graph:
	bt_graph_put_ref(graph);
out_put_plugins:
	bt_plugin_put_ref(utils);
	bt_plugin_put_ref(ctf);
	bt_current_thread_clear_error();
	return rc;
}

int hipsim_trace_count(const char *dir, struct hipsim_trace_counts *out)
{
	unsigned i;
	int rc;

	memset(out, 0, sizeof(*out));
	n_trace_dirs = 0;
	too_many = false;
	if (nftw(dir, visit, 16, FTW_PHYS) < 0 || too_many) {
		rc = -1;
		goto out_free;
	}
	out->traces = n_trace_dirs;
	rc = n_trace_dirs ? count_graph(out) : 0;
out_free:
	for (i = 0; i < n_trace_dirs; i++)
		free(trace_dirs[i]);
	n_trace_dirs = 0;
	return rc;
}

#else /* !HIPCORE_WITH_BABELTRACE2 */

int hipsim_trace_count(const char *dir, struct hipsim_trace_counts *out)
{
	(void)dir;
	memset(out, 0, sizeof(*out));
	fprintf(stderr, "hipsim: built without babeltrace2; cannot count events\n");
	return -1;
}

#endif
