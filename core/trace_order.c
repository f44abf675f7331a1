/*
 * trace_order.c - the lock of trace_order.h.  Recursive: an ordered call
 * (hc_alloc's cleanup and retry, say) may reach another public call.
 */
#include <pthread.h>

#include "core/trace_order.h"

static pthread_mutex_t order_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

void hc_trace_order_enter(void)
{
	pthread_mutex_lock(&order_lock);
}

void hc_trace_order_exit(void)
{
	pthread_mutex_unlock(&order_lock);
}
