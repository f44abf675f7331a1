/*
 * policy.c - hc_device_set_policy: drop-queue triggers and the staging limit.
 *
 * dq_max_count and dq_max_bytes apply to the drop queues of streams opened
 * later (hc_strm_queues_init reads dev->policy) and of those open now;
 * stage_max_bytes replaces the 100 MiB limit of hc_write's staging decision
 * (staging.c, hc_write_plan_of) and nothing else: hc_staging_of() stays the
 * seed's.  A 0 field
 * restores the library's default.
 */
#include "core/streamops.h"
#include "trace/hipcore_trace.h"

static hc_status set_policy(hc_device d, const hc_policy *p)
{
	struct hc_dev *dev;
	hc_status rc;

	if (!p)
		return hc_fail(HC_ERR_INVALID, "hc_device_set_policy: policy is NULL");
	rc = hc_dev_get(d, &dev);
	if (rc != HC_OK)
		return rc;
	pthread_mutex_lock(&dev->lock);
	dev->policy.dq_max_count = p->dq_max_count;
	dev->policy.dq_max_bytes = p->dq_max_bytes;
	__atomic_store_n(&dev->policy.stage_max_bytes, p->stage_max_bytes, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i < dev->nstreams; i++) {
		struct hc_strm *st = dev->streams[i];
		struct hc_dq_policy q = hc_dq_policy_default(dev->props.integrated);

		if (p->dq_max_count)
			q.max_count = p->dq_max_count;
		if (p->dq_max_bytes)
			q.max_bytes = p->dq_max_bytes;
		hc_lock_acquire(&st->lock);
		if (st->open)
			hc_dq_set_policy(&st->dq, &q);
		hc_lock_release(&st->lock);
	}
	pthread_mutex_unlock(&dev->lock);
	return HC_OK;
}

hc_status hc_device_set_policy(hc_device d, const hc_policy *p)
{
	uint64_t t0 = HC_TRACE_T0(call);
	hc_status rc = set_policy(d, p);

	HC_TRACE_CALL(device_set_policy, 0, d.id, 0, 0, rc, t0);
	return rc;
}
