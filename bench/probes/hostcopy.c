/*
 * hostcopy.c - probe: what the library's split host copy (op
 * host_copy_split) costs per call in the conditions a workload gives it,
 * against calibrate's: a source it just copied (cache-hot) with the copy
 * workers spinning.
 *
 * The fidelity run of 2026-12-05 05:11 (BENCHMARKS.md) measured the split
 * copies of the four-stream workloads at 2.6 x calibrate's model, and the
 * pipeline's 2 MiB chunk copies at 64 us where the profile says 41.  The
 * suspects, one per row, each for 1, 2, 4 and 8 MiB through hc_write (and
 * hc_read for the other direction) on a device opened with op_times (per
 * split copy: an 8 MiB write is four pipeline chunks of 2 MiB):
 *   hot        the same 4 MiB source, back to back (calibrate's way);
 *   cold       a new source region each time, rotating over 1 GiB;
 *   fresh      the same region, rewritten by the caller just before (data
 *              a service has just produced);
 *   hot_idle   hot, after 300 us idle (the workers have gone to sleep);
 *   cold_idle  cold, after 300 us idle;
 *   hot_idle_3ms  hot, after 3 ms idle (a vCPU idle that long may be
 *              descheduled by its host, not only its thread by the guest);
 *   read_hot   hc_read into the same destination;
 *   read_cold  hc_read into a new destination region each time.
 * Built by `make gpu-carry` (or `make bench/probes/hostcopy`); on the GPU
 * machine: tests/gpu/run-on-device.sh _carry/gpu hostcopy.
 * Usage: hostcopy [BACKEND]   (default hip; without a GPU it prints one
 * SKIP line on stderr and exits 0, as the GPU benches do)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/probes/probe.h"
#include "hipcore/hipcore.h"

#define REPS 41
#define MIB (1ull << 20)
#define BIG (1024 * MIB)

enum cond { HOT, COLD, FRESH, HOT_IDLE, COLD_IDLE, HOT_IDLE_LONG, READ_HOT, READ_COLD, NCOND };
static const char *const cond_name[NCOND] = { "hot",	    "cold",	"fresh",
					      "hot_idle",   "cold_idle", "hot_idle_3ms",
					      "read_hot",   "read_cold" };

static hc_device dev;
static hc_stream st;
static hc_buffer buf;
static unsigned char *host;
static uint64_t cursor;
static uint64_t per_call; /* bytes per split copy in the last call measured */

static uint64_t split_ns(uint64_t *calls)
{
	hc_op_time t[64];
	size_t n = 0;

	hc_device_op_times(dev, t, 64, &n);
	for (size_t i = 0; i < n && i < 64; i++)
		if (strcmp(t[i].op, "host_copy_split") == 0) {
			*calls = t[i].calls;
			return t[i].host_ns;
		}
	*calls = 0;
	return 0;
}

/* Median ns of one split host copy in a call of @len in condition @c;
 * < 0 on error. */
static double one(enum cond c, uint64_t len)
{
	uint64_t v[REPS];

	for (int r = 0; r < REPS + 2; r++) {
		bool cold = c == COLD || c == COLD_IDLE || c == READ_COLD;
		unsigned char *p = host;
		uint64_t c0, c1, n0, n1;
		hc_status s;

		if (cold) {
			/* the region must fit: the largest copy is 8 MiB */
			cursor = (cursor + 4 * MIB) % (BIG - 8 * MIB);
			p = host + cursor;
		}
		if (c == FRESH)
			memset(p, r, len);
		if (c == HOT_IDLE || c == COLD_IDLE || c == HOT_IDLE_LONG) {
			struct timespec ts = { 0, c == HOT_IDLE_LONG ? 3000000 : 300000 };

			nanosleep(&ts, NULL);
		}
		n0 = split_ns(&c0);
		if (c == READ_HOT || c == READ_COLD)
			s = hc_read(st, buf, 0, p, len, NULL);
		else
			s = hc_write(st, buf, 0, p, len, HC_ALLOC_NATIVE, NULL, NULL);
		n1 = split_ns(&c1);
		if (s != HC_OK || c1 <= c0) {
			fprintf(stderr, "hostcopy: %s %llu: status %s, %llu split copies\n",
				cond_name[c], (unsigned long long)len, hc_status_str(s),
				(unsigned long long)(c1 - c0));
			return -1;
		}
		/* a write's transfer runs on; the next write's copy overlaps it
		 * as in a workload, except where the condition idles */
		if (r >= 2)
			v[r - 2] = (n1 - n0) / (c1 - c0);
		per_call = len / (c1 - c0);
	}
	hc_sync(st);
	return probe_median(v, REPS);
}

int main(int argc, char **argv)
{
	static const uint64_t sizes[] = { 1 * MIB, 2 * MIB, 4 * MIB, 8 * MIB };
	hc_device_options o;
	hc_error_info e;

	hc_device_options_init(&o);
	o.op_times = true;
	if (hc_device_open(argc > 1 ? argv[1] : "hip", &o, &dev) != HC_OK) {
		hc_last_error(&e);
		fprintf(stderr, "hostcopy: SKIP: %s\n", e.message);
		return 0;
	}
	host = malloc(BIG);
	if (!host || hc_stream_open(dev, &st) != HC_OK || hc_alloc(st, 8 * MIB, &buf) != HC_OK) {
		hc_last_error(&e);
		fprintf(stderr, "hostcopy: setup: %s\n", e.message);
		return 1;
	}
	memset(host, 0x5a, BIG);
	for (int round = 0; round < 2; round++)
		for (int c = 0; c < NCOND; c++)
			for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
				double ns = one((enum cond)c, sizes[z]);

				if (ns < 0)
					return 1;
				printf("{\"bench\":\"hostcopy\",\"metric\":\"r%d_%s_%lluMiB\","
				       "\"value\":%.1f,\"unit\":\"us\",\"gbps\":%.1f}\n",
				       round, cond_name[c], (unsigned long long)(sizes[z] / MIB),
				       ns / 1e3, (double)per_call / ns);
				fflush(stdout);
			}
	hc_free(buf);
	hc_stream_close(st);
	hc_device_close(dev);
	free(host);
	return 0;
}
