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
 *   mixed_csv_parse_events_per_s, mixed_csv_events_per_s, mixed_max_rss_kib
 *                           the reader alone, the full replay, and the peak
 *                           resident memory (of a child process that does
 *                           only this) on an unfriendly input: EVENTS events
 *                           on three streams, up to 4000 allocations live,
 *                           freed in random order, sizes 256 B to 16 MiB
 *                           (generate_mixed; a fixed seed, written at bench
 *                           time, removed after);
 *   close_128k_live_ms      hc_device_close with 128k allocations of 1 MiB
 *                           + 1 B live on the simulator, in a child process
 *                           (CPU time); peer: allocating them (a close was
 *                           quadratic before, issue 28).
 * The replays' rates count the device close, which frees what the trace
 * left live, as hipsim replay's wall time does.
 *
 * Usage: bench_replay [EVENTS [CTF_STEPS]]   (defaults 10 M and 6000)
 *        bench_replay --mixed [EVENTS]       the unfriendly input only
 *        bench_replay --close                the close only
 *        bench_replay --write-mixed FILE [EVENTS]  writes the unfriendly input
 * BENCH_CTF_TRACE=DIR replays that CTF trace instead of recording one (a
 * machine without LTTng, such as the GPU machine, can measure a trace
 * recorded elsewhere).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/timing.h"
#include "hipcore/hipcore.h"
#include "tools/hipsim/read_rmm.h"
#include "tools/hipsim/replay.h"
#include "tools/hipsim/replay_event.h"

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

/*
 * The unfriendly input (issue 28): three streams, a live set that swings
 * between about 500 and 4000 allocations (a triangle wave over 2^20
 * events), each free taking a random live allocation, sizes log-uniform
 * from 256 B to 16 MiB (an octave 2^8..2^23 picked uniformly, then a
 * uniform size inside it), pointers that come back as an allocator's do
 * (a freed slot is the next one handed out, with a new low offset).  A
 * fixed seed: the same file every time.  The allocations live at the end
 * stay live (a log ends mid-run), so the device close frees them.
 */
static uint64_t mix_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int generate_mixed(const char *path, uint64_t events)
{
	enum { LIVE_MAX = 4000, LIVE_MIN = 500, STREAMS = 3, PERIOD = 1 << 20 };
	struct mixed_live {
		uint64_t ptr, size;
		uint32_t slot, stream;
	} *live = malloc(LIVE_MAX * sizeof(*live));
	uint32_t *free_slots = malloc(LIVE_MAX * sizeof(*free_slots));
	static char buf[256];
	uint32_t nlive = 0, nfree = 0, next_slot = 0;
	uint64_t seed = 28, i;
	FILE *f = fopen(path, "w");

	if (!f || !live || !free_slots)
		goto fail;
	fputs("Thread,Time,Action,Pointer,Size,Stream\n", f);
	for (i = 0; i < events; i++) {
		uint64_t phase = i % PERIOD, r = mix_next(&seed), target;
		struct mixed_live e;
		bool alloc;
		char *p = buf;

		/* Triangle wave: LIVE_MIN up to LIVE_MAX and back each period. */
		phase = phase < PERIOD / 2 ? phase : PERIOD - phase;
		target = LIVE_MIN + phase * (LIVE_MAX - LIVE_MIN) / (PERIOD / 2);
		if (nlive == 0)
			alloc = true;
		else if (nlive >= LIVE_MAX)
			alloc = false;
		else
			alloc = (r & 0xff) < (nlive < target ? 141u : 115u); /* 55 % or 45 % */
		if (alloc) {
			unsigned octave = 8 + (unsigned)((r >> 8) % 16);

			e.slot = nfree ? free_slots[--nfree] : next_slot++;
			e.size = (1ull << octave) + (r >> 32) % (1ull << octave);
			e.stream = (uint32_t)((r >> 12) % STREAMS);
			e.ptr = 0x7f0000000000ull + (uint64_t)e.slot * 0x2000000ull +
				((r >> 16) & 0xfff) * 256;
			live[nlive++] = e;
		} else {
			uint32_t k = (uint32_t)((r >> 8) % nlive);

			e = live[k];
			live[k] = live[--nlive];
			free_slots[nfree++] = e.slot;
		}
		p = put_u64(p, 140234 + e.stream, 0);
		memcpy(p, ",10:00:00.", 10), p += 10;
		p += sprintf(p, "%06" PRIu64, (i / 8) % 1000000);
		memcpy(p, alloc ? ",allocate,0x" : ",free,0x", alloc ? 12 : 8), p += alloc ? 12 : 8;
		p = put_u64(p, e.ptr, 1);
		*p++ = ',';
		p = put_u64(p, e.size, 0);
		memcpy(p, ",0x7f00", 7), p += 7;
		p = put_u64(p, e.stream, 0);
		*p++ = '\n';
		if (fwrite(buf, 1, (size_t)(p - buf), f) != (size_t)(p - buf))
			goto fail;
	}
	free(live);
	free(free_slots);
	return fclose(f);
fail:
	if (f)
		fclose(f);
	free(live);
	free(free_slots);
	return -1;
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
	t0 = bench_process_cpu_ns();
	while ((rc = hs_trace_next(t, ev)) == 1)
		sum += ev->size;
	t0 = bench_process_cpu_ns() - t0;
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
	if (hs_replay_open(r, &opt, path) != 0) {
		hs_trace_close(t);
		free(r);
		free(ev);
		return -1;
	}
	t0 = bench_process_cpu_ns();
	while ((rc = hs_trace_next(t, ev)) == 1)
		hs_replay_event(r, ev);
	if (rc < 0)
		fprintf(stderr, "bench_replay: %s\n", hs_trace_error(t));
	if (r->d.failures)
		fprintf(stderr, "bench_replay: %" PRIu64 " failing events, first: %s\n", r->d.failures,
			r->d.first_message);
	/* The close frees what the trace left live: part of the replay, as
	 * in hipsim replay's wall time. */
	hs_replay_close(r);
	/* A CTF trace decodes in a child process (read_isolated.h): its CPU
	 * time counts too, so the rate stays one core's. */
	t0 = bench_process_cpu_ns() - t0 + t->helper_cpu_ns;
	*events = t->events;
	*source_rate = (double)(t->source_events ? t->source_events : t->events) * 1e9 / (double)t0;
	hs_trace_close(t);
	free(r);
	free(ev);
	return rc < 0 ? -1 : (double)*events * 1e9 / (double)t0;
}

/*
 * The unfriendly input, in a child process so that its peak resident
 * memory is its own: generates it (not timed), then the reader alone and
 * the full replay, as for the friendly input.  Return: 0 with the rates
 * and the child's peak RSS, -1 when anything failed.
 */
static int measure_mixed(const char *path, uint64_t events, double *parse, double *full,
			 long *rss_kib)
{
	double got[3] = { -1, -1, -1 };
	int fds[2], status;
	pid_t pid;
	ssize_t n;

	if (generate_mixed(path, events) != 0) {
		fprintf(stderr, "bench_replay: cannot write %s\n", path);
		unlink(path);
		return -1;
	}
	if (pipe(fds) != 0) {
		unlink(path);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct rusage ru;
		uint64_t a, b;
		double src;

		close(fds[0]);
		got[0] = measure_parse(path, &a);
		got[1] = measure_replay(path, "rmm", &b, &src);
		getrusage(RUSAGE_SELF, &ru);
		got[2] = (double)ru.ru_maxrss;
		_exit(write(fds[1], got, sizeof(got)) == (ssize_t)sizeof(got) ? 0 : 1);
	}
	close(fds[1]);
	n = pid > 0 ? read(fds[0], got, sizeof(got)) : -1;
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	unlink(path);
	if (n != (ssize_t)sizeof(got) || got[0] < 0 || got[1] < 0)
		return -1;
	*parse = got[0];
	*full = got[1];
	*rss_kib = (long)got[2];
	return 0;
}

static void print_mixed(double parse, double full, long rss_kib)
{
	printf("{\"bench\":\"replay\",\"metric\":\"mixed_csv_parse_events_per_s\",\"value\":%.0f,"
	       "\"unit\":\"ev/s\",\"peer\":\"\",\"peer_value\":null}\n",
	       parse);
	printf("{\"bench\":\"replay\",\"metric\":\"mixed_csv_events_per_s\",\"value\":%.0f,"
	       "\"unit\":\"ev/s\",\"peer\":\"target\",\"peer_value\":5000000}\n",
	       full);
	printf("{\"bench\":\"replay\",\"metric\":\"mixed_max_rss_kib\",\"value\":%ld,"
	       "\"unit\":\"KiB\",\"peer\":\"\",\"peer_value\":null}\n",
	       rss_kib);
}

/*
 * The device close with many allocations live (issue 28): 128k of 1 MiB +
 * 1 B on one stream of a 1 TiB simulator (each its own device allocation in
 * the default layout's large pool), then hc_device_close, which frees them
 * lowest address first.  Return: the close's CPU milliseconds (the
 * allocations' in *@alloc_ms, the peer), -1 on failure.
 */
static double measure_close(double *alloc_ms)
{
	enum { LIVE = 128 * 1024 };
	hc_device_options o;
	hc_device dev;
	hc_stream s;
	hc_buffer b;
	uint64_t t0;
	int i;

	hc_device_options_init(&o);
	o.capacity = 1ull << 40;
	if (hc_device_open("sim", &o, &dev) != HC_OK)
		return -1;
	if (hc_stream_open(dev, &s) != HC_OK) {
		hc_device_close(dev);
		return -1;
	}
	t0 = bench_process_cpu_ns();
	for (i = 0; i < LIVE; i++)
		if (hc_alloc(s, (1u << 20) + 1, &b) != HC_OK)
			break;
	*alloc_ms = (double)(bench_process_cpu_ns() - t0) / 1e6;
	t0 = bench_process_cpu_ns();
	hc_device_close(dev);
	return i == LIVE ? (double)(bench_process_cpu_ns() - t0) / 1e6 : -1;
}

/* measure_close in a child process, so that the 128k allocations' host
 * memory (library and simulator bookkeeping) stays out of this process's
 * peak RSS figures.  Return: as measure_close. */
static double measure_close_apart(double *alloc_ms)
{
	double got[2] = { -1, 0 };
	int fds[2], status;
	pid_t pid;
	ssize_t n;

	if (pipe(fds) != 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		got[0] = measure_close(&got[1]);
		_exit(write(fds[1], got, sizeof(got)) == (ssize_t)sizeof(got) ? 0 : 1);
	}
	close(fds[1]);
	n = pid > 0 ? read(fds[0], got, sizeof(got)) : -1;
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (n != (ssize_t)sizeof(got))
		return -1;
	*alloc_ms = got[1];
	return got[0];
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
	t0 = bench_process_cpu_ns();
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
	t0 = bench_process_cpu_ns() - t0;
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
	double rate, peer, full, ctf = -1, ctf_src = -1, csv_src, mixed_parse, mixed_full;
	long mixed_rss;
	int mixed_rc;
	double close_ms, close_alloc_ms = 0;

	if (argc >= 3 && strcmp(argv[1], "--write-mixed") == 0) {
		uint64_t n = argc > 3 ? strtoull(argv[3], NULL, 0) : 10000000ull;

		if (generate_mixed(argv[2], n) != 0) {
			fprintf(stderr, "bench_replay: cannot write %s\n", argv[2]);
			return 1;
		}
		return 0;
	}
	snprintf(path, sizeof(path), "%s/bench_replay.%ld.csv", tmp && *tmp ? tmp : "/tmp", (long)getpid());
	snprintf(dir, sizeof(dir), "%s/bench_replay.%ld.ctf", tmp && *tmp ? tmp : "/tmp", (long)getpid());
	if (argc >= 2 && strcmp(argv[1], "--close") == 0) {
		close_ms = measure_close_apart(&close_alloc_ms);
		if (close_ms < 0)
			return 1;
		printf("{\"bench\":\"replay\",\"metric\":\"close_128k_live_ms\",\"value\":%.1f,"
		       "\"unit\":\"ms\",\"peer\":\"allocating them\",\"peer_value\":%.1f}\n",
		       close_ms, close_alloc_ms);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "--mixed") == 0) {
		events = argc > 2 ? strtoull(argv[2], NULL, 0) : 10000000ull;
		if (measure_mixed(path, events, &mixed_parse, &mixed_full, &mixed_rss) != 0)
			return 1;
		print_mixed(mixed_parse, mixed_full, mixed_rss);
		return 0;
	}
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
	mixed_rc = measure_mixed(path, events, &mixed_parse, &mixed_full, &mixed_rss);
	close_ms = measure_close_apart(&close_alloc_ms);
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
	if (mixed_rc == 0)
		print_mixed(mixed_parse, mixed_full, mixed_rss);
	if (close_ms >= 0)
		printf("{\"bench\":\"replay\",\"metric\":\"close_128k_live_ms\",\"value\":%.1f,"
		       "\"unit\":\"ms\",\"peer\":\"allocating them\",\"peer_value\":%.1f}\n",
		       close_ms, close_alloc_ms);
	else
		fprintf(stderr, "bench_replay: the close measurement failed\n");
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
