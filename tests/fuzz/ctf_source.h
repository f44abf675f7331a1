/*
 * ctf_source.h - babeltrace2 trace IR and event messages made from bytes,
 * for tests (tests/fuzz/fuzz_ctf_decode.c, whose header comment gives the
 * byte format; tests/readers/ctf_damaged.c).  Built with babeltrace2 only.
 */
#ifndef TESTS_FUZZ_CTF_SOURCE_H
#define TESTS_FUZZ_CTF_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "tools/hipsim/read_ctf.h"

/* The bytes; they must outlive the reader. */
struct fz_ctf_input {
	const uint8_t *data;
	size_t size;
};

/**
 * fz_ctf_add_source() - hs_ctf_add_source_fn: a new instance of the byte
 * source in @graph; @data is a struct fz_ctf_input.  Each instance reads the
 * bytes from the start, so the reader's first pass sees the same trace.
 * Return: 0, or -1 (out of memory; babeltrace2's error set).
 */
int fz_ctf_add_source(struct bt_graph *graph, void *data, const struct bt_component_source **src);

#endif /* TESTS_FUZZ_CTF_SOURCE_H */
