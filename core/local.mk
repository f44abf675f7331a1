# core/: policy and state.  Depends on hal/hal.h only.
libhipcore_internal_la_SOURCES += \
	core/internal.h \
	core/status.c \
	core/staging.c
include core/pools.mk
include core/queues.mk
