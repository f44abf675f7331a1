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
 * contended lock costs no CPU while it waits.  And while one thread alone
 * uses a lock, it needs no atomic at all: the owner bias below.
 *
 * Under ThreadSanitizer, and where there is no futex, it is a plain
 * pthread mutex, so TSan keeps seeing the stream locks as locks (lock-order
 * inversions, double unlocks) and not only as atomics.
 */
#ifndef HIPCORE_CORE_LOCK_H
#define HIPCORE_CORE_LOCK_H

#include <pthread.h>
#include <stdbool.h>

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

static inline void hc_lock_disown(hc_lock *l)
{
	(void)l;
}

#else

#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * The owner bias.  Most streams are used by one thread, which then pays
 * two locked instructions per call for nothing (~15 ns a round trip on the
 * H200 machine's host, ~30 ns of a pool hit).  So the first thread to take
 * a lock becomes its owner, and takes and gives it back with plain stores
 * and loads.  The price falls on the first other thread to want it: it
 * revokes the bias for good, and from then on every thread, the old owner
 * included, uses the futex lock described at the top of this file.
 *
 * Why plain accesses suffice (the asymmetric Dekker of userspace RCU and
 * of folly's asymmetricHeavyBarrier): the owner stores busy = 1 and then
 * reloads owner, with only a compiler barrier between them; the revoker
 * stores owner = REVOKING, calls membarrier(PRIVATE_EXPEDITED) and then
 * loads busy.  membarrier runs a full barrier on every CPU that runs a
 * thread of the process (a thread not running has crossed one in its
 * context switch), which turns the owner's compiler barrier into a full
 * one at some point between the revoker's store and its load.  If that
 * point is before the owner's store, the owner's reload sees REVOKING and
 * it backs off; if after, the revoker sees busy = 1 and waits for the
 * owner's release, whose release store of busy = 0 its acquire load pairs
 * with.  Either way at most one of them holds the lock.  Loads of the
 * critical section that the compiler might hoist above the reload stay
 * below the barrier, so the same case split covers them.
 *
 * owner: 0 while no thread has taken the lock (or its owner disowned
 * it), the owner's token (hc_lock_token's address in that thread),
 * HC_LOCK_REVOKING while one thread revokes, HC_LOCK_REVOKED afterwards
 * (and from the first acquisition on where biasing is off).
 * busy: written only by the owner thread of the time; 1 from its fast
 * path's first store to its release.  biased_hold: written by the holder, 1 when the
 * current hold is a biased one, so release undoes the right path; reading
 * busy instead would be wrong: a futex holder may see the owner's
 * tentative busy = 1 of a fast path that is about to back off.
 *
 * A thread's token is the address of its TLS block's hc_lock_token: it
 * cannot be 0, 1 or 2, and it is unique among live threads.  A later
 * thread may get a dead owner's address and inherit its bias; that is
 * sound, since the dead thread holds nothing (its last release happened
 * before its TLS block was recycled, through glibc's own locking).
 *
 * Every call site releases the lock in the thread that took it (the
 * stream lock lives for one public call: hc_strm_lock/hc_strm_unlock and
 * the loops of device.c, pools.c, policy.c, graph.c, stream.c); a biased
 * hold released by another thread would leave busy = 1 behind, so that
 * stays a rule.  No library thread takes stream locks: the copy workers
 * of pipeline.c post to the stream's inbox under its own mutex.  The
 * thread that opens a stream takes its lock once and then disowns it
 * (hc_lock_disown), so a stream opened by one thread for another is
 * biased to its user.  Device-wide calls (hc_device_memory_usage,
 * hc_device_set_policy) and a cross-stream use of a buffer lock other
 * threads' streams: each revokes those streams' bias, once.
 *
 * Registering for membarrier happens once, at the first bias claim;
 * where it fails (old kernel, seccomp, HIPCORE_LOCK_BIAS=0) the first
 * acquisition sets owner to HC_LOCK_REVOKED and the lock is the futex
 * lock above, with one more compare in its inline path.
 */
#define HC_LOCK_REVOKING ((uintptr_t)1)
#define HC_LOCK_REVOKED ((uintptr_t)2)

typedef struct {
	uintptr_t owner;     /* see above */
	uint32_t state;      /* 0 free, 1 held, 2 held and someone may sleep on it */
	uint8_t busy;        /* the owner is in (or entering) a biased hold */
	uint8_t biased_hold; /* the current hold took the biased path */
} hc_lock;

/* lock.c: one per thread; only its address is used. */
extern __thread char hc_lock_token __attribute__((tls_model("initial-exec")));

/* lock.c: the paths that are not an owner's hold, out of line. */
void hc_lock_acquire_slow(hc_lock *l);

/*
 * Tests only: forget whether biasing is on, and decide it again at the
 * next claim with @membarrier (NULL: the system call) and the current
 * environment.  Locks already biased keep their owner.
 */
void hc_lock_bias_reset(long (*membarrier)(int cmd, unsigned flags));
/* Whether biasing is on (decides it, registering, if not yet decided). */
bool hc_lock_bias_enabled(void);

static inline uintptr_t hc_lock_self(void)
{
	return (uintptr_t)&hc_lock_token;
}

static inline void hc_lock_init(hc_lock *l)
{
	__atomic_store_n(&l->owner, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&l->state, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&l->busy, 0, __ATOMIC_RELAXED);
	l->biased_hold = 0;
}

static inline void hc_lock_destroy(hc_lock *l)
{
	(void)l;
}

static __attribute__((noinline, cold, unused)) void hc_lock_wake(hc_lock *l)
{
	syscall(SYS_futex, &l->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/*
 * The owner's hold: announce it, then check that the bias still stands.
 * Return: true when held; false (busy undone) when a revoker came first.
 */
static inline bool hc_lock_try_biased(hc_lock *l, uintptr_t self)
{
	__atomic_store_n(&l->busy, 1, __ATOMIC_RELAXED);
	/* A compiler barrier only: membarrier makes it a full one (above). */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == self, 1)) {
		l->biased_hold = 1;
		return true;
	}
	__atomic_store_n(&l->busy, 0, __ATOMIC_RELAXED);
	return false;
}

/* The owner's hold, else the futex lock's compare-and-swap once the bias
 * is gone (or biasing is off); everything else is out of line. */
static inline void hc_lock_acquire(hc_lock *l)
{
	uintptr_t self = hc_lock_self();
	uintptr_t o = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
	uint32_t expect = 0;

	if (__builtin_expect(o == self, 1)) {
		if (__builtin_expect(hc_lock_try_biased(l, self), 1))
			return;
	} else if (o == HC_LOCK_REVOKED &&
		   __builtin_expect(__atomic_compare_exchange_n(&l->state, &expect, 1, false,
								 __ATOMIC_ACQUIRE,
								 __ATOMIC_RELAXED),
				    1)) {
		return;
	}
	hc_lock_acquire_slow(l);
}

static inline void hc_lock_release(hc_lock *l)
{
	if (__builtin_expect(l->biased_hold, 1)) {
		l->biased_hold = 0;
		__atomic_store_n(&l->busy, 0, __ATOMIC_RELEASE);
		return;
	}
	if (__builtin_expect(__atomic_exchange_n(&l->state, 0, __ATOMIC_RELEASE) == 2, 0))
		hc_lock_wake(l);
}

/*
 * hc_lock_disown - give up the calling thread's bias on @l, not held, so
 * that the next thread to take it claims it: for the thread that opens a
 * stream and hands it to another.  Nothing when @l is another thread's,
 * revoked, or not biased.  The release pairs with the next claim's
 * compare-and-swap, as a release of the lock would.
 */
static inline void hc_lock_disown(hc_lock *l)
{
	uintptr_t self = hc_lock_self();

	__atomic_compare_exchange_n(&l->owner, &self, 0, false, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
}

#endif /* HC_LOCK_PTHREAD */

#endif /* HIPCORE_CORE_LOCK_H */
