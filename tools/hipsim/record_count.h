/*
 * record_count.h - counting the events of a recorded trace (record_count.c).
 */
#ifndef HIPSIM_RECORD_COUNT_H
#define HIPSIM_RECORD_COUNT_H

#include <stdint.h>

struct hipsim_trace_counts {
	uint64_t events;	/* event messages read */
	uint64_t discarded;	/* sum of discarded-events counts (0 if unknown) */
	unsigned traces;	/* CTF traces (directories with `metadata`) found */
};

/**
 * hipsim_trace_count() - count events and discarded events under @dir.
 * @dir: a session output directory (searched recursively for CTF traces).
 * @out: the counts; all zero when @dir holds no trace (no event recorded).
 *
 * Context: blocking; reads the whole trace.
 * Return: 0, or -1 when the trace cannot be read or babeltrace2 support
 * was not built (message on stderr).
 */
int hipsim_trace_count(const char *dir, struct hipsim_trace_counts *out);

#endif /* HIPSIM_RECORD_COUNT_H */
