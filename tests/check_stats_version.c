/*
 * check_stats_version.c - hc_device_stats is versioned by its struct_size:
 * the library fills the whole fields that fit in the caller's struct_size
 * and writes back how many bytes it filled; a caller built against the
 * first version (before device_maps and device_unmaps were appended) gets
 * that version's fields and nothing past them; a newer caller's larger
 * struct gets every field this library has, its own tail untouched; a
 * struct_size below the first version is HC_ERR_INVALID with nothing
 * written.  The device has work behind it (an expandable pool's mappings,
 * staged writes, a launch) so that every compared field is nonzero where
 * the simulator counts it.
 */
#include <check.h>

#include "tests/runner.h"
#include <stddef.h>
#include <string.h>

#include "hipcore/hipcore.h"

#define POISON 0xa5a5a5a5a5a5a5a5ull

/* The first version's layout, as a caller built then declared it. */
struct stats_v1 {
	uint32_t struct_size;
	uint64_t device_allocs, device_frees, pinned_allocs, pinned_frees, device_bytes_peak;
	uint64_t copies_h2d, copies_d2h, copies_d2d, bytes_h2d, bytes_d2h, launches;
	uint64_t host_waits, host_blocked_ns, stream_waits;
	uint64_t writes_staged, writes_direct, writes_pipelined, dq_flushes, xstream_waits;
	uint64_t cache_hits, cache_misses, failures, alloc_retries;
};

/* A later caller's: this version and a field this library does not know. */
struct stats_later {
	hc_device_stats now;
	uint64_t future;
};

static hc_device dev;

static void setup(void)
{
	hc_pool_layout l = { .preset = HC_LAYOUT_EXPANDABLE };
	hc_stream s;
	hc_buffer b;
	static unsigned char host[1 << 16];

	ck_assert_int_eq(hc_device_open("sim", NULL, &dev), HC_OK);
	ck_assert_int_eq(hc_stream_open(dev, &s), HC_OK);
	ck_assert_int_eq(hc_install_memory_pools(s, &l), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 6 * HC_MIB, &b), HC_OK);
	ck_assert_int_eq(hc_write(s, b, 0, host, sizeof(host), HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_read(s, b, 0, host, sizeof(host), NULL), HC_OK);
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_memory_cleanup(s), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_OK);
}

static void teardown(void)
{
	ck_assert_int_eq(hc_device_close(dev), HC_OK);
}

static hc_device_stats full(void)
{
	hc_device_stats st = { .struct_size = sizeof(st) };

	ck_assert_int_eq(hc_device_stats_get(dev, &st), HC_OK);
	ck_assert_uint_eq(st.struct_size, sizeof(st));
	return st;
}

START_TEST(current_size_fills_everything)
{
	hc_device_stats st = full();

	/* the appended fields are filled: the pool mapped and cleanup unmapped */
	ck_assert_uint_gt(st.device_maps, 0);
	ck_assert_uint_gt(st.device_unmaps, 0);
	ck_assert_uint_gt(st.writes_staged, 0);
	ck_assert_uint_gt(st.copies_h2d, 0);
	ck_assert_uint_gt(st.copies_d2h, 0);
	/* the same struct again: struct_size stays what it was */
	ck_assert_int_eq(hc_device_stats_get(dev, &st), HC_OK);
	ck_assert_uint_eq(st.struct_size, sizeof(st));
}
END_TEST

START_TEST(first_version_gets_its_fields_only)
{
	hc_device_stats now = full();
	union {
		struct stats_v1 v1;
		unsigned char bytes[sizeof(hc_device_stats) + 16];
	} u;

	ck_assert_uint_eq(HC_DEVICE_STATS_SIZE_V1, sizeof(struct stats_v1));
	ck_assert_uint_eq(HC_DEVICE_STATS_SIZE_V1, offsetof(hc_device_stats, device_maps));
	memset(&u, 0xa5, sizeof(u));
	u.v1.struct_size = sizeof(u.v1);
	ck_assert_int_eq(hc_device_stats_get(dev, (hc_device_stats *)&u.v1), HC_OK);
	ck_assert_uint_eq(u.v1.struct_size, sizeof(u.v1));
	/* same layout: each field equals the current version's */
	ck_assert_uint_eq(u.v1.device_allocs, now.device_allocs);
	ck_assert_uint_eq(u.v1.pinned_allocs, now.pinned_allocs);
	ck_assert_uint_eq(u.v1.device_bytes_peak, now.device_bytes_peak);
	ck_assert_uint_eq(u.v1.copies_h2d, now.copies_h2d);
	ck_assert_uint_eq(u.v1.bytes_d2h, now.bytes_d2h);
	ck_assert_uint_eq(u.v1.launches, now.launches);
	ck_assert_uint_eq(u.v1.host_waits, now.host_waits);
	ck_assert_uint_eq(u.v1.writes_staged, now.writes_staged);
	ck_assert_uint_eq(u.v1.dq_flushes, now.dq_flushes);
	ck_assert_uint_eq(u.v1.alloc_retries, now.alloc_retries);
	/* nothing written past the first version */
	for (size_t i = sizeof(u.v1); i < sizeof(u.bytes); i++)
		ck_assert_msg(u.bytes[i] == 0xa5, "byte %zu past the first version written", i);
}
END_TEST

START_TEST(later_caller_keeps_its_tail)
{
	hc_device_stats now = full();
	struct stats_later l;

	memset(&l, 0xa5, sizeof(l));
	l.now.struct_size = sizeof(l);
	ck_assert_int_eq(hc_device_stats_get(dev, &l.now), HC_OK);
	/* what this library filled: its own version */
	ck_assert_uint_eq(l.now.struct_size, sizeof(hc_device_stats));
	ck_assert_uint_eq(l.now.device_maps, now.device_maps);
	ck_assert_uint_eq(l.now.device_unmaps, now.device_unmaps);
	ck_assert_uint_eq(l.now.launches, now.launches);
	ck_assert_uint_eq(l.future, POISON);
}
END_TEST

START_TEST(a_part_of_a_field_is_not_filled)
{
	union {
		hc_device_stats st;
		unsigned char bytes[sizeof(hc_device_stats)];
	} u;
	const size_t maps = offsetof(hc_device_stats, device_maps);

	memset(&u, 0xa5, sizeof(u));
	u.st.struct_size = (uint32_t)(maps + 4); /* half of device_maps */
	ck_assert_int_eq(hc_device_stats_get(dev, &u.st), HC_OK);
	ck_assert_uint_eq(u.st.struct_size, maps);
	ck_assert_uint_eq(u.st.device_maps, POISON);
	ck_assert_uint_eq(u.st.device_unmaps, POISON);
	u.st.struct_size = (uint32_t)(sizeof(u.st) - 1); /* device_unmaps cut short */
	ck_assert_int_eq(hc_device_stats_get(dev, &u.st), HC_OK);
	ck_assert_uint_eq(u.st.struct_size, offsetof(hc_device_stats, device_unmaps));
	ck_assert_uint_ne(u.st.device_maps, POISON);
	ck_assert_uint_eq(u.st.device_unmaps, POISON);
}
END_TEST

START_TEST(below_the_first_version_is_refused)
{
	static const uint32_t sizes[] = { 0, 4, 8, 64, HC_DEVICE_STATS_SIZE_V1 - 8,
					  HC_DEVICE_STATS_SIZE_V1 - 1 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		union {
			hc_device_stats st;
			unsigned char bytes[sizeof(hc_device_stats)];
		} u;
		hc_error_info e;

		memset(&u, 0xa5, sizeof(u));
		u.st.struct_size = sizes[i];
		ck_assert_int_eq(hc_device_stats_get(dev, &u.st), HC_ERR_INVALID);
		ck_assert_int_eq(hc_last_error(&e), HC_OK);
		ck_assert_int_eq(e.status, HC_ERR_INVALID);
		ck_assert_msg(strstr(e.message, "struct_size"), "message: %s", e.message);
		ck_assert_uint_eq(u.st.struct_size, sizes[i]);
		for (size_t k = sizeof(u.st.struct_size); k < sizeof(u.bytes); k++)
			ck_assert_msg(u.bytes[k] == 0xa5, "size %u: byte %zu written", sizes[i], k);
	}
}
END_TEST

static Suite *stats_version_suite(void)
{
	Suite *s = suite_create("stats_version");
	TCase *tc = tcase_create("struct_size");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, current_size_fills_everything);
	tcase_add_test(tc, first_version_gets_its_fields_only);
	tcase_add_test(tc, later_caller_keeps_its_tail);
	tcase_add_test(tc, a_part_of_a_field_is_not_filled);
	tcase_add_test(tc, below_the_first_version_is_refused);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(stats_version_suite);
