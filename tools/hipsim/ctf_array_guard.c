/*
 * ctf_array_guard.c - the dynamic-array length bound (ctf_array_guard.h).
 *
 * The decoder runs on one thread (the reader's), so the bound and the
 * one-entry cache of element sizes are plain statics.
 */
#include "config.h"

#include "tools/hipsim/ctf_array_guard.h"

static uint64_t max_packet_bytes, refused;

void hs_ctf_array_guard_packet_bytes(uint64_t bytes)
{
	max_packet_bytes = bytes;
}

uint64_t hs_ctf_array_guard_refused(void)
{
	return refused;
}

#ifdef HIPCORE_WITH_BABELTRACE2

#include <babeltrace2/babeltrace.h>
#include <dlfcn.h>
#include <inttypes.h>

#define BITS_CAP (1ull << 40) /* sums stop growing here: no overflow */

/* The least bits a field of class @fc takes in a CTF stream (0: it may
 * take none: dynamic arrays, options, variants). */
static uint64_t min_bits(const bt_field_class *fc, unsigned depth)
{
	bt_field_class_type t = bt_field_class_get_type(fc);
	uint64_t sum = 0;

	if (depth > 32)
		return 0;
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER))
		return bt_field_class_integer_get_field_value_range(fc);
	switch (t) {
	case BT_FIELD_CLASS_TYPE_BOOL:
		return 1;
	case BT_FIELD_CLASS_TYPE_BIT_ARRAY:
		return bt_field_class_bit_array_get_length(fc);
	case BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL:
		return 32;
	case BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL:
		return 64;
	case BT_FIELD_CLASS_TYPE_STRING:
		return 8; /* the terminating NUL */
	case BT_FIELD_CLASS_TYPE_STRUCTURE:
		for (uint64_t i = 0; i < bt_field_class_structure_get_member_count(fc) && sum < BITS_CAP; i++)
			sum += min_bits(bt_field_class_structure_member_borrow_field_class_const(
						bt_field_class_structure_borrow_member_by_index_const(fc, i)),
					depth + 1);
		return sum < BITS_CAP ? sum : BITS_CAP;
	case BT_FIELD_CLASS_TYPE_STATIC_ARRAY: {
		uint64_t n = bt_field_class_array_static_get_length(fc),
			 e = min_bits(bt_field_class_array_borrow_element_field_class_const(fc), depth + 1);

		return e && n > BITS_CAP / e ? BITS_CAP : n * e;
	}
	default:
		return 0;
	}
}

/* Exported (the build hides symbols by default): the plugin must find it. */
__attribute__((visibility("default"))) bt_field_array_dynamic_set_length_status
bt_field_array_dynamic_set_length(bt_field *field, uint64_t length);

bt_field_array_dynamic_set_length_status bt_field_array_dynamic_set_length(bt_field *field, uint64_t length)
{
	typedef bt_field_array_dynamic_set_length_status (*set_length_fn)(bt_field *, uint64_t);
	static set_length_fn real;
	static const bt_field_class *last_elem;
	static uint64_t last_bits;
	const bt_field_class *elem;
	uint64_t bits, room;

	if (!real) {
		real = (set_length_fn)dlsym(RTLD_NEXT, "bt_field_array_dynamic_set_length");
		if (!real) {
			bt_current_thread_error_append_cause_from_unknown(
				"hipsim", __FILE__, __LINE__, "libbabeltrace2's bt_field_array_dynamic_set_length not found");
			return BT_FIELD_DYNAMIC_ARRAY_SET_LENGTH_STATUS_MEMORY_ERROR;
		}
	}
	if (length <= 64) /* every length hipsim reads, and the most common */
		return real(field, length);
	elem = bt_field_class_array_borrow_element_field_class_const(bt_field_borrow_class_const(field));
	if (elem != last_elem) {
		last_bits = min_bits(elem, 0);
		last_elem = elem;
	}
	bits = last_bits;
	room = bits && max_packet_bytes ? max_packet_bytes * 8 / bits : UINT64_MAX;
	if (length > room || length > HS_CTF_ARRAY_MAX) {
		refused++;
		if (length > room)
			bt_current_thread_error_append_cause_from_unknown(
				"hipsim", __FILE__, __LINE__,
				"a dynamic array of the trace claims %" PRIu64 " elements of at least %" PRIu64
				" bits, more than its largest packet (%" PRIu64 " bytes) has room for: a corrupt "
				"length field",
				length, bits, max_packet_bytes);
		else
			bt_current_thread_error_append_cause_from_unknown(
				"hipsim", __FILE__, __LINE__,
				"a dynamic array of the trace claims %" PRIu64 " elements, more than hipsim reads "
				"in one array (%llu): a corrupt length field",
				length, HS_CTF_ARRAY_MAX);
		return BT_FIELD_DYNAMIC_ARRAY_SET_LENGTH_STATUS_MEMORY_ERROR;
	}
	return real(field, length);
}

#endif /* HIPCORE_WITH_BABELTRACE2 */
