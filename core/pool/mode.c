/*
 * mode.c - where reservations go: persistent windows and graph capture.
 *
 * While a persistent window is open or a capture is active, reservations
 * go to the persistent pool (persistent.c): exact-size reuse, else a new
 * allocation, never a dynamic pool.  A capture also records every
 * persistent slice it hands out (the touched set) and, while priming,
 * pins each one, so that warm-up grows the pool to the graph's whole
 * working set; at its end exactly the touched slices are pinned for the
 * graph, and the mode it interrupted comes back.  While a capture is
 * active, cleanup does nothing, install is refused, and a free of device
 * storage keeps it (core.capture, which the kinds read).
 */
#include <stdlib.h>

#include "core/pool/manager.h"

hc_status hc_mm_touch(struct hc_mm *mm, struct hc_slice *s)
{
	if (!s->touched) {
		if (mm->ntouched == mm->cap_touched) {
			size_t cap = mm->cap_touched ? mm->cap_touched * 2 : 16;
			struct hc_slice **t = realloc(mm->touched, cap * sizeof(*t));

			if (!t)
				return hc_fail(HC_ERR_OOM, "no host memory for the capture set");
			mm->touched = t;
			mm->cap_touched = cap;
		}
		mm->touched[mm->ntouched++] = s;
		s->touched = true;
	}
	if (mm->priming && !s->primed) {
		s->primed = true;
		s->pins++;
	}
	return HC_OK;
}

/**
 * hc_mm_mode_push_persistent - open a persistent window; windows nest, and
 * reservations go to the persistent pool while any is open.  During a
 * capture the change is recorded and takes effect when the capture ends.
 * hc_mm_mode_pop closes one (saturating at zero).  NULL is ignored.
 */
void hc_mm_mode_push_persistent(struct hc_mm *mm)
{
	uint32_t *w;

	if (!mm)
		return;
	park_settle(mm);
	w = mm->core.capture ? &mm->saved_windows : &mm->windows;
	if (*w < UINT32_MAX)
		(*w)++;
	HC_VALIDATE(hc_mm_valid(mm));
}

void hc_mm_mode_pop(struct hc_mm *mm)
{
	uint32_t *w;

	if (!mm)
		return;
	park_settle(mm);
	w = mm->core.capture ? &mm->saved_windows : &mm->windows;
	if (*w)
		(*w)--;
	HC_VALIDATE(hc_mm_valid(mm));
}

/* Whether reservations go to the persistent pool now. */
bool hc_mm_persistent(const struct hc_mm *mm)
{
	return mm && (mm->core.capture || mm->windows > 0);
}

/**
 * hc_mm_capture_begin - save the mode, force persistent mode, start the
 * touched set with priming on: every persistent slice handed out is recorded
 * and, while priming, pinned, so warm-up grows the pool to its whole working
 * set.  Re-entrant: a second call changes nothing.  While a capture is
 * active, cleanup does nothing and install is refused.
 */
void hc_mm_capture_begin(struct hc_mm *mm)
{
	if (!mm)
		return;
	park_settle(mm);
	if (mm->core.capture)
		return;
	mm->core.capture = true;
	mm->priming = true;
	mm->saved_windows = mm->windows;
	mm->ntouched = 0;
	HC_VALIDATE(hc_mm_valid(mm));
}

/**
 * hc_mm_capture_priming_end - the slices warm-up retained lose their priming
 * pin: those their owners released become free, and stay in the pool.
 */
void hc_mm_capture_priming_end(struct hc_mm *mm)
{
	size_t i;

	if (!mm)
		return;
	park_settle(mm);
	mm->priming = false;
	for (i = 0; i < mm->ntouched; i++) {
		struct hc_slice *s = mm->touched[i];

		if (s->primed) {
			s->primed = false;
			unpin(s);
		}
	}
	HC_VALIDATE(hc_mm_valid(mm));
}

/**
 * hc_mm_capture_end - restore the mode and pin exactly the persistent slices
 * the capture touched.  *@retained (free() it) holds one reference per such
 * slice; the caller unpins each when the graph is destroyed.
 * Return: HC_OK; HC_ERR_STATE when no capture is active; HC_ERR_OOM.
 */
hc_status hc_mm_capture_end(struct hc_mm *mm, struct hc_slice_ref **retained, size_t *n)
{
	struct hc_slice_ref *refs = NULL;
	size_t i;

	if (!mm || !retained || !n)
		return hc_fail(HC_ERR_INVALID, "manager and results must be non-NULL");
	park_settle(mm);
	if (!mm->core.capture)
		return hc_fail(HC_ERR_STATE, "no capture is active");
	if (mm->ntouched) {
		refs = malloc(mm->ntouched * sizeof(*refs));
		if (!refs)
			return hc_fail(HC_ERR_OOM, "no host memory for %zu retained slices",
				       mm->ntouched);
	}
	hc_mm_capture_priming_end(mm);
	for (i = 0; i < mm->ntouched; i++) {
		struct hc_slice *s = mm->touched[i];

		if (!s->owned && s->pins == 0) {
			hc_persistent_take(s->pool, s);
			s->owned = false;
			s->id = ++mm->next_id;
		}
		s->pins++;
		s->touched = false;
		refs[i].slice = s;
		refs[i].id = s->id;
	}
	*retained = refs;
	*n = mm->ntouched;
	mm->ntouched = 0;
	mm->core.capture = false;
	mm->windows = mm->saved_windows;
	return mm_checked(mm, HC_OK);
}

bool hc_mm_capture_active(const struct hc_mm *mm)
{
	return mm && mm->core.capture;
}
