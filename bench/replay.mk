# bench/replay.mk: hipsim replay speed (the RMM reader alone until hipsim links).
hc_benches += bench/bench_replay
bench_bench_replay_SOURCES = bench/bench_replay.c \
	tools/hipsim/replay_event.h tools/hipsim/idmap.h tools/hipsim/idmap.c \
	tools/hipsim/read_rmm.h tools/hipsim/read_rmm.c
bench_bench_replay_CFLAGS = $(AM_CFLAGS) -O2
