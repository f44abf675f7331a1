/*
 * check_api.c - devices, streams, buffers and pools through the public API
 * on the simulator: lifecycles, stale handles, bad input, usage, layouts,
 * cleanup-and-retry.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "hipcore/hipcore.h"
#include "hipcore/private.h"
#include "tests/fixtures/sim_device.h"
#include "tests/runner.h"

#define MIB HC_MIB

static void setup(void)
{
	sim_device_open(1024 * MIB, true);
}

/* --- devices ------------------------------------------------------------ */

START_TEST(unknown_backend_is_invalid_and_named)
{
	hc_device d = { 0 };
	ck_assert_int_eq(hc_device_open("cuda9", NULL, &d), HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(last_message(), "cuda9"));
	ck_assert(d.id == 0);
}
END_TEST

START_TEST(null_arguments_are_invalid)
{
	hc_device_options o;
	ck_assert_int_eq(hc_device_open("sim", NULL, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_device_options_init(NULL), HC_ERR_INVALID);
	memset(&o, 0, sizeof(o)); /* not initialised */
	hc_device d;
	ck_assert_int_eq(hc_device_open("sim", &o, &d), HC_ERR_INVALID);
	ck_assert_int_eq(hc_device_info_get(d, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_stream_open(d, NULL), HC_ERR_INVALID);
}
END_TEST

START_TEST(missing_profile_is_an_io_error_naming_the_file)
{
	hc_device_options o;
	hc_device d;
	hc_device_options_init(&o);
	o.profile = "/nonexistent/h100.profile";
	ck_assert_int_eq(hc_device_open("sim", &o, &d), HC_ERR_IO);
	ck_assert_ptr_nonnull(strstr(last_message(), "/nonexistent/h100.profile"));
}
END_TEST

START_TEST(closed_device_is_stale)
{
	hc_device d;
	hc_stream st;
	hc_device_info info;
	ck_assert_int_eq(hc_device_open(NULL, NULL, &d), HC_OK);
	ck_assert_int_eq(hc_device_info_get(d, &info), HC_OK);
	ck_assert_str_eq(info.backend, "sim");
	ck_assert_uint_eq(info.max_page_size, info.total_memory / 4);
	ck_assert_int_eq(hc_device_close(d), HC_OK);
	ck_assert_int_eq(hc_device_close(d), HC_ERR_STALE);
	ck_assert_int_eq(hc_device_info_get(d, &info), HC_ERR_STALE);
	ck_assert_int_eq(hc_stream_open(d, &st), HC_ERR_STALE);
	/* A handle of another kind is not a device. */
	hc_device fake = { s.id };
	ck_assert_int_eq(hc_device_close(fake), HC_ERR_STALE);
}
END_TEST

START_TEST(auto_falls_back_to_the_simulator_without_a_gpu)
{
	hc_device d;
	hc_device_info info;
	/* On a GPU machine auto picks hip; either way it opens. */
	ck_assert_int_eq(hc_device_open("auto", NULL, &d), HC_OK);
	ck_assert_int_eq(hc_device_info_get(d, &info), HC_OK);
	ck_assert(strcmp(info.backend, "sim") == 0 || strcmp(info.backend, "hip") == 0);
	ck_assert_int_eq(hc_device_close(d), HC_OK);
}
END_TEST

START_TEST(hip_without_runtime_reports_no_runtime)
{
	hc_device d;
	hc_status rc = hc_device_open("hip", NULL, &d);
	if (rc == HC_OK) { /* a GPU machine */
		hc_device_close(d);
		return;
	}
	ck_assert_int_eq(rc, HC_ERR_NO_RUNTIME);
	ck_assert(strlen(last_message()) > 0);
}
END_TEST

#ifndef HIPCORE_WITH_HIP
/* Configured --without-hip: "hip" is still a backend's name, and its open
 * says why it cannot be; "auto" takes the simulator. */
START_TEST(without_hip_the_hip_backend_says_so)
{
	hc_device d;
	hc_device_info info;

	ck_assert_int_eq(hc_device_open("hip", NULL, &d), HC_ERR_NO_RUNTIME);
	ck_assert_msg(strstr(last_message(), "configured --without-hip"), "%s", last_message());
	ck_assert_int_eq(hc_device_open("auto", NULL, &d), HC_OK);
	ck_assert_int_eq(hc_device_info_get(d, &info), HC_OK);
	ck_assert_str_eq(info.backend, "sim");
	ck_assert_int_eq(hc_device_close(d), HC_OK);
}
END_TEST
#endif

/* --- streams ------------------------------------------------------------- */

START_TEST(stream_close_twice_is_stale_and_slot_reuse_does_not_revive)
{
	hc_stream a, b;
	ck_assert_int_eq(hc_stream_open(dev, &a), HC_OK);
	ck_assert_int_eq(hc_stream_close(a), HC_OK);
	ck_assert_int_eq(hc_stream_close(a), HC_ERR_STALE);
	ck_assert_int_eq(hc_stream_open(dev, &b), HC_OK); /* reuses a's slot */
	ck_assert(a.id != b.id);
	ck_assert_int_eq(hc_sync(a), HC_ERR_STALE);
	ck_assert_int_eq(hc_sync(b), HC_OK);
	ck_assert_int_eq(hc_stream_close(b), HC_OK);
}
END_TEST

/* --- buffers ------------------------------------------------------------- */

START_TEST(alloc_free_and_usage)
{
	hc_buffer b1, b2;
	hc_memory_usage u;
	hc_buffer_info bi;

	ck_assert_int_eq(hc_alloc(s, 1000, &b1), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 3 * MIB, &b2), HC_OK);
	ck_assert_int_eq(hc_memory_usage_get(s, HC_MEMORY_DEVICE, &u), HC_OK);
	ck_assert_uint_eq(u.number_allocs, 2);
	ck_assert_uint_eq(u.bytes_in_use, 1000 + 3 * MIB);
	ck_assert(u.bytes_reserved >= u.bytes_in_use + u.bytes_padding);
	ck_assert_int_eq(hc_buffer_info_get(b1, &bi), HC_OK);
	ck_assert_uint_eq(bi.size, 1000);
	ck_assert(bi.stream.id == s.id);
	ck_assert(bi.device_address != 0);
	ck_assert_int_eq(hc_free(b1), HC_OK);
	ck_assert_int_eq(hc_free(b1), HC_ERR_STALE);
	ck_assert_int_eq(hc_buffer_info_get(b1, &bi), HC_ERR_STALE);
	ck_assert_int_eq(hc_free(b2), HC_OK);
	ck_assert_int_eq(hc_memory_usage_get(s, HC_MEMORY_DEVICE, &u), HC_OK);
	ck_assert_uint_eq(u.number_allocs, 0);
	ck_assert_uint_eq(u.bytes_in_use, 0);
}
END_TEST

START_TEST(zero_size_buffers_take_no_device_memory)
{
	hc_buffer z;
	hc_buffer_info bi;
	hc_device_stats before = { .struct_size = sizeof(before) };
	hc_device_stats after = { .struct_size = sizeof(after) };
	uint8_t byte = 7;

	ck_assert_int_eq(hc_device_stats_get(dev, &before), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 0, &z), HC_OK);
	ck_assert_int_eq(hc_buffer_info_get(z, &bi), HC_OK);
	ck_assert_uint_eq(bi.size, 0);
	ck_assert_int_eq(hc_write(s, z, 0, &byte, 0, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_write(s, z, 0, &byte, 1, HC_ALLOC_NATIVE, NULL, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_free(z), HC_OK);
	ck_assert_int_eq(hc_memory_cleanup(s), HC_OK);
	ck_assert_int_eq(hc_device_stats_get(dev, &after), HC_OK);
	ck_assert_uint_eq(after.device_allocs, before.device_allocs);
}
END_TEST

START_TEST(freed_handle_stays_stale_after_reuse)
{
	hc_buffer a, b;
	ck_assert_int_eq(hc_alloc(s, 4096, &a), HC_OK);
	ck_assert_int_eq(hc_free(a), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 4096, &b), HC_OK); /* same entry, same slice */
	ck_assert(a.id != b.id);
	ck_assert_int_eq(hc_free(a), HC_ERR_STALE);
	ck_assert_int_eq(hc_free(b), HC_OK);
}
END_TEST

START_TEST(too_big_and_bad_handles)
{
	hc_pool_layout sub = { .preset = HC_LAYOUT_SUBSLICES };
	hc_buffer b;
	/* upstream's ladder refuses what its tail cannot hold; the Workload
	 * default's direct pool takes any size the device has room for */
	ck_assert_int_eq(hc_alloc(s, 600 * MIB, &b), HC_OK);
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_install_memory_pools(s, &sub), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 600 * MIB, &b), HC_ERR_TOO_BIG); /* > max_page 256 MiB */
	ck_assert(b.id == 0);
	ck_assert_int_eq(hc_alloc(s, 10, NULL), HC_ERR_INVALID);
	hc_buffer not_a_buffer = { s.id };
	ck_assert_int_eq(hc_free(not_a_buffer), HC_ERR_STALE);
	hc_buffer zero = { 0 };
	ck_assert_int_eq(hc_free(zero), HC_ERR_STALE);
}
END_TEST

START_TEST(buffers_end_with_their_stream)
{
	hc_stream t;
	hc_buffer b;
	ck_assert_int_eq(hc_stream_open(dev, &t), HC_OK);
	ck_assert_int_eq(hc_alloc(t, 4096, &b), HC_OK);
	ck_assert_int_eq(hc_stream_close(t), HC_OK);
	ck_assert_int_eq(hc_free(b), HC_ERR_STALE);
}
END_TEST

START_TEST(buffer_of_a_closed_device_is_stale)
{
	hc_device d2;
	hc_stream t;
	hc_buffer b;
	ck_assert_int_eq(hc_device_open("sim", NULL, &d2), HC_OK);
	ck_assert_int_eq(hc_stream_open(d2, &t), HC_OK);
	ck_assert_int_eq(hc_alloc(t, 4096, &b), HC_OK);
	ck_assert_int_eq(hc_device_close(d2), HC_OK);
	ck_assert_int_eq(hc_free(b), HC_ERR_STALE);
}
END_TEST

/* --- pools through the API ------------------------------------------------ */

START_TEST(cleanup_and_retry_recovers_reserved_pages)
{
	/* 1 GiB device: the tail exclusive pool takes 200 MiB requests.  Four
	 * freed 200 MiB pages stay reserved; a 250 MiB request then exceeds the
	 * capacity until cleanup frees them, and the retry succeeds. */
	hc_pool_layout sub = { .preset = HC_LAYOUT_SUBSLICES };
	hc_buffer b[4], big;
	hc_device_stats stats = { .struct_size = sizeof(stats) };
	hc_memory_usage u;

	ck_assert_int_eq(hc_install_memory_pools(s, &sub), HC_OK);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(hc_alloc(s, 200 * MIB, &b[i]), HC_OK);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(hc_free(b[i]), HC_OK);
	ck_assert_int_eq(hc_memory_usage_get(s, HC_MEMORY_DEVICE, &u), HC_OK);
	ck_assert_uint_ge(u.bytes_reserved, 800 * MIB);
	ck_assert_int_eq(hc_alloc(s, 250 * MIB, &big), HC_OK);
	ck_assert_int_eq(hc_device_stats_get(dev, &stats), HC_OK);
	ck_assert_uint_eq(stats.alloc_retries, 1);
	ck_assert_int_eq(hc_memory_usage_get(s, HC_MEMORY_DEVICE, &u), HC_OK);
	ck_assert_uint_lt(u.bytes_reserved, 1024 * MIB);
	ck_assert_int_eq(hc_free(big), HC_OK);
}
END_TEST

/* With several streams open, a large allocation a stream frees goes to the
 * device's idle cache (core/pool/idle.h) behind a fence of that stream; any
 * stream adopts it for a request of its size without a new device
 * allocation, and a miss frees idle memory only when the device would
 * otherwise pass the most its pools ever held. */
static uint64_t reserved_of(hc_stream t)
{
	hc_memory_usage u;

	ck_assert_int_eq(hc_memory_usage_get(t, HC_MEMORY_DEVICE, &u), HC_OK);
	return u.bytes_reserved;
}

static uint64_t idle_of(hc_device d)
{
	uint64_t n = 0;

	ck_assert_int_eq(hc_device_idle_bytes(d, &n), HC_OK);
	return n;
}

START_TEST(idle_memory_moves_between_streams)
{
	static unsigned char page[4096];
	hc_buffer a1, a2, b1;
	hc_device_stats before = { .struct_size = sizeof(before) };
	hc_device_stats mid = { .struct_size = sizeof(mid) };
	hc_device_stats after = { .struct_size = sizeof(after) };
	hc_memory_usage du;
	hc_stream t;

	ck_assert_int_eq(hc_stream_open(dev, &t), HC_OK);
	ck_assert_int_eq(hc_device_stats_get(dev, &before), HC_OK);
	/* s writes into 64 MiB and frees it: it leaves s for the device's
	 * idle cache, behind a fence of s that the copy keeps pending */
	ck_assert_int_eq(hc_alloc(s, 64 * MIB, &a1), HC_OK);
	ck_assert_int_eq(hc_write(s, a1, 0, page, sizeof(page), HC_ALLOC_NATIVE, NULL, NULL),
			 HC_OK);
	ck_assert_int_eq(hc_free(a1), HC_OK);
	ck_assert_uint_eq(reserved_of(s), 0);
	ck_assert_uint_eq(idle_of(dev), 64 * MIB);
	ck_assert_int_eq(hc_device_memory_usage(dev, HC_MEMORY_DEVICE, &du), HC_OK);
	ck_assert_uint_eq(du.bytes_reserved, 64 * MIB);
	/* t adopts it: no new device allocation, nothing freed, and t waits
	 * on the device for s's fence (the host does not) */
	ck_assert_int_eq(hc_alloc(t, 64 * MIB, &b1), HC_OK);
	ck_assert_int_eq(hc_device_stats_get(dev, &after), HC_OK);
	ck_assert_uint_eq(after.device_allocs - before.device_allocs, 1);
	ck_assert_uint_eq(after.device_frees - before.device_frees, 0);
	ck_assert_uint_eq(after.stream_waits - before.stream_waits, 1);
	ck_assert_uint_eq(after.host_waits, before.host_waits);
	ck_assert_uint_eq(reserved_of(t), 64 * MIB);
	ck_assert_uint_eq(idle_of(dev), 0);
	ck_assert_int_eq(hc_write(t, b1, 0, page, sizeof(page), HC_ALLOC_NATIVE, NULL, NULL),
			 HC_OK);
	ck_assert_int_eq(hc_free(b1), HC_OK);
	/* t takes its own memory back: stream order covers it, no wait */
	ck_assert_int_eq(hc_alloc(t, 64 * MIB, &b1), HC_OK);
	ck_assert_int_eq(hc_device_stats_get(dev, &mid), HC_OK);
	ck_assert_uint_eq(mid.stream_waits, after.stream_waits);
	ck_assert_uint_eq(mid.device_allocs, after.device_allocs);
	ck_assert_int_eq(hc_free(b1), HC_OK);
	/* best fit: a 40 MiB request takes the idle 64 MiB (at most twice
	 * the request), its rest a free block of s's pool */
	ck_assert_int_eq(hc_alloc(s, 40 * MIB, &a2), HC_OK);
	ck_assert_int_eq(hc_device_stats_get(dev, &mid), HC_OK);
	ck_assert_uint_eq(mid.device_allocs, after.device_allocs);
	ck_assert_uint_eq(reserved_of(s), 64 * MIB);
	ck_assert_uint_eq(idle_of(dev), 0);
	ck_assert_int_eq(hc_free(a2), HC_OK);
	ck_assert_uint_eq(idle_of(dev), 64 * MIB);
	/* a 16 MiB miss: 64 MiB is more than twice that, and 64 idle + 16
	 * would pass the 64 MiB the pools ever held, so the idle 64 MiB goes
	 * back to the device first */
	ck_assert_int_eq(hc_alloc(s, 16 * MIB, &a2), HC_OK);
	ck_assert_int_eq(hc_device_stats_get(dev, &after), HC_OK);
	ck_assert_uint_eq(after.device_allocs - before.device_allocs, 2);
	ck_assert_uint_eq(after.device_frees - before.device_frees, 1);
	ck_assert_uint_eq(idle_of(dev), 0);
	ck_assert_int_eq(hc_device_memory_usage(dev, HC_MEMORY_DEVICE, &du), HC_OK);
	ck_assert_uint_eq(du.bytes_reserved, 16 * MIB);
	/* freed and kept idle (16 <= 64); an explicit cleanup gives it back */
	ck_assert_int_eq(hc_free(a2), HC_OK);
	ck_assert_uint_eq(idle_of(dev), 16 * MIB);
	ck_assert_int_eq(hc_memory_cleanup(t), HC_OK);
	ck_assert_uint_eq(idle_of(dev), 0);
	ck_assert_int_eq(hc_device_stats_get(dev, &after), HC_OK);
	ck_assert_uint_eq(after.device_frees - before.device_frees, 2);
	ck_assert_int_eq(hc_stream_close(t), HC_OK);
	ck_assert_int_eq(hc_device_idle_bytes(dev, NULL), HC_ERR_INVALID);
}
END_TEST

START_TEST(oom_after_retry)
{
	hc_buffer b[5];
	int i;
	for (i = 0; i < 5; i++)
		if (hc_alloc(s, 250 * MIB, &b[i]) != HC_OK)
			break;
	ck_assert_int_eq(i, 4); /* 4 x 250 MiB fit in 1 GiB, the fifth does not */
	ck_assert_int_eq(hc_alloc(s, 250 * MIB, &b[4]), HC_ERR_OOM);
	ck_assert_ptr_nonnull(strstr(last_message(), "cleanup"));
	while (i--)
		ck_assert_int_eq(hc_free(b[i]), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 250 * MIB, &b[0]), HC_OK);
	ck_assert_int_eq(hc_free(b[0]), HC_OK);
}
END_TEST

static void count_pools(const hc_pool_report *r, void *arg)
{
	(void)r;
	(*(int *)arg)++;
}

START_TEST(install_memory_pools)
{
	hc_pool_spec one[1] = { { .kind = HC_POOL_SLICED, .page_size = 8 * MIB, .max_pool_size = 16 * MIB } };
	hc_pool_layout explicit_ = { HC_LAYOUT_EXPLICIT, one, 1 };
	hc_pool_spec bad[1] = { { .kind = HC_POOL_SLICED, .page_size = 0 } };
	hc_pool_layout badl = { HC_LAYOUT_EXPLICIT, bad, 1 };
	hc_buffer a, b, c;
	hc_stream t;
	int n = 0;

	ck_assert_int_eq(hc_install_memory_pools(s, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_install_memory_pools(s, &badl), HC_ERR_INVALID);
	ck_assert(strlen(last_message()) > 0);
	ck_assert_int_eq(hc_alloc(s, 1024, &a), HC_OK);
	ck_assert_int_eq(hc_install_memory_pools(s, &explicit_), HC_ERR_IN_USE);
	ck_assert_int_eq(hc_free(a), HC_OK);
	ck_assert_int_eq(hc_install_memory_pools(s, &explicit_), HC_OK);
	ck_assert_int_eq(hc_memory_report(s, HC_MEMORY_DEVICE, count_pools, &n), HC_OK);
	ck_assert_int_eq(n, 2); /* the sliced pool and the persistent pool */
	/* Two 8 MiB pages at most: the third 8 MiB request finds no room. */
	ck_assert_int_eq(hc_alloc(s, 8 * MIB, &a), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 8 * MIB, &b), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 8 * MIB, &c), HC_ERR_CAPACITY);
	ck_assert_int_eq(hc_alloc(s, 9 * MIB, &c), HC_ERR_TOO_BIG);
	/* Streams opened later get the layout too. */
	ck_assert_int_eq(hc_stream_open(dev, &t), HC_OK);
	n = 0;
	ck_assert_int_eq(hc_memory_report(t, HC_MEMORY_DEVICE, count_pools, &n), HC_OK);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(hc_stream_close(t), HC_OK);
	ck_assert_int_eq(hc_memory_report(s, HC_MEMORY_DEVICE, NULL, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_memory_usage_get(s, (hc_memory_kind)9, &(hc_memory_usage){ 0 }),
			 HC_ERR_INVALID);
}
END_TEST

/* op_times: every backend call counted once, with the simulator's modelled
 * host time; the counts agree with the device's own stats. */
START_TEST(op_times_count_backend_calls)
{
	hc_device_options o;
	hc_device d;
	hc_stream st0;
	hc_buffer b;
	hc_device_stats ds = { .struct_size = sizeof(ds) };
	hc_op_time t[64];
	size_t n = 0;
	uint64_t allocs = 0, h2d = 0, total_ns = 0, now = 0;
	uint8_t src[4096] = { 1 };
	bool staged = false;

	ck_assert_int_eq(hc_device_options_init(&o), HC_OK);
	o.op_times = true;
	ck_assert_int_eq(hc_device_open("sim", &o, &d), HC_OK);
	ck_assert_int_eq(hc_stream_open(d, &st0), HC_OK);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(hc_alloc(st0, 64 * HC_MIB, &b), HC_OK);
		ck_assert_int_eq(hc_write(st0, b, 0, src, sizeof(src), HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
		ck_assert_int_eq(hc_sync(st0), HC_OK);
		ck_assert_int_eq(hc_free(b), HC_OK);
	}
	ck_assert_int_eq(hc_device_op_times(d, t, 64, &n), HC_OK);
	ck_assert_uint_gt(n, 10);
	ck_assert_uint_le(n, 64);
	for (size_t i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(t[i].op);
		if (strcmp(t[i].op, "mem_alloc") == 0)
			allocs = t[i].calls;
		if (strcmp(t[i].op, "copy_h2d") == 0)
			h2d = t[i].calls;
		if (strcmp(t[i].op, "host_copy") == 0) { /* each write staged */
			ck_assert_uint_eq(t[i].calls, 3);
			ck_assert_uint_gt(t[i].host_ns, 0);
			staged = true;
		}
		total_ns += t[i].host_ns;
	}
	ck_assert_int_eq(hc_device_stats_get(d, &ds), HC_OK);
	ck_assert_uint_eq(allocs, ds.device_allocs);
	ck_assert_uint_ge(allocs, 1);
	ck_assert_uint_eq(h2d, ds.copies_h2d);
	ck_assert(staged);
	/* The simulator's host clock moves only inside backend calls. */
	ck_assert_int_eq(hc_device_now(d, &now), HC_OK);
	ck_assert_uint_gt(total_ns, 0);
	ck_assert_uint_le(total_ns, now);
	/* a short array gets the first entries, *n still the whole count */
	ck_assert_int_eq(hc_device_op_times(d, t, 2, &n), HC_OK);
	ck_assert_uint_gt(n, 2);
	ck_assert_int_eq(hc_stream_close(st0), HC_OK);
	ck_assert_int_eq(hc_device_close(d), HC_OK);
}
END_TEST

START_TEST(device_usage_sums_streams)
{
	hc_stream t;
	hc_buffer a, b;
	hc_memory_usage u;
	ck_assert_int_eq(hc_stream_open(dev, &t), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 1 * MIB, &a), HC_OK);
	ck_assert_int_eq(hc_alloc(t, 2 * MIB, &b), HC_OK);
	ck_assert_int_eq(hc_device_memory_usage(dev, HC_MEMORY_DEVICE, &u), HC_OK);
	ck_assert_uint_eq(u.number_allocs, 2);
	ck_assert_uint_eq(u.bytes_in_use, 3 * MIB);
	ck_assert_int_eq(hc_free(a), HC_OK);
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_stream_close(t), HC_OK);
}
END_TEST

/* The private calls hipsim replay uses: the same allocation and free as
 * hc_alloc and hc_free, with the figures hc_memory_usage_get and
 * hc_device_idle_bytes give right after (the buffer's stream's, when
 * another stream frees it); nothing written, nothing done, on refusal. */
static void assert_sample(hc_stream st, const hc_memory_usage *got, uint64_t idle)
{
	hc_memory_usage u;
	uint64_t i;

	ck_assert_int_eq(hc_memory_usage_get(st, HC_MEMORY_DEVICE, &u), HC_OK);
	ck_assert_int_eq(hc_device_idle_bytes(dev, &i), HC_OK);
	ck_assert_uint_eq(got->number_allocs, u.number_allocs);
	ck_assert_uint_eq(got->bytes_in_use, u.bytes_in_use);
	ck_assert_uint_eq(got->bytes_padding, u.bytes_padding);
	ck_assert_uint_eq(got->bytes_reserved, u.bytes_reserved);
	ck_assert_uint_eq(idle, i);
}

START_TEST(sampled_alloc_and_free_read_what_usage_get_reads)
{
	hc_stream t;
	hc_buffer a, b, c;
	hc_memory_usage u, none = { 7, 7, 7, 7 };
	uint64_t idle = 1, unread = 5;

	ck_assert_int_eq(hc_stream_open(dev, &t), HC_OK);
	ck_assert_int_eq(hc_alloc_sampled(s, 1000, &a, &u, &idle), HC_OK);
	ck_assert_uint_eq(u.number_allocs, 1);
	ck_assert_uint_eq(u.bytes_in_use, 1000);
	assert_sample(s, &u, idle);
	ck_assert_int_eq(hc_alloc_sampled(s, 3 * MIB + 1, &b, &u, NULL), HC_OK);
	ck_assert_uint_eq(u.bytes_in_use, 1000 + 3 * MIB + 1);
	assert_sample(s, &u, idle);
	ck_assert_int_eq(hc_alloc_sampled(t, 64 * MIB, &c, &u, &idle), HC_OK);
	assert_sample(t, &u, idle);
	/* a free samples the stream that holds the buffer */
	ck_assert_int_eq(hc_free_sampled(b, &u, &idle), HC_OK);
	ck_assert_uint_eq(u.bytes_in_use, 1000);
	assert_sample(s, &u, idle);
	ck_assert_int_eq(hc_free_sampled(c, &u, &unread), HC_OK);
	ck_assert_uint_eq(u.number_allocs, 0);
	assert_sample(t, &u, unread);
	ck_assert_int_eq(hc_memory_cleanup(t), HC_OK); /* t's pages go idle */
	ck_assert_int_eq(hc_free_sampled(a, &u, &idle), HC_OK);
	ck_assert_uint_eq(u.number_allocs, 0);
	assert_sample(s, &u, idle);

	/* refusals: the plain calls' status, nothing written */
	u = none;
	unread = 5;
	ck_assert_int_eq(hc_free_sampled(a, &u, &unread), HC_ERR_STALE);
	ck_assert_int_eq(hc_alloc_sampled(s, 4096, &a, NULL, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_free_sampled(b, NULL, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_alloc_sampled(s, 4096, NULL, &u, &unread), HC_ERR_INVALID);
	ck_assert_int_eq(hc_stream_close(t), HC_OK);
	ck_assert_int_eq(hc_alloc_sampled(t, 4096, &a, &u, &unread), HC_ERR_STALE);
	ck_assert(memcmp(&u, &none, sizeof(u)) == 0);
	ck_assert_uint_eq(unread, 5);
	ck_assert_int_eq(hc_memory_usage_get(s, HC_MEMORY_DEVICE, &u), HC_OK);
	ck_assert_uint_eq(u.number_allocs, 0); /* the NULL-usage alloc did nothing */
}
END_TEST

static Suite *api_suite(void)
{
	Suite *su = suite_create("api");
	TCase *d = tcase_create("devices");
	TCase *b = tcase_create("buffers");

	tcase_add_test(d, unknown_backend_is_invalid_and_named);
	tcase_add_test(d, op_times_count_backend_calls);
	tcase_add_test(d, null_arguments_are_invalid);
	tcase_add_test(d, missing_profile_is_an_io_error_naming_the_file);
	tcase_add_checked_fixture(d, setup, sim_device_close);
	tcase_add_test(d, closed_device_is_stale);
	tcase_add_test(d, auto_falls_back_to_the_simulator_without_a_gpu);
	tcase_add_test(d, hip_without_runtime_reports_no_runtime);
#ifndef HIPCORE_WITH_HIP
	tcase_add_test(d, without_hip_the_hip_backend_says_so);
#endif
	tcase_add_test(d, stream_close_twice_is_stale_and_slot_reuse_does_not_revive);
	suite_add_tcase(su, d);

	tcase_add_checked_fixture(b, setup, sim_device_close);
	tcase_add_test(b, alloc_free_and_usage);
	tcase_add_test(b, freed_handle_stays_stale_after_reuse);
	tcase_add_test(b, zero_size_buffers_take_no_device_memory);
	tcase_add_test(b, too_big_and_bad_handles);
	tcase_add_test(b, buffers_end_with_their_stream);
	tcase_add_test(b, buffer_of_a_closed_device_is_stale);
	tcase_add_test(b, cleanup_and_retry_recovers_reserved_pages);
	tcase_add_test(b, idle_memory_moves_between_streams);
	tcase_add_test(b, oom_after_retry);
	tcase_add_test(b, install_memory_pools);
	tcase_add_test(b, device_usage_sums_streams);
	tcase_add_test(b, sampled_alloc_and_free_read_what_usage_get_reads);
	suite_add_tcase(su, b);
	return su;
}

HC_TEST_PROGRAM(api_suite);
