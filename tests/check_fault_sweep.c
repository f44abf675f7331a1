/*
 * check_fault_sweep.c - the fault-injection sweep: every fault kind at every
 * call of in-test workloads, through the public API (the shim that injects
 * them is tests/check_hal_shims.c's).
 *
 * Three workloads written against the public API mirror hipsim's built-in
 * ones (tools/hipsim/workloads.c) at a size that runs quickly under
 * valgrind: "service" (requests on two streams sharing weights written on
 * stream 0: write, add kernel, read back), "training" (layers whose weights
 * a copy and an add kernel rewrite every step, read back now and then),
 * "loader" (pageable and file-backed uploads, read back, synced every few
 * steps), and "service-direct" (service over exact-size DIRECT pools, so
 * that device allocations are many).  Every buffer's contents are modelled on the host.
 *
 * For each workload and each fault kind (HC_FAULT_DEVICE_ALLOC, LAUNCH, COPY,
 * FENCE, mode ONCE) a clean run counts the operations of that kind (device
 * allocations, launches and copies from hc_device_stats; fences by running
 * k = 1, 2, ... until a run no longer sees the fault).  Then, for k from 1
 * to that count, a fresh device has the k-th operation fail; all k when
 * there are at most 24, otherwise k = 1..8, the last 4 and 12 spread evenly
 * between (first, last and a spread, as the sweep must stay fast).  Each run
 * checks:
 *  - every call returns a status its contract allows for that fault (alloc:
 *    OK or OOM; write: OK, DEVICE or OOM; launch: the same or TAINTED (it
 *    reads failed data: not run, recorded as a derived failure); read: OK, TAINTED or
 *    DEVICE; sync: OK or DEVICE; free and device close: OK);
 *  - every read that returns HC_OK returns the bytes of the model, so no
 *    failed work passes unseen;
 *  - every read that returns HC_ERR_TAINTED names a failure whose
 *    hc_failure_explain chain ends at a root of the kind injected (a
 *    "kernel" root for launches, "copy" for copies, "device" for fences);
 *  - the fault was seen: a retried or failed allocation, or a failure in
 *    the device's error graph;
 *  - the device closes with HC_OK (leaks: ASan/LSan and valgrind runs).
 * The counts of runs per kind are printed ("faults: ...") for
 * doc/reliability.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipcore/hipcore.h"
#include "tests/runner.h"

#define MAXBUF 64

struct run {
	hc_device dev;
	hc_stream s[2];
	hc_kernel add, copy;
	hc_fault_kind kind;
	int violations;
	uint64_t reads_ok, reads_tainted, bad_status, ooms;
	char first[1200];
};

static const char *const kind_names[] = { "device_alloc", "launch", "copy", "fence" };
static const char *const root_kind[] = { NULL, "kernel", "copy", "device" };

static void note(struct run *r, const char *fmt, const char *what, hc_status rc)
{
	hc_error_info e;

	r->violations++;
	if (r->violations > 1)
		return;
	hc_last_error(&e);
	snprintf(r->first, sizeof(r->first), fmt, what, hc_status_str(rc), e.message);
}

static bool allowed(hc_status rc, const hc_status *ok, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rc == ok[i])
			return true;
	return false;
}

#define EXPECT(r, rc, what, ...)                                                     \
	do {                                                                         \
		const hc_status ok_[] = { __VA_ARGS__ };                              \
		if (!allowed((rc), ok_, sizeof(ok_) / sizeof(ok_[0]))) {             \
			(r)->bad_status++;                                           \
			note((r), "%s returned %s (%s)", (what), (rc));              \
		}                                                                    \
	} while (0)

/* The root lines of the chain must all be of the injected kind. */
static void check_taint(struct run *r, hc_failure_id f)
{
	char text[4096], *line, *save = NULL;
	int roots = 0;

	if (f == 0) {
		note(r, "%s: %s (%s)", "tainted read with failure id 0", HC_ERR_TAINTED);
		return;
	}
	if (hc_failure_explain(r->dev, f, text, sizeof(text)) != HC_OK) {
		note(r, "%s: %s (%s)", "hc_failure_explain failed", HC_ERR_INVALID);
		return;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char want[32];

		if (!strstr(line, "root cause"))
			continue;
		roots++;
		snprintf(want, sizeof(want), " %s on stream", root_kind[r->kind]);
		if (!strstr(line, want) && !strstr(line, " injected on stream")) {
			r->violations++;
			if (r->violations == 1)
				snprintf(r->first, sizeof(r->first), "root of the wrong kind: %s", line);
		}
	}
	if (roots == 0) {
		r->violations++;
		if (r->violations == 1)
			snprintf(r->first, sizeof(r->first), "failure #%llu has no root",
				 (unsigned long long)f);
	}
}

/* A buffer and its model.  */
struct mbuf {
	hc_buffer b;
	uint64_t size;
	uint8_t *model;
	bool known; /* the model is what the device should hold */
};

static void m_alloc(struct run *r, int si, struct mbuf *m, uint64_t size)
{
	hc_status rc;

	m->b.id = 0;
	m->size = size;
	m->known = false;
	m->model = calloc(1, size);
	ck_assert_ptr_nonnull(m->model);
	rc = hc_alloc(r->s[si], size, &m->b);
	EXPECT(r, rc, "hc_alloc", HC_OK, HC_ERR_OOM);
	r->ooms += rc == HC_ERR_OOM;
	if (rc != HC_OK)
		m->b.id = 0;
}

static void m_free(struct run *r, struct mbuf *m)
{
	if (m->b.id)
		EXPECT(r, hc_free(m->b), "hc_free", HC_OK);
	m->b.id = 0;
	free(m->model);
	m->model = NULL;
}

static void m_write(struct run *r, int si, struct mbuf *m, uint8_t seed, hc_alloc_property prop)
{
	hc_status rc;

	if (!m->b.id)
		return;
	for (uint64_t i = 0; i < m->size; i++)
		m->model[i] = (uint8_t)(seed + i * 13);
	rc = hc_write(r->s[si], m->b, 0, m->model, m->size, prop, NULL, NULL);
	EXPECT(r, rc, "hc_write", HC_OK, HC_ERR_DEVICE, HC_ERR_OOM);
	m->known = rc == HC_OK;
}

static void m_read(struct run *r, int si, struct mbuf *m, uint64_t n)
{
	uint8_t *out;
	hc_failure_id f = 777;
	hc_status rc;

	if (!m->b.id)
		return;
	out = malloc(n);
	ck_assert_ptr_nonnull(out);
	rc = hc_read(r->s[si], m->b, 0, out, n, &f);
	EXPECT(r, rc, "hc_read", HC_OK, HC_ERR_TAINTED, HC_ERR_DEVICE);
	if (rc == HC_OK) {
		r->reads_ok++;
		if (m->known && memcmp(out, m->model, n) != 0) {
			r->violations++;
			if (r->violations == 1)
				snprintf(r->first, sizeof(r->first),
					 "a read returned HC_OK with bytes that differ from the model");
		}
	} else if (rc == HC_ERR_TAINTED) {
		r->reads_tainted++;
		check_taint(r, f);
	}
	free(out);
}

/* out[i] = a[i] + b[i] over uint32 words, for n bytes (n a multiple of 4). */
static void m_add(struct run *r, int si, struct mbuf *a, struct mbuf *b, struct mbuf *out, uint64_t n)
{
	hc_binding bd[3] = { { a->b, 0, n, HC_ACCESS_READ },
			     { b->b, 0, n, HC_ACCESS_READ },
			     { out->b, 0, n, HC_ACCESS_WRITE } };
	hc_launch_desc l = { .kernel = r->add, .grid = { 1, 1, 1 }, .block = { 64, 1, 1 },
			     .bindings = bd, .n_bindings = 3 };
	hc_status rc;

	if (!a->b.id || !b->b.id || !out->b.id)
		return;
	for (uint64_t i = 0; i + 4 <= n; i += 4) {
		uint32_t x, y;
		memcpy(&x, a->model + i, 4);
		memcpy(&y, b->model + i, 4);
		x += y;
		memcpy(out->model + i, &x, 4);
	}
	rc = hc_launch(r->s[si], &l);
	EXPECT(r, rc, "hc_launch", HC_OK, HC_ERR_TAINTED, HC_ERR_DEVICE, HC_ERR_OOM);
	out->known = rc == HC_OK && a->known && b->known;
}

static void m_copy(struct run *r, int si, struct mbuf *src, struct mbuf *dst, uint64_t n)
{
	hc_binding bd[2] = { { src->b, 0, n, HC_ACCESS_READ }, { dst->b, 0, n, HC_ACCESS_WRITE } };
	hc_launch_desc l = { .kernel = r->copy, .grid = { 1, 1, 1 }, .block = { 64, 1, 1 },
			     .bindings = bd, .n_bindings = 2 };
	hc_status rc;

	if (!src->b.id || !dst->b.id)
		return;
	memcpy(dst->model, src->model, n);
	rc = hc_launch(r->s[si], &l);
	EXPECT(r, rc, "hc_launch", HC_OK, HC_ERR_TAINTED, HC_ERR_DEVICE, HC_ERR_OOM);
	dst->known = rc == HC_OK && src->known;
}

static void m_sync(struct run *r, int si)
{
	EXPECT(r, hc_sync(r->s[si]), "hc_sync", HC_OK, HC_ERR_DEVICE);
}

/* --- the workloads -------------------------------------------------------- */

static void w_service(struct run *r)
{
	struct mbuf w, in, out;
	uint64_t n;

	m_alloc(r, 0, &w, 64 << 10);
	m_write(r, 0, &w, 1, HC_ALLOC_NATIVE);
	m_sync(r, 0);
	for (int step = 0; step < 6; step++) {
		int si = step % 2;

		n = (uint64_t)(4096 << (step % 4));
		m_alloc(r, si, &in, n);
		m_alloc(r, si, &out, n);
		m_write(r, si, &in, (uint8_t)(step + 5), HC_ALLOC_NATIVE);
		m_add(r, si, &in, &w, &out, n);
		m_read(r, si, &out, n);
		m_free(r, &in);
		m_free(r, &out);
	}
	m_sync(r, 0);
	m_sync(r, 1);
	m_free(r, &w);
}

static void w_training(struct run *r)
{
	enum { L = 3 };
	struct mbuf w[L], act, grad;

	for (int l = 0; l < L; l++) {
		m_alloc(r, 0, &w[l], (uint64_t)(8192u << l));
		m_write(r, 0, &w[l], (uint8_t)(l + 1), HC_ALLOC_NATIVE);
	}
	for (int step = 0; step < 3; step++) {
		for (int l = 0; l < L; l++) {
			uint64_t n = w[l].size;

			m_alloc(r, 0, &act, n);
			m_alloc(r, 0, &grad, n);
			m_copy(r, 0, &w[l], &act, n);		/* forward */
			m_add(r, 0, &act, &w[l], &grad, n);	/* backward */
			m_copy(r, 0, &grad, &w[l], n);		/* update */
			m_free(r, &act);
			m_free(r, &grad);
		}
		m_read(r, 0, &w[step % L], 256);
	}
	m_sync(r, 0);
	for (int l = 0; l < L; l++) {
		m_read(r, 0, &w[l], w[l].size);
		m_free(r, &w[l]);
	}
}

static void w_loader(struct run *r)
{
	struct mbuf b;

	for (int step = 0; step < 6; step++) {
		int si = step % 2;

		m_alloc(r, si, &b, (uint64_t)((64u << 10) << (step % 3)));
		m_write(r, si, &b, (uint8_t)(step * 3), step % 3 == 0 ? HC_ALLOC_FILE : HC_ALLOC_NATIVE);
		if (step % 2 == 1)
			m_sync(r, si);
		m_read(r, si, &b, b.size);
		m_free(r, &b);
	}
	m_sync(r, 0);
	m_sync(r, 1);
}

/* service again with exact-size pools: every new size is a device allocation */
static void w_service_direct(struct run *r)
{
	hc_pool_spec p = { .kind = HC_POOL_DIRECT };
	hc_pool_layout l = { HC_LAYOUT_EXPLICIT, &p, 1 };

	ck_assert_int_eq(hc_install_memory_pools(r->s[0], &l), HC_OK);
	ck_assert_int_eq(hc_install_memory_pools(r->s[1], &l), HC_OK);
	w_service(r);
}

static const struct {
	const char *name;
	void (*fn)(struct run *r);
} workloads[] = {
	{ "service", w_service },
	{ "training", w_training },
	{ "loader", w_loader },
	{ "service-direct", w_service_direct },
};

/* One run with the k-th operation of @kind failing (k 0: no fault). */
static void run_mode(int wl, hc_fault_kind kind, uint64_t k, hc_fault_mode mode, struct run *r,
		     hc_device_stats *st)
{
	hc_device_options o;

	memset(r, 0, sizeof(*r));
	r->kind = kind;
	ck_assert_int_eq(hc_device_options_init(&o), HC_OK);
	o.capacity = 256 * HC_MIB;
	o.data_mode = true;
	o.seed = 7;
	ck_assert_int_eq(hc_device_open("sim", &o, &r->dev), HC_OK);
	ck_assert_int_eq(hc_kernel_load(r->dev, NULL, 0, "add", &r->add), HC_OK);
	ck_assert_int_eq(hc_kernel_load(r->dev, NULL, 0, "copy", &r->copy), HC_OK);
	ck_assert_int_eq(hc_stream_open(r->dev, &r->s[0]), HC_OK);
	ck_assert_int_eq(hc_stream_open(r->dev, &r->s[1]), HC_OK);
	if (k)
		ck_assert_int_eq(hc_fault_inject(r->dev, kind, k, mode), HC_OK);
	workloads[wl].fn(r);
	ck_assert_int_eq(hc_device_stats_get(r->dev, st), HC_OK);
	ck_assert_int_eq(hc_device_close(r->dev), HC_OK);
}

static void run_once(int wl, hc_fault_kind kind, uint64_t k, struct run *r, hc_device_stats *st)
{
	run_mode(wl, kind, k, HC_FAULT_ONCE, r, st);
}

static bool fault_seen(hc_fault_kind kind, const hc_device_stats *st, const struct run *r)
{
	if (kind == HC_FAULT_DEVICE_ALLOC)
		return st->alloc_retries > 0 || r->ooms > 0;
	return st->failures > 0;
}

/* k values to run for @n operations: all of them up to 24, else a sample. */
static size_t sample(uint64_t n, uint64_t *ks)
{
	size_t m = 0;

	if (n <= 24) {
		for (uint64_t k = 1; k <= n; k++)
			ks[m++] = k;
		return m;
	}
	for (uint64_t k = 1; k <= 8; k++)
		ks[m++] = k;
	for (uint64_t i = 1; i <= 12; i++)
		ks[m++] = 8 + i * (n - 12) / 13;
	for (uint64_t k = n - 3; k <= n; k++)
		ks[m++] = k;
	return m;
}

START_TEST(sweep)
{
	int wl = _i / 4;
	hc_fault_kind kind = (hc_fault_kind)(_i % 4);
	struct run r;
	hc_device_stats st = { .struct_size = sizeof(st) };
	uint64_t n = 0, ks[32];
	size_t m;
	unsigned tainted_runs = 0, runs = 0, oom_runs = 0, retry_runs = 0;

	/* the clean run: no violation, every read correct */
	run_once(wl, kind, 0, &r, &st);
	ck_assert_msg(r.violations == 0, "%s clean: %s", workloads[wl].name, r.first);
	ck_assert_uint_eq(r.reads_tainted, 0);
	ck_assert_uint_eq(st.failures, 0);
	ck_assert_uint_gt(r.reads_ok, 0);
	switch (kind) {
	case HC_FAULT_DEVICE_ALLOC:
		n = st.device_allocs;
		break;
	case HC_FAULT_LAUNCH:
		n = st.launches;
		break;
	case HC_FAULT_COPY:
		n = st.copies_h2d + st.copies_d2h + st.copies_d2d;
		break;
	default:
		/* fences are not counted: run until the fault is no longer seen */
		for (n = 0; n < 200; n++) {
			run_once(wl, kind, n + 1, &r, &st);
			if (!fault_seen(kind, &st, &r))
				break;
		}
		break;
	}
	if (n == 0 && kind == HC_FAULT_LAUNCH && wl == 2) { /* loader launches nothing */
		printf("faults: %s %s operations=0 runs=0 tainted_runs=0\n", workloads[wl].name,
		       kind_names[kind]);
		return;
	}
	ck_assert_msg(n > 0, "%s: no %s operations", workloads[wl].name, kind_names[kind]);
	m = sample(n, ks);
	for (size_t i = 0; i < m; i++) {
		run_once(wl, kind, ks[i], &r, &st);
		runs++;
		ck_assert_msg(r.violations == 0, "%s, %s #%llu of %llu: %s", workloads[wl].name,
			      kind_names[kind], (unsigned long long)ks[i], (unsigned long long)n, r.first);
		ck_assert_msg(fault_seen(kind, &st, &r), "%s, %s #%llu of %llu: the fault left no trace",
			      workloads[wl].name, kind_names[kind], (unsigned long long)ks[i],
			      (unsigned long long)n);
		tainted_runs += r.reads_tainted > 0;
		oom_runs += r.ooms > 0;
		retry_runs += st.alloc_retries > 0;
	}
	/* one run past the last operation: nothing fails */
	run_once(wl, kind, n + 1, &r, &st);
	ck_assert_msg(r.violations == 0, "%s: %s", workloads[wl].name, r.first);
	ck_assert_uint_eq(st.failures, 0);
	ck_assert_uint_eq(r.reads_tainted, 0);
	if (kind != HC_FAULT_DEVICE_ALLOC)
		ck_assert_msg(tainted_runs > 0, "%s, %s: no run produced a tainted read",
			      workloads[wl].name, kind_names[kind]);
	printf("faults: %s %s operations=%llu runs=%u tainted_runs=%u oom_runs=%u retry_runs=%u\n",
	       workloads[wl].name, kind_names[kind], (unsigned long long)n, runs, tainted_runs,
	       oom_runs, retry_runs);
}
END_TEST

/*
 * Device allocations failing for good from the k-th on (PERSISTENT): retry
 * cannot help, so the caller sees HC_ERR_OOM; everything else stays within
 * its contract, reads of what was written stay right, the device closes.
 */
START_TEST(alloc_persistent)
{
	struct run r;
	hc_device_stats st = { .struct_size = sizeof(st) };
	uint64_t n;

	run_once(_i, HC_FAULT_DEVICE_ALLOC, 0, &r, &st);
	n = st.device_allocs;
	ck_assert_uint_gt(n, 0);
	for (uint64_t k = 1; k <= n && k <= 3; k++) {
		run_mode(_i, HC_FAULT_DEVICE_ALLOC, k, HC_FAULT_PERSISTENT, &r, &st);
		ck_assert_msg(r.violations == 0, "%s, k %llu: %s", workloads[_i].name,
			      (unsigned long long)k, r.first);
		ck_assert_msg(r.ooms > 0, "%s, k %llu: no allocation failed", workloads[_i].name,
			      (unsigned long long)k);
		printf("faults: %s device_alloc persistent from #%llu: ooms=%llu reads_ok=%llu\n",
		       workloads[_i].name, (unsigned long long)k, (unsigned long long)r.ooms,
		       (unsigned long long)r.reads_ok);
	}
}
END_TEST

static Suite *fault_sweep_suite(void)
{
	Suite *s = suite_create("fault_sweep");
	TCase *tc = tcase_create("sweep");

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, sweep, 0, (int)(4 * (sizeof(workloads) / sizeof(workloads[0]))));
	tcase_add_loop_test(tc, alloc_persistent, 0, (int)(sizeof(workloads) / sizeof(workloads[0])));
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(fault_sweep_suite);
