# core/queues.mk: drop queue, metadata cache, error graph, capture states, cursors.
libhipcore_internal_la_SOURCES += \
	core/drop_queue.h \
	core/drop_queue.c \
	core/metacache.h \
	core/metacache.c \
	core/errgraph.h \
	core/errgraph.c \
	core/capture.h \
	core/capture.c \
	core/cursor.h \
	core/cursor.c
