/*
 * check_builtins.c - the built-in kernels' definition (hal/builtins.c):
 * the table, the range checks with their messages, and the host
 * reference's bytes, the effects the simulator applies and the GPU code
 * (hal/hip/builtin_kernels.cu) must match: partial words, widths, the
 * block path of add and its tail, aliasing and overlapping ranges.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hal/builtins.h"
#include "tests/runner.h"

START_TEST(table_and_lookup)
{
	ck_assert_int_eq(hc_builtin_find("fill"), HC_BUILTIN_FILL);
	ck_assert_int_eq(hc_builtin_find("copy"), HC_BUILTIN_COPY);
	ck_assert_int_eq(hc_builtin_find("add"), HC_BUILTIN_ADD);
	ck_assert_int_eq(hc_builtin_find("add_one"), -1);
	ck_assert_int_eq(hc_builtin_find(""), -1);
	ck_assert_int_eq(hc_builtin_find(NULL), -1);
	ck_assert_uint_eq(hc_builtins[HC_BUILTIN_ADD].n_args, 3);
	ck_assert_uint_eq(hc_builtins[HC_BUILTIN_FILL].n_args, 2);
}
END_TEST

START_TEST(checks_name_what_is_missing)
{
	char why[160];
	uint64_t b[4] = { 16, 16, 16, 8 };

	ck_assert_int_eq(hc_builtin_check(HC_BUILTIN_ADD, 3, b, why, sizeof(why)), 0);
	ck_assert_int_eq(hc_builtin_check(HC_BUILTIN_ADD, 4, b, why, sizeof(why)), 0);
	ck_assert_int_eq(hc_builtin_check(HC_BUILTIN_ADD, 2, b, why, sizeof(why)), -1);
	ck_assert_str_eq(why, "kernel 'add' takes 3 parameters, got 2");
	b[2] = 19; /* 4 elements: a and b bind 16, enough */
	ck_assert_int_eq(hc_builtin_check(HC_BUILTIN_ADD, 3, b, why, sizeof(why)), 0);
	b[2] = 20;
	ck_assert_int_eq(hc_builtin_check(HC_BUILTIN_ADD, 3, b, why, sizeof(why)), -1);
	ck_assert_str_eq(why, "add: a and b must bind at least out's 20 bytes");
	b[0] = 15, b[1] = 16;
	ck_assert_int_eq(hc_builtin_check(HC_BUILTIN_COPY, 2, b, why, sizeof(why)), -1);
	ck_assert_str_eq(why, "copy: src binds 15 bytes, dst 16");
	b[1] = 3;
	ck_assert_int_eq(hc_builtin_check(HC_BUILTIN_FILL, 2, b, why, sizeof(why)), -1);
	ck_assert_str_eq(why, "fill: info binds 3 bytes, needs at least 4");
	ck_assert_int_eq(hc_builtin_check(HC_BUILTIN_FILL, 2, NULL, why, sizeof(why)), -1);
	ck_assert_str_eq(why, "kernel 'fill' takes 2 parameters, got 0");
}
END_TEST

static const char *fill(unsigned char *dst, uint64_t n, uint32_t value, uint32_t width,
			uint64_t info_bytes)
{
	uint32_t info[2] = { value, width };
	unsigned char *p[3] = { dst, (unsigned char *)info, NULL };
	uint64_t b[3] = { n, info_bytes, 0 };

	return hc_builtin_run(HC_BUILTIN_FILL, p, b);
}

START_TEST(fill_widths_and_partial_words)
{
	unsigned char d[601];

	memset(d, 0xaa, sizeof(d));
	ck_assert_ptr_null(fill(d, 599, 0x04030201u, 4, 8)); /* crosses two 256-byte runs */
	for (int i = 0; i < 599; i++)
		ck_assert_uint_eq(d[i], (unsigned)(i % 4 + 1));
	ck_assert_uint_eq(d[599], 0xaa);
	ck_assert_ptr_null(fill(d + 1, 5, 0x0000beefu, 1, 8)); /* low byte only */
	for (int i = 1; i < 6; i++)
		ck_assert_uint_eq(d[i], 0xef);
	ck_assert_uint_eq(d[6], 3);
	ck_assert_ptr_null(fill(d, 3, 0x11223344u, 77, 4)); /* word 1 absent: width 4 */
	ck_assert_uint_eq(d[0], 0x44);
	ck_assert_uint_eq(d[2], 0x22);
	ck_assert_ptr_nonnull(fill(d, 8, 1, 2, 8));
	ck_assert_uint_eq(d[3], 0xef); /* nothing written */
}
END_TEST

static void add(unsigned char *a, unsigned char *b, unsigned char *out, uint64_t out_bytes)
{
	unsigned char *p[3] = { a, b, out };
	uint64_t n[3] = { out_bytes, out_bytes, out_bytes };

	ck_assert_ptr_null(hc_builtin_run(HC_BUILTIN_ADD, p, n));
}

START_TEST(add_wraps_over_blocks_and_tail)
{
	enum { N = 1000 }; /* three blocks of 256 and a tail */
	uint32_t *a = malloc(4 * N), *b = malloc(4 * N), *o = malloc(4 * N + 4);

	for (uint32_t i = 0; i < N; i++) {
		a[i] = 0xffffff00u + i;
		b[i] = 3 * i;
	}
	o[N] = 0x5a5a5a5au;
	add((unsigned char *)a, (unsigned char *)b, (unsigned char *)o, 4 * N + 3);
	for (uint32_t i = 0; i < N; i++)
		ck_assert_uint_eq(o[i], 0xffffff00u + i + 3 * i);
	ck_assert_uint_eq(o[N], 0x5a5a5a5au); /* a stray 3 bytes: no element */
	/* out is a: in place, every element once */
	add((unsigned char *)a, (unsigned char *)b, (unsigned char *)a, 4 * N);
	for (uint32_t i = 0; i < N; i++)
		ck_assert_uint_eq(a[i], 0xffffff00u + 4 * i);
	free(a);
	free(b);
	free(o);
}
END_TEST

/* An input that overlaps out one element further on: element by element,
 * each element sees the one written before it (a running sum). */
START_TEST(add_askew_overlap_is_element_by_element)
{
	enum { N = 600 };
	uint32_t *v = calloc(N + 1, 4), *one = malloc(4 * N);

	for (int i = 0; i < N; i++)
		one[i] = 1;
	add((unsigned char *)v, (unsigned char *)one, (unsigned char *)(v + 1), 4 * N);
	for (uint32_t i = 0; i <= N; i++)
		ck_assert_uint_eq(v[i], i);
	free(v);
	free(one);
}
END_TEST

START_TEST(copy_is_memmove)
{
	unsigned char buf[64], *p[3];
	uint64_t n[3];

	for (int i = 0; i < 64; i++)
		buf[i] = (unsigned char)i;
	p[0] = buf, p[1] = buf + 8, n[0] = 40, n[1] = 32; /* dst after src, overlapping */
	ck_assert_ptr_null(hc_builtin_run(HC_BUILTIN_COPY, p, n));
	for (int i = 0; i < 32; i++)
		ck_assert_uint_eq(buf[8 + i], i);
	p[0] = buf + 8, p[1] = buf + 4, n[0] = 32, n[1] = 32; /* dst before src */
	ck_assert_ptr_null(hc_builtin_run(HC_BUILTIN_COPY, p, n));
	for (int i = 0; i < 32; i++)
		ck_assert_uint_eq(buf[4 + i], i);
}
END_TEST

static Suite *builtins_suite(void)
{
	Suite *s = suite_create("builtins");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, table_and_lookup);
	tcase_add_test(tc, checks_name_what_is_missing);
	tcase_add_test(tc, fill_widths_and_partial_words);
	tcase_add_test(tc, add_wraps_over_blocks_and_tail);
	tcase_add_test(tc, add_askew_overlap_is_element_by_element);
	tcase_add_test(tc, copy_is_memmove);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(builtins_suite);
