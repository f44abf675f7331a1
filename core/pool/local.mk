# core/pool/: the memory manager (pool.h): pools of pages carved into
# slices, their layouts, and the device's cache of idle storage.  Depends on
# core/internal.h and hal/hal.h only: nothing here knows streams.
libhipcore_internal_la_SOURCES += \
	core/pool/pool.h \
	core/pool/pool_internal.h \
	core/pool/free_tree.c \
	core/pool/pages.c \
	core/pool/sliced.c \
	core/pool/exclusive.c \
	core/pool/direct.c \
	core/pool/split.c \
	core/pool/persistent.c \
	core/pool/expandable.c \
	core/pool/lend.c \
	core/pool/layout.c \
	core/pool/manager.h \
	core/pool/manager.c \
	core/pool/park.c \
	core/pool/mode.c \
	core/pool/valid.c \
	core/pool/idle.h \
	core/pool/idle.c
