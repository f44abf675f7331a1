/*
 * lock.c - the stream lock's rare paths: the futex wait, the bias claim,
 * its revocation, and the once-per-process membarrier registration.  The
 * design is in lock.h.
 */
#include "core/lock.h"
#include "util/env.h"

#ifndef HC_LOCK_PTHREAD

#include <errno.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

__thread char hc_lock_token __attribute__((tls_model("initial-exec")));

/* 0 not decided yet, 1 on, 2 off; decided under bias_mutex. */
static int bias_state;
static pthread_mutex_t bias_mutex = PTHREAD_MUTEX_INITIALIZER;

static long sys_membarrier(int cmd, unsigned flags)
{
	return syscall(__NR_membarrier, cmd, flags, 0);
}

static long (*membarrier_fn)(int, unsigned) = sys_membarrier;

/* Registers for the private expedited barrier, unless the environment or
 * the kernel says no.  Context: bias_mutex held. */
static int bias_decide(void)
{
	long cmds;

	if (!hc_env_flag(HC_ENV_LOCK_BIAS))
		return 2;
	cmds = membarrier_fn(MEMBARRIER_CMD_QUERY, 0);
	if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) ||
	    !(cmds & MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED))
		return 2;
	if (membarrier_fn(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) != 0)
		return 2;
	return 1;
}

bool hc_lock_bias_enabled(void)
{
	int s = __atomic_load_n(&bias_state, __ATOMIC_ACQUIRE);

	if (__builtin_expect(s == 0, 0)) {
		pthread_mutex_lock(&bias_mutex);
		s = bias_state;
		if (s == 0) {
			s = bias_decide();
			__atomic_store_n(&bias_state, s, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&bias_mutex);
	}
	return s == 1;
}

void hc_lock_bias_reset(long (*membarrier)(int cmd, unsigned flags))
{
	pthread_mutex_lock(&bias_mutex);
	membarrier_fn = membarrier ? membarrier : sys_membarrier;
	__atomic_store_n(&bias_state, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&bias_mutex);
}

/* Waiting for a revocation: yields first (it is usually over within a
 * critical section), then sleeps, since the owner may hold the lock
 * across a stream synchronization. */
static void backoff(unsigned *n)
{
	if (++*n < 64) {
		sched_yield();
	} else {
		struct timespec ts = { 0, 50000 };

		nanosleep(&ts, NULL);
	}
}

/* The futex lock's acquisition (Drepper's mutex 2). */
static void futex_acquire(hc_lock *l)
{
	uint32_t expect = 0;

	if (__atomic_compare_exchange_n(&l->state, &expect, 1, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return;
	/* Mark the lock contended before sleeping, so the holder's release
	 * wakes someone; whoever takes it this way leaves it marked 2, which
	 * at worst costs one needless wake. */
	while (__atomic_exchange_n(&l->state, 2, __ATOMIC_ACQUIRE) != 0)
		syscall(SYS_futex, &l->state, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

/* The heavy half of the asymmetric barrier (lock.h).  Registration
 * survives fork (only exec clears it), so the expedited command should
 * not fail once registered; should it anyway, the global command, which
 * needs no registration, gives the same guarantee more slowly. */
static void heavy_barrier(void)
{
	if (membarrier_fn(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0) != 0)
		membarrier_fn(MEMBARRIER_CMD_GLOBAL, 0);
}

/* Takes the bias away from @owner for good.  Return: true when this
 * thread revoked it, false when another thread got there first. */
static bool bias_revoke(hc_lock *l, uintptr_t owner)
{
	unsigned n = 0;

	if (!__atomic_compare_exchange_n(&l->owner, &owner, HC_LOCK_REVOKING, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		return false;
	heavy_barrier();
	/* Pairs with the owner's release store of busy = 0: its critical
	 * sections happen before everything this thread does next. */
	while (__atomic_load_n(&l->busy, __ATOMIC_ACQUIRE) != 0)
		backoff(&n);
	__atomic_store_n(&l->owner, HC_LOCK_REVOKED, __ATOMIC_RELEASE);
	return true;
}

void hc_lock_acquire_slow(hc_lock *l)
{
	uintptr_t self = hc_lock_self();
	unsigned n = 0;

	for (;;) {
		uintptr_t o = __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE);

		if (o == HC_LOCK_REVOKED) {
			break;
		} else if (o == 0) {
			/* The claim, or with biasing off the futex lock for good;
			 * a loser sees the winner's value next time round. */
			__atomic_compare_exchange_n(&l->owner, &o,
						    hc_lock_bias_enabled() ? self : HC_LOCK_REVOKED,
						    false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
		} else if (o == self) {
			if (hc_lock_try_biased(l, self))
				return;
		} else if (o == HC_LOCK_REVOKING) {
			backoff(&n);
		} else if (bias_revoke(l, o)) {
			break;
		}
	}
	futex_acquire(l);
}

#else

/* The pthread lock needs nothing here; ISO C wants a declaration. */
typedef int hc_lock_pthread_only;

#endif /* HC_LOCK_PTHREAD */
