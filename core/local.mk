# core/: policy and state.  Depends on hal/hal.h only.
libhipcore_internal_la_SOURCES += \
	core/internal.h \
	core/handle.h \
	core/object.h \
	core/lock.h \
	core/lock.c \
	core/status.c \
	core/debug.h \
	core/debug.c \
	core/staging.c \
	core/device.c \
	core/stream.c \
	core/storage.c \
	core/buffer.c \
	core/pools.c \
	core/kernel.c \
	core/graph.c \
	core/errtrack.h \
	core/errtrack.c \
	core/explain.c \
	core/streamops.h \
	core/streamop.c \
	core/lockset.c \
	core/xstream.c \
	core/flush.c \
	core/write.c \
	core/pipeline.c \
	core/stage_copy.h \
	core/stage_copy.c \
	core/read.c \
	core/launch.c \
	core/sync.c \
	core/policy.c \
	core/trace_order.h \
	core/trace_order.c
include core/pool/local.mk
include core/queue/local.mk
