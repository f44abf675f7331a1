/*
 * idmap.c - the id map hipsim keeps from a trace's pointers to buffers.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/readers/readers_suites.h"

/* --- idmap -------------------------------------------------------------- */

START_TEST(idmap_put_get_take)
{
	struct hs_idmap m;
	uint64_t v;
	enum { N = 20000 };

	hs_idmap_init(&m);
	ck_assert(!hs_idmap_get(&m, 0, &v));
	ck_assert(!hs_idmap_take(&m, 5, NULL));
	for (uint64_t i = 0; i < N; i++)
		ck_assert_int_eq(hs_idmap_put(&m, i * 4096 + 0x7f0000000000ull, i + 1), 0);
	ck_assert_int_eq(hs_idmap_put(&m, 0, 111), 0);
	ck_assert_int_eq(hs_idmap_put(&m, UINT64_MAX, 222), 0);
	ck_assert_uint_eq(m.count, N + 2);
	/* replace keeps the count */
	ck_assert_int_eq(hs_idmap_put(&m, 0, 112), 0);
	ck_assert_uint_eq(m.count, N + 2);
	/* take every odd key, in a scattered order */
	for (uint64_t j = 0; j < N; j++) {
		uint64_t i = (j * 7919) % N;

		if (i % 2 == 1) {
			ck_assert(hs_idmap_take(&m, i * 4096 + 0x7f0000000000ull, &v));
			ck_assert_uint_eq(v, i + 1);
		}
	}
	ck_assert_uint_eq(m.count, N / 2 + 2);
	for (uint64_t i = 0; i < N; i++) {
		bool found = hs_idmap_get(&m, i * 4096 + 0x7f0000000000ull, &v);

		ck_assert_int_eq(found, i % 2 == 0);
		if (found)
			ck_assert_uint_eq(v, i + 1);
	}
	ck_assert(hs_idmap_get(&m, 0, &v));
	ck_assert_uint_eq(v, 112);
	ck_assert(hs_idmap_take(&m, UINT64_MAX, &v));
	ck_assert_uint_eq(v, 222);
	ck_assert(!hs_idmap_get(&m, UINT64_MAX, &v));
	hs_idmap_free(&m);
	ck_assert_uint_eq(hs_idmap_bytes(&m), 0);
}
END_TEST

Suite *readers_idmap_suite(void)
{
	Suite *s = suite_create("idmap");
	TCase *tc;

	tc = tcase_create("idmap");
	tcase_add_test(tc, idmap_put_get_take);
	suite_add_tcase(s, tc);
	return s;
}
