/*
 * explain.c - hc_failure_explain: a failure's chain back to its roots.
 *
 * The text is hc_eg_explain()'s (one line per failure, breadth-first from
 * @failure through its causes, each failure once).  A buffer too small for
 * it receives the text truncated and NUL-terminated, and the call returns
 * HC_ERR_INVALID with the size needed in the message: a caller that only
 * wants the first line can ignore that status.  A query: it emits no trace
 * event (doc/trace-events.md says which calls do).
 */
#include "core/object.h"

hc_status hc_failure_explain(hc_device d, hc_failure_id failure, char *buf, size_t len)
{
	struct hc_dev *dev;
	hc_status rc;

	if (!buf || len == 0)
		return hc_fail(HC_ERR_INVALID, "hc_failure_explain: %s", !buf ? "buf is NULL" : "len is 0");
	buf[0] = '\0';
	rc = hc_dev_get(d, &dev);
	if (rc != HC_OK)
		return rc;
	pthread_mutex_lock(&dev->eg_lock);
	rc = hc_eg_explain(dev->errors, failure, buf, len);
	pthread_mutex_unlock(&dev->eg_lock);
	if (rc == HC_ERR_STALE)
		rc = hc_fail(HC_ERR_STALE, "hc_failure_explain: failure #%llu is not recorded on "
			     "this device", (unsigned long long)failure);
	return rc;
}
