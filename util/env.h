/*
 * env.h - the one table of the environment variables libhipcore reads.
 *
 * Every HIPCORE_* variable is a row of HC_ENV_LIST: its name, its kind, its
 * default, the file that reads it, where users read about it, and what it
 * does.  Library code reads a variable only through hc_env_get() or
 * hc_env_flag() with the row's id, never with getenv() and a string, so the
 * list below is complete by construction; tests/check_options.c holds it to
 * the sources (every HIPCORE_ name they use is a row, no getenv() call
 * outside util/env.c in the library, the plug-in and the probe module) and
 * to doc/design.md's options section and the user documents.
 *
 * util/ is the bottom layer: it uses libc alone, so core/, hal/, the
 * backends, trace/ and the PyTorch plug-in may all include it (the plug-in
 * and the probe module, which link no internal code, compile util/env.c
 * in).  Every variable is read with secure_getenv(): a setuid or setgid
 * program sees none of them.
 */
#ifndef HIPCORE_UTIL_ENV_H
#define HIPCORE_UTIL_ENV_H

#include <stdbool.h>
#include <stddef.h>

enum hc_env_kind {
	/* "0" or "1"; the value opposite to the default, spelled exactly so,
	 * changes it; anything else (unset included) keeps the default. */
	HC_ENV_FLAG,
	HC_ENV_PATH, /* a file or socket path */
	HC_ENV_WORD, /* one of a few names, each reader's own */
};

/*
 * X(id, name, kind, flag_default, default_text, reader, user_doc, effect)
 * @flag_default: for HC_ENV_FLAG, the value when the variable is unset (a
 * number for other kinds, unused).  @default_text: what happens unset, in
 * words.  @reader: the file that reads it.  @user_doc: the document that
 * tells users about it.
 */
#define HC_ENV_LIST(X)                                                                            \
	X(HC_ENV_HIP_LIBRARY, "HIPCORE_HIP_LIBRARY", HC_ENV_PATH, 0,                              \
	  "search libamdhip64.so.6/.5, then libcudart.so.13/.12", "hal/hip/hip_loader.c",           \
	  "README.md", "the HIP runtime to load instead of searching")                            \
	X(HC_ENV_TIME_KERNELS, "HIPCORE_TIME_KERNELS", HC_ENV_FLAG, 0, "0", "hal/hip/hip_ops.c",  \
	  "README.md", "1: time every launch with events (hipcore:kernel_time), as "                \
	  "hc_device_options.time_kernels")                                                       \
	X(HC_ENV_PINNED_REGISTER, "HIPCORE_PINNED_REGISTER", HC_ENV_FLAG, 1, "1",                 \
	  "hal/hip/hip_ops.c", "README.md",                                                       \
	  "0: large pinned blocks from the runtime's allocator, not mapped here and registered")   \
	X(HC_ENV_VMM, "HIPCORE_VMM", HC_ENV_FLAG, 1, "1", "hal/hip/hip_vmm.c", "README.md",       \
	  "0: the HIP backend reports no virtual memory management")                              \
	X(HC_ENV_OP_TIMES, "HIPCORE_OP_TIMES", HC_ENV_FLAG, 0, "0", "core/device.c", "README.md", \
	  "1: wrap every device in the timing shim, as hc_device_options.op_times")               \
	X(HC_ENV_LOCK_BIAS, "HIPCORE_LOCK_BIAS", HC_ENV_FLAG, 1, "1", "core/lock.c", "README.md", \
	  "0: stream locks without the owner bias (read once, at the first stream lock)")         \
	X(HC_ENV_MM_PARK, "HIPCORE_MM_PARK", HC_ENV_FLAG, 1, "1", "core/pool/manager.c",          \
	  "README.md", "0: memory managers without parked frees (read when a manager is made)")   \
	X(HC_ENV_LTTNG, "HIPCORE_LTTNG", HC_ENV_PATH, 0, "the installed libhipcore-lttng.so",    \
	  "trace/hipcore_trace_load.c", "README.md",                                              \
	  "the probe module to load at start: a path, or 0 for none")                             \
	X(HC_ENV_LTTNG_TRACK, "HIPCORE_LTTNG_TRACK", HC_ENV_PATH, 0, "no handshake",             \
	  "trace/hipcore_track.c", "doc/hipsim.1",                                                \
	  "set by hipsim record: the socket through which the probe module asks to be tracked")   \
	X(HC_ENV_TORCH_BACKEND, "HIPCORE_TORCH_BACKEND", HC_ENV_WORD, 0, "hip",                   \
	  "torch/hipcore_torch.c", "doc/torch.md", "the PyTorch plug-in's backend: hip or sim")   \
	X(HC_ENV_TORCH_POOLS, "HIPCORE_TORCH_POOLS", HC_ENV_WORD, 0, "the library's default",     \
	  "torch/hipcore_torch.c", "doc/torch.md",                                                \
	  "the plug-in's pool layout: default, workload, expandable, subslices or exclusive")     \
	X(HC_ENV_TORCH_LIBRARY, "HIPCORE_TORCH_LIBRARY", HC_ENV_PATH, 0,                          \
	  "beside hipcore_torch.py, then its .libs/", "torch/hipcore_torch.py", "doc/torch.md",  \
	  "the plug-in hipcore_torch.py loads")

enum hc_env_var {
#define HC_ENV_ENUM_(id, ...) id,
	HC_ENV_LIST(HC_ENV_ENUM_)
#undef HC_ENV_ENUM_
	HC_ENV_COUNT
};

struct hc_env_desc {
	const char *name;
	enum hc_env_kind kind;
	bool flag_default;
	const char *default_text;
	const char *reader;
	const char *user_doc;
	const char *effect;
};

/* The table, HC_ENV_COUNT rows in enum order. */
const struct hc_env_desc *hc_env_table(void);

/* @var's value (secure_getenv), NULL when unset or out of range. */
const char *hc_env_get(enum hc_env_var var);

/* A flag's value by the rule of HC_ENV_FLAG; false for a variable that is
 * not a flag. */
bool hc_env_flag(enum hc_env_var var);

#endif /* HIPCORE_UTIL_ENV_H */
