/*
 * vmm.c - virtual memory on the HIP backend over the fake CUDA runtime
 * (its granule 2 MiB, a memfd per cuMemCreate): growth and copies across
 * mappings, refusals that reach no runtime call, out of memory leaving the
 * reservation usable, runtime failures undone step by step, nothing while
 * capturing, granularity 0 without the calls, and close giving it back.
 */
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/hip/hip_suites.h"

/* ---------------------------------------------------- virtual memory */

static struct hc_hal_stats hal_stats(void)
{
	struct hc_hal_stats st;

	ck_assert_int_eq(H->ctl(D, HC_HAL_CTL_STATS, &st), HC_OK);
	return st;
}

/* Written across a granule boundary, grown by a second mapping, copied
 * across the mappings' seam: the bytes are the runtime's memory (the fake
 * maps a memfd per cuMemCreate), so they prove the calls and their order. */
START_TEST(vmm_grow_copy_across_mappings_and_shrink)
{
	struct hc_hal_props p;
	struct hc_hal_stats st;
	hc_hal_stream *s;
	hc_hal_dptr r;
	unsigned char *src = malloc(G), *out = malloc(G);
	long live0 = fake_live();

	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(out);
	for (uint64_t i = 0; i < G; i++)
		src[i] = (unsigned char)(i * 13 + 5);
	ck_assert_int_eq(H->device_props(D, &p), HC_OK);
	ck_assert_uint_eq(p.vmm_granularity, G);
	ck_assert_uint_eq(fake_calls("cuMemGetAllocationGranularity"), 1); /* at open */
	ck_assert_int_eq(H->stream_create(D, &s), HC_OK);
	ck_assert_int_eq(H->va_reserve(D, 8 * G, &r), HC_OK);
	ck_assert_uint_eq(r % G, 0);
	ck_assert_int_eq(H->pmem_map(D, r, 2 * G), HC_OK);
	ck_assert_int_eq(H->copy_h2d(D, s, r + G / 2, src, G, false), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r + 2 * G, G), HC_OK);
	ck_assert_int_eq(H->copy_d2d(D, s, r + 3 * G / 2, r + G / 2, G), HC_OK);
	ck_assert_int_eq(H->copy_d2h(D, s, out, r + 3 * G / 2, G, false), HC_OK);
	ck_assert_int_eq(memcmp(out, src, G), 0);
	ck_assert_uint_eq(fake_calls("cuMemCreate"), 2);
	ck_assert_uint_eq(fake_calls("cuMemMap"), 2);
	ck_assert_uint_eq(fake_calls("cuMemSetAccess"), 2);
	st = hal_stats();
	ck_assert_uint_eq(st.pmem_maps, 2);
	ck_assert_uint_eq(st.device_bytes_live, 3 * G);
	ck_assert_uint_eq(st.device_bytes_peak, 3 * G);
	ck_assert_uint_eq(st.va_bytes_reserved, 8 * G);
	ck_assert_int_eq(fake_live(), live0 + 1 + 1 + 2); /* stream, reservation, two handles */
	/* one unmap over both: each unmapped and released */
	ck_assert_int_eq(H->pmem_unmap(D, r, 3 * G), HC_OK);
	ck_assert_uint_eq(fake_calls("cuMemUnmap"), 2);
	ck_assert_uint_eq(fake_calls("cuMemRelease"), 2);
	st = hal_stats();
	ck_assert_uint_eq(st.pmem_unmaps, 2);
	ck_assert_uint_eq(st.device_bytes_live, 0);
	ck_assert_int_eq(fake_live(), live0 + 2);
	/* mapped again: fresh memory */
	ck_assert_int_eq(H->pmem_map(D, r, G), HC_OK);
	ck_assert_int_eq(H->copy_d2h(D, s, out, r, 64, false), HC_OK);
	for (int i = 0; i < 64; i++)
		ck_assert_uint_eq(out[i], 0);
	ck_assert_int_eq(H->pmem_unmap(D, r, G), HC_OK);
	ck_assert_int_eq(H->va_release(D, r, 8 * G), HC_OK);
	ck_assert_uint_eq(fake_calls("cuMemAddressFree"), 1);
	ck_assert_uint_eq(hal_stats().va_bytes_reserved, 0);
	ck_assert_int_eq(H->stream_destroy(D, s), HC_OK);
	ck_assert_int_eq(fake_live(), live0);
	free(src);
	free(out);
}
END_TEST

/* The contract's rules are checked before the runtime sees a call. */
START_TEST(vmm_refusals_reach_no_runtime_call)
{
	hc_hal_dptr r, x;

	ck_assert_int_eq(H->va_reserve(D, 8 * G, &r), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r + G, 2 * G), HC_OK);
	ck_assert_int_eq(H->va_reserve(D, G + 4096, &x), HC_ERR_INVALID);
	ck_assert_int_eq(H->pmem_map(D, r + 4096, G), HC_ERR_INVALID);
	ck_assert_int_eq(H->pmem_map(D, r + 8 * G, G), HC_ERR_INVALID);
	ck_assert_int_eq(H->pmem_map(D, r + 7 * G, 2 * G), HC_ERR_INVALID);
	ck_assert_int_eq(H->pmem_map(D, r, 2 * G), HC_ERR_INVALID);
	ck_assert(strstr(last()->message, "overlaps a mapping") != NULL);
	ck_assert_int_eq(H->pmem_unmap(D, r + G, G), HC_ERR_INVALID);
	ck_assert(strstr(last()->message, "not a run of whole") != NULL);
	ck_assert_int_eq(H->pmem_unmap(D, r + 2 * G, G), HC_ERR_INVALID);
	ck_assert_int_eq(H->pmem_unmap(D, r, 3 * G), HC_ERR_INVALID);
	ck_assert_int_eq(H->va_release(D, r, 8 * G), HC_ERR_INVALID);
	ck_assert(strstr(last()->message, "still has 1 mapping(s)") != NULL);
	ck_assert_int_eq(H->va_release(D, r, 4 * G), HC_ERR_INVALID);
	ck_assert_uint_eq(fake_calls("cuMemCreate"), 1);
	ck_assert_uint_eq(fake_calls("cuMemUnmap"), 0);
	ck_assert_uint_eq(fake_calls("cuMemAddressReserve"), 1);
	ck_assert_uint_eq(fake_calls("cuMemAddressFree"), 0);
	/* the mapping and the reservation are left to device_close */
}
END_TEST

/* Out of memory on map: HC_ERR_OOM in the driver's words, the reservation
 * usable, nothing mapped before it lost. */
START_TEST(vmm_map_oom_leaves_the_reservation_usable)
{
	hc_hal_stream *s;
	hc_hal_dptr r;
	char in[64] = "kept across a refused map", out[64] = "";

	fake_set_vmm(G, 4 * G);
	ck_assert_int_eq(H->stream_create(D, &s), HC_OK);
	ck_assert_int_eq(H->va_reserve(D, 16 * G, &r), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r, 3 * G), HC_OK);
	ck_assert_int_eq(H->copy_h2d(D, s, r, in, sizeof(in), false), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r + 3 * G, 2 * G), HC_ERR_OOM);
	ck_assert_str_eq(last()->backend_name, "CUDA_ERROR_OUT_OF_MEMORY");
	ck_assert(strstr(last()->message, "cuMemCreate") != NULL);
	ck_assert_uint_eq(hal_stats().device_bytes_live, 3 * G);
	ck_assert_int_eq(H->pmem_map(D, r + 3 * G, G), HC_OK);
	ck_assert_int_eq(H->copy_d2h(D, s, out, r, sizeof(out), false), HC_OK);
	ck_assert_str_eq(out, in);
	ck_assert_int_eq(H->pmem_unmap(D, r, 3 * G), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r + 4 * G, 2 * G), HC_OK); /* room again */
	ck_assert_int_eq(H->stream_destroy(D, s), HC_OK);
}
END_TEST

/* A runtime call failing part way undoes what came before it. */
START_TEST(vmm_runtime_failures_undo_their_steps)
{
	hc_hal_dptr r;
	long live0;

	ck_assert_int_eq(H->va_reserve(D, 8 * G, &r), HC_OK);
	live0 = fake_live();
	fake_set_error("cuMemMap", 1, 1);
	ck_assert_int_eq(H->pmem_map(D, r, G), HC_ERR_DEVICE);
	ck_assert_str_eq(last()->backend_name, "CUDA_ERROR_INVALID_VALUE");
	ck_assert_uint_eq(fake_calls("cuMemRelease"), 1); /* the handle went back */
	ck_assert_int_eq(fake_live(), live0);
	fake_set_error("cuMemSetAccess", 1, 1);
	ck_assert_int_eq(H->pmem_map(D, r, G), HC_ERR_DEVICE);
	ck_assert_uint_eq(fake_calls("cuMemUnmap"), 1);
	ck_assert_uint_eq(fake_calls("cuMemRelease"), 2);
	ck_assert_int_eq(fake_live(), live0);
	ck_assert_uint_eq(hal_stats().pmem_maps, 0);
	ck_assert_int_eq(H->pmem_map(D, r, G), HC_OK); /* the range is free */
	ck_assert_int_eq(H->pmem_map(D, r + G, G), HC_OK);
	/* an unmap over two mappings whose first fails: nothing changed */
	fake_set_error("cuMemUnmap", 1, 1);
	ck_assert_int_eq(H->pmem_unmap(D, r, 2 * G), HC_ERR_DEVICE);
	ck_assert_uint_eq(hal_stats().device_bytes_live, 2 * G);
	/* whose first release fails: the first is unmapped, the second
	 * stays, and the handle is released at close (fake_close: nothing
	 * of the runtime's left) */
	{
		unsigned long before = fake_calls("cuMemUnmap");

		fake_set_error("cuMemRelease", 400, 1);
		ck_assert_int_eq(H->pmem_unmap(D, r, 2 * G), HC_ERR_DEVICE);
		ck_assert_str_eq(last()->backend_name, "CUDA_ERROR_INVALID_HANDLE");
		ck_assert_uint_eq(fake_calls("cuMemUnmap"), before + 1);
	}
	ck_assert_uint_eq(hal_stats().device_bytes_live, G);
	ck_assert_uint_eq(hal_stats().pmem_unmaps, 1);
	ck_assert_int_eq(H->pmem_unmap(D, r, G), HC_ERR_INVALID); /* gone already */
	ck_assert_int_eq(H->pmem_map(D, r, G), HC_OK);             /* and free to map */
	ck_assert_int_eq(H->pmem_unmap(D, r, 2 * G), HC_OK);
	ck_assert_int_eq(H->va_release(D, r, 8 * G), HC_OK);
	/* the reservation gone, the orphaned handle still the runtime's */
	ck_assert_int_eq(fake_live(), live0);
}
END_TEST

START_TEST(vmm_not_while_capturing)
{
	hc_hal_stream *s;
	hc_hal_graph *g = NULL;
	hc_hal_dptr r, x;

	ck_assert_int_eq(H->stream_create(D, &s), HC_OK);
	ck_assert_int_eq(H->va_reserve(D, 4 * G, &r), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r, G), HC_OK);
	ck_assert_int_eq(H->capture_begin(D, s), HC_OK);
	ck_assert_int_eq(H->va_reserve(D, G, &x), HC_ERR_STATE);
	ck_assert_int_eq(H->pmem_map(D, r + G, G), HC_ERR_STATE);
	ck_assert_int_eq(H->pmem_unmap(D, r, G), HC_ERR_STATE);
	ck_assert_int_eq(H->va_release(D, r, 4 * G), HC_ERR_STATE);
	ck_assert_int_eq(H->capture_end(D, s, &g), HC_OK); /* the capture survived */
	H->graph_destroy(D, g);
	ck_assert_uint_eq(fake_calls("cuMemCreate"), 1);
	ck_assert_uint_eq(fake_calls("cuMemAddressReserve"), 1);
	ck_assert_int_eq(H->pmem_unmap(D, r, G), HC_OK);
}
END_TEST

/* No virtual memory: a runtime that cannot say its granularity, or the
 * environment's HIPCORE_VMM=0. */
START_TEST(vmm_absent_is_granularity_zero)
{
	struct hc_hal_props p;
	hc_hal_dptr r;

	H->device_close(D);
	D = NULL;
	fake_set_vmm(0, 0);
	ck_assert_int_eq(open_with(fake_path, 0, &D), HC_OK);
	ck_assert_int_eq(H->device_props(D, &p), HC_OK);
	ck_assert_uint_eq(p.vmm_granularity, 0);
	ck_assert_int_eq(H->va_reserve(D, G, &r), HC_ERR_UNSUPPORTED);
	ck_assert_int_eq(H->pmem_map(D, G, G), HC_ERR_UNSUPPORTED);
	H->device_close(D);
	D = NULL;
	fake_reset();
	setenv("HIPCORE_VMM", "0", 1);
	ck_assert_int_eq(open_with(fake_path, 0, &D), HC_OK);
	unsetenv("HIPCORE_VMM");
	ck_assert_int_eq(H->device_props(D, &p), HC_OK);
	ck_assert_uint_eq(p.vmm_granularity, 0);
	ck_assert_uint_eq(fake_calls("cuMemGetAllocationGranularity"), 0);
	ck_assert_int_eq(H->va_release(D, G, G), HC_ERR_UNSUPPORTED);
	ck_assert_int_eq(H->pmem_unmap(D, G, G), HC_ERR_UNSUPPORTED);
}
END_TEST

/* Mappings and reservations left at close are unmapped, released, freed
 * (fake_close checks that nothing of the runtime's is live). */
START_TEST(vmm_close_gives_everything_back)
{
	hc_hal_dptr r1, r2;

	ck_assert_int_eq(H->va_reserve(D, 4 * G, &r1), HC_OK);
	ck_assert_int_eq(H->va_reserve(D, 4 * G, &r2), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r1, G), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r1 + G, 2 * G), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r2 + 3 * G, G), HC_OK);
	H->device_close(D);
	D = NULL;
	ck_assert_uint_eq(fake_calls("cuMemUnmap"), 3);
	ck_assert_uint_eq(fake_calls("cuMemRelease"), 3);
	ck_assert_uint_eq(fake_calls("cuMemAddressFree"), 2);
}
END_TEST

Suite *hip_vmm_suite(void)
{
	Suite *s = suite_create("vmm");
	TCase *tc;

	tc = tcase_create("ops");
	tcase_add_checked_fixture(tc, fake_open, fake_close);
	tcase_add_test(tc, vmm_grow_copy_across_mappings_and_shrink);
	tcase_add_test(tc, vmm_refusals_reach_no_runtime_call);
	tcase_add_test(tc, vmm_map_oom_leaves_the_reservation_usable);
	tcase_add_test(tc, vmm_runtime_failures_undo_their_steps);
	tcase_add_test(tc, vmm_not_while_capturing);
	tcase_add_test(tc, vmm_absent_is_granularity_zero);
	tcase_add_test(tc, vmm_close_gives_everything_back);
	suite_add_tcase(s, tc);
	return s;
}
