/*
 * bench_replay.c - replay speed.
 *
 * Generates an RMM memory-event CSV of 10 M events (allocations on 4
 * streams, each freed 1000 events later) in $TMPDIR, then measures:
 *   csv_parse_events_per_s  the RMM reader alone (events out of
 *                           hs_trace_next), peer: a plain fgets + strtok +
 *                           strtoull parser of the same file;
 *   max_rss_kib             the process's peak resident memory afterwards
 *                           (the reader streams: it stays small although the
 *                           file is ~0.5 GB).
 * Rates are over the process's CPU time (CLOCK_PROCESS_CPUTIME_ID), so that
 * a machine shared with builds does not halve them; read(2)'s copy counts.
 *
 * Full replay through the library on sim (csv_events_per_s) is one more
 * measure() whose loop calls hs_replay_event() (replay.h) on an opened
 * struct hs_replay; it is added once hipsim links against the core.
 *
 * Usage: bench_replay [EVENTS]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "tools/hipsim/read_rmm.h"
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
	uint64_t events = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000ull, got = 0;
	const char *tmp = getenv("TMPDIR");
	char path[512];
	struct rusage ru;
	double rate, peer;

	snprintf(path, sizeof(path), "%s/bench_replay.%ld.csv", tmp && *tmp ? tmp : "/tmp", (long)getpid());
	if (generate(path, events) != 0) {
		fprintf(stderr, "bench_replay: cannot write %s\n", path);
		unlink(path);
		return 1;
	}
	peer = measure_naive(path);
	rate = measure_parse(path, &got);
	unlink(path);
	if (rate < 0)
		return 1;
	getrusage(RUSAGE_SELF, &ru);
	printf("{\"bench\":\"replay\",\"metric\":\"csv_parse_events_per_s\",\"value\":%.0f,\"unit\":\"ev/s\","
	       "\"peer\":\"fgets+strtok\",\"peer_value\":%.0f}\n",
	       rate, peer);
	printf("{\"bench\":\"replay\",\"metric\":\"max_rss_kib\",\"value\":%ld,\"unit\":\"KiB\","
	       "\"peer\":\"\",\"peer_value\":null}\n",
	       ru.ru_maxrss);
	fprintf(stderr, "bench_replay: %" PRIu64 " events parsed\n", got);
	return 0;
}
