# core/queue/: what a stream keeps in order: the drop queue, cross-stream
# cursors, the capture state machine, the metadata cache and the error
# graph.  Each is plain data tested on its own (tests/check_q_*); depends
# on core/internal.h and hal/hal.h only.
libhipcore_internal_la_SOURCES += \
	core/queue/drop_queue.h \
	core/queue/drop_queue.c \
	core/queue/cursor.h \
	core/queue/cursor.c \
	core/queue/capture.h \
	core/queue/capture.c \
	core/queue/metacache.h \
	core/queue/metacache.c \
	core/queue/errgraph.h \
	core/queue/errgraph.c
