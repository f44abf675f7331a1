/*
 * bench_write.c - hc_write throughput on the simulator, in virtual time
 * (bench "write").
 *
 * For each size from 64 KiB to 1 GiB (powers of 4) and each source property
 * (pageable NATIVE, PINNED, FILE), one warm-up write (the stream's pinned
 * pool takes its pages, which costs the profile's host_alloc time once),
 * then one write plus hc_sync on the same stream; the figure is size / (virtual time of the sync's return - virtual time
 * before the write), in GB/s.  The metric names the path the write took:
 * sim_<property>_<staged|pipelined|direct>_gbps_<size>.  The peer is the
 * H200 probe's pinned bandwidth at the nearest size it measured
 * (the measurements the built-in profile, sim/sim_profile.c, was taken
 * from), which is what the simulator models.
 * Virtual time is deterministic, so one run per figure suffices.  The
 * simulator charges no time for host memcpy, so staged and pipelined
 * figures show the chunking's cost on the link (4 MiB chunks ~49 GB/s
 * against one transfer's ~55), not the host copy: the GPU benchmark
 * (bench/gpu/bench_write_gpu.c) measures that.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipcore/hipcore.h"

static const char *path_of(uint64_t n, hc_alloc_property p)
{
	hc_staging s = hc_staging_of(n, p);

	if (!s.through_pinned)
		return "direct";
	return n >= 8 * HC_MIB ? "pipelined" : "staged";
}

int main(void)
{
	static const struct { hc_alloc_property p; const char *name; } props[] = {
		{ HC_ALLOC_NATIVE, "pageable" }, { HC_ALLOC_PINNED, "pinned" },
		{ HC_ALLOC_FILE, "file" } };
	hc_device_options o;
	hc_device dev;
	unsigned char *src;
	uint64_t max = 1024 * HC_MIB;

	src = calloc(1, max);
	if (!src) {
		fprintf(stderr, "bench_write: no host memory for 1 GiB\n");
		return 1;
	}
	hc_device_options_init(&o);
	o.capacity = 8 * max;
	if (hc_device_open("sim", &o, &dev) != HC_OK) {
		fprintf(stderr, "bench_write: cannot open the simulator\n");
		return 1;
	}
	for (uint64_t n = 64 * 1024; n <= max; n *= 4) {
		for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
			hc_stream s;
			hc_buffer b;
			uint64_t t0, t1;
			char label[32], metric[96];

			if (hc_stream_open(dev, &s) != HC_OK || hc_alloc(s, n, &b) != HC_OK) {
				fprintf(stderr, "bench_write: stream/alloc failed\n");
				return 1;
			}
			/* warm-up: the stream's pinned pool takes its pages once */
			hc_write(s, b, 0, src, n, props[i].p, NULL, NULL);
			hc_sync(s);
			hc_device_now(dev, &t0);
			if (hc_write(s, b, 0, src, n, props[i].p, NULL, NULL) != HC_OK ||
			    hc_sync(s) != HC_OK) {
				fprintf(stderr, "bench_write: write failed\n");
				return 1;
			}
			hc_device_now(dev, &t1);
			if (n >= HC_MIB)
				snprintf(label, sizeof(label), "%lluMiB", (unsigned long long)(n / HC_MIB));
			else
				snprintf(label, sizeof(label), "%lluKiB", (unsigned long long)(n / 1024));
			snprintf(metric, sizeof(metric), "sim_%s_%s_gbps_%s", props[i].name,
				 path_of(n, props[i].p), label);
			printf("{\"bench\":\"write\",\"metric\":\"%s\",\"value\":%.3f,\"unit\":\"GB/s\","
			       "\"peer\":\"h200-probe pinned\",\"peer_value\":%s}\n",
			       metric, t1 > t0 ? (double)n / (double)(t1 - t0) : 0.0,
			       n >= 100 * HC_MIB ? "55.05" : n >= 10 * HC_MIB ? "52.77"
			       : n >= HC_MIB ? "37.66" : "6.20");
			hc_stream_close(s);
		}
	}
	hc_device_close(dev);
	free(src);
	return 0;
}
