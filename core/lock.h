/*
 * lock.h - the stream lock: a futex mutex whose uncontended path is inline.
 *
 * Every public call on a stream takes its lock once, so the lock is part of
 * the price of a pool hit (hc_alloc + hc_free: two round trips).  glibc's
 * pthread_mutex_lock/unlock spend ~75 instructions per round trip in type
 * checks and owner bookkeeping around the one atomic each needs; this lock
 * is the atomic alone when nobody waits: a compare-and-swap to take it, an
 * exchange to give it back.  Waiters sleep on a futex (Drepper's "Futexes
 * are tricky", mutex 2: 0 free, 1 held, 2 held with sleepers), so a
 * contended lock costs no CPU while it waits.
 *
 * Under ThreadSanitizer, and where there is no futex, it is a plain
 * pthread mutex, so TSan keeps seeing the stream locks as locks (lock-order
 * inversions, double unlocks) and not only as atomics.
 */
#ifndef HIPCORE_CORE_LOCK_H
#define HIPCORE_CORE_LOCK_H

#include <pthread.h>

/* -DHC_LOCK_FUTEX keeps the futex lock under TSan too, which then checks
 * that its atomics order what the lock guards. */
#if !defined(HC_LOCK_FUTEX)
#if defined(__SANITIZE_THREAD__)
#define HC_LOCK_PTHREAD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HC_LOCK_PTHREAD 1
#endif
#endif
#endif
#if !defined(__linux__)
#define HC_LOCK_PTHREAD 1
#endif

#ifdef HC_LOCK_PTHREAD

typedef struct {
	pthread_mutex_t m;
} hc_lock;

static inline void hc_lock_init(hc_lock *l)
{
	pthread_mutex_init(&l->m, NULL);
}

static inline void hc_lock_destroy(hc_lock *l)
{
	pthread_mutex_destroy(&l->m);
}

static inline void hc_lock_acquire(hc_lock *l)
{
	pthread_mutex_lock(&l->m);
}

static inline void hc_lock_release(hc_lock *l)
{
	pthread_mutex_unlock(&l->m);
}

#else

#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct {
	uint32_t state; /* 0 free, 1 held, 2 held and someone may sleep on it */
} hc_lock;

static inline void hc_lock_init(hc_lock *l)
{
	__atomic_store_n(&l->state, 0, __ATOMIC_RELAXED);
}

static inline void hc_lock_destroy(hc_lock *l)
{
	(void)l;
}

/* The contended paths: out of line, they are the rare case. */
static __attribute__((noinline, cold, unused)) void hc_lock_acquire_slow(hc_lock *l)
{
	/* Mark the lock contended before sleeping, so the holder's release
	 * wakes someone; whoever takes it this way leaves it marked 2, which
	 * at worst costs one needless wake. */
	while (__atomic_exchange_n(&l->state, 2, __ATOMIC_ACQUIRE) != 0)
		syscall(SYS_futex, &l->state, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

static __attribute__((noinline, cold, unused)) void hc_lock_wake(hc_lock *l)
{
	syscall(SYS_futex, &l->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static inline void hc_lock_acquire(hc_lock *l)
{
	uint32_t expect = 0;

	if (__builtin_expect(!__atomic_compare_exchange_n(&l->state, &expect, 1, false,
							    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED),
			     0))
		hc_lock_acquire_slow(l);
}

static inline void hc_lock_release(hc_lock *l)
{
	if (__builtin_expect(__atomic_exchange_n(&l->state, 0, __ATOMIC_RELEASE) == 2, 0))
		hc_lock_wake(l);
}

#endif /* HC_LOCK_PTHREAD */

#endif /* HIPCORE_CORE_LOCK_H */
