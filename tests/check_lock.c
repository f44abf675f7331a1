/*
 * check_lock.c - the stream lock of core/lock.h on its own: the owner bias
 * (its fast path leaves the futex word alone), revocation by other
 * threads while the owner keeps going, and biasing turned off by
 * HIPCORE_LOCK_BIAS=0 or by a membarrier that fails.  Counts are of a
 * plain counter incremented under the lock: a lost update shows as a
 * short count.  Under ThreadSanitizer the lock is a pthread mutex and only
 * the counting tests run (build with -DHC_LOCK_FUTEX to check the futex
 * and biased lock there too).
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "core/lock.h"
#include "tests/runner.h"

#define ROUNDS 8
#define ITERS 20000
#define SHORT_ROUNDS 3000
#define SHORT_ITERS 300

struct shared {
	hc_lock lock;
	long counter;   /* plain: only the lock orders it */
	int go;         /* the owner has biased the lock and counted a while */
	int in_others;  /* other threads that entered while the owner held it */
	int owner_held; /* the owner is in its long hold */
};

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void count(struct shared *sh, long n)
{
	for (long i = 0; i < n; i++) {
		hc_lock_acquire(&sh->lock);
		sh->counter++;
		hc_lock_release(&sh->lock);
	}
}

/* The first thread: takes the lock first (the bias, where it is on),
 * counts a while alone, lets the others start, and keeps counting. */
static void *owner_main(void *p)
{
	struct shared *sh = p;

	count(sh, ITERS / 4);
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	count(sh, ITERS - ITERS / 4);
	return NULL;
}

static void *other_main(void *p)
{
	struct shared *sh = p;

	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		sched_yield();
	count(sh, ITERS);
	return NULL;
}

/* Rounds of one owner and @others late threads on a fresh lock. */
static void run_rounds(int others)
{
	for (int r = 0; r < ROUNDS; r++) {
		struct shared sh = { .counter = 0 };
		pthread_t owner, thr[3];

		hc_lock_init(&sh.lock);
		ck_assert_int_eq(pthread_create(&owner, NULL, owner_main, &sh), 0);
		for (int i = 0; i < others; i++)
			ck_assert_int_eq(pthread_create(&thr[i], NULL, other_main, &sh), 0);
		pthread_join(owner, NULL);
		for (int i = 0; i < others; i++)
			pthread_join(thr[i], NULL);
		ck_assert_int_eq(sh.counter, (long)ITERS * (others + 1));
		hc_lock_destroy(&sh.lock);
	}
}

START_TEST(late_threads_count)
{
	run_rounds(_i);
}
END_TEST

/* Many short rounds, each with one revocation, which lands at a random
 * point of the owner's loop.  The narrowest race, an owner that read its
 * token just before the revocation, is a few instructions wide: these
 * rounds give it chances, owner_fast_path_taken checks it directly. */
static void *short_owner(void *p)
{
	struct shared *sh = p;

	count(sh, 1);
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	count(sh, SHORT_ITERS - 1);
	return NULL;
}

static void *short_other(void *p)
{
	struct shared *sh = p;

	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		;
	count(sh, SHORT_ITERS);
	return NULL;
}

START_TEST(many_revocations_count)
{
	long lost = 0;

	for (int r = 0; r < SHORT_ROUNDS; r++) {
		struct shared sh = { .counter = 0 };
		pthread_t a, b;

		hc_lock_init(&sh.lock);
		ck_assert_int_eq(pthread_create(&a, NULL, short_owner, &sh), 0);
		ck_assert_int_eq(pthread_create(&b, NULL, short_other, &sh), 0);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		lost += 2L * SHORT_ITERS - sh.counter;
	}
	ck_assert_int_eq(lost, 0);
}
END_TEST

/* Threads that all start at once on a lock nobody has taken: one claims
 * it, the others revoke, and no increment is lost. */
static void *racer_main(void *p)
{
	struct shared *sh = p;

	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		sched_yield();
	count(sh, ITERS);
	return NULL;
}

START_TEST(racing_claims_count)
{
	for (int r = 0; r < ROUNDS; r++) {
		struct shared sh = { .counter = 0 };
		pthread_t thr[4];

		hc_lock_init(&sh.lock);
		for (int i = 0; i < 4; i++)
			ck_assert_int_eq(pthread_create(&thr[i], NULL, racer_main, &sh), 0);
		__atomic_store_n(&sh.go, 1, __ATOMIC_RELEASE);
		for (int i = 0; i < 4; i++)
			pthread_join(thr[i], NULL);
		ck_assert_int_eq(sh.counter, 4L * ITERS);
	}
}
END_TEST

/* Another thread wants the lock while its owner holds it for a while: it
 * must not get in before the owner lets go. */
static void *waiter_main(void *p)
{
	struct shared *sh = p;

	while (!__atomic_load_n(&sh->owner_held, __ATOMIC_ACQUIRE))
		sched_yield();
	hc_lock_acquire(&sh->lock);
	if (__atomic_load_n(&sh->owner_held, __ATOMIC_RELAXED))
		sh->in_others++;
	sh->counter++;
	hc_lock_release(&sh->lock);
	return NULL;
}

START_TEST(revoker_waits_for_owner)
{
	struct shared sh = { .counter = 0 };
	pthread_t thr;

	hc_lock_init(&sh.lock);
	count(&sh, 10); /* the bias, where it is on */
	ck_assert_int_eq(pthread_create(&thr, NULL, waiter_main, &sh), 0);
	hc_lock_acquire(&sh.lock);
	__atomic_store_n(&sh.owner_held, 1, __ATOMIC_RELEASE);
	sleep_ms(50);
	sh.counter++;
	__atomic_store_n(&sh.owner_held, 0, __ATOMIC_RELAXED);
	hc_lock_release(&sh.lock);
	pthread_join(thr, NULL);
	ck_assert_int_eq(sh.in_others, 0);
	ck_assert_int_eq(sh.counter, 12);
	/* And the owner goes on, now through the futex lock. */
	count(&sh, 10);
	ck_assert_int_eq(sh.counter, 22);
}
END_TEST

#ifndef HC_LOCK_PTHREAD

/* Whether this process may use membarrier: bias should then be on. */
static bool kernel_has_membarrier(void)
{
	long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	return cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	       syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

static void *acquire_once(void *p)
{
	hc_lock *l = p;

	hc_lock_acquire(l);
	hc_lock_release(l);
	return NULL;
}

/* The owner's holds leave the futex word at 0 and the owner in place;
 * another thread's acquisition revokes the bias for good. */
START_TEST(owner_fast_path_taken)
{
	hc_lock l;
	pthread_t thr;

	if (!kernel_has_membarrier()) {
		ck_assert(!hc_lock_bias_enabled());
		return;
	}
	ck_assert(hc_lock_bias_enabled());
	hc_lock_init(&l);
	for (int i = 0; i < 1000; i++) {
		hc_lock_acquire(&l);
		ck_assert_uint_eq(__atomic_load_n(&l.state, __ATOMIC_RELAXED), 0);
		ck_assert_uint_eq(l.busy, 1);
		ck_assert_uint_eq(l.biased_hold, 1);
		ck_assert(l.owner == hc_lock_self());
		hc_lock_release(&l);
		ck_assert_uint_eq(l.busy, 0);
	}
	ck_assert_uint_eq(l.state, 0);
	ck_assert_int_eq(pthread_create(&thr, NULL, acquire_once, &l), 0);
	pthread_join(thr, NULL);
	ck_assert(l.owner == HC_LOCK_REVOKED);
	/* An owner that read its token before the revocation and announces
	 * its hold after it must see the revocation and back off. */
	ck_assert(!hc_lock_try_biased(&l, hc_lock_self()));
	ck_assert_uint_eq(l.busy, 0);
	ck_assert_uint_eq(l.biased_hold, 0);
	/* The old owner now takes the futex word like everyone else. */
	hc_lock_acquire(&l);
	ck_assert_uint_eq(l.state, 1);
	ck_assert_uint_eq(l.biased_hold, 0);
	hc_lock_release(&l);
	ck_assert_uint_eq(l.state, 0);
	ck_assert(l.owner == HC_LOCK_REVOKED);
}
END_TEST

struct handoff {
	hc_lock lock;
	uintptr_t token; /* the taker's hc_lock_self() */
	long counter;
};

static void *take_and_count(void *p)
{
	struct handoff *h = p;

	h->token = hc_lock_self();
	for (int i = 0; i < 100; i++) {
		hc_lock_acquire(&h->lock);
		h->counter++;
		hc_lock_release(&h->lock);
	}
	return NULL;
}

/* The opener's pattern: take the lock once, disown it, hand it over; the
 * next thread becomes the owner instead of revoking the bias. */
START_TEST(disown_hands_over)
{
	struct handoff h = { .counter = 0 };
	pthread_t thr;

	if (!hc_lock_bias_enabled())
		ck_assert(!kernel_has_membarrier());
	hc_lock_init(&h.lock);
	hc_lock_acquire(&h.lock);
	h.counter++;
	hc_lock_release(&h.lock);
	if (hc_lock_bias_enabled())
		ck_assert(h.lock.owner == hc_lock_self());
	hc_lock_disown(&h.lock);
	ck_assert(h.lock.owner != hc_lock_self());
	ck_assert_int_eq(pthread_create(&thr, NULL, take_and_count, &h), 0);
	pthread_join(thr, NULL);
	ck_assert_int_eq(h.counter, 101);
	if (hc_lock_bias_enabled())
		ck_assert(h.lock.owner == h.token);
	else
		ck_assert(h.lock.owner == HC_LOCK_REVOKED);
	/* Disowning a lock that is someone else's does nothing. */
	hc_lock_disown(&h.lock);
	ck_assert(h.lock.owner == (hc_lock_bias_enabled() ? h.token : HC_LOCK_REVOKED));
	/* Nor does it undo a revocation. */
	hc_lock_acquire(&h.lock);
	hc_lock_release(&h.lock);
	hc_lock_disown(&h.lock);
	ck_assert(h.lock.owner == HC_LOCK_REVOKED);
	ck_assert_int_eq(h.counter, 101);
}
END_TEST

/* With biasing off, the first acquisition sends the lock to the futex
 * path for good, and every hold takes the futex word. */
static void check_unbiased(void)
{
	hc_lock l;

	ck_assert(!hc_lock_bias_enabled());
	hc_lock_init(&l);
	for (int i = 0; i < 100; i++) {
		hc_lock_acquire(&l);
		ck_assert_uint_eq(l.state, 1);
		ck_assert(l.owner == HC_LOCK_REVOKED);
		ck_assert_uint_eq(l.biased_hold, 0);
		hc_lock_release(&l);
		ck_assert_uint_eq(l.state, 0);
	}
	run_rounds(3);
}

START_TEST(bias_off_by_env)
{
	ck_assert_int_eq(setenv("HIPCORE_LOCK_BIAS", "0", 1), 0);
	hc_lock_bias_reset(NULL);
	check_unbiased();
	unsetenv("HIPCORE_LOCK_BIAS");
	hc_lock_bias_reset(NULL);
}
END_TEST

static int fake_calls;

/* A kernel without membarrier (or a sandbox that forbids it). */
static long membarrier_enosys(int cmd, unsigned flags)
{
	(void)cmd, (void)flags;
	fake_calls++;
	errno = ENOSYS;
	return -1;
}

/* One that offers the commands but refuses the registration. */
static long membarrier_eperm(int cmd, unsigned flags)
{
	(void)flags;
	fake_calls++;
	if (cmd == MEMBARRIER_CMD_QUERY)
		return MEMBARRIER_CMD_PRIVATE_EXPEDITED | MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED;
	errno = EPERM;
	return -1;
}

START_TEST(bias_off_by_failed_registration)
{
	fake_calls = 0;
	hc_lock_bias_reset(membarrier_enosys);
	check_unbiased();
	ck_assert_int_eq(fake_calls, 1); /* asked once, then never again */
	fake_calls = 0;
	hc_lock_bias_reset(membarrier_eperm);
	check_unbiased();
	ck_assert_int_eq(fake_calls, 2);
	hc_lock_bias_reset(NULL);
}
END_TEST

#endif /* !HC_LOCK_PTHREAD */

static Suite *lock_suite(void)
{
	Suite *s = suite_create("lock");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, late_threads_count, 1, 4);
	tcase_add_test(tc, racing_claims_count);
	tcase_add_test(tc, many_revocations_count);
	tcase_add_test(tc, revoker_waits_for_owner);
#ifndef HC_LOCK_PTHREAD
	tcase_add_test(tc, owner_fast_path_taken);
	tcase_add_test(tc, disown_hands_over);
	tcase_add_test(tc, bias_off_by_env);
	tcase_add_test(tc, bias_off_by_failed_registration);
#endif
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(lock_suite);
