# core/ memory manager: pools, layouts, routing (see core/pool.h).
libhipcore_internal_la_SOURCES += \
	core/pool.h \
	core/pool_internal.h \
	core/free_tree.c \
	core/pool_sliced.c \
	core/pool_exclusive.c \
	core/pool_direct.c \
	core/pool_split.c \
	core/pool_persistent.c \
	core/layout.c \
	core/memory_manager.c
