/*
 * private.h - libhipcore.so's private interface, HIPCORE_PRIVATE_1.  Not
 * installed, not public API: no program outside this source tree may use it.
 *
 * libhipcore.so exports two version nodes (libhipcore.map, the linker's
 * version script): HIPCORE_1, exactly the functions hipcore/hipcore.h
 * declares with HC_API, and HIPCORE_PRIVATE_1, exactly the functions below.
 * Nothing else leaves the library: every other symbol is local, and the
 * code is compiled with -fvisibility=hidden besides.  tests/exports.sh
 * compares the library's dynamic symbols, their versions and the version
 * script with these two headers, both ways.
 *
 * The private calls are there for hipsim, which is built from this tree
 * with the library and installed beside it, and links the shared library
 * like any program: its calibrate measures a backend through the backend's
 * own ops table (hal/hal.h), and its calibrate and validate write and read
 * the simulator's profiles (sim/sim.h); its replay allocates and frees
 * with the memory sample it takes after each read under the same stream
 * lock (core/buffer.c).  Those types stay internal; their
 * layouts are not a promise.  A change to a private call's signature, or to
 * a type it passes, is a new node (HIPCORE_PRIVATE_2) with the calls moved
 * into it, so a hipsim linked against the old node fails at load time rather
 * than misreading a struct.  Adding a call to the node is compatible.
 *
 * The declarations are here and nowhere else; hal/hal.h and sim/sim.h,
 * which define the types, include this header.  Each call is defined where
 * its concept lives (named below) and is marked HC_PRIVATE_API, which gives
 * it default visibility so that the version script can export it.
 */
#ifndef HIPCORE_PRIVATE_H
#define HIPCORE_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "hipcore/hipcore.h"

/* The node's number: HIPCORE_PRIVATE_<n> in libhipcore.map. */
#define HIPCORE_PRIVATE_VERSION 1

#if defined(__GNUC__)
#define HC_PRIVATE_API __attribute__((visibility("default")))
#else
#define HC_PRIVATE_API
#endif

struct hc_hal_ops;         /* hal/hal.h */
struct hc_sim_profile;     /* sim/sim.h */
struct hc_sim_profile_key; /* sim/sim.h */

/* hal/hal.c: a backend's ops table by name ("sim", "hip"); NULL when
 * unknown.  hipsim calibrate drives the backend through it directly. */
HC_PRIVATE_API const struct hc_hal_ops *hc_hal_find(const char *name);

/* sim/sim_profile.c: the profile format's keys, in the order a written
 * profile lists them, and their number in @n (hipsim calibrate writes a
 * profile with them). */
HC_PRIVATE_API const struct hc_sim_profile_key *hc_sim_profile_keys(size_t *n);
/* sim/sim_profile.c: fills @out with the built-in "NVIDIA H200 (simulated)"
 * profile. */
HC_PRIVATE_API void hc_sim_profile_builtin(struct hc_sim_profile *out);
/* sim/sim_profile.c: reads and parses the profile file @path: HC_ERR_IO
 * naming the path and errno text, HC_ERR_PARSE naming the line and key,
 * HC_ERR_INVALID for a NULL argument; @out is written only on success. */
HC_PRIVATE_API hc_status hc_sim_profile_load(const char *path, struct hc_sim_profile *out);

/*
 * core/buffer.c: hc_alloc and hc_free that also read, under the stream lock
 * the call holds, what hipsim samples after each: *@usage, the device
 * memory usage of the stream the buffer belongs to (@stream for an
 * allocation), as hc_memory_usage_get(.., HC_MEMORY_DEVICE, ..) would return
 * it right after the call, and, when @idle is not NULL, *@idle, the
 * device's idle bytes, as hc_device_idle_bytes would.  Both are written
 * only when the call returns HC_OK (after a failure, ask those two calls).
 * HC_ERR_INVALID, and no allocation or free, when @usage is NULL; else the
 * same status, effects and tracepoints as hc_alloc and hc_free.
 */
HC_PRIVATE_API hc_status hc_alloc_sampled(hc_stream stream, uint64_t size, hc_buffer *out,
					  hc_memory_usage *usage, uint64_t *idle);
HC_PRIVATE_API hc_status hc_free_sampled(hc_buffer buffer, hc_memory_usage *usage, uint64_t *idle);

#endif /* HIPCORE_PRIVATE_H */
