/*
 * check_q_errgraph.c - the error graph: failure nodes and edges, exact taint
 * ranges, explain text, and 10,000 random taint/clear operations checked
 * against a byte-array model.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/queue/errgraph.h"
#include "core/internal.h"
#include "tests/check_queues.h"

static struct hc_errgraph *eg;

static void setup(void)
{
	ck_assert_int_eq(hc_eg_create(&eg), HC_OK);
}

static void teardown(void)
{
	hc_eg_destroy(eg);
	eg = NULL;
}

static hc_failure_id mkfail(enum hc_eg_kind kind, uint64_t stream, const char *desc,
			  const hc_failure_id *causes, size_t n)
{
	hc_failure_id id = 0;

	ck_assert_int_eq(hc_eg_fail(eg, kind, stream, desc, causes, n, &id), HC_OK);
	ck_assert_uint_ne(id, 0);
	return id;
}

/* A launch: reads the given ranges, writes one range; derives a failure
 * from every taint it reads, or clears its output when it runs. */
struct range {
	uint64_t buf, off, size;
};

static hc_failure_id launch(uint64_t stream, const char *name, const struct range *reads, size_t nr,
			    struct range out)
{
	hc_failure_id causes[16], got[16];
	size_t nc = 0, n, i, j;

	for (i = 0; i < nr; i++) {
		ck_assert_int_eq(hc_eg_causes_in(eg, reads[i].buf, reads[i].off, reads[i].size, got,
						 16, &n),
				 HC_OK);
		for (j = 0; j < n; j++)
			causes[nc++] = got[j];
	}
	if (nc == 0) {
		ck_assert_int_eq(hc_eg_written(eg, out.buf, out.off, out.size), HC_OK);
		return 0;
	}
	{
		hc_failure_id d = mkfail(HC_EG_DERIVED, stream, name, causes, nc);

		ck_assert_int_eq(hc_eg_taint(eg, out.buf, out.off, out.size, d), HC_OK);
		return d;
	}
}

START_TEST(ids_are_nonzero_and_increasing)
{
	hc_failure_id a = mkfail(HC_EG_KERNEL, 1, "a", NULL, 0);
	hc_failure_id b = mkfail(HC_EG_COPY, 1, "b", NULL, 0);
	hc_failure_id c = mkfail(HC_EG_DERIVED, 2, "c", (hc_failure_id[]){ a, b, a }, 3);
	struct hc_eg_failure f;

	ck_assert_uint_eq(a, 1);
	ck_assert_uint_eq(b, 2);
	ck_assert_uint_eq(c, 3);
	ck_assert_uint_eq(hc_eg_count(eg), 3);
	ck_assert_int_eq(hc_eg_get(eg, c, &f), HC_OK);
	ck_assert_int_eq(f.kind, HC_EG_DERIVED);
	ck_assert_uint_eq(f.stream, 2);
	ck_assert_str_eq(f.desc, "c");
	ck_assert_uint_eq(f.n_causes, 2); /* duplicate cause dropped */
	ck_assert_uint_eq(hc_eg_cause(eg, c, 0), a);
	ck_assert_uint_eq(hc_eg_cause(eg, c, 1), b);
	ck_assert_uint_eq(hc_eg_cause(eg, c, 2), 0);
}
END_TEST

START_TEST(failed_kernel_taints_exactly_its_outputs)
{
	hc_failure_id k = mkfail(HC_EG_KERNEL, 1, "k1 failed", NULL, 0);

	ck_assert_int_eq(hc_eg_taint(eg, 10, 256, 512, k), HC_OK);
	ck_assert_int_eq(hc_eg_taint(eg, 11, 0, 64, k), HC_OK);
	ck_assert_uint_eq(hc_eg_query(eg, 10, 256, 512), k);
	ck_assert_uint_eq(hc_eg_query(eg, 10, 767, 1), k);
	ck_assert_uint_eq(hc_eg_query(eg, 10, 255, 2), k);
	ck_assert_uint_eq(hc_eg_query(eg, 10, 0, 256), 0);  /* just below */
	ck_assert_uint_eq(hc_eg_query(eg, 10, 768, 4096), 0); /* just above */
	ck_assert_uint_eq(hc_eg_query(eg, 11, 63, 1), k);
	ck_assert_uint_eq(hc_eg_query(eg, 11, 64, 1), 0);
	ck_assert_uint_eq(hc_eg_query(eg, 12, 0, 1000), 0); /* another buffer */
	ck_assert_uint_eq(hc_eg_query(eg, 10, 300, 0), 0);   /* empty range */
}
END_TEST

START_TEST(chain_of_three_launches_derives_two_failures)
{
	/* k1 writes A (fails); k2 reads A writes B; k3 reads B and C writes D. */
	hc_failure_id k1 = mkfail(HC_EG_KERNEL, 1, "k1", NULL, 0);
	hc_failure_id k2, k3;
	struct range a = { 1, 0, 1024 }, b = { 2, 0, 1024 }, c = { 3, 0, 1024 }, d = { 4, 0, 1024 };
	struct range r3[2] = { b, c };
	struct hc_eg_failure f;

	ck_assert_int_eq(hc_eg_taint(eg, a.buf, a.off, a.size, k1), HC_OK);
	k2 = launch(1, "k2", &a, 1, b);
	k3 = launch(1, "k3", r3, 2, d);
	ck_assert_uint_eq(k2, 2);
	ck_assert_uint_eq(k3, 3);
	ck_assert_int_eq(hc_eg_get(eg, k2, &f), HC_OK);
	ck_assert_uint_eq(f.n_causes, 1);
	ck_assert_uint_eq(hc_eg_cause(eg, k2, 0), k1);
	ck_assert_int_eq(hc_eg_get(eg, k3, &f), HC_OK);
	ck_assert_uint_eq(f.n_causes, 1);
	ck_assert_uint_eq(hc_eg_cause(eg, k3, 0), k2);
	ck_assert_uint_eq(hc_eg_query(eg, 4, 0, 1024), k3);
	ck_assert_uint_eq(hc_eg_query(eg, 3, 0, 1024), 0);
	/* A launch reading only clean data runs and clears its output. */
	ck_assert_uint_eq(launch(1, "k4", &c, 1, d), 0);
	ck_assert_uint_eq(hc_eg_query(eg, 4, 0, 1024), 0);
}
END_TEST

START_TEST(write_clears_taint_and_splits_ranges)
{
	hc_failure_id k = mkfail(HC_EG_KERNEL, 1, "k", NULL, 0);

	ck_assert_int_eq(hc_eg_taint(eg, 5, 100, 100, k), HC_OK); /* [100,200) */
	ck_assert_int_eq(hc_eg_written(eg, 5, 140, 20), HC_OK);   /* hole [140,160) */
	ck_assert_uint_eq(hc_eg_ranges(eg, 5), 2);
	ck_assert_uint_eq(hc_eg_query(eg, 5, 140, 20), 0);
	ck_assert_uint_eq(hc_eg_query(eg, 5, 139, 1), k);
	ck_assert_uint_eq(hc_eg_query(eg, 5, 160, 1), k);
	ck_assert_uint_eq(hc_eg_query(eg, 5, 139, 22), k);
	/* Partially overlapping writes trim the ends. */
	ck_assert_int_eq(hc_eg_written(eg, 5, 50, 60), HC_OK); /* up to 110 */
	ck_assert_int_eq(hc_eg_written(eg, 5, 190, 50), HC_OK); /* from 190 */
	ck_assert_uint_eq(hc_eg_query(eg, 5, 0, 110), 0);
	ck_assert_uint_eq(hc_eg_query(eg, 5, 110, 1), k);
	ck_assert_uint_eq(hc_eg_query(eg, 5, 189, 1), k);
	ck_assert_uint_eq(hc_eg_query(eg, 5, 190, 1000), 0);
	/* A write over everything empties the buffer. */
	ck_assert_int_eq(hc_eg_written(eg, 5, 0, 1000), HC_OK);
	ck_assert_uint_eq(hc_eg_ranges(eg, 5), 0);
	ck_assert_uint_eq(hc_eg_query(eg, 5, 0, 1000), 0);
}
END_TEST

START_TEST(newer_taint_overrides_older)
{
	hc_failure_id a = mkfail(HC_EG_KERNEL, 1, "a", NULL, 0);
	hc_failure_id b = mkfail(HC_EG_COPY, 1, "b", NULL, 0);
	hc_failure_id got[4];
	size_t n;

	ck_assert_int_eq(hc_eg_taint(eg, 1, 0, 300, a), HC_OK);
	ck_assert_int_eq(hc_eg_taint(eg, 1, 100, 100, b), HC_OK);
	ck_assert_uint_eq(hc_eg_ranges(eg, 1), 3);
	ck_assert_uint_eq(hc_eg_query(eg, 1, 150, 1), b);
	ck_assert_uint_eq(hc_eg_query(eg, 1, 50, 200), a); /* lowest offset first */
	ck_assert_int_eq(hc_eg_causes_in(eg, 1, 0, 300, got, 4, &n), HC_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(got[0], a);
	ck_assert_uint_eq(got[1], b);
	ck_assert_int_eq(hc_eg_causes_in(eg, 1, 120, 10, got, 4, &n), HC_OK);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(got[0], b);
	/* Counting only, and a short output array. */
	ck_assert_int_eq(hc_eg_causes_in(eg, 1, 0, 300, NULL, 0, &n), HC_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(hc_eg_causes_in(eg, 1, 0, 300, got, 1, &n), HC_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(got[0], a);
	/* Re-tainting with the same failure merges back into one range. */
	ck_assert_int_eq(hc_eg_taint(eg, 1, 100, 100, a), HC_OK);
	ck_assert_uint_eq(hc_eg_ranges(eg, 1), 1);
}
END_TEST

START_TEST(forget_drops_a_buffer)
{
	hc_failure_id a = mkfail(HC_EG_INJECTED, 0, "inj", NULL, 0);

	ck_assert_int_eq(hc_eg_taint(eg, 77, 0, 8, a), HC_OK);
	ck_assert_int_eq(hc_eg_taint(eg, 78, 0, 8, a), HC_OK);
	hc_eg_forget(eg, 77);
	ck_assert_uint_eq(hc_eg_query(eg, 77, 0, 8), 0);
	ck_assert_uint_eq(hc_eg_query(eg, 78, 0, 8), a);
	hc_eg_forget(eg, 12345); /* unknown: nothing */
}
END_TEST

START_TEST(explain_prints_the_chain_once_per_node)
{
	char buf[1024];
	hc_failure_id r1 = mkfail(HC_EG_KERNEL, 1, "matmul failed", NULL, 0);
	hc_failure_id r2 = mkfail(HC_EG_COPY, 2, "upload failed", NULL, 0);
	hc_failure_id d1 = mkfail(HC_EG_DERIVED, 1, "relu skipped", (hc_failure_id[]){ r1, r2 }, 2);
	hc_failure_id d2 = mkfail(HC_EG_DERIVED, 1, "add skipped", (hc_failure_id[]){ d1, r1 }, 2);

	ck_assert_int_eq(hc_eg_explain(eg, d2, buf, sizeof(buf)), HC_OK);
	ck_assert_str_eq(buf, "#4 derived on stream 1: add skipped; caused by #3, #1\n"
			      "#3 derived on stream 1: relu skipped; caused by #1, #2\n"
			      "#1 kernel on stream 1: matmul failed; root cause\n"
			      "#2 copy on stream 2: upload failed; root cause\n");
	ck_assert_int_eq(hc_eg_explain(eg, r2, buf, sizeof(buf)), HC_OK);
	ck_assert_str_eq(buf, "#2 copy on stream 2: upload failed; root cause\n");
}
END_TEST

START_TEST(explain_unknown_and_short_buffer)
{
	char small[16];
	hc_error_info err;
	hc_failure_id r = mkfail(HC_EG_DEVICE, 3, "device lost", NULL, 0);

	ck_assert_int_eq(hc_eg_explain(eg, 0, small, sizeof(small)), HC_ERR_STALE);
	ck_assert_int_eq(hc_eg_explain(eg, r + 1, small, sizeof(small)), HC_ERR_STALE);
	ck_assert_str_eq(small, "");
	ck_assert_int_eq(hc_eg_explain(eg, r, small, sizeof(small)), HC_ERR_INVALID);
	ck_assert_uint_eq(strlen(small), sizeof(small) - 1); /* truncated, terminated */
	ck_assert_int_eq(strncmp(small, "#1 device on st", 15), 0);
	hc_last_error(&err);
	ck_assert_str_eq(err.message, "hc_eg_explain: text needs 48 bytes, buffer has 16");
	ck_assert_int_eq(hc_eg_explain(eg, r, small, 0), HC_ERR_INVALID);
}
END_TEST

START_TEST(bad_arguments_and_unknown_ids)
{
	hc_failure_id id = 0, bogus = 42;
	struct hc_eg_failure f;
	size_t n;

	ck_assert_int_eq(hc_eg_fail(eg, HC_EG_DERIVED, 1, "x", &bogus, 1, &id), HC_ERR_STALE);
	ck_assert_uint_eq(hc_eg_count(eg), 0);
	ck_assert_int_eq(hc_eg_fail(eg, (enum hc_eg_kind)99, 1, "x", NULL, 0, &id), HC_ERR_INVALID);
	ck_assert_int_eq(hc_eg_fail(eg, HC_EG_KERNEL, 1, "x", NULL, 1, &id), HC_ERR_INVALID);
	ck_assert_int_eq(hc_eg_fail(NULL, HC_EG_KERNEL, 1, "x", NULL, 0, &id), HC_ERR_INVALID);
	ck_assert_int_eq(hc_eg_taint(eg, 1, 0, 8, 1), HC_ERR_STALE);
	id = mkfail(HC_EG_KERNEL, 1, NULL, NULL, 0);
	ck_assert_int_eq(hc_eg_taint(eg, 1, UINT64_MAX - 3, 8, id), HC_ERR_INVALID);
	ck_assert_int_eq(hc_eg_written(eg, 1, 10, UINT64_MAX), HC_ERR_INVALID);
	ck_assert_int_eq(hc_eg_taint(eg, 1, UINT64_MAX - 8, 8, id), HC_OK); /* last bytes */
	ck_assert_uint_eq(hc_eg_query(eg, 1, UINT64_MAX - 1, 1), id);
	ck_assert_int_eq(hc_eg_taint(eg, 1, 0, 0, id), HC_OK); /* empty */
	ck_assert_uint_eq(hc_eg_ranges(eg, 1), 1);
	ck_assert_int_eq(hc_eg_get(eg, 99, &f), HC_ERR_STALE);
	ck_assert_int_eq(hc_eg_get(eg, id, &f), HC_OK);
	ck_assert_str_eq(f.desc, "");
	ck_assert_int_eq(hc_eg_causes_in(eg, 1, 0, 8, NULL, 2, &n), HC_ERR_INVALID);
	ck_assert_int_eq(hc_eg_create(NULL), HC_ERR_INVALID);
	ck_assert_uint_eq(hc_eg_query(NULL, 1, 0, 8), 0);
	hc_eg_destroy(NULL);
}
END_TEST

START_TEST(long_description_is_truncated)
{
	char desc[300];
	struct hc_eg_failure f;
	hc_failure_id id;

	memset(desc, 'x', sizeof(desc) - 1);
	desc[sizeof(desc) - 1] = '\0';
	id = mkfail(HC_EG_KERNEL, 1, desc, NULL, 0);
	ck_assert_int_eq(hc_eg_get(eg, id, &f), HC_OK);
	ck_assert_uint_eq(strlen(f.desc), HC_EG_DESC_MAX - 1);
}
END_TEST

START_TEST(many_buffers_grow_the_table)
{
	hc_failure_id a = mkfail(HC_EG_KERNEL, 1, "a", NULL, 0);
	uint64_t b;

	for (b = 0; b < 5000; b++)
		ck_assert_int_eq(hc_eg_taint(eg, b * 4096, b, 1, a), HC_OK);
	for (b = 0; b < 5000; b++) {
		ck_assert_uint_eq(hc_eg_query(eg, b * 4096, b, 1), a);
		ck_assert_uint_eq(hc_eg_query(eg, b * 4096, b + 1, 1), 0);
	}
	for (b = 0; b < 5000; b += 2)
		ck_assert_int_eq(hc_eg_written(eg, b * 4096, 0, 10000), HC_OK);
	for (b = 0; b < 5000; b++)
		ck_assert_uint_eq(hc_eg_query(eg, b * 4096, 0, 10000), b % 2 ? a : 0);
}
END_TEST

/*
 * Property test: 10,000 random taints and clears on two buffers of 2,048
 * bytes against a byte array of failure ids; after each operation, random
 * queries and causes_in must agree with the model.
 */
#define PBYTES 2048

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(uint64_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state % n;
}

START_TEST(random_taint_and_clear_match_a_byte_model)
{
	static hc_failure_id model[2][PBYTES];
	hc_failure_id ids[8];
	int op, i, q;

	memset(model, 0, sizeof(model));
	for (i = 0; i < 8; i++)
		ids[i] = mkfail(HC_EG_KERNEL, (uint64_t)i, "f", NULL, 0);
	for (op = 0; op < 10000; op++) {
		uint64_t buf = rnd(2), off = rnd(PBYTES), size = rnd(PBYTES - off + 1), j;

		if (rnd(3) == 0) {
			ck_assert_int_eq(hc_eg_written(eg, buf + 100, off, size), HC_OK);
			for (j = off; j < off + size; j++)
				model[buf][j] = 0;
		} else {
			hc_failure_id f = ids[rnd(8)];

			ck_assert_int_eq(hc_eg_taint(eg, buf + 100, off, size, f), HC_OK);
			for (j = off; j < off + size; j++)
				model[buf][j] = f;
		}
		for (q = 0; q < 4; q++) {
			uint64_t qb = rnd(2), qo = rnd(PBYTES), qs = rnd(PBYTES - qo + 1);
			hc_failure_id expect = 0, got[8], want[8];
			size_t n, nw = 0, k;

			for (j = qo; j < qo + qs; j++) {
				hc_failure_id f = model[qb][j];

				if (!f)
					continue;
				if (!expect)
					expect = f;
				for (k = 0; k < nw && want[k] != f; k++)
					;
				if (k == nw)
					want[nw++] = f;
			}
			ck_assert_uint_eq(hc_eg_query(eg, qb + 100, qo, qs), expect);
			ck_assert_int_eq(hc_eg_causes_in(eg, qb + 100, qo, qs, got, 8, &n), HC_OK);
			ck_assert_uint_eq(n, nw);
			for (k = 0; k < nw; k++)
				ck_assert_uint_eq(got[k], want[k]);
		}
	}
	/* Every byte, and the range count bounded by the bytes' runs. */
	for (i = 0; i < 2; i++) {
		size_t runs = 0;
		uint64_t j;

		for (j = 0; j < PBYTES; j++) {
			ck_assert_uint_eq(hc_eg_query(eg, (uint64_t)i + 100, j, 1), model[i][j]);
			if (model[i][j] && (j == 0 || model[i][j - 1] != model[i][j]))
				runs++;
		}
		ck_assert_uint_eq(hc_eg_ranges(eg, (uint64_t)i + 100), runs);
	}
}
END_TEST

Suite *make_errgraph_suite(void)
{
	Suite *s = suite_create("errgraph");
	TCase *tc = tcase_create("graph");
	TCase *prop = tcase_create("property");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ids_are_nonzero_and_increasing);
	tcase_add_test(tc, failed_kernel_taints_exactly_its_outputs);
	tcase_add_test(tc, chain_of_three_launches_derives_two_failures);
	tcase_add_test(tc, write_clears_taint_and_splits_ranges);
	tcase_add_test(tc, newer_taint_overrides_older);
	tcase_add_test(tc, forget_drops_a_buffer);
	tcase_add_test(tc, explain_prints_the_chain_once_per_node);
	tcase_add_test(tc, explain_unknown_and_short_buffer);
	tcase_add_test(tc, bad_arguments_and_unknown_ids);
	tcase_add_test(tc, long_description_is_truncated);
	tcase_add_test(tc, many_buffers_grow_the_table);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(prop, setup, teardown);
	tcase_set_timeout(prop, 60);
	tcase_add_test(prop, random_taint_and_clear_match_a_byte_model);
	suite_add_tcase(s, prop);
	return s;
}
