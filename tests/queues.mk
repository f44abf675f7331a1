# tests/queues.mk: one program, a suite per module (drop queue, metadata cache,
# error graph, capture states, cursors).  No device: fences are fakes.
if HAVE_CHECK
check_PROGRAMS += tests/check_queues
TESTS += tests/check_queues
tests_check_queues_SOURCES = $(TEST_RUNNER) \
	tests/check_queues.h \
	tests/check_queues.c \
	tests/check_q_drop_queue.c \
	tests/check_q_metacache.c \
	tests/check_q_errgraph.c \
	tests/check_q_capture.c \
	tests/check_q_cursor.c
tests_check_queues_CFLAGS = $(TEST_CFLAGS)
tests_check_queues_LDADD = $(TEST_LDADD)
endif

# Allocation failures: malloc/calloc/realloc wrapped by the test (countdown walk).
if HAVE_CHECK
check_PROGRAMS += tests/check_queues_oom
TESTS += tests/check_queues_oom
tests_check_queues_oom_SOURCES = tests/check_queues_oom.c $(TEST_RUNNER)
tests_check_queues_oom_CFLAGS = $(TEST_CFLAGS)
tests_check_queues_oom_LDADD = $(TEST_LDADD)
tests_check_queues_oom_LDFLAGS = -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc
endif
