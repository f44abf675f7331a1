/*
 * bench_replay.c - replay speed.
 *
 * Generates an RMM memory-event CSV of 10 M events (allocations on 4
 * streams, each freed 1000 events later) in $TMPDIR, then measures:
 *   csv_parse_events_per_s  the RMM reader alone (events out of
 *                           hs_trace_next), peer: a plain fgets + strtok +
 *                           strtoull parser of the same file;
 *   max_rss_kib             the process's peak resident memory after the
 *                           CSV parse and replay (reader and engine stream:
 *                           it stays small although the file is ~0.5 GB);
 *   ctf_max_rss_kib         the peak after the CTF replay too (babeltrace2,
 *                           and the training trace's writes of up to 24 MiB:
 *                           the 64 MiB host scratch and pinned staging).
 * Rates are over the process's CPU time (CLOCK_PROCESS_CPUTIME_ID), so that
 * a machine shared with builds does not halve them; read(2)'s copy counts,
 * and so does the CPU time of the child process that decodes CTF.
 *
 *   csv_events_per_s        the whole replay: the same file read and every
 *                           event replayed through libhipcore on the
 *                           simulator (hs_replay_event, as hipsim replay does);
 *   ctf_events_per_s        the same over an LTTng CTF trace recorded here
 *                           from `hipsim run --workload training` (CTF_STEPS
 *                           steps: about 1 M trace events, ~168 a step; the
 *                           service workload's MiB-sized writes would
 *                           measure memcpy, not replay): the trace's events
 *                           (every event babeltrace2 decodes, as
 *                           `babeltrace2 TRACE | wc -l` counts them) per
 *                           second, when lttng-sessiond and the built
 *                           hipsim and probe module are present (run from
 *                           the build directory); else skipped with a note
 *                           on stderr;
 *   ctf_replayed_events_per_s  the same run counted in replayed events
 *                           (allocations, frees, launches, writes, ...; the
 *                           trace's decision events such as hipcore:cache,
 *                           pool_reserve and dq_push are decoded and
 *                           skipped: ~2.4 trace events per replayed one).
 *
 * Usage: bench_replay [EVENTS [CTF_STEPS]]   (defaults 10 M and 6000)
 * BENCH_CTF_TRACE=DIR replays that CTF trace instead of recording one (a
 * machine without LTTng, such as the GPU machine, can measure a trace
 * recorded elsewhere).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "tools/hipsim/read_rmm.h"
#include "tools/hipsim/replay.h"
#include "tools/hipsim/replay_event.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static char *put_u64(char *p, uint64_t v, int hex)
{
	char tmp[24];
	int n = 0;

	do {
		unsigned d = (unsigned)(hex ? v & 15 : v % 10);

		tmp[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v = hex ? v >> 4 : v / 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static int generate(const char *path, uint64_t events)
{
	enum { LIVE = 1000, STREAMS = 4 };
	static char buf[1 << 16];
	FILE *f = fopen(path, "w");
	uint64_t allocs = events / 2;

	if (!f)
		return -1;
	fputs("Thread,Time,Action,Pointer,Size,Stream\n", f);
	for (uint64_t i = 0; i < allocs + LIVE; i++) {
		for (int k = 0; k < 2; k++) {
			uint64_t j = k ? i - LIVE : i;
			char *p = buf;

			if ((k == 0 && i >= allocs) || (k == 1 && i < LIVE))
				continue;
			p = put_u64(p, 140234, 0);
			memcpy(p, ",10:00:00.", 10), p += 10;
			p += sprintf(p, "%06" PRIu64, (2 * i + (uint64_t)k) % 1000000);
			memcpy(p, k ? ",free,0x" : ",allocate,0x", k ? 8 : 12), p += k ? 8 : 12;
			p = put_u64(p, 0x7f0000000000ull + j * 256, 1);
			*p++ = ',';
			p = put_u64(p, 256 + (j % 8192) * 64, 0);
			memcpy(p, ",0x7f00", 7), p += 7;
			p = put_u64(p, j % STREAMS, 0);
			*p++ = '\n';
			if (fwrite(buf, 1, (size_t)(p - buf), f) != (size_t)(p - buf)) {
				fclose(f);
				return -1;
			}
		}
	}
	return fclose(f);
}

/* The RMM reader: events per second. */
static double measure_parse(const char *path, uint64_t *events)
{
	struct hs_trace *t;
	struct hs_rev *ev = malloc(sizeof(*ev));
	char err[700];
	uint64_t t0, sum = 0;
	int rc;

	if (!ev || hs_rmm_open(path, &t, err, sizeof(err)) != 0) {
		fprintf(stderr, "bench_replay: %s\n", ev ? err : "out of memory");
		free(ev);
		return -1;
	}
	t0 = now_ns();
	while ((rc = hs_trace_next(t, ev)) == 1)
		sum += ev->size;
	t0 = now_ns() - t0;
	*events = t->events;
	if (rc < 0)
		fprintf(stderr, "bench_replay: %s\n", hs_trace_error(t));
	hs_trace_close(t);
	free(ev);
	if (rc < 0 || sum == 0)
		return -1;
	return (double)*events * 1e9 / (double)t0;
}

/* The full replay of @path on the simulator: replayed events per second;
 * *@source_rate: the source's events (skipped ones too) per second. */
static double measure_replay(const char *path, const char *format, uint64_t *events,
			     double *source_rate)
{
	struct hs_options opt = { .backend = "sim" };
	struct hs_replay *r = malloc(sizeof(*r));
	struct hs_rev *ev = malloc(sizeof(*ev));
	struct hs_trace *t = NULL;
	char err[700];
	uint64_t t0;
	int rc;

	if (!r || !ev || hs_trace_open(path, format, &t, err, sizeof(err)) != 0) {
		fprintf(stderr, "bench_replay: %s\n", r && ev ? err : "out of memory");
		free(r);
		free(ev);
		return -1;
	}
	if (hs_replay_open(r, &opt, NULL, path) != 0) {
		hs_trace_close(t);
		free(r);
		free(ev);
		return -1;
	}
	t0 = now_ns();
	while ((rc = hs_trace_next(t, ev)) == 1)
		hs_replay_event(r, ev);
	/* A CTF trace decodes in a child process (read_isolated.h): its CPU
	 * time counts too, so the rate stays one core's. */
	t0 = now_ns() - t0 + t->helper_cpu_ns;
	*events = t->events;
	*source_rate = (double)(t->source_events ? t->source_events : t->events) * 1e9 / (double)t0;
	if (rc < 0)
		fprintf(stderr, "bench_replay: %s\n", hs_trace_error(t));
	if (r->d.failures)
		fprintf(stderr, "bench_replay: %" PRIu64 " failing events, first: %s\n", r->d.failures,
			r->d.first_message);
	hs_replay_close(r);
	hs_trace_close(t);
	free(r);
	free(ev);
	return rc < 0 ? -1 : (double)*events * 1e9 / (double)t0;
}

/* Records `hipsim run --workload training --steps @steps` into @dir. */
static int record_ctf(const char *dir, uint64_t steps)
{
	char cmd[1200];

	if (access("tools/hipsim/hipsim", X_OK) != 0 || access(".libs/libhipcore-lttng.so", R_OK) != 0 ||
	    system("command -v lttng-sessiond >/dev/null 2>&1 && command -v lttng >/dev/null 2>&1") != 0)
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "tools/hipsim/hipsim record -o '%s' --provider .libs/libhipcore-lttng.so -- "
		 "tools/hipsim/hipsim run --workload training --steps %" PRIu64 " >/dev/null 2>&1",
		 dir, steps);
	return system(cmd) == 0 ? 0 : -1;
}

/* The peer: what a first CSV parser looks like (stdio, strtok, strtoull). */
static double measure_naive(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	uint64_t n = 0, sum = 0, t0;

	if (!f)
		return -1;
	t0 = now_ns();
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *save, *thread = strtok_r(line, ",", &save), *time = strtok_r(NULL, ",", &save);
		char *action = strtok_r(NULL, ",", &save), *ptr = strtok_r(NULL, ",", &save);
		char *size = strtok_r(NULL, ",", &save), *stream = strtok_r(NULL, ",\n", &save);

		if (!thread || !time || !action || !ptr || !size || !stream)
			break;
		sum += strtoull(ptr, NULL, 16) + strtoull(size, NULL, 10) + (strcmp(action, "free") == 0);
		n++;
	}
	t0 = now_ns() - t0;
	fclose(f);
	return sum ? (double)n * 1e9 / (double)t0 : -1;
}

int main(int argc, char **argv)
{
	uint64_t events = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000ull, got = 0, rgot = 0;
	uint64_t steps = argc > 2 ? strtoull(argv[2], NULL, 0) : 6000ull, cgot = 0;
	const char *tmp = getenv("TMPDIR");
	char path[512], dir[512], cmd[600];
	struct rusage ru;
	long csv_rss;
	double rate, peer, full, ctf = -1, ctf_src = -1, csv_src;

	snprintf(path, sizeof(path), "%s/bench_replay.%ld.csv", tmp && *tmp ? tmp : "/tmp", (long)getpid());
	snprintf(dir, sizeof(dir), "%s/bench_replay.%ld.ctf", tmp && *tmp ? tmp : "/tmp", (long)getpid());
	if (generate(path, events) != 0) {
		fprintf(stderr, "bench_replay: cannot write %s\n", path);
		unlink(path);
		return 1;
	}
	peer = measure_naive(path);
	rate = measure_parse(path, &got);
	full = measure_replay(path, "rmm", &rgot, &csv_src);
	unlink(path);
	if (rate < 0 || full < 0)
		return 1;
	getrusage(RUSAGE_SELF, &ru);
	csv_rss = ru.ru_maxrss;
	if (getenv("BENCH_CTF_TRACE") && *getenv("BENCH_CTF_TRACE"))
		ctf = measure_replay(getenv("BENCH_CTF_TRACE"), "ctf", &cgot, &ctf_src);
	else if (record_ctf(dir, steps) == 0)
		ctf = measure_replay(dir, "ctf", &cgot, &ctf_src);
	else
		fprintf(stderr, "bench_replay: no CTF trace recorded (needs lttng and a build "
				"directory with hipsim and the probe module); ctf_events_per_s skipped\n");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_replay: could not remove %s\n", dir);
	getrusage(RUSAGE_SELF, &ru);
	printf("{\"bench\":\"replay\",\"metric\":\"csv_parse_events_per_s\",\"value\":%.0f,\"unit\":\"ev/s\","
	       "\"peer\":\"fgets+strtok\",\"peer_value\":%.0f}\n",
	       rate, peer);
	printf("{\"bench\":\"replay\",\"metric\":\"csv_events_per_s\",\"value\":%.0f,\"unit\":\"ev/s\","
	       "\"peer\":\"target\",\"peer_value\":5000000}\n",
	       full);
	if (ctf >= 0) {
		printf("{\"bench\":\"replay\",\"metric\":\"ctf_events_per_s\",\"value\":%.0f,\"unit\":\"ev/s\","
		       "\"peer\":\"target\",\"peer_value\":1000000}\n",
		       ctf_src);
		printf("{\"bench\":\"replay\",\"metric\":\"ctf_replayed_events_per_s\",\"value\":%.0f,"
		       "\"unit\":\"ev/s\",\"peer\":\"\",\"peer_value\":null}\n",
		       ctf);
	}
	printf("{\"bench\":\"replay\",\"metric\":\"max_rss_kib\",\"value\":%ld,\"unit\":\"KiB\","
	       "\"peer\":\"\",\"peer_value\":null}\n",
	       csv_rss);
	if (ctf >= 0)
		printf("{\"bench\":\"replay\",\"metric\":\"ctf_max_rss_kib\",\"value\":%ld,\"unit\":\"KiB\","
		       "\"peer\":\"\",\"peer_value\":null}\n",
		       ru.ru_maxrss);
	fprintf(stderr, "bench_replay: %" PRIu64 " CSV events parsed, %" PRIu64 " replayed; %" PRIu64
			" CTF events replayed (%.0f trace events)\n", got, rgot, cgot,
		ctf >= 0 ? ctf_src * (double)cgot / ctf : 0.0);
	if (ctf >= 0 && ctf_src * (double)cgot / ctf < 1e6)
		fprintf(stderr, "bench_replay: note: the CTF trace has fewer than the 1 M events the "
				"target is stated for\n");
	return 0;
}
